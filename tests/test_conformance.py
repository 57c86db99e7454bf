"""Conformance of every registered solver backend: a new backend runs these, or skips with a reason."""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
import pytest
from conftest import ALL_SOLVERS, require
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from models import ball_model, ball_optimum, brute_force, linear_model

import ldopt
from ldopt.problems import knapsack, portfolio

pytestmark = pytest.mark.parametrize("solver", ALL_SOLVERS)


def _random_milp(rng, n, m_rows, int_ub=1):
    A = rng.integers(1, 8, size=(m_rows, n)).astype(float)
    hi = np.floor(A.sum(axis=1) * int_ub * rng.uniform(0.3, 0.7, m_rows))
    lo = np.full(m_rows, -np.inf)
    lb, ub = np.zeros(n), np.full(n, float(int_ub))
    return A, lo, hi, lb, ub


def test_milp_matches_brute_force(solver, rng):
    A, lo, hi, lb, ub = _random_milp(rng, 8, 3)
    model = linear_model(A, lo, hi, lb, ub)
    p = ldopt.Problem.from_pyomo(model, model.c)
    require(p, solver)
    costs = rng.integers(-3, 20, size=(6, 8)).astype(float)
    s = p.solve(costs, solver=solver)
    assert (s.status == "optimal").all()
    np.testing.assert_allclose(s.objective, brute_force(A, lo, hi, lb, ub, costs), atol=1e-6)
    np.testing.assert_allclose(s.bound, s.objective, atol=1e-5)
    assert (p.violation(s.x) <= 1e-6).all()
    assert s.x.shape == (6, 8) and s.objective.shape == (6,) and s.time.shape == (6,)


def test_general_integer_min_with_equality_and_range_rows(solver, rng):
    n = 4
    A = np.array([[1, 1, 1, 1], [2, -1, 3, 1], [1, 0, -1, 2]], dtype=float)
    lo = np.array([5, -2, -np.inf])
    hi = np.array([5, 6, 4])
    lb, ub = np.zeros(n), np.full(n, 3.0)
    model = linear_model(A, lo, hi, lb, ub, domain=pyo.Integers, sense=pyo.minimize)
    p = ldopt.Problem.from_pyomo(model, model.c)
    require(p, solver)
    assert p.sense == "min"
    costs = rng.normal(size=(5, n))
    s = p.solve(costs, solver=solver)
    np.testing.assert_allclose(s.objective, brute_force(A, lo, hi, lb, ub, costs, "min"), atol=1e-6)
    assert (s.bound <= s.objective + 1e-6).all()  # a lower bound for a minimisation


def test_lp_matches_greedy_closed_form(solver, rng):
    n = 10
    w = rng.uniform(1, 5, n)
    cap = 0.4 * w.sum()
    model = linear_model(w[None, :], np.array([-np.inf]), np.array([cap]), np.zeros(n), np.ones(n), domain=pyo.Reals)
    p = ldopt.Problem.from_pyomo(model, model.c)
    require(p, solver)
    costs = rng.uniform(0.5, 3, size=(4, n))
    s = p.solve(costs, solver=solver)
    for b in range(4):  # fractional knapsack: fill by value density
        order = np.argsort(-costs[b] / w)
        left, val = cap, 0.0
        for j in order:
            take = min(1.0, left / w[j])
            val += take * costs[b, j]
            left -= take * w[j]
            if left <= 0:
                break
        assert s.objective[b] == pytest.approx(val, rel=1e-6)


def test_qcp_matches_closed_form(solver, rng):
    n = 5
    G = rng.normal(size=(n, n))
    P = G @ G.T + n * np.eye(n)
    model = ball_model(n, 2.0, P)
    p = ldopt.Problem.from_pyomo(model, model.c)
    require(p, solver)
    costs = rng.normal(size=(3, n))
    s = p.solve(costs, solver=solver)
    x_ref, v_ref = ball_optimum(costs, P, 2.0)
    np.testing.assert_allclose(s.objective, v_ref, rtol=1e-5)
    np.testing.assert_allclose(s.x, x_ref, atol=1e-4)


def test_unbounded_and_infeasible_are_reported_per_instance(solver):
    m = pyo.ConcreteModel()
    m.c = pyo.Param([0], mutable=True, initialize=1.0)
    m.x = pyo.Var([0], bounds=(0, None))
    m.y = pyo.Var(bounds=(0, 1))
    m.obj = pyo.Objective(expr=m.c[0] * m.x[0] + m.y, sense=pyo.maximize)
    m.row = pyo.Constraint(expr=m.x[0] + m.y >= 0.5)
    p = ldopt.Problem.from_pyomo(m, m.c)
    require(p, solver)
    s = p.solve([[1.0], [-1.0]], solver=solver)
    assert list(s.status) == ["unbounded", "optimal"]
    assert np.isnan(s.x[0]).all() and s.objective[1] == pytest.approx(1.0)

    m.row2 = pyo.Constraint(expr=m.x[0] + m.y <= 0.25)
    p = ldopt.Problem.from_pyomo(m, m.c)
    s = p.solve([[1.0], [-1.0]], solver=solver)
    assert list(s.status) == ["infeasible", "infeasible"]
    assert np.isnan(s.objective).all()


