"""Exact tours for the TSP of [`ldopt.problems.tsp`][ldopt.problems.tsp], and the model's points
for them.

[`tours()`][ldopt.problems.tsp_tours.tours] solves instances by the subtour cut loop of Dantzig,
Fulkerson and Johnson on HiGHS (the compact model's flow rows have a weak LP relaxation, which
makes whole-model solves slow beyond a few nodes); [`optima()`][ldopt.problems.tsp_tours.optima]
gives them as an [`Optima`][ldopt.evaluate.optima.Optima], flows included, for regrets and validation.
[`Tours`][ldopt.problems.tsp_tours.Tours] is the same solver as the model's exact oracle:
declared (``Problem.from_pyomo(m, m.c, oracles=[Tours])``), ``solver="auto"`` on the model uses
it everywhere (training optima, validation, regrets).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ldopt.errors import InputError, SolverError
from ldopt.model.compiled import CompiledModel
from ldopt.oracles.base import Oracle
from ldopt.problems.tsp import _nodes, build_model, edges, positions, variable_index
from ldopt.problems.tsp_oracle import OneTree


def tours(costs: Any, num_nodes: int, *, time_limit: float | None = None) -> np.ndarray:
    """Optimal tours ``(B, n(n−1)/2)`` (0/1 edges) for edge costs ``(B, n(n−1)/2)`` (minimised).

    The subtour cut loop on one persistent HiGHS model per instance: solve the degree rows' MILP,
    add ``Σ_{e⊆S} x_e ≤ |S| − 1`` for every cycle ``S`` of its solution, repeat until the solution
    is one cycle (then it is optimal: every cut is valid). Instances run on ldopt's thread pool.

    Parameters
    ----------
    costs
        Edge costs ``(B, n(n−1)/2)``.
    num_nodes
        Nodes.
    time_limit
        Seconds per MILP solve, or ``None``; a solve that stops early raises ``SolverError``.
    """
    from ldopt.runtime.threads import map_ranges, num_threads, split  # noqa: PLC0415

    n = _nodes(num_nodes)
    E = np.array(edges(n))
    c = np.asarray(costs, dtype=float)
    if c.ndim != 2 or c.shape[1] != len(E):
        raise InputError(f"costs: expected (B, {len(E)}) edge costs for {n} nodes, got shape {c.shape}")
    out = np.zeros(c.shape)

    def run(a: int, b: int) -> None:
        for i in range(a, b):
            out[i] = _tour(c[i], n, E, time_limit)

    map_ranges(run, split(len(c), min(len(c), 8 * num_threads())))
    return out


def _tour(c: np.ndarray, n: int, E: np.ndarray, time_limit: float | None) -> np.ndarray:
    """One instance of [`tours()`][ldopt.problems.tsp_tours.tours]."""
    import highspy  # noqa: PLC0415
    from scipy.sparse import coo_matrix  # noqa: PLC0415
    from scipy.sparse.csgraph import connected_components  # noqa: PLC0415

    from ldopt.solvers.highs import quiet_highs  # noqa: PLC0415

    h = quiet_highs()
    h.setOptionValue("mip_rel_gap", 0.0)
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    m = len(E)
    h.addVars(m, np.zeros(m), np.ones(m))
    h.changeColsCost(m, np.arange(m, dtype=np.int32), c)
    h.changeColsIntegrality(m, np.arange(m, dtype=np.int32), np.full(m, highspy.HighsVarType.kInteger))
    for v in range(n):
        idx = np.flatnonzero((E[:, 0] == v) | (E[:, 1] == v)).astype(np.int32)
        h.addRow(2.0, 2.0, len(idx), idx, np.ones(len(idx)))
    while True:
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            raise SolverError(f"tours: HiGHS ended with {h.modelStatusToString(h.getModelStatus())}")
        x = np.round(np.asarray(h.getSolution().col_value))
        used = x > 0.5
        graph = coo_matrix((np.ones(used.sum()), (E[used, 0], E[used, 1])), shape=(n, n))
        k, label = connected_components(graph, directed=False)
        if k == 1:
            return x
        for s in range(k):
            inside = label == s
            idx = np.flatnonzero(inside[E[:, 0]] & inside[E[:, 1]]).astype(np.int32)
            h.addRow(-np.inf, float(inside.sum() - 1), len(idx), idx, np.ones(len(idx)))


def tree_flows(x: np.ndarray, num_nodes: int) -> np.ndarray:
    """The arc flows ``(B, 2·(n−1)(n−2)/2)`` (``m.f``'s order) that make 1-trees ``x`` ``(B, edges)``
    feasible: node 1 sends one unit to every other node of ``1..n−1`` along the tree (the subtree
    sizes of the 1-tree oracle, which returns ``x`` itself as the best 1-tree for the objective ``x``).

    Parameters
    ----------
    x
        1-trees (or tours) ``(B, n(n−1)/2)``.
    num_nodes
        Nodes.
    """
    n = _nodes(num_nodes)
    chosen = np.asarray(x, dtype=float) > 0.5
    if chosen.ndim != 2 or chosen.shape[1] != n * (n - 1) // 2:
        raise InputError(f"x: expected (B, {n * (n - 1) // 2}) edges for {n} nodes, got shape {chosen.shape}")
    found, flows = OneTree.on_edges(n).one_trees(chosen.astype(float))
    wrong = np.flatnonzero(((found > 0.5) != chosen).any(axis=1))
    if len(wrong):
        raise InputError(
            f"x[{int(wrong[0])}]: expected a 1-tree (a spanning tree of nodes 1..{n - 1} and two edges at node 0), "
            "got another set of edges"
        )
    return flows


def optima(problem: Any, costs: Any, num_nodes: int) -> Any:
    """The exact optima of ``costs`` for the model of ``build_model(num_nodes)``, as an
    [`Optima`][ldopt.evaluate.optima.Optima] (value = bound, tours with their flows) from
    [`tours()`][ldopt.problems.tsp_tours.tours].

    Parameters
    ----------
    problem
        The compiled model (``ldopt.Problem.from_pyomo(build_model(n), model.c)``).
    costs
        Edge costs ``(B, n(n−1)/2)``.
    num_nodes
        Nodes.
    """
    from ldopt.evaluate.optima import Optima  # noqa: PLC0415

    c, _ = problem.check_costs(costs)
    x = full_solution(problem, tours(c, num_nodes), num_nodes)
    value = problem.objective(x, c)
    return Optima(problem.sense, value, value.copy(), x)


def full_solution(problem: Any, x_edges: np.ndarray, num_nodes: int) -> np.ndarray:
    """Tours (or 1-trees) ``(B, edges)`` as points of ``problem`` ``(B, num_vars)``, flows included.

    Parameters
    ----------
    problem
        The compiled model of ``build_model(num_nodes)``.
    x_edges
        0/1 edges ``(B, n(n−1)/2)``.
    num_nodes
        Nodes.
    """
    ex, fx = variable_index(problem, num_nodes)
    out = np.zeros((len(x_edges), problem.num_vars))
    out[:, ex] = x_edges
    out[:, fx] = tree_flows(x_edges, num_nodes)
    return out


_FINGERPRINTS: dict[int, str] = {}  # nodes -> the fingerprint of build_model(nodes), compiled once


def _is_tsp_model(model: CompiledModel) -> int | None:
    """The node count ``n`` when ``model`` is exactly ``tsp.build_model(n)`` compiled (rows, bounds,
    types and cost map alike), else ``None``; cheap on other models."""
    names = model.var_names
    if not names or not names[0].startswith("x[") or not any(r.name == "count" for r in model.rows):
        return None
    E = sum(1 for name in names if name.startswith("x["))
    n = round(float((1 + np.sqrt(1 + 8 * E)) / 2))
    if n < 4 or n * (n - 1) // 2 != E or model.num_vars != E + (n - 1) * (n - 2):
        return None
    if n not in _FINGERPRINTS:
        from ldopt.model.problem import Problem  # noqa: PLC0415

        m = build_model(n)
        _FINGERPRINTS[n] = Problem.from_pyomo(m, m.c).compiled.fingerprint()
    return n if model.fingerprint() == _FINGERPRINTS[n] else None


class Tours(Oracle):
    """The whole TSP model of [`build_model()`][ldopt.problems.tsp.build_model] solved exactly by
    [`tours()`][ldopt.problems.tsp_tours.tours]: declared on the problem (``Problem.from_pyomo(m,
    m.c, oracles=[Tours])``), ``solver="auto"`` (and ``"oracle"``) on that model — the training
    sets' optima, validation, regrets, full-problem losses — solves tours by the cut loop instead of
    the compact model's MILP. An objective that prices a flow goes to the fallback (HiGHS on the
    compact model).

    Parameters
    ----------
    num_nodes
        Nodes.
    edge_vars
        The positions of ``x[e]`` among the model's variables.
    flow_vars
        The positions of ``f[i,j]``.
    num_vars
        The model's variables.
    """

    name = "tours"

    def __init__(self, num_nodes: int, edge_vars: Any, flow_vars: Any, num_vars: int) -> None:
        self.n, self.edge_vars, self.flow_vars = int(num_nodes), np.asarray(edge_vars), np.asarray(flow_vars)
        self.num_vars = int(num_vars)

    @classmethod
    def fit(cls, block: CompiledModel) -> Tours | None:
        n = _is_tsp_model(block)
        if n is None:
            return None
        ex, fx = positions(block.var_names, n)
        return cls(n, ex, fx, block.num_vars)

    def describe(self) -> str:
        return f"optimal tours on {self.n} nodes (subtour cut loop on HiGHS)"

    def argmax(self, lam: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        lam = np.asarray(lam, dtype=float)
        priced = (lam[:, self.flow_vars] != 0).any(axis=1)  # no tour algorithm prices a flow
        x = np.zeros((len(lam), self.num_vars))
        keep = np.flatnonzero(~priced)
        if len(keep):
            tour = tours(-lam[np.ix_(keep, self.edge_vars)], self.n)
            x[np.ix_(keep, self.edge_vars)] = tour
            x[np.ix_(keep, self.flow_vars)] = tree_flows(tour, self.n)
        return self.finish(lam, x, priced, out)
