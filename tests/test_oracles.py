"""Every exact oracle agrees with HiGHS or CVXPY on thousands of random instances."""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from models import ball_optimum, linear_model

import ldopt
from ldopt.decomposition import _block_model
from ldopt.oracles import KnapsackRowOracle, LinearRowOracle, QuadraticRowOracle, fit_oracle
from ldopt.problems import portfolio


def _single_row_problem(a, lo, hi, domain, lb=0.0, ub=1.0):
    n = len(a)
    model = linear_model(np.asarray(a, float)[None, :], np.array([lo]), np.array([hi]),
                         np.full(n, lb), np.full(n, ub), domain=domain)
    return ldopt.Problem.from_pyomo(model, model.c)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(1, 40),
    negative=st.booleans(),
    geq=st.booleans(),
)
def test_knapsack_oracle_matches_highs(seed, n, negative, geq):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 9, n).astype(float)
    a[0] = max(a[0], 1.0)  # a row with no variable is dropped at compile time
    if negative:
        a *= rng.choice([-1.0, 1.0], n)
    rhs = float(np.floor(rng.uniform(0.2, 0.8) * np.abs(a).sum()))
    lo, hi = (-rhs, np.inf) if geq else (-np.inf, rhs)
    if geq:
        a = -a  # -a·x >= -rhs: the same row written as >=
    p = _single_row_problem(a, lo, hi, pyo.Binary)
    oracle = fit_oracle(_block_model(p, [0]))
    assert isinstance(oracle, KnapsackRowOracle)
    lam = rng.normal(0, 5, (40, n))
    x = oracle.solve(lam)
    ref = p.solve(lam, solver="highs")
    assert set(np.unique(x)) <= {0.0, 1.0}
    assert (p.violation(x) <= 1e-9).all()
    np.testing.assert_allclose((x * lam).sum(axis=1), ref.objective, atol=1e-9)


def test_knapsack_oracle_protocol_sizes_against_highs():
    rng = np.random.default_rng(1)
    for n in (100, 200, 300):
        w = rng.integers(3, 8, n).astype(float)
        p = _single_row_problem(w, -np.inf, float(int(0.5 * w.sum())), pyo.Binary)
        oracle = fit_oracle(_block_model(p, [0]))
        lam = rng.normal(1, 3, (25, n))
        np.testing.assert_allclose((oracle.solve(lam) * lam).sum(axis=1),
                                   p.solve(lam, solver="highs").objective, rtol=1e-9)


def test_knapsack_oracle_refuses_what_it_cannot_do():
    assert KnapsackRowOracle.fit(_block_model(_single_row_problem([1.5, 2], -np.inf, 2, pyo.Binary), [0])) is None
    assert KnapsackRowOracle.fit(_block_model(_single_row_problem([1, 2], 1, 1, pyo.Binary), [0])) is None
    assert KnapsackRowOracle.fit(_block_model(_single_row_problem([1, 2], -np.inf, 2, pyo.Integers, 0, 3), [0])) is None


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 30), kind=st.sampled_from(["le", "ge", "eq", "range"]),
       sign=st.sampled_from([1.0, -1.0]))
def test_linear_row_oracle_matches_highs(seed, n, kind, sign):
    rng = np.random.default_rng(seed)
    a = sign * rng.uniform(0.5, 3, n)
    lb, ub = rng.uniform(-1, 0, n), rng.uniform(0.1, 2, n)
    span = np.sort([(a * lb).sum(), (a * ub).sum()])
    mid = rng.uniform(*span)
    lo, hi = {"le": (-np.inf, mid), "ge": (mid, np.inf), "eq": (mid, mid),
              "range": (mid - 0.3, mid + 0.3)}[kind]
    model = linear_model(a[None, :], np.array([lo]), np.array([hi]), lb, ub, domain=pyo.Reals)
    p = ldopt.Problem.from_pyomo(model, model.c)
    oracle = fit_oracle(_block_model(p, [0]))
    assert isinstance(oracle, LinearRowOracle)
    lam = rng.normal(0, 2, (30, n))
    x = oracle.solve(lam)
    assert (p.violation(x) <= 1e-8).all()
    np.testing.assert_allclose((x * lam).sum(axis=1), p.solve(lam, solver="highs").objective, atol=1e-7)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 25), kind=st.sampled_from(["le", "ge", "eq", "range"]),
       alpha=st.sampled_from([1.0, -1.0, 2.5]), binary=st.booleans())