def test_objective_constant_and_affine_cost_map(solver):
    m = pyo.ConcreteModel()
    m.c = pyo.Param([0, 1], mutable=True, initialize=0.0)
    m.x = pyo.Var([0, 1], domain=pyo.Binary)
    m.obj = pyo.Objective(expr=(2 * m.c[0] + 1) * m.x[0] - m.c[1] * m.x[1] + 3 * m.c[0] + 4, sense=pyo.maximize)
    m.row = pyo.Constraint(expr=m.x[0] + m.x[1] <= 1)
    p = ldopt.Problem.from_pyomo(m, m.c)
    require(p, solver)
    s = p.solve([[1.0, -5.0], [-2.0, 1.0]], solver=solver)
    # instance 0: x0 gives 3, x1 gives 5 -> pick x1: 5 + 3 + 4; instance 1: nothing: -6 + 4
    np.testing.assert_allclose(s.objective, [12.0, -2.0])
    np.testing.assert_allclose(s.bound, s.objective, atol=1e-6)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 7), rows=st.integers(1, 3))
def test_random_milps_against_brute_force(solver, seed, n, rows):
    r = np.random.default_rng(seed)
    A, lo, hi, lb, ub = _random_milp(r, n, rows, int_ub=2)
    model = linear_model(A, lo, hi, lb, ub, domain=pyo.Integers)
    p = ldopt.Problem.from_pyomo(model, model.c)
    require(p, solver)
    costs = r.normal(size=(2, n))
    s = p.solve(costs, solver=solver)
    np.testing.assert_allclose(s.objective, brute_force(A, lo, hi, lb, ub, costs), atol=1e-6)


def test_backends_agree_on_knapsack(solver):
    d = knapsack.protocol_data(6, 30, dim=4, seed=3)
    model = knapsack.build_model(d.weights, d.capacities)
    p = ldopt.Problem.from_pyomo(model, model.c)
    require(p, solver)
    ref = p.solve(d.costs, solver="highs")
    s = p.solve(d.costs, solver=solver)
    np.testing.assert_allclose(s.objective, ref.objective, rtol=1e-9)
    assert (p.violation(s.x) <= 1e-6).all()


def test_backends_agree_on_portfolio(solver):
    cov, _, costs = portfolio.gen_data(4, 5, 20, deg=4, seed=7)
    model = portfolio.build_model(cov)
    p = ldopt.Problem.from_pyomo(model, model.c)
    require(p, solver)
    ref = p.solve(costs, solver="cvxpy")
    s = p.solve(costs, solver=solver)
    np.testing.assert_allclose(s.objective, ref.objective, rtol=1e-5)
    assert (p.violation(s.x) <= 1e-6).all()


@pytest.fixture(scope="module")
def executors():
    """A user's thread pool, a local process pool and a Dask cluster of processes (closed after)."""
    from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415

    from ldopt.runtime import parallel  # noqa: PLC0415

    pools = {"threads": ThreadPoolExecutor(3), "local pool": parallel.local_pool(2)}
    dask = None
    try:
        dask = parallel.dask_executor(workers=2)
        pools["dask"] = dask.__enter__()
    except ldopt.InputError:  # Dask not installed: the other executors still run
        dask = None
    yield pools
    if dask is not None:
        dask.__exit__(None, None, None)
    pools["threads"].shutdown()
    pools["local pool"].shutdown()


def test_every_solver_works_under_every_executor(solver, executors):
    """The same answers on this process's threads (default), a user's ThreadPoolExecutor, a local
    process pool and Dask: sessions are per thread, and a worker rebuilds what it needs (a Pyomo
    model from the compiled arrays)."""
    d = knapsack.protocol_data(10, 14, dim=3, seed=4)
    m = knapsack.build_model(d.weights, d.capacities)
    p = ldopt.Problem.from_pyomo(m, m.c)
    require(p, solver)
    ref = p.solve(d.costs, solver="highs").objective
    np.testing.assert_allclose(ldopt.evaluate.regret.solve_many(p, d.costs, solver).objective, ref, atol=1e-6)
    for name, ex in executors.items():
        got = ldopt.evaluate.regret.solve_many(p, d.costs, solver, executor=ex, chunk_size=3).objective
        np.testing.assert_allclose(got, ref, atol=1e-6, err_msg=name)


def test_every_solver_works_as_a_block_solver(solver):
    """A registry solver for every block of a dual solve (threads by default): the first bound is the
    oracle's (it depends only on the blocks' optimal values; later ones follow the solutions, whose
    ties a solver may break otherwise), and every bound is valid."""
    d = knapsack.protocol_data(6, 12, dim=2, seed=2)
    m = knapsack.build_model(d.weights, d.capacities)
    p = ldopt.Problem.from_pyomo(m, m.c)
    dec = ldopt.decompose(p)
    require(dec.block(0).problem, solver)
    first = dec.dual(d.costs, iterations=1, progress=False).bound
    np.testing.assert_allclose(dec.dual(d.costs, iterations=1, solver=solver, progress=False).bound, first, rtol=1e-6)
    got = dec.dual(d.costs, iterations=6, solver=solver, progress=False)
    assert (got.bound >= p.solve(d.costs, solver="highs").objective - 1e-6).all()
