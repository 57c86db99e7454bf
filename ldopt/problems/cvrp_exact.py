"""The CVRP model's points for routes, and its exact oracle.

[`full_solution()`][ldopt.problems.cvrp_exact.full_solution] turns routes (edges) into points of the
model of [`cvrp.build_model()`][ldopt.problems.cvrp.build_model] (arcs and loads included);
[`optima()`][ldopt.problems.cvrp_exact.optima] gives exact optima as an
[`Optima`][ldopt.evaluate.optima.Optima]; [`Routes`][ldopt.problems.cvrp_exact.Routes] is
[`routes()`][ldopt.problems.cvrp_routes.routes] as the model's exact oracle: declared
(``Problem.from_pyomo(m, m.c, oracles=[Routes])``), ``solver="auto"`` on the model uses it
everywhere (training optima, validation, regrets).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ldopt.errors import InputError
from ldopt.model.compiled import CompiledModel
from ldopt.oracles.base import Oracle
from ldopt.problems import cvrp
from ldopt.problems.cvrp_routes import RouteSolver, routes
from ldopt.problems.tsp import edges


def orient(x: np.ndarray, num_nodes: int, demand: Any) -> tuple[np.ndarray, np.ndarray]:
    """Arcs ``(B, 2·edges)`` (``m.y``'s order) and loads ``(B, n − 1)`` (``m.u``) that make routes
    ``x`` ``(B, edges)`` points of the model: each route leaves the depot by its lower-numbered
    end, and a customer's load is the demand delivered up to it.

    Parameters
    ----------
    x
        0/1 edges ``(B, n(n−1)/2)``, each instance a set of routes through the depot.
    num_nodes
        Nodes, the depot included.
    demand
        The customers' demands.
    """
    n = int(num_nodes)
    q = np.asarray(demand, dtype=float)
    E = edges(n)
    arc = {}
    for e, (i, j) in enumerate(E):
        arc[i, j], arc[j, i] = 2 * e, 2 * e + 1
    chosen = np.asarray(x, dtype=float) > 0.5
    y, u = np.zeros((len(chosen), 2 * len(E))), np.zeros((len(chosen), n - 1))
    for b, row in enumerate(chosen):
        near: dict[int, list[int]] = {v: [] for v in range(n)}
        for k in np.flatnonzero(row):
            i, j = E[k]
            near[i].append(j)
            near[j].append(i)
        seen = {0}
        for start in sorted(near[0]):
            if start in seen:
                continue
            prev, v, load = 0, start, 0.0
            while v != 0:
                if v in seen or len(near[v]) != 2:
                    raise InputError(f"x[{b}]: expected routes through the depot, got a node {v} off a route")
                seen.add(v)
                load += q[v - 1]
                y[b, arc[prev, v]], u[b, v - 1] = 1.0, load
                prev, v = v, next(w for w in near[v] if w != prev)
            y[b, arc[prev, 0]] = 1.0
        if len(seen) != n:
            raise InputError(f"x[{b}]: expected routes that visit every customer, got {n - len(seen)} left out")
    return y, u


def full_solution(problem: Any, x_edges: np.ndarray, num_nodes: int, demand: Any) -> np.ndarray:
    """Routes ``(B, edges)`` as points of ``problem`` ``(B, num_vars)``, arcs and loads included.

    Parameters
    ----------
    problem
        The compiled model of ``cvrp.build_model(num_nodes, demand, ...)``.
    x_edges
        0/1 edges ``(B, n(n−1)/2)``.
    num_nodes
        Nodes, the depot included.
    demand
        The customers' demands.
    """
    return _points(x_edges, *cvrp.variable_index(problem, num_nodes), problem.num_vars, num_nodes, demand)


def _points(x_edges: np.ndarray, ex: Any, yx: Any, ux: Any, num_vars: int, num_nodes: int, demand: Any) -> np.ndarray:
    """Routes as points ``(B, num_vars)`` with the edges, arcs and loads at positions ``ex``, ``yx``, ``ux``."""
    out = np.zeros((len(x_edges), num_vars))
    out[:, ex] = x_edges
    out[:, yx], out[:, ux] = orient(x_edges, num_nodes, demand)
    return out


def optima(
    problem: Any, costs: Any, num_nodes: int, demand: Any, capacity: float = cvrp.CAPACITY,
    vehicles: int = cvrp.VEHICLES, *, solver: RouteSolver = "auto",
) -> Any:  # fmt: skip
    """The exact optima of ``costs`` for the model of ``cvrp.build_model(...)``, as an
    [`Optima`][ldopt.evaluate.optima.Optima] (value = bound, routes with their arcs and loads).

    Parameters
    ----------
    problem
        The compiled model.
    costs
        Edge costs ``(B, n(n−1)/2)``.
    num_nodes
        Nodes, the depot included.
    demand
        The customers' demands.
    capacity
        The vehicles' capacity.
    vehicles
        The most vehicles.
    solver
        [`routes()`][ldopt.problems.cvrp_routes.routes]'s solver.
    """
    from ldopt.evaluate.optima import Optima  # noqa: PLC0415

    c, _ = problem.check_costs(costs)
    x = full_solution(problem, routes(c, num_nodes, demand, capacity, vehicles, solver=solver), num_nodes, demand)
    value = problem.objective(x, c)
    return Optima(problem.sense, value, value.copy(), x)


_FINGERPRINTS: dict[tuple, str] = {}  # (n, demands, Q, V) -> the fingerprint of build_model(...)


def _is_cvrp_model(model: CompiledModel) -> tuple[int, np.ndarray, float, int] | None:
    """``(n, q, Q, V)`` when ``model`` is exactly ``cvrp.build_model(n, q, Q, V)`` compiled (rows,
    bounds, types and cost map alike), else ``None``; cheap on other models."""
    names = model.var_names
    if not names or not names[0].startswith("x[") or not any(r.name == "mtz[1,2]" for r in model.rows):
        return None
    E = sum(1 for name in names if name.startswith("x["))
    n = round(float((1 + np.sqrt(1 + 8 * E)) / 2))
    if n < 4 or n * (n - 1) // 2 != E or model.num_vars != 3 * E + n - 1:
        return None
    try:
        _, _, ux = cvrp.positions(names, n)
        depot = next(r for r in model.rows if r.name == "deg[0]")
    except (InputError, StopIteration):
        return None
    q, Q, V = model.var_lb[ux].copy(), float(model.var_ub[ux][0]), round(depot.hi / 2)
    key = (n, q.tobytes(), Q, V)
    if key not in _FINGERPRINTS:
        from ldopt.model.problem import Problem  # noqa: PLC0415

        try:
            m = cvrp.build_model(n, q, Q, V)
        except InputError:
            return None
        if len(_FINGERPRINTS) > 64:
            _FINGERPRINTS.clear()
        _FINGERPRINTS[key] = Problem.from_pyomo(m, m.c).compiled.fingerprint()
    return (n, q, Q, V) if model.fingerprint() == _FINGERPRINTS[key] else None


class Routes(Oracle):
    """The whole CVRP model of [`build_model()`][ldopt.problems.cvrp.build_model] solved exactly by
    [`routes()`][ldopt.problems.cvrp_routes.routes]: declared on the problem
    (``Problem.from_pyomo(m, m.c, oracles=[Routes])``), ``solver="auto"`` on that model solves
    routes by the cut loop instead of the compact model's MILP. An objective that prices an arc or a
    load goes to the fallback (HiGHS on the model).

    Parameters
    ----------
    num_nodes
        Nodes, the depot included.
    demand
        The customers' demands.
    capacity
        The vehicles' capacity.
    vehicles
        The most vehicles.
    var_names
        The model's variable names.
    """

    name = "routes"

    def __init__(self, num_nodes: int, demand: Any, capacity: float, vehicles: int, var_names: Any) -> None:
        self.n, self.q, self.Q, self.V = cvrp.check(num_nodes, demand, capacity, vehicles)
        self.edge_vars, yx, ux = cvrp.positions(var_names, self.n)
        self.arc_vars, self.load_vars = yx, ux
        self.num_vars = len(var_names)

    @classmethod
    def fit(cls, block: CompiledModel) -> Routes | None:
        found = _is_cvrp_model(block)
        return None if found is None else cls(*found, block.var_names)

    def describe(self) -> str:
        return f"optimal routes for {self.n - 1} customers (capacity cut loop: Gurobi's lazy cuts, else HiGHS)"

    def argmax(self, lam: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        lam = np.asarray(lam, dtype=float)
        priced = (lam[:, np.concatenate((self.arc_vars, self.load_vars))] != 0).any(axis=1)
        x = np.zeros((len(lam), self.num_vars))
        keep = np.flatnonzero(~priced)
        if len(keep):
            found = routes(-lam[np.ix_(keep, self.edge_vars)], self.n, self.q, self.Q, self.V)
            x[keep] = _points(found, self.edge_vars, self.arc_vars, self.load_vars, self.num_vars, self.n, self.q)
        return self.finish(lam, x, priced, out)
