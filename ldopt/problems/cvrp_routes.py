"""Exact routes for the CVRP of [`ldopt.problems.cvrp`][ldopt.problems.cvrp].

[`routes()`][ldopt.problems.cvrp_routes.routes] solves instances by VRPSolver's branch, cut and
price where the ``routing`` extra installs it ([`cvrp_vrpsolver`][ldopt.problems.cvrp_vrpsolver]:
its stronger bound solves CaVE's CVRP30 3 to 11 times sooner; below 25 customers Gurobi's cut
loop, where licensed, is the faster and goes first). Otherwise, and for the
instances whose VRPSolver routes do not fit the edge model, it solves them on the edges alone, as
CaVE's model does: the degree rows' MILP, and the rounded capacity cut ``Σ_{e⊆S} x_e ≤ |S| −
⌈q(S)/Q⌉`` (valid for every set ``S`` of customers) for every union ``S`` of a solution's
customer components that violates it, until every component is a route within capacity (then
the solution is optimal: every cut is valid). Unions, not only the components that are cycles
or carry more than ``Q``, solve faster (``benchmarks/bench_cvrp_routes.py``). Gurobi adds them
lazily inside one branch and cut; HiGHS has no lazy constraints, so there the loop re-solves the
MILP after each round of cuts. Both also take the cuts of customer sets grown greedily on the LP
relaxation's fractional edges, round after round until a round finds none: HiGHS before its first
MILP, Gurobi once an instance has taken ``_CUTS_AFTER`` seconds (from the start they slowed
CVRP20's quick instances; they nearly halve CVRP30's fullest seed's time:
``benchmarks/bench_cvrp_routes.py --against no-root-cuts``). Branch and cut finds good routes late,
because its heuristics' routes break cuts it has not yet added; so the routes of PyVRP's hybrid
genetic search (the ``routing`` extra) join the solve once an instance has taken ``_START_AFTER``
seconds (sooner would slow the many quick instances down): Gurobi's branch and cut takes them as
a solution, HiGHS's later MILPs as their start; the optima are the same. Where the fewest routes
carry the demands only just, [`cvrp_packings`][ldopt.problems.cvrp_packings] enumerates them. The
compact model's MTZ rows have a weak LP relaxation, which makes whole-model solves slow beyond a
few customers.
[`cvrp_exact.Routes`][ldopt.problems.cvrp_exact.Routes] is the solver as the model's exact oracle:
declared (``Problem.from_pyomo(m, m.c, oracles=[cvrp_exact.Routes])``), ``solver="auto"`` on the
model uses it everywhere (training optima, validation, regrets).
"""

from __future__ import annotations

import functools
import threading
import time
from itertools import combinations
from typing import Any, Literal

import numpy as np

from ldopt import checks
from ldopt.errors import InputError, SolverError
from ldopt.problems import cvrp, cvrp_packings, cvrp_pyvrp
from ldopt.problems.tsp import edges

RouteSolver = Literal["auto", "vrpsolver", "gurobi", "highs"]
_LOCAL = threading.local()  # one Gurobi environment per thread


