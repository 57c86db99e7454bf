"""The CVRP (`ldopt.problems.cvrp`, `cvrp_routes`, `cvrp_exact`, `cvrp_oracle`): CaVE's demands,
exact routes (HiGHS and Gurobi) against an exact solve of the compact model, the k-forest
relaxation against brute force over its own set and as a relaxation of its block, Lagrangian
bounds below every optimum, and training through the routes block."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from test_tsp import _routing_example

import ldopt
import ldopt_torch as lt
from ldopt.decomposition import user_oracles
from ldopt.decomposition.user_oracles import check_oracle
from ldopt.errors import InputError, SolverError
from ldopt.oracles import fit_oracle
from ldopt.problems import (
    cvrp,
    cvrp_exact,
    cvrp_oracle,
    cvrp_packings,
    cvrp_pyvrp,
    cvrp_routes,
    cvrp_vrpsolver,
    tsp,
    tsp_tours,
)
from ldopt.runtime import cache
from ldopt.solvers.registry import backend

N, Q, V = 7, 10.0, 3  # nodes (the depot and 6 customers): the compact model's HiGHS solve is quick


def _gurobi_ok() -> bool:
    return backend("gurobi").installed().ok  # installed and licensed


NO_VRPSOLVER = "VRPSolver needs VRPSolverEasy 0.1.3 with its library (the 'routing' extra)"


@pytest.fixture(scope="module")
def small():
    q = np.random.default_rng(5).uniform(1.0, 6.0, N - 1)
    m = cvrp.build_model(N, q, Q, V)
    p = ldopt.Problem.from_pyomo(m, m.c, oracles=[cvrp_exact.Routes])
    return p, q, ldopt.decompose(p, cvrp.blocks(N), oracles=cvrp_oracle.block_oracles(p, N, q, Q, V))


@pytest.fixture(scope="module")
def small_q(small):
    p, q, _ = small
    oracles = cvrp_oracle.block_oracles(p, N, q, Q, V, relaxation="q-routes")
    return p, q, ldopt.decompose(p, cvrp.blocks(N), oracles=oracles)


def test_demands_are_cave_s():
    """CaVE draws ``np.random.rand(20) * 10`` right after ``np.random.seed(seed)`` (legacy global
    stream, run here in a child process so that this one's stays untouched)."""
    code = "import numpy as np; np.random.seed(44); print(repr((np.random.rand(20) * 10).tolist()))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert cvrp.demands(44).tolist() == eval(out)


@pytest.mark.parametrize("enumerate_", [True, False], ids=["enumeration", "cut-loop"])
@pytest.mark.parametrize("solver", ["highs", "gurobi", "vrpsolver"])
def test_routes_are_optimal_and_feasible(small, solver, enumerate_, monkeypatch):
    """Exact routes equal HiGHS on the compact MTZ model (the reference), with negative costs
    too, and are points of the model with their arcs and loads: by the enumeration of the three
    routes that six customers need here, or by the cut loop alone (no enumeration allowed), or by
    VRPSolver (the cut loop only where its routes do not fit)."""
    if solver == "gurobi" and not _gurobi_ok():
        pytest.skip("gurobipy is not installed or has no licence")
    if solver == "vrpsolver" and not cvrp_vrpsolver.available():
        pytest.skip(NO_VRPSOLVER)
    p, q, _ = small
    assert cvrp_packings.packings(q, Q, cvrp.min_vehicles(q, Q))  # few partitions: enumerated by default
    if not enumerate_:
        monkeypatch.setattr(cvrp_packings, "_MOST", 0)
    rng = np.random.default_rng(1)
    C = np.concatenate((rng.uniform(0.0, 5.0, (8, 21)), rng.normal(size=(4, 21))))
    ref = p.solve(C, solver="highs")
    assert (ref.status == "optimal").all()
    x = cvrp_routes.routes(C, N, q, Q, V, solver=solver)
    np.testing.assert_allclose((C * x).sum(1), ref.objective, atol=1e-7)
    full = cvrp_exact.full_solution(p, x, N, q)
    assert p.violation(full).max() <= 1e-9  # the MTZ rows: no route over capacity


@pytest.mark.parametrize("pyvrp", ["installed", "missing"])
@pytest.mark.parametrize("solver", ["highs", "gurobi"])
def test_a_start_from_pyvrp_keeps_the_optimum(solver, pyvrp, monkeypatch):
    """The cut loop started at once from PyVRP's routes (or, where pyvrp is not installed, from
    none) and, on Gurobi, the LP relaxation's cuts reaches the optima of the cut loop without
    either, on 12 instances of 8 customers with room for a fourth route (some costs negative); the
    starts were routes on most of them."""
    if solver == "gurobi" and not _gurobi_ok():
        pytest.skip("gurobipy is not installed or has no licence")
    if pyvrp == "installed":
        pytest.importorskip("pyvrp", reason="PyVRP's start needs pyvrp (the 'routing' extra)")
    else:
        monkeypatch.setitem(sys.modules, "pyvrp", None)  # import pyvrp raises ImportError
    n, cap, most = 9, 12.0, 4
    rng = np.random.default_rng(4)
    q = rng.uniform(1.0, 5.0, n - 1)
    C = rng.uniform(0.0, 5.0, (12, n * (n - 1) // 2)) - np.repeat([0.0, 2.0], 6)[:, None]
    monkeypatch.setattr(cvrp_packings, "_MOST", 0)  # the cut loop alone
    monkeypatch.setattr(cvrp_routes, "_START_AFTER", None)
    monkeypatch.setattr(cvrp_routes, "_CUTS_AFTER", None)
    ref = (C * cvrp_routes.routes(C, n, q, cap, most, solver=solver)).sum(1)
    starts: list[np.ndarray | None] = []
    lp_cuts: list[list] = []
    found, root_cuts = cvrp_routes._pyvrp_routes, cvrp_routes._root_cuts
    monkeypatch.setattr(cvrp_routes, "_START_AFTER", 0.0)
    monkeypatch.setattr(cvrp_routes, "_CUTS_AFTER", 0.0)
    monkeypatch.setattr(cvrp_routes, "_pyvrp_routes", lambda *a: starts.append(found(*a)) or starts[-1])
    monkeypatch.setattr(cvrp_routes, "_root_cuts", lambda *a: lp_cuts.append(root_cuts(*a)) or lp_cuts[-1])
    x = cvrp_routes.routes(C, n, q, cap, most, solver=solver)
    np.testing.assert_allclose((C * x).sum(1), ref, atol=1e-7)
    assert _is_routes(x, n, q, cap, cvrp.min_vehicles(q, cap), most).all()
    assert len(starts) >= (len(C) if solver == "highs" else 1)  # Gurobi: once the root has a node callback
    assert (len(lp_cuts) == len(C)) if solver == "highs" else (sum(map(len, lp_cuts)) >= 1)  # Gurobi: once
    given = [s for s in starts if s is not None]
    assert len(given) >= (0.75 * len(starts) if pyvrp == "installed" else 0) and (pyvrp == "installed" or not given)


@pytest.mark.skipif(not cvrp_vrpsolver.available(), reason=NO_VRPSOLVER)
@settings(max_examples=12, deadline=None)
@given(
    customers=st.integers(4, 9),
    fill=st.floats(0.3, 0.95),
    spare=st.integers(0, 2),
    negative=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_vrpsolver_routes_are_the_cut_loop_s_optima(customers, fill, spare, negative, seed):
    """VRPSolver's routes are routes of the edge model whose costs are the HiGHS cut loop's optima,
    within VRPSolver's stopping gap (1e-6 absolute or 1e-7 relative), on random instances: demands
    that fill the fewest vehicles to ``fill``, a vehicle or two to spare, costs negative or not."""
    rng = np.random.default_rng(seed)
    n, cap = customers + 1, 10.0
    q = rng.uniform(1.0, 3.0, customers)
    q *= cap * cvrp.min_vehicles(q, cap) * fill / q.sum()
    q = np.minimum(q, cap)
    most = min(cvrp.min_vehicles(q, cap) + spare, customers // 2)
    C = rng.uniform(0.0, 5.0, (3, n * (n - 1) // 2)) - (2.5 if negative else 0.0)
    ref = (C * cvrp_routes.routes(C, n, q, cap, most, solver="highs")).sum(1)
    x = cvrp_routes.routes(C, n, q, cap, most, solver="vrpsolver")
    assert _is_routes(x, n, q, cap, cvrp.min_vehicles(q, cap), most).all()
    np.testing.assert_allclose((C * x).sum(1), ref, rtol=1e-7, atol=1e-6)


@pytest.mark.skipif(not cvrp_vrpsolver.available(), reason=NO_VRPSOLVER)
@pytest.mark.parametrize("alone", [1, 2, 3, 5])
def test_vrpsolver_keeps_customers_from_routes_of_their_own(alone):
    """VRPSolver's model allows a route of one customer; where its optimum has such routes (customers
    next to the depot and far from the rest, vehicles to spare), it reports those customers, and
    given them it solves again with them kept from routes of their own (1, 2, 3 and 5 of them: one
    vehicle type, then two, then three): its routes are the edge model's optimum (the HiGHS cut
    loop's)."""
    n, cap, most, C, q = _lone_customers(alone)
    x, lone = cvrp_vrpsolver.routes(C, n, q, cap, most, None, 1)
    assert np.isnan(x).all() and set(range(1, alone + 1)) <= set(lone[0])  # theirs, maybe more
    x, left = cvrp_vrpsolver.routes(C, n, q, cap, most, None, 1, lone)
    assert _is_routes(x, n, q, cap, 1, most).all() and left == [[]]
    np.testing.assert_allclose((C * x).sum(1), (C * cvrp_routes.routes(C, n, q, cap, most, solver="highs")).sum(1))


def _lone_customers(alone: int) -> tuple[int, float, int, np.ndarray, np.ndarray]:
    """``(n, capacity, vehicles, costs (1, edges), demands)``: customers 1..``alone`` next to the
    depot and far from the rest and from each other, vehicles to spare."""
    n, cap, most = 9, 10.0, 6
    rng = np.random.default_rng(alone)
    E = tsp.edges(n)
    costs = rng.uniform(1.0, 5.0, len(E))
    for k, (i, j) in enumerate(E):
        if j <= alone or 1 <= i <= alone:  # an edge at customers 1..alone (i < j)
            costs[k] = 0.01 if i == 0 else 100.0
    return n, cap, most, costs[None], np.full(n - 1, 2.0)


@pytest.mark.skipif(not cvrp_vrpsolver.available(), reason=NO_VRPSOLVER)
@pytest.mark.parametrize("cut_first", ["solves", "gives up", "off"])
def test_routes_serving_a_customer_alone_go_to_the_cut_loop_then_vrpsolver(cut_first, monkeypatch):
    """Where VRPSolver's routes serve a customer alone, the cut loop has ``_CUT_FIRST`` seconds; where
    it gives up (its time limit, stood in here by NaN rows), VRPSolver solves again with those
    customers kept from routes of their own; ``_CUT_FIRST = 0`` goes straight there. The routes are
    the HiGHS cut loop's optimum in each case, and nothing solves them after they are found."""
    n, cap, most, C, q = _lone_customers(3)
    ref = (C * cvrp_routes.routes(C, n, q, cap, most, solver="highs")).sum(1)
    asked: list[object] = []
    loops: list[tuple[float | None, bool]] = []
    real, loop = cvrp_vrpsolver.routes, cvrp_routes._cut_loop

    def ask(c, n, *a):
        asked.append(a[5] if len(a) > 5 else None)
        return real(c, n, *a)

    def cut_loop(c, n, q, Q, V, how, limit, *, give_up=False):
        loops.append((limit, give_up))
        return np.full(c.shape, np.nan) if give_up and cut_first == "gives up" else loop(c, n, q, Q, V, how, limit)

    monkeypatch.setattr(cvrp_vrpsolver, "routes", ask)
    monkeypatch.setattr(cvrp_routes, "_cut_loop", cut_loop)
    if cut_first == "off":
        monkeypatch.setattr(cvrp_routes, "_CUT_FIRST", 0.0)
    x = cvrp_routes.routes(C, n, q, cap, most, solver="vrpsolver")
    assert _is_routes(x, n, q, cap, 1, most).all()
    np.testing.assert_allclose((C * x).sum(1), ref)
    assert loops == ([] if cut_first == "off" else [(cvrp_routes._CUT_FIRST, True)])
    assert asked[0] is None and len(asked) == (1 if cut_first == "solves" else 2)
    if len(asked) == 2:
        assert isinstance(asked[1], list) and {1, 2, 3} <= set(asked[1][0])


@pytest.mark.skipif(not cvrp_vrpsolver.available(), reason=NO_VRPSOLVER)
@pytest.mark.parametrize("limit", [None, 200.0])
def test_the_cut_loop_and_vrpsolver_take_turns_with_twice_the_seconds(limit, monkeypatch):
    """Where the cut loop gives up and VRPSolver solving again runs out of time (both stood in here
    on their first two turns), they take turns, each with twice the seconds of the turn before,
    until one solves the instance; with ``time_limit``, no turn has more than it, and after the
    turn that reaches it the cut loop solves within it (raising if it cannot). The routes are the
    HiGHS cut loop's optimum."""
    n, cap, most, C, q = _lone_customers(3)
    ref = (C * cvrp_routes.routes(C, n, q, cap, most, solver="highs")).sum(1)
    turns: list[tuple[str, float | None, bool]] = []
    real, loop = cvrp_vrpsolver.routes, cvrp_routes._cut_loop

    def ask(c, n, q, Q, V, limit, workers, lone=None):
        if lone is None:  # VRPSolver's first solve: customers served alone
            return real(c, n, q, Q, V, limit, workers)
        turns.append(("vrpsolver", limit, True))
        return np.full(c.shape, np.nan), [None] * len(c)  # out of time

    def cut_loop(c, n, q, Q, V, how, limit, *, give_up=False):
        turns.append(("cut loop", limit, give_up))
        if give_up and sum(t[0] == "cut loop" for t in turns) <= 2:
            return np.full(c.shape, np.nan)  # gave up
        return loop(c, n, q, Q, V, how, limit, give_up=give_up)

    monkeypatch.setattr(cvrp_vrpsolver, "routes", ask)
    monkeypatch.setattr(cvrp_routes, "_cut_loop", cut_loop)
    x = cvrp_routes.routes(C, n, q, cap, most, solver="vrpsolver", time_limit=limit)
    assert _is_routes(x, n, q, cap, 1, most).all()
    np.testing.assert_allclose((C * x).sum(1), ref)
    s = cvrp_routes._CUT_FIRST
    if limit is None:
        assert turns == [("cut loop", s, True), ("vrpsolver", 2 * s, True), ("cut loop", 4 * s, True),
                         ("vrpsolver", 8 * s, True), ("cut loop", 16 * s, True)]  # fmt: skip
    else:
        assert 4 * s > limit > 2 * s  # the third turn reaches it
        assert turns == [("cut loop", s, True), ("vrpsolver", 2 * s, True), ("cut loop", limit, True),
                         ("vrpsolver", limit, True), ("cut loop", limit, False)]  # fmt: skip


@pytest.mark.parametrize("give_up", [True, False])
def test_a_cut_loop_that_runs_out_of_time_gives_no_routes(give_up, monkeypatch):
    """Where the fewest routes carry the demands only just, the cut loop's optimum with a route more
    is compared with theirs; a solve stopped by its time limit (stood in here) leaves no routes at
    all with ``give_up`` (the fewest routes' optimum need not be the optimum), else raises."""
    q = np.array([5.0, 4.9, 3.0, 3.0, 2.0, 2.0])
    C = np.random.default_rng(14).uniform(0.0, 5.0, (3, 21))

    def late(*a):
        raise cvrp_routes._OutOfTime("routes: stood in")

    monkeypatch.setattr(cvrp_routes, "_solve", late)
    if give_up:
        assert np.isnan(cvrp_routes._cut_loop(C, N, q, Q, 3, "highs", 1.0, give_up=True)).all()
    else:
        with pytest.raises(SolverError, match="stood in"):
            cvrp_routes._cut_loop(C, N, q, Q, 3, "highs", 1.0)


@pytest.mark.skipif(not cvrp_vrpsolver.available(), reason=NO_VRPSOLVER)
def test_vrpsolver_s_routes_over_capacity_go_to_the_cut_loop():
    """VRPSolver's model rounds demands down; where its optimum uses that (four customers just over
    the capacity together, in a cheap chain, beside a cheap pair), its routes are refused and the cut
    loop's optimum stands."""
    n, cap, most = 7, 10.0, 3
    rng = np.random.default_rng(3)
    chain = rng.uniform(5.0, 9.0, len(tsp.edges(n)))
    for k, (i, j) in enumerate(tsp.edges(n)):
        if (i > 0 and j == i + 1 and j <= 4) or (i, j) == (5, 6):
            chain[k] = 0.01  # 1-2-3-4: a cheap route, 1e-7 over capacity; 5-6: a cheap pair
    q = np.array([2.5 + 2.5e-8] * 4 + [1.0, 1.0])
    C = chain[None]
    x, lone = cvrp_vrpsolver.routes(C, n, q, cap, most, None, 1)
    assert np.isnan(x).all() and lone == [[]]  # refused: over capacity, no customer alone
    x = cvrp_routes.routes(C, n, q, cap, most, solver="vrpsolver")
    assert _is_routes(x, n, q, cap, cvrp.min_vehicles(q, cap), most).all()
    np.testing.assert_allclose((C * x).sum(1), (C * cvrp_routes.routes(C, n, q, cap, most, solver="highs")).sum(1))


@pytest.mark.skipif(not cvrp_vrpsolver.available(), reason=NO_VRPSOLVER)
def test_vrpsolver_workers_keep_to_their_folder_and_survive_a_crash(tmp_path, monkeypatch):
    """VRPSolver writes files into its working folder: the workers' is private (0700) and the
    caller's stays empty; a worker that dies answers ``None`` (its instance goes to the cut loop)
    and the next task starts it again."""
    monkeypatch.chdir(tmp_path)
    n, cap, most = 7, 10.0, 3
    q = np.full(n - 1, 3.0)
    C = np.random.default_rng(0).uniform(0.0, 5.0, (2, n * (n - 1) // 2))
    x = cvrp_routes.routes(C, n, q, cap, most, solver="vrpsolver")
    assert list(tmp_path.iterdir()) == []
    folder = cvrp_vrpsolver._FOLDER[0]
    assert os.stat(folder).st_mode & 0o777 == 0o700
    worker = cvrp_vrpsolver._workers(1)[0]
    assert worker.ask(("not a task",)) is None  # the worker raised and ended
    tours = worker.ask((C[0], n, q, cap, most, None, cvrp_vrpsolver._CONFIG, None))  # a new process answers
    assert tours is not None and sorted(v for t in tours for v in t) == list(range(1, n))
    assert _is_routes(x, n, q, cap, 2, most).all()


@pytest.mark.skipif(not cvrp_vrpsolver.available(), reason=NO_VRPSOLVER)
def test_a_vrpsolver_solve_during_which_bapcod_writes_an_error_gives_no_routes(tmp_path, monkeypatch, capfd):
    """BaPCod writes its errors to the standard error and goes on: a solve during which it wrote one
    answers ``None`` (the cut loop solves the instance), and the text is still shown; the same solve
    without it answers the optimal routes."""
    monkeypatch.chdir(tmp_path)  # VRPSolver's files, in process here
    n, cap, most = 7, 10.0, 3
    q = np.full(n - 1, 3.0)
    c = np.random.default_rng(3).uniform(0.0, 5.0, n * (n - 1) // 2)
    task = (c, n, q, cap, most, None, cvrp_vrpsolver._CONFIG, None)
    tours = cvrp_vrpsolver._solve(task)
    assert tours is not None and cvrp_vrpsolver.fits(tours, n, q, cap, most)
    real = cvrp_vrpsolver._model
    said = b"BranchingAlgorithm::run() the master solution should have been detected as integer error code = 1\n"

    def erring(*args):
        model = real(*args)
        solve = model.solve
        model.solve = lambda: os.write(2, said) and solve()  # what BaPCod writes, then the real solve
        return model

    monkeypatch.setattr(cvrp_vrpsolver, "_model", erring)
    capfd.readouterr()
    assert cvrp_vrpsolver._solve(task) is None
    assert said.decode().strip() in capfd.readouterr().err


@pytest.mark.skipif(not cvrp_vrpsolver.available(), reason=NO_VRPSOLVER)
def test_auto_takes_vrpsolver_from_25_customers_or_without_gurobi(monkeypatch):
    """``"auto"`` asks VRPSolver for 25 customers; for 7, only where Gurobi is not licensed (its cut
    loop is the faster there); the routes are the optima either way."""
    asked: list[int] = []
    real = cvrp_vrpsolver.routes
    monkeypatch.setattr(cvrp_vrpsolver, "routes", lambda c, n, *a: asked.append(n) or real(c, n, *a))
    rng = np.random.default_rng(2)
    for n in (8, 26):
        q = rng.uniform(1.0, 3.0, n - 1)
        C = rng.uniform(0.0, 5.0, (1, n * (n - 1) // 2))
        x = cvrp_routes.routes(C, n, q, 30.0, 4)
        assert _is_routes(x, n, q, 30.0, cvrp.min_vehicles(q, 30.0), 4).all()
        if n == 8:
            np.testing.assert_allclose(C @ x[0], C @ cvrp_routes.routes(C, n, q, 30.0, 4, solver="highs")[0])
    assert asked == ([26] if _gurobi_ok() else [8, 26])


def test_vrpsolver_refusal_is_clear_when_missing(monkeypatch):
    """``solver="vrpsolver"`` without VRPSolverEasy says how to install it; ``"auto"`` then uses the cut loop."""
    monkeypatch.setitem(sys.modules, "VRPSolverEasy", None)  # not installed
    with pytest.raises(SolverError, match="routing"):
        cvrp_routes.routes(np.ones((1, 10)), 5, [1.0, 1.0, 1.0, 1.0], 30.0, 2, solver="vrpsolver")
    x = cvrp_routes.routes(np.ones((1, 10)), 5, [1.0, 1.0, 1.0, 1.0], 30.0, 2)
    assert _is_routes(x, 5, np.ones(4), 30.0, 1, 2).all()


def _is_routes(x: np.ndarray, n: int, q: np.ndarray, cap: float, fewest: int, most: int) -> np.ndarray:
    """Whether each row of 0/1 edges ``x`` ``(B, edges)`` is ``fewest`` to ``most`` routes through
    the depot that visit every customer once, each within ``cap``."""
    ok = np.isin(x, (0.0, 1.0)).all(1)
    depot = x[:, : n - 1].sum(1)  # the depot's edges come first
    ok &= (2 * fewest <= depot) & (depot <= 2 * most)
    for b in np.flatnonzero(ok):
        try:
            _, loads = cvrp_exact.orient(x[b : b + 1], n, q)
        except InputError:
            ok[b] = False
        else:
            ok[b] = loads.max() <= cap + 1e-9
    return ok


def test_pyvrp_routes_are_routes_and_no_better_than_the_optimum():
    """PyVRP's start on 30 random instances (8 customers, capacity for three routes or four, some
    costs negative) is routes within capacity that the edge model allows, never below the exact
    optimum (a feasible point), and at it on half of them or more (8 customers are easy for its
    search, but the edge model lacks its routes of one customer)."""
    pytest.importorskip("pyvrp", reason="PyVRP's start needs pyvrp (the 'routing' extra)")
    n, cap, most = 9, 12.0, 4
    E = np.array(tsp.edges(n))
    rng = np.random.default_rng(3)
    at_optimum = 0
    for b in range(30):
        q = rng.uniform(1.0, 5.0, n - 1)
        c = rng.uniform(0.0, 5.0, len(E)) - (2.0 if b % 3 == 0 else 0.0)
        cuts = cvrp_routes._Cuts(n, E, q, cap)
        x = cvrp_routes._pyvrp_routes(c, cuts, most)
        assert x is not None
        assert _is_routes(x[None], n, q, cap, cvrp.min_vehicles(q, cap), most).all()
        best = float(c @ cvrp_routes.routes(c[None], n, q, cap, most, solver="highs")[0])
        assert c @ x >= best - 1e-9
        at_optimum += bool(c @ x <= best + 1e-9)
    assert at_optimum >= 15  # 19 measured: where its best routes have a route of one customer, the move may cost


def test_lone_customers_join_the_route_where_they_add_least():
    """A route of one customer goes where it adds least among the routes with room for it (into
    another lone route too), or where none has room, pairs with the customer whose move from a route
    of three costs least; ``None`` where neither can."""
    rng = np.random.default_rng(0)
    d = rng.uniform(1.0, 2.0, (6, 6))
    d = d + d.T
    q = np.array([1.0, 1.0, 1.0, 1.0, 5.0])
    joined = cvrp_pyvrp.join_lone([[1], [2, 3], [4, 5]], d, q, 6.0)  # only [2, 3] has room
    assert joined is not None and len(joined) == 2 and [4, 5] in joined
    added = {
        tuple(t): sum(d[a, b] for a, b in itertools.pairwise([0, *t, 0])) for t in ([1, 2, 3], [2, 1, 3], [2, 3, 1])
    }
    assert tuple(next(t for t in joined if 1 in t)) == min(added, key=added.get)
    both = cvrp_pyvrp.join_lone([[1], [2], [4, 5]], d, q, 6.0)  # the lone routes join each other
    assert both is not None and sorted(map(sorted, both)) == [[1, 2], [4, 5]]
    assert cvrp_pyvrp.join_lone([[1], [4, 5]], d, q, 6.0) is None  # 5 + 1 + 1 > 6
    paired = cvrp_pyvrp.join_lone([[1], [2, 3, 5]], d, q, 7.0)  # 7 + 1 > 7: 1 pairs with 2, 3 or 5

    def length(route: list[int]) -> float:
        return sum(d[a, b] for a, b in itertools.pairwise([0, *route, 0]))

    rest = {w: [v for v in (2, 3, 5) if v != w] for w in (2, 3, 5)}
    w = min(rest, key=lambda w: length([1, w]) + length(rest[w]))
    assert paired is not None and sorted(map(sorted, paired)) == sorted([sorted([1, w]), rest[w]])


def _cuts(q: np.ndarray) -> cvrp_routes._Cuts:
    return cvrp_routes._Cuts(N, np.array(tsp.edges(N)), np.asarray(q, dtype=float), Q)


def test_union_cuts_are_the_rounded_capacity_cuts_of_the_components_unions():
    """Routes 0-1-2-0 (load 12 > Q), 0-3-4-0 (load 9) and 0-5-6-0 (load 2): the overloaded
    route's cut and the one union that needs more routes than it has components ({1, 2, 3, 4}:
    ⌈21/Q⌉ = 3 > 2; {1, 2, 5, 6} and all six fit theirs), each ``|S| − ⌈q(S)/Q⌉``."""
    q = np.array([6.0, 6.0, 4.5, 4.5, 1.0, 1.0])
    E = tsp.edges(N)
    x = np.zeros(len(E))
    for pair in [(0, 1), (1, 2), (0, 2), (0, 3), (3, 4), (0, 4), (0, 5), (5, 6), (0, 6)]:
        x[E.index(pair)] = 1.0
    got = {(tuple(int(i) for i in idx), rhs) for idx, rhs in _cuts(q).violated(x)}
    want = set()
    for S in [{1, 2}, {1, 2, 3, 4}]:
        idx = tuple(e for e, (i, j) in enumerate(E) if i in S and j in S)
        want.add((idx, float(len(S) - np.ceil(q[[v - 1 for v in S]].sum() / Q))))
    assert got == want
    assert all(x[list(idx)].sum() > rhs for idx, rhs in got)
    cvrp_routes._UNIONS = 0
    try:  # each component alone: only the overloaded route
        assert len(_cuts(q).violated(x)) == 1
    finally:
        cvrp_routes._UNIONS = 10


def test_fractional_cuts_are_violated_and_valid(small):
    """Cuts of the degree rows' LP points: each is violated by its point and holds at every
    optimal route set of 40 random costs (a valid inequality holds at every feasible point)."""
    _, q, _ = small
    cuts = _cuts(q)
    rng = np.random.default_rng(11)
    routes = cvrp_routes.routes(rng.uniform(0.0, 5.0, (40, 21)), N, q, Q, V)
    found = 0
    for c in rng.uniform(0.0, 5.0, (100, 21)):
        h = cvrp_routes._lp(c, cuts, V)
        h.run()
        x = np.asarray(h.getSolution().col_value)
        for idx, rhs in cuts.fractional(x):
            found += 1
            assert x[idx].sum() > rhs + 1e-3
            assert (routes[:, idx].sum(1) <= rhs + 1e-9).all()
    assert found >= 10  # the degree rows alone leave subtours and overloads: cuts to check


def test_root_cuts_hold_at_every_optimum_and_raise_the_lp_bound(small):
    """The rounds of ``_root_cuts`` on 30 random costs: each cut holds at every optimal route set
    of 40 other costs (valid), and the LP relaxation with them lies between the degree rows' LP
    and the instance's optimum (a bound, and no weaker), strictly above the former on some."""
    _, q, _ = small
    cuts = _cuts(q)
    rng = np.random.default_rng(12)
    routes = cvrp_routes.routes(rng.uniform(0.0, 5.0, (40, 21)), N, q, Q, V, solver="highs")
    C = rng.uniform(0.0, 5.0, (30, 21))
    best = (C * cvrp_routes.routes(C, N, q, Q, V, solver="highs")).sum(1)

    def lp(c: np.ndarray, rows: list) -> float:
        h = cvrp_routes._lp(c, cuts, V)
        for idx, rhs in rows:
            h.addRow(-np.inf, rhs, len(idx), idx, np.ones(len(idx)))
        h.run()
        return h.getInfo().objective_function_value

    raised = 0
    for c, z in zip(C, best, strict=True):
        rows = cvrp_routes._root_cuts(cvrp_routes._lp(c, cuts, V), cuts)
        for idx, rhs in rows:
            assert (routes[:, idx].sum(1) <= rhs + 1e-9).all()
        plain, cut = lp(c, []), lp(c, rows)
        assert plain - 1e-7 <= cut <= z + 1e-7
        raised += cut > plain + 1e-6
    assert raised >= 5  # 8 of the 30 here


def _partitions_by_brute_force(q: np.ndarray, Q: float, k: int) -> set[frozenset]:
    found = set()
    for labels in itertools.product(range(k), repeat=len(q)):
        sets = [tuple(i + 1 for i in range(len(q)) if labels[i] == b) for b in range(k)]
        if all(len(s) >= 2 and q[[i - 1 for i in s]].sum() <= Q + 1e-9 for s in sets):
            found.add(frozenset(sets))
    return found


def test_packings_are_every_partition_within_capacity():
    """Against all ``k^n`` labellings, on tight and loose random demands; more than ``most``
    gives ``None``."""
    rng = np.random.default_rng(12)
    for _ in range(12):
        q = rng.uniform(1.0, 6.0, 8)
        k = cvrp.min_vehicles(q, Q)
        got = cvrp_packings.packings(q, Q, k, most=10**6)
        assert got is not None and len(got) == len(set(map(frozenset, got)))  # each partition once
        assert set(map(frozenset, got)) == _partitions_by_brute_force(q, Q, k)
    q = np.full(8, 1.0)
    assert len(cvrp_packings.packings(q, Q, 2, most=10**6)) == 28 + 56 + 70 // 2  # sizes 2+6, 3+5, 4+4
    assert cvrp_packings.packings(q, Q, 2, most=10) is None


def test_held_karp_tours_are_the_shortest():
    rng = np.random.default_rng(13)
    D = rng.uniform(0.0, 1.0, (6, 6, 6))  # asymmetric too
    length, order = cvrp_packings.tours(D)
    for b in range(6):
        best = min(D[b, 0, w[0]] + D[b, w[:-1], w[1:]].sum() + D[b, w[-1], 0]
                   for w in map(np.array, itertools.permutations(range(1, 6))))  # fmt: skip
        walk = np.concatenate(([0], order[b], [0]))
        assert length[b] == pytest.approx(best, abs=1e-12)
        assert D[b, walk[:-1], walk[1:]].sum() == pytest.approx(best, abs=1e-12)
        assert sorted(order[b]) == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("vehicles", [2, 3], ids=["fewest-only", "or-one-more"])
def test_tight_demands_are_solved_exactly(vehicles):
    """Demands that two vehicles carry only just (19.9 of 20, few splits) against the compact
    model: the enumeration alone (2 vehicles) or the better of it and the cut loop with three
    routes (3 vehicles)."""
    q = np.array([5.0, 4.9, 3.0, 3.0, 2.0, 2.0])
    assert len(cvrp_packings.packings(q, Q, 2)) <= 10
    m = cvrp.build_model(N, q, Q, vehicles)
    p = ldopt.Problem.from_pyomo(m, m.c)
    C = np.random.default_rng(14).uniform(0.0, 5.0, (10, 21))
    ref = p.solve(C, solver="highs")
    x = cvrp_routes.routes(C, N, q, Q, vehicles, solver="highs")
    np.testing.assert_allclose((C * x).sum(1), ref.objective, atol=1e-7)
    assert p.violation(cvrp_exact.full_solution(p, x, N, q)).max() <= 1e-9


def test_one_vehicle_with_room_is_the_tsp():
    """One vehicle that carries everything: the one partition has 19 customers, beyond the
    enumeration's ``LARGEST``, so the cut loop solves it alone: the TSP's optimal tours."""
    assert len(cvrp_packings.packings(np.ones(19), 20.0, 1)) == 1 and cvrp_packings.LARGEST < 19
    C = np.random.default_rng(15).uniform(0.0, 1.0, (3, 190))
    x = cvrp_routes.routes(C, 20, np.ones(19), 20.0, 1, solver="highs")
    np.testing.assert_allclose((C * x).sum(1), (C * tsp_tours.tours(C, 20)).sum(1), atol=1e-9)


def test_capacity_binds_and_auto_uses_routes(small):
    """With a capacity that forces three routes, ``solver="auto"`` on the model (the routes
    oracle) and the compact model agree; a model with one row more is not taken for it."""
    p, q, _ = small
    assert cvrp_exact.Routes.fit(p.compiled) is not None
    C = np.random.default_rng(2).uniform(0.0, 5.0, (6, 21))
    auto, ref = p.solve(C, solver="auto"), p.solve(C, solver="highs")
    np.testing.assert_allclose(auto.objective, ref.objective, atol=1e-7)
    m = cvrp.build_model(N, q, Q, V)
    m.extra = __import__("pyomo.environ", fromlist=["Constraint"]).Constraint(expr=m.x[0] <= 1)
    other = ldopt.Problem.from_pyomo(m, m.c, oracles=[cvrp_exact.Routes])
    assert cvrp_exact.Routes.fit(other.compiled) is None
    assert not isinstance(fit_oracle(other.compiled), cvrp_exact.Routes)


def _is_forest(pairs: list[tuple[int, int]], n: int) -> bool:
    parent = list(range(n))

    def root(v: int) -> int:
        while parent[v] != v:
            v = parent[v]
        return v

    for i, j in pairs:
        a, b = root(i), root(j)
        if a == b:
            return False
        parent[a] = b
    return True


def _brute_force(w: np.ndarray, n: int, fewest: int, most: int) -> float:
    """max w·x over forests of n−1−k customer edges with 2k depot edges, fewest ≤ k ≤ most."""
    E = tsp.edges(n)
    inner = [e for e, (i, _) in enumerate(E) if i > 0]
    best = -np.inf
    for k in range(fewest, most + 1):
        depot = np.sort(w[: n - 1])[::-1][: 2 * k].sum()
        for sub in itertools.combinations(inner, n - 1 - k):
            if _is_forest([E[e] for e in sub], n):
                best = max(best, depot + w[list(sub)].sum())
    return best


def test_k_forest_is_exact_on_its_set_and_a_relaxation_of_its_block(small):
    p, _, dec = small
    oracle = dec.block(dec.num_blocks - 1).solver("oracle").oracle
    assert oracle.relaxation and "k-forest" in dec.describe()
    rng = np.random.default_rng(3)
    for w in rng.normal(size=(6, 21)):
        got = oracle.edges(w[None])[0]
        assert got @ w == pytest.approx(_brute_force(w, N, oracle.fewest, oracle.most), abs=1e-9)
    ex, _, _ = cvrp.variable_index(p, N)
    lam = np.zeros((24, p.num_vars))
    lam[:, ex] = rng.normal(size=(24, len(ex)))
    check = check_oracle(dec, dec.num_blocks - 1, objectives=lam)
    assert check.relaxation and check.max_gap == 0.0


def _walks(w: np.ndarray, ids: np.ndarray, loads: np.ndarray, room: int) -> dict[int, float]:
    """The best q-route of every load by enumeration: walks 0 → c1 → … → cm → 0, m ≥ 2, that never
    step to the customer they came from, of load at most ``room``."""
    best: dict[int, float] = {}

    def grow(path: list[int], load: int, value: float) -> None:
        if len(path) >= 2:
            total = value + w[ids[path[-1], 0]]
            best[load] = max(best.get(load, -np.inf), total)
        for c in range(1, len(loads) + 1):
            if c == path[-1] or (len(path) >= 2 and c == path[-2]) or load + loads[c - 1] > room:
                continue
            grow([*path, c], load + loads[c - 1], value + w[ids[path[-1], c]])

    for c in range(1, len(loads) + 1):
        grow([c], int(loads[c - 1]), w[ids[0, c]])
    return best


def _best_q_routes(w: np.ndarray, n: int, oracle: cvrp_oracle.QRoutes) -> float:
    """max over k of the best k enumerated q-routes whose loads add up to the total."""
    ids = oracle._ids
    routes = _walks(w, ids, oracle.loads, oracle.room)
    total, top = int(oracle.loads.sum()), -np.inf
    for k in range(oracle.fewest, oracle.most + 1):
        for combo in itertools.combinations_with_replacement(sorted(routes), k):
            if sum(combo) == total:
                top = max(top, sum(routes[at] for at in combo))
    return top


@pytest.mark.parametrize("resolution", [1.0, 2.0])
def test_q_routes_are_exact_on_their_set(resolution):
    """The dynamic programme against enumeration of every walk: 5 customers, loads 1–3."""
    n, q, cap = 6, np.array([1.4, 2.2, 0.6, 3.0, 1.9]), 5.0
    E = len(tsp.edges(n))
    oracle = cvrp_oracle.QRoutes(n, q, cap, 3, np.arange(E), np.arange(0), E, resolution=resolution)
    rng = np.random.default_rng(11)
    W = np.concatenate((rng.normal(size=(8, E)), rng.normal(1.0, 1.0, (4, E))))  # positive: walks loop if they may
    X = oracle.edges(W)
    for w, x in zip(W, X, strict=True):
        assert x @ w == pytest.approx(_best_q_routes(w, n, oracle), abs=1e-9)
        assert x[: n - 1].sum() % 2 == 0 and (x >= 0).all()  # each route leaves and enters the depot


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(0.01, 10.0), min_size=2, max_size=12),
    st.floats(0.1, 1.0),
    st.sampled_from([1.0, 3.0, 10.0]),
    st.integers(0, 2**32 - 1),
)
def test_rounded_loads_keep_every_route_within_capacity(demand, share, resolution, seed):
    q = np.array(demand)
    cap = max(q.max(), share * q.sum())
    loads, room = cvrp_oracle.rounded_loads(q, cap, resolution)
    assert (loads >= 1).all()
    rng = np.random.default_rng(seed)
    for _ in range(50):  # random routes within capacity: their rounded loads fit the room
        order = rng.permutation(len(q))
        within = order[: int(np.searchsorted(np.cumsum(q[order]), cap, side="right"))]
        assert loads[within].sum() <= room


def test_q_routes_are_a_relaxation_of_their_block(small_q):
    p, _, dec = small_q
    oracle = dec.block(dec.num_blocks - 1).solver("oracle").oracle
    assert oracle.relaxation and "q-routes" in dec.describe()
    ex, _, _ = cvrp.variable_index(p, N)
    lam = np.zeros((24, p.num_vars))
    lam[:, ex] = np.random.default_rng(12).normal(size=(24, len(ex)))
    lam[12:, ex] += 1.0  # profitable edges: the walks revisit customers
    check = check_oracle(dec, dec.num_blocks - 1, objectives=lam)
    assert check.relaxation and check.max_gap == 0.0


def test_q_routes_bound_above_the_k_forest_where_capacity_binds():
    """Demands that fill the fewest vehicles almost exactly (CaVE's seed 47: 89.8 for three of 30):
    the forest ignores capacity, the q-routes keep it."""
    n, cap, vehicles = 9, 10.0, 4
    q = np.array([4.9, 5.0, 4.8, 5.1, 3.2, 3.3, 3.2, 0.4])  # 29.9: three vehicles of 10
    m = cvrp.build_model(n, q, cap, vehicles)
    p = ldopt.Problem.from_pyomo(m, m.c, oracles=[cvrp_exact.Routes])
    C = np.random.default_rng(13).uniform(1.0, 5.0, (6, len(tsp.edges(n))))
    opt = cvrp_routes.routes(C, n, q, cap, vehicles)
    opt = (C * opt).sum(1)
    bounds = {}
    for relaxation in ("q-routes", "k-forest"):
        oracles = cvrp_oracle.block_oracles(p, n, q, cap, vehicles, relaxation=relaxation)
        dec = ldopt.decompose(p, cvrp.blocks(n), oracles=oracles)
        bounds[relaxation] = np.asarray(dec.dual(C, mode="shared", iterations=300, progress=False).bound)
        assert (bounds[relaxation] <= opt + 1e-6 * opt).all()
    assert (bounds["q-routes"] / opt).mean() > (bounds["k-forest"] / opt).mean() + 0.01


class _Unverified(cvrp_oracle.KForest):
    verified = False  # a user's oracle: checked at its first use


def test_a_first_use_check_on_hard_routes_stops_at_its_time_limit(monkeypatch):
    """CaVE's CVRP20 routes block took minutes an instance to solve exactly, so a user's oracle for
    it hung at its first use; the check now stops at its time limit, checks what the solve found
    and says so."""
    monkeypatch.setattr(user_oracles, "SPOT_TIME_LIMIT", 0.5)
    q = cvrp.demands(47, 20)
    m = cvrp.build_model(21, q)
    p = ldopt.Problem.from_pyomo(m, m.c)
    oracle = _Unverified.for_problem(p, 21, q)
    dec = ldopt.decompose(p, cvrp.blocks(21), oracles={len(cvrp.blocks(21)) - 1: oracle})
    C = tsp.gen_data(2, 5, 21, deg=4, noise_width=0.5, seed=47)[1].astype(float)
    t = time.perf_counter()
    with pytest.warns(UserWarning, match="first-use check stopped after 0.5 s"):
        dec.dual(C, mode="shared", iterations=2, progress=False)
    assert time.perf_counter() - t < 60


def test_priced_arcs_go_to_the_exact_fallback(small):
    p, _, dec = small
    block = dec.block(dec.num_blocks - 1)
    oracle = block.solver("oracle").oracle
    lam = np.random.default_rng(4).normal(size=(2, p.num_vars))
    with pytest.warns(UserWarning, match="arcs or loads"):
        x = oracle.argmax(lam)
    exact = block.problem.solve(lam, solver="highs")
    np.testing.assert_allclose(np.einsum("bn,bn->b", lam, x), exact.objective, atol=1e-7)


@pytest.mark.parametrize("relaxation", ["k-forest", "q-routes"])
def test_lagrangian_bound_is_below_every_optimum(small, relaxation):
    p, q, _ = small
    dec = ldopt.decompose(p, cvrp.blocks(N), oracles=cvrp_oracle.block_oracles(p, N, q, Q, V, relaxation=relaxation))
    C = np.random.default_rng(6).uniform(0.0, 5.0, (8, 21))
    opt = cvrp_exact.optima(p, C, N, q, Q, V)
    bound = np.asarray(dec.dual(C, mode="shared", iterations=200, progress=False).bound)
    assert (bound <= opt.value + 1e-6).all()
    assert (bound >= 0.9 * opt.value).mean() >= 0.75  # the forest relaxation is tight on most


def test_training_through_the_routes_block_beats_a_random_model(small):
    p, q, dec = small
    F, C = tsp.gen_data(120, 5, N, deg=4, noise_width=0.5, seed=7)
    F, C = F.astype(float), C.astype(float)
    data = lt.LDDataset(dec, F[:80], C[:80], lt.DEFAULTS.dual.merged(mode="shared", iterations=50), progress=False)
    torch.manual_seed(0)
    model = torch.nn.Linear(5, p.num_costs)
    loss = lt.LDLoss(dec, surrogate=lt.FenchelYoung(sigma=2.0), target="L1")
    fitted = lt.fit(model, data, loss, mode="static", main=dec.num_blocks - 1, epochs=8, lr=5e-2, seed=0,
                    progress=False).model  # fmt: skip
    with torch.no_grad():
        pred = fitted(torch.as_tensor(F[80:], dtype=torch.float32)).numpy().astype(float)
    best = cvrp_routes.routes(C[80:], N, q, Q, V)
    opt = (C[80:] * best).sum(1)
    chosen = cvrp_routes.routes(pred, N, q, Q, V)
    regret = ((C[80:] * chosen).sum(1) - opt).sum() / opt.sum()
    rand = cvrp_routes.routes(np.random.default_rng(8).uniform(0, 1, C[80:].shape), N, q, Q, V)
    random_regret = ((C[80:] * rand).sum(1) - opt).sum() / opt.sum()
    assert regret < 0.5 * random_regret


def test_bad_inputs_are_refused():
    with pytest.raises(InputError, match="at most the capacity"):
        cvrp.build_model(5, [1.0, 2.0, 40.0, 1.0], 30.0, 2)
    with pytest.raises(InputError, match="expected 4 demands"):
        cvrp.build_model(5, [1.0, 2.0], 30.0, 2)
    with pytest.raises(InputError, match="expected positive demands"):
        cvrp.build_model(5, [1.0, 0.0, 1.0, 1.0], 30.0, 2)
    with pytest.raises(InputError, match="routes of two customers"):
        cvrp.build_model(5, [9.0, 9.0, 9.0, 9.0], 10.0, 4)
    with pytest.raises(InputError, match="edge costs"):
        cvrp_routes.routes(np.ones((2, 5)), 5, [1.0, 1.0, 1.0, 1.0], 30.0, 2)
    q = [1.0, 1.0, 1.0, 1.0]
    m = cvrp.build_model(5, q, 30.0, 2)
    with pytest.raises(InputError, match="relaxation: expected one of"):
        cvrp_oracle.block_oracles(ldopt.Problem.from_pyomo(m, m.c), 5, q, 30.0, 2, relaxation="forest")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="routes through the depot"):
        cvrp_exact.orient(np.ones((1, 10)), 5, [1.0, 1.0, 1.0, 1.0])


def test_gurobi_refusal_is_clear_when_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "gurobipy", None)
    with pytest.raises(SolverError, match="needs gurobipy"):
        cvrp_routes.routes(np.ones((1, 10)), 5, [1.0, 1.0, 1.0, 1.0], 30.0, 2, solver="gurobi")
    x = cvrp_routes.routes(np.ones((1, 10)), 5, [1.0, 1.0, 1.0, 1.0], 30.0, 2)  # "auto": HiGHS
    assert x.sum() == 5


def test_the_routing_example_runs_a_cvrp(tmp_path):
    """`examples/routing.py --problem cvrp` on a small instance: a table with CaVE's rows; its test
    optima are those of its fleet (``--vehicles``), and a rerun with another fleet is refused."""
    routing, script = _routing_example()
    args = [sys.executable, str(script), "--problem", "cvrp", "--nodes", "8", "--train", "40", "--test", "20"]
    args += ["--epochs", "1", "--iterations", "10", "--out", str(tmp_path), "--methods", "2s", "ld:spo+:L1:static"]
    subprocess.run([*args, "--seeds", "1", "--vehicles", "3"], check=True, capture_output=True, timeout=300)
    rows = json.loads((tmp_path / "results.json").read_text())["rows"]
    assert [r["seed"] for r in rows] == [42, 42] and all(r["regret"] >= -1e-9 for r in rows)
    table = (tmp_path / "table.md").read_text()
    assert table.startswith("CVRP7 deg 4") and "LD(SPO+, L1, main: the routes block (k-forest))" in table
    c_te = routing.split(8, 4, 42, 40, 100, 20, "cvrp").c_test
    arrays, header = cache.load(tmp_path / "optima" / "seed42.npz")
    q = cvrp.demands(42, 7)
    assert header["vehicles"] == 3 and cvrp.min_vehicles(q, cvrp.CAPACITY) < 3  # the fleet's size can matter
    np.testing.assert_allclose(arrays["optima"], (c_te * cvrp_routes.routes(c_te, 8, q, vehicles=3)).sum(1))
    other = subprocess.run([*args, "--seeds", "2"], capture_output=True, text=True, timeout=300)  # five vehicles
    assert other.returncode != 0 and "--vehicles 3 there, 5 here" in other.stderr