def test_linear_row_oracle_on_cardinality_rows_over_integers_matches_highs(seed, n, kind, alpha, binary):
    rng = np.random.default_rng(seed)
    lb = np.zeros(n) if binary else rng.integers(-2, 1, n).astype(float)
    ub = np.ones(n) if binary else lb + rng.integers(0, 4, n)
    a = np.full(n, alpha)
    span = np.sort([lb.sum(), ub.sum()])
    k = float(rng.integers(span[0], span[1] + 1))
    lo, hi = {"le": (-np.inf, k), "ge": (k, np.inf), "eq": (k, k), "range": (k - 1, k + 1)}[kind]
    lo, hi = np.sort([alpha * lo, alpha * hi]) if alpha > 0 else np.sort([alpha * hi, alpha * lo])
    model = linear_model(a[None, :], np.array([lo]), np.array([hi]), lb, ub,
                         domain=pyo.Binary if binary else pyo.Integers)
    p = ldopt.Problem.from_pyomo(model, model.c)
    oracle = fit_oracle(_block_model(p, [0]))
    assert oracle is not None
    lam = rng.normal(0, 2, (20, n))
    x = oracle.solve(lam)
    assert (p.violation(x) <= 1e-8).all()  # integral and feasible
    np.testing.assert_allclose((x * lam).sum(axis=1), p.solve(lam, solver="highs").objective, atol=1e-7)


def test_linear_row_oracle_refuses_unequal_coefficients_over_integers():
    assert LinearRowOracle.fit(_block_model(_single_row_problem([1, 2], 1, 1, pyo.Binary), [0])) is None
    assert LinearRowOracle.fit(_block_model(_single_row_problem([2, 2], 1, 1, pyo.Binary), [0])) is None


def test_portfolio_budget_row_uses_the_linear_oracle():
    cov, _, _ = portfolio.gen_data(2, 5, 30, seed=0)
    m = portfolio.build_model(cov)
    dec = ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c))
    assert [dec.block(k).solver().name for k in range(2)] == ["linear-row", "quadratic-nnls"]


@pytest.mark.parametrize("n", [5, 40, 120])
def test_quadratic_oracle_matches_cvxpy_and_kkt(n):
    cov, _, ret = portfolio.gen_data(60, 5, n, deg=4, seed=n)
    m = portfolio.build_model(cov)
    dec = ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c))
    blk = dec.block(1)
    oracle = blk.solver().oracle
    assert isinstance(oracle, QuadraticRowOracle)
    rng = np.random.default_rng(n)
    lam = ret.astype(float) + rng.normal(0, 0.02, ret.shape)  # mixed signs: x >= 0 binds
    lam[:5] = -np.abs(lam[:5])  # all negative: x = 0
    x = oracle.solve(lam)
    ref = blk.problem.solve(lam, solver="cvxpy")
    R = 2.25 * cov.mean()
    np.testing.assert_allclose((x * lam).sum(axis=1), ref.objective, rtol=2e-5, atol=1e-8)
    assert (x >= 0).all() and (np.einsum("bi,ij,bj->b", x, cov, x) <= R * (1 + 1e-9)).all()
    np.testing.assert_array_equal(x[:5], 0.0)
    # KKT: on the support, λ is parallel to Σx; off it, λ_j <= (2νΣx)_j
    for b in range(5, 15):
        S = x[b] > 1e-10
        Sx = cov @ x[b]
        nu = lam[b, S] @ x[b, S] / (Sx[S] @ x[b, S])
        np.testing.assert_allclose(lam[b, S], nu * Sx[S], rtol=1e-5, atol=1e-9)
        assert (lam[b, ~S] <= nu * Sx[~S] + 1e-9).all()


def test_quadratic_oracle_without_bounds_is_the_closed_form():
    rng = np.random.default_rng(3)
    n = 8
    G = rng.normal(size=(n, n))
    P = G @ G.T + np.eye(n)
    oracle = QuadraticRowOracle(P, 2.0, np.full(n, np.inf))
    v = np.abs(rng.normal(size=(4, n))) + 5 * np.linalg.solve(np.linalg.inv(P), np.ones(n))  # keep x > 0
    x_ref, _ = ball_optimum(v, P, 2.0)
    if (x_ref > 0).all():
        np.testing.assert_allclose(oracle.solve(v), x_ref, rtol=1e-8)


def test_quadratic_oracle_upper_bound_falls_back_to_a_solver():
    cov = np.diag([1e-4, 1.0, 1.0])
    m = portfolio.build_model(cov, gamma=50.0)  # risk budget lets x_0 exceed 1
    dec = ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c))
    solver = dec.block(1).solver()
    lam = np.array([[1.0, 0.1, 0.1]])
    x = solver.argmax(lam)
    ref = dec.block(1).problem.solve(lam, solver="cvxpy")
    assert solver.oracle.fallback_count == 1
    assert (x <= 1 + 1e-7).all()
    np.testing.assert_allclose((x * lam).sum(), ref.objective, rtol=1e-6)