def routes(
    costs: Any, num_nodes: int, demand: Any, capacity: float = cvrp.CAPACITY, vehicles: int = cvrp.VEHICLES,
    *, solver: RouteSolver = "auto", time_limit: float | None = None,
) -> np.ndarray:  # fmt: skip
    """Optimal routes ``(B, n(n−1)/2)`` (0/1 edges) for edge costs ``(B, n(n−1)/2)`` (minimised).

    VRPSolver's branch, cut and price ([`cvrp_vrpsolver`][ldopt.problems.cvrp_vrpsolver]) where it
    is installed (where its routes serve a customer alone, the cut loop for ``_CUT_FIRST`` seconds,
    then VRPSolver again with those customers kept from routes of their own for twice as many, and
    so on in turn, each turn with twice the seconds of the one before), else (and for the instances
    whose VRPSolver routes still do not fit the edge model) the capacity cut loop of the module
    docstring: one instance per solve, instances on ldopt's thread pool, started from PyVRP's
    routes where ``pyvrp`` is installed; where the fewest routes carry the demands only just, the
    better of the enumeration of [`cvrp_packings`][ldopt.problems.cvrp_packings] and the cut loop
    with a route more.

    Parameters
    ----------
    costs
        Edge costs ``(B, n(n−1)/2)``.
    num_nodes
        Nodes, the depot included.
    demand
        The customers' demands ``(n − 1,)``.
    capacity
        The vehicles' capacity.
    vehicles
        The most vehicles.
    solver
        ``"vrpsolver"`` (branch, cut and price; the cut loop where its routes do not fit), the cut
        loop on ``"gurobi"`` (lazy cuts) or ``"highs"`` (re-solves), or ``"auto"``: VRPSolver where
        it is installed (below 25 customers, Gurobi first where it is installed and licensed: its
        cut loop is the faster there), else Gurobi where it is installed and licensed for the
        instance's size, else HiGHS.
    time_limit
        Seconds per instance and solver (VRPSolver, Gurobi) or per MILP solve (HiGHS), or ``None``
        (the enumeration has none); an instance that VRPSolver does not finish goes to the cut
        loop, a cut loop's solve that stops early raises ``SolverError``.
    """
    from ldopt.problems import cvrp_vrpsolver  # noqa: PLC0415  (its workers run it as __main__)

    n, q, Q, V = cvrp.check(num_nodes, demand, capacity, vehicles)
    how = checks.choice("solver", solver, ("auto", "vrpsolver", "gurobi", "highs"))
    E = np.array(edges(n))
    c = checks.real_array("costs", costs)  # NaN would never close the cut loop
    if c.ndim != 2 or c.shape[1] != len(E):
        raise InputError(f"costs: expected (B, {len(E)}) edge costs for {n} nodes, got shape {c.shape}")
    if how == "vrpsolver" and not cvrp_vrpsolver.available():
        raise SolverError(
            "routes: solver='vrpsolver' needs VRPSolverEasy 0.1.3 with its library; pip install 'ldopt[routing]'"
        )
    if how == "vrpsolver" or (how == "auto" and cvrp_vrpsolver.available() and not _gurobi_first(n)):
        return _vrpsolver_first(c, n, q, Q, V, time_limit)
    return _cut_loop(c, n, q, Q, V, how, time_limit)


def _vrpsolver_first(c: np.ndarray, n: int, q: np.ndarray, Q: float, V: int, limit: float | None) -> np.ndarray:
    """VRPSolver's routes; where they serve a customer alone, the cut loop and VRPSolver solving
    again (those customers kept from routes of their own) in turn until one of them solves it, the
    cut loop first for ``_CUT_FIRST`` seconds and each turn with twice the seconds of the turn
    before (either may take an hour where the other takes minutes), each within ``limit``; the cut
    loop for what is left (routes over the rounded demands' capacity, failures, ``limit``)."""
    from ldopt.problems import cvrp_vrpsolver  # noqa: PLC0415
    from ldopt.runtime.threads import num_threads  # noqa: PLC0415

    def within(seconds: float) -> float | None:  # a turn's seconds (0: none, ``limit`` alone)
        return limit if not seconds else seconds if limit is None else min(seconds, limit)

    out, alone = cvrp_vrpsolver.routes(c, n, q, Q, V, limit, num_threads())
    again = [i for i in np.flatnonzero(np.isnan(out).any(1)) if alone[i]]
    seconds = _CUT_FIRST
    while again:
        if seconds:
            out[again] = _cut_loop(c[again], n, q, Q, V, "auto", within(seconds), give_up=True)
            again = [i for i in again if np.isnan(out[i]).any()]
            seconds *= 2
        if not (again and _ALONE):
            break
        out[again], ended = cvrp_vrpsolver.routes(
            c[again], n, q, Q, V, within(seconds), num_threads(), [alone[i] or [] for i in again]
        )
        last = not seconds or (limit is not None and seconds >= limit)  # no turn with more seconds
        again = [i for i, e in zip(again, ended, strict=True) if e is None and not last]  # out of time
        seconds *= 2
    rest = np.flatnonzero(np.isnan(out).any(1))
    if len(rest):
        out[rest] = _cut_loop(c[rest], n, q, Q, V, "auto", limit)
    return out


def _gurobi_first(n: int) -> bool:
    """Whether ``"auto"`` takes Gurobi's cut loop before VRPSolver: below ``_VRPSOLVER_FROM``
    customers, where Gurobi is installed and licensed."""
    return n - 1 < _VRPSOLVER_FROM and _gurobi_licensed()


@functools.cache
def _gurobi_licensed() -> bool:
    """Whether Gurobi is installed and licensed (checked once a process: it starts an environment)."""
    from ldopt.solvers.registry import backend  # noqa: PLC0415

    return backend("gurobi").installed().ok


def _cut_loop(
    c: np.ndarray, n: int, q: np.ndarray, Q: float, V: int, how: str, limit: float | None, *, give_up: bool = False
) -> np.ndarray:
    """[`routes()`][ldopt.problems.cvrp_routes.routes] by the capacity cut loop on ``how``'s solver;
    ``give_up``: NaN rows for the instances that reach ``limit`` (else ``SolverError``)."""
    from ldopt.runtime.threads import map_ranges, num_threads, split  # noqa: PLC0415

    E = np.array(edges(n))
    cuts = _Cuts(n, E, q, Q)
    k = cvrp.min_vehicles(q, Q)
    tight = cvrp_packings.packings(q, Q, k) if len(c) else None
    if tight and max(len(s) for part in tight for s in part) > cvrp_packings.LARGEST:
        tight = None  # Held and Karp's tours grow as 2^|S|: the cut loop alone
    loop = not tight or (k < V and k + 1 <= (n - 1) // 2)  # the cut loop's part: all, or k + 1 routes or more
    if tight:
        cuts.fewest = 2 * (k + 1)
    out = np.full(c.shape, np.nan)
    late = np.zeros(len(c), dtype=bool)  # stopped by the limit, given up

    def run(a: int, b: int) -> None:
        for i in range(a, b) if loop else ():
            try:
                found = _solve(c[i], cuts, V, how, limit)
            except _OutOfTime:
                if not give_up:
                    raise
                late[i] = True
                continue
            if found is None and not tight:
                raise SolverError("routes: the vehicles cannot carry the demands (the MILP is infeasible)")
            out[i] = np.nan if found is None else found

    ranges = split(len(c), min(len(c), 8 * num_threads()))
    map_ranges(run, ranges)
    if tight:
        few = np.zeros(c.shape)

        def enumerate_(a: int, b: int) -> None:
            few[a:b] = cvrp_packings.fewest_routes(c[a:b], n, E, tight)

        map_ranges(enumerate_, ranges)
        more = np.where(np.isnan(out).any(1), np.inf, np.einsum("be,be->b", c, np.nan_to_num(out)))
        out = np.where((np.einsum("be,be->b", c, few) <= more)[:, None], few, out)
        out[late] = np.nan  # the fewest routes' optimum, not known to be the optimum
    return out


class _Cuts:
    """The rounded capacity cuts that a solution violates."""

    def __init__(self, n: int, E: np.ndarray, q: np.ndarray, Q: float) -> None:
        self.n, self.E, self.Q = n, E, Q
        self.weight = np.concatenate(([0.0], q))
        self.inner = E[:, 0] > 0
        self.at = [np.flatnonzero((E[:, 0] == v) | (E[:, 1] == v)).astype(np.int32) for v in range(n)]  # edges at v
        self.index = cvrp_pyvrp.edge_index(n)  # the edge of each pair of nodes (the diagonal: none, 0)
        self.fewest = 2 * cvrp.min_vehicles(q, Q)  # the depot's least degree

    def cut(self, inside: np.ndarray, x: np.ndarray, tol: float) -> tuple[np.ndarray, float] | None:
        """``(edges inside S, |S| − ⌈q(S)/Q⌉)`` where ``x`` violates the cut of the customers
        ``inside`` by more than ``tol``, else ``None``."""
        E = self.E
        rhs = int(inside.sum()) - int(np.ceil(self.weight[inside].sum() / self.Q - 1e-9))
        idx = np.flatnonzero(inside[E[:, 0]] & inside[E[:, 1]])
        return (idx.astype(np.int32), float(rhs)) if x[idx].sum() > rhs + tol else None

    def violated(self, x: np.ndarray) -> list[tuple[np.ndarray, float]]:
        """The violated cuts of the unions of an integer ``x``'s customer components (of each
        component alone beyond ``_UNIONS`` components); none where every component is a route
        within capacity."""
        from scipy.sparse import coo_matrix  # noqa: PLC0415
        from scipy.sparse.csgraph import connected_components  # noqa: PLC0415

        E = self.E
        used = (x > 0.5) & self.inner
        graph = coo_matrix((np.ones(used.sum()), (E[used, 0], E[used, 1])), shape=(self.n, self.n))
        _, label = connected_components(graph, directed=False)
        parts = np.unique(label[1:])
        member = label[None, :] == parts[:, None]
        member[:, 0] = False
        sizes = range(1, len(parts) + 1) if len(parts) <= _UNIONS else (1,)
        found = (
            self.cut(member[list(ids)].any(0), x, 0.5) for r in sizes for ids in combinations(range(len(parts)), r)
        )
        return [c for c in found if c is not None]

    def fractional(self, x: np.ndarray) -> list[tuple[np.ndarray, float]]:
        """Violated cuts of customer sets grown greedily on a fractional ``x``: from each customer,
        add the customer most tied to the set (``Σ x`` between them) while any is tied."""
        n = self.n
        tie = x[self.index]
        np.fill_diagonal(tie, 0.0)
        tie[0], tie[:, 0] = 0.0, 0.0
        found: dict[bytes, tuple[np.ndarray, float]] = {}
        for start in range(1, n):
            inside = np.zeros(n, dtype=bool)
            inside[start] = True
            pull = np.where(inside, -1.0, tie[start])
            pull[0] = -1.0
            while pull.max() > 1e-6:
                j = int(np.argmax(pull))
                inside[j] = True
                pull = np.where(inside, -1.0, pull + tie[j])
                pull[0] = -1.0
                if (c := self.cut(inside, x, 1e-3)) is not None:
                    found.setdefault(inside.tobytes(), c)
        return list(found.values())


# benchmarks/bench_cvrp_routes.py sets both to 0 for the previous rule
_UNIONS = 10  # the most components whose every union is checked (2^10 − 1 sets); 0: each alone
_ROOT_ROUNDS = 50  # the most rounds of cuts on the LP relaxation
# benchmarks/bench_cvrp_routes.py sets it to None for the solve without a start
_START_AFTER: float | None = 0.3  # seconds of an instance's solve before PyVRP's routes join it
# benchmarks/bench_cvrp_routes.py sets it to None for Gurobi's solve without them
_CUTS_AFTER: float | None = 0.3  # Gurobi: seconds of an instance's solve before the LP relaxation's cuts join it
# one thread, an instance at a time, the cut loop on Gurobi against VRPSolver (benchmarks/bench_cvrp_routes.py
# --against cut-loop): CVRP20 (seeds 42-46) 0.11-0.33 s against 0.47-1.68 s, CVRP30 11.4-34.1 s against 3.1-3.5 s
_VRPSOLVER_FROM = 25  # customers from which "auto" takes VRPSolver before Gurobi's cut loop
# Where VRPSolver's routes serve a customer alone, the cut loop is most often the quicker, but either may take
# minutes where the other takes seconds (CaVE's CVRP30, probes of the cut loop against VRPSolver solving again:
# seed 48, 8 of its first 10 test instances, 0.1-17 s against 1-418 s; seed 50, 4 of PyEPO's first 7 costs,
# 3.1, 14, 46 and 675 s against 5.0, 32, 164 and 46 s; seed 44, one of its test instances 300-349, over 200 s
# against 17 s): the cut loop has these seconds first (0: none; then VRPSolver twice as many, the cut loop
# twice those, and so on: on one of seed 50's test instances 803 and 849, VRPSolver solving again ran for
# over an hour, where the cut loop takes 119 s and 215 s); benchmarks/bench_cvrp_routes.py --against resolve-first
_CUT_FIRST = 60.0
_ALONE = True  # VRPSolver solves again where its routes serve a customer alone (False: the cut loop alone)


def _pyvrp_routes(c: np.ndarray, cuts: _Cuts, V: int) -> np.ndarray | None:
    """PyVRP's routes ([`cvrp_pyvrp.tours()`][ldopt.problems.cvrp_pyvrp.tours]) as 0/1 edges, a
    start for the cut loop; ``None`` where there are none."""
    found = cvrp_pyvrp.tours(c, cuts.n, cuts.weight[1:], cuts.Q, V, cuts.fewest // 2)
    return None if found is None else cvrp_pyvrp.edges_of(found, cuts.n)


def _solve(c: np.ndarray, cuts: _Cuts, V: int, how: str, limit: float | None) -> np.ndarray | None:
    """One instance, by Gurobi where ``how`` allows and it can, else HiGHS; ``None`` where the
    MILP is infeasible."""
    if how != "highs":
        try:
            return _gurobi(c, cuts, V, limit)
        except ImportError:
            if how == "gurobi":
                raise SolverError("routes: solver='gurobi' needs gurobipy; pip install gurobipy") from None
        except _SizeLimited:
            if how == "gurobi":
                raise SolverError("routes: the instance is beyond gurobipy's size-limited licence") from None
    return _highs(c, cuts, V, limit)


class _SizeLimited(Exception):
    """Gurobi's size-limited licence refused the model."""


class _OutOfTime(SolverError):
    """A cut loop's solve reached its time limit."""


def _degree_rows(cuts: _Cuts, V: int) -> list[tuple[np.ndarray, float, float]]:
    """``(edges, lower, upper)`` of the degree rows: the depot's between ``cuts.fewest`` and ``2V``,
    each customer's exactly 2."""
    return [(cuts.at[0], float(cuts.fewest), 2.0 * V)] + [(cuts.at[v], 2.0, 2.0) for v in range(1, cuts.n)]


def _lp(c: np.ndarray, cuts: _Cuts, V: int) -> Any:
    """HiGHS's LP relaxation (``0 ≤ x ≤ 1``) of the degree rows for the edge costs ``c``."""
    from ldopt.solvers.highs import quiet_highs  # noqa: PLC0415

    h = quiet_highs()
    m = len(c)
    h.addVars(m, np.zeros(m), np.ones(m))
    h.changeColsCost(m, np.arange(m, dtype=np.int32), c)
    for idx, lo, hi in _degree_rows(cuts, V):
        h.addRow(lo, hi, len(idx), idx, np.ones(len(idx)))
    return h


def _root_cuts(h: Any, cuts: _Cuts) -> list[tuple[np.ndarray, float]]:
    """The cuts of ``cuts.fractional`` on the HiGHS model ``h`` solved as an LP, round after round
    (at most ``_ROOT_ROUNDS``) until a round finds none, each round's added to ``h`` as rows:
    HiGHS's MILPs start with them, Gurobi's branch and cut takes them once an instance has taken
    ``_CUTS_AFTER`` seconds."""
    import highspy  # noqa: PLC0415

    out: list[tuple[np.ndarray, float]] = []
    for _ in range(_ROOT_ROUNDS):
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            break
        found = cuts.fractional(np.asarray(h.getSolution().col_value))
        if not found:
            break
        for idx, rhs in found:
            h.addRow(-np.inf, rhs, len(idx), idx, np.ones(len(idx)))
        out += found
    return out


def _gurobi(c: np.ndarray, cuts: _Cuts, V: int, limit: float | None) -> np.ndarray | None:
    """Gurobi with the cuts added lazily in one branch and cut."""
    import gurobipy as gp  # noqa: PLC0415

    env = getattr(_LOCAL, "env", None)
    if env is None:
        env = gp.Env(empty=True)
        env.setParam("OutputFlag", 0)
        env.setParam("Threads", 1)
        env.start()
        _LOCAL.env = env
    with gp.Model(env=env) as model:
        x = model.addMVar(len(c), vtype=gp.GRB.BINARY, obj=c)
        xs = x.tolist()
        for idx, lo, hi in _degree_rows(cuts, V):
            at = gp.quicksum(xs[e] for e in idx)
            if lo == hi:
                model.addConstr(at == lo)
            else:
                model.addConstr(at >= lo)
                model.addConstr(at <= hi)
        model.Params.LazyConstraints = 1
        model.Params.MIPGap = 0.0
        if limit is not None:
            model.Params.TimeLimit = float(limit)
        cb = gp.GRB.Callback
        due = {"cuts": _CUTS_AFTER, "start": _START_AFTER}  # what joins a hard instance, and when

        def separate(m: Any, where: int) -> None:
            if where == cb.MIPSOL:
                val = np.round(np.asarray(m.cbGetSolution(xs)))
                for idx, rhs in cuts.violated(val):
                    m.cbLazy(gp.quicksum(xs[i] for i in idx) <= rhs)
            elif where == cb.MIPNODE and any(t is not None for t in due.values()):
                now = m.cbGet(cb.RUNTIME)
                if due["cuts"] is not None and now >= due["cuts"]:
                    due["cuts"] = None  # a hard instance: the LP relaxation's cuts tighten its tree's bound
                    for idx, rhs in _root_cuts(_lp(c, cuts, V), cuts):
                        m.cbLazy(gp.quicksum(xs[i] for i in idx) <= rhs)
                if due["start"] is not None and now >= due["start"]:
                    due["start"] = None  # good routes prune its tree
                    if (found := _pyvrp_routes(c, cuts, V)) is not None:
                        m.cbSetSolution(xs, found.tolist())
                        m.cbUseSolution()

        try:
            model.optimize(separate)
        except gp.GurobiError as exc:
            if "size-limited" in str(exc).lower() or getattr(exc, "errno", 0) == 10010:
                raise _SizeLimited from None
            raise SolverError(f"routes: Gurobi failed: {exc}") from None
        if model.Status == gp.GRB.INFEASIBLE:
            return None
        if model.Status == gp.GRB.TIME_LIMIT:
            raise _OutOfTime(f"routes: Gurobi reached the time limit ({limit} s) before the optimum")
        if model.Status != gp.GRB.OPTIMAL:
            raise SolverError(f"routes: Gurobi ended with status {model.Status}, expected OPTIMAL (2)")
        return np.round(np.asarray(x.X))


def _highs(c: np.ndarray, cuts: _Cuts, V: int, limit: float | None) -> np.ndarray | None:
    """HiGHS: the MILP re-solved after each round of cuts on one persistent model."""
    import highspy  # noqa: PLC0415

    began = time.perf_counter()
    h = _lp(c, cuts, V)
    h.setOptionValue("mip_rel_gap", 0.0)
    if limit is not None:
        h.setOptionValue("time_limit", float(limit))
    _root_cuts(h, cuts)  # the LP relaxation's cuts first, then the MILP's
    m = len(c)
    cols = np.arange(m, dtype=np.int32)
    h.changeColsIntegrality(m, cols, np.full(m, highspy.HighsVarType.kInteger))
    start, asked = None, _START_AFTER is None
    while True:
        if not asked and time.perf_counter() - began >= (_START_AFTER or 0.0):
            start, asked = _pyvrp_routes(c, cuts, V), True  # a hard instance; routes hold every cut
        if start is not None:
            h.setSolution(m, cols, start)
        h.run()
        if h.getModelStatus() == highspy.HighsModelStatus.kInfeasible:
            return None
        if h.getModelStatus() == highspy.HighsModelStatus.kTimeLimit:
            raise _OutOfTime(f"routes: HiGHS reached the time limit ({limit} s) before the optimum")
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            raise SolverError(f"routes: HiGHS ended with {h.modelStatusToString(h.getModelStatus())}")
        x = np.round(np.asarray(h.getSolution().col_value))
        found = cuts.violated(x)
        if not found:
            return x
        for idx, rhs in found:
            h.addRow(-np.inf, rhs, len(idx), idx, np.ones(len(idx)))
