"""Every exact oracle agrees with HiGHS or CVXPY on thousands of random instances."""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from models import ball_optimum, linear_model, row_model, single_row_problem

import ldopt
from ldopt.decomposition.blocks import _block_model
from ldopt.oracles import (
    BudgetQuadraticOracle,
    KnapsackRowOracle,
    LinearRowOracle,
    MixedRowOracle,
    QuadraticRowOracle,
    fit_oracle,
)
from ldopt.oracles.pivoting import SupportSolver
from ldopt.problems import portfolio


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(1, 30),
    kind=st.sampled_from(["le", "ge", "eq", "range"]),
    sign=st.sampled_from([1.0, -1.0]),
)
def test_linear_row_oracle_matches_highs(seed, n, kind, sign):
    rng = np.random.default_rng(seed)
    a = sign * rng.uniform(0.5, 3, n)
    lb, ub = rng.uniform(-1, 0, n), rng.uniform(0.1, 2, n)
    span = np.sort([(a * lb).sum(), (a * ub).sum()])
    mid = rng.uniform(*span)
    lo, hi = {"le": (-np.inf, mid), "ge": (mid, np.inf), "eq": (mid, mid), "range": (mid - 0.3, mid + 0.3)}[kind]
    model = linear_model(a[None, :], np.array([lo]), np.array([hi]), lb, ub, domain=pyo.Reals)
    p = ldopt.Problem.from_pyomo(model, model.c)
    oracle = fit_oracle(_block_model(p, [0]))
    assert isinstance(oracle, LinearRowOracle)
    lam = rng.normal(0, 2, (30, n))
    x = oracle.argmax(lam)
    assert (p.violation(x) <= 1e-8).all()
    np.testing.assert_allclose((x * lam).sum(axis=1), p.solve(lam, solver="highs").objective, atol=1e-7)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(1, 25),
    kind=st.sampled_from(["le", "ge", "eq", "range"]),
    alpha=st.sampled_from([1.0, -1.0, 2.5]),
    binary=st.booleans(),
)
def test_linear_row_oracle_on_cardinality_rows_over_integers_matches_highs(seed, n, kind, alpha, binary):
    rng = np.random.default_rng(seed)
    lb = np.zeros(n) if binary else rng.integers(-2, 1, n).astype(float)
    ub = np.ones(n) if binary else lb + rng.integers(0, 4, n)
    a = np.full(n, alpha)
    span = np.sort([lb.sum(), ub.sum()])
    k = float(rng.integers(span[0], span[1] + 1))
    lo, hi = {"le": (-np.inf, k), "ge": (k, np.inf), "eq": (k, k), "range": (k - 1, k + 1)}[kind]
    lo, hi = np.sort([alpha * lo, alpha * hi]) if alpha > 0 else np.sort([alpha * hi, alpha * lo])
    model = linear_model(
        a[None, :], np.array([lo]), np.array([hi]), lb, ub, domain=pyo.Binary if binary else pyo.Integers
    )
    p = ldopt.Problem.from_pyomo(model, model.c)
    oracle = fit_oracle(_block_model(p, [0]))
    assert oracle is not None
    lam = rng.normal(0, 2, (20, n))
    x = oracle.argmax(lam)
    assert (p.violation(x) <= 1e-8).all()  # integral and feasible
    np.testing.assert_allclose((x * lam).sum(axis=1), p.solve(lam, solver="highs").objective, atol=1e-7)


def test_linear_row_oracle_refuses_unequal_coefficients_over_integers():
    assert LinearRowOracle.fit(_block_model(single_row_problem([1, 2], 1, 1, pyo.Binary), [0])) is None
    assert LinearRowOracle.fit(_block_model(single_row_problem([2, 2], 1, 1, pyo.Binary), [0])) is None


def test_portfolio_budget_row_uses_the_linear_oracle():
    cov, _, _ = portfolio.gen_data(2, 5, 30, seed=0)
    m = portfolio.build_model(cov)
    dec = ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c))
    assert [dec.block(k).solver().name for k in range(2)] == ["linear-row", "quadratic-row"]


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
    x = oracle.argmax(lam)
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


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.sampled_from([3, 30, 120]), shift=st.floats(-1.0, 1.0))
def test_quadratic_oracle_active_set_matches_the_nnls_dual_and_kkt(seed, n, shift):
    """Block principal pivoting settles on every instance (random covariances, costs of mixed signs
    whose share of positive entries ``shift`` moves) and gives the NNLS dual's optimum to 1e-9, with
    the KKT conditions met: on the support ``v ∝ Px``, off it ``v_j <= θ (Px)_j``."""
    rng = np.random.default_rng(seed)
    G = rng.normal(size=(n, n)) * rng.uniform(0.05, 1)
    P = G @ G.T / n + np.diag(rng.uniform(0.01, 1, n))
    R = float(rng.uniform(0.1, 3.0))
    fast, dual = QuadraticRowOracle(P, R, np.full(n, np.inf)), QuadraticRowOracle(P, R, np.full(n, np.inf))
    dual.use_active_set = False
    V = rng.normal(shift, 1.0, (6, n))
    for v in V:
        x, ref = fast.solve_one(v), dual.solve_one(v)
        scale = np.abs(v).max() * max(np.abs(ref).sum(), 1e-300)
        assert abs(v @ x - v @ ref) <= 1e-9 * scale
        assert x.min() >= 0 and x @ P @ x <= R * (1 + 1e-10)
        if (v <= 0).all():
            assert not x.any()
            continue
        S, Px = x > 0, P @ x
        theta = (v[S] @ x[S]) / (Px[S] @ x[S])
        assert np.abs(v[S] - theta * Px[S]).max() <= 1e-8 * np.abs(v).max()
        assert (v[~S] <= theta * Px[~S] + 1e-8 * np.abs(v).max()).all()
    assert fast.handed_over == 0 and dual.pivots == 0


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.sampled_from([20, 150]),
    out=st.floats(0.0, 0.6),
    cond=st.sampled_from([1e2, 1e8]),
)
def test_support_solver_solves_every_principal_block(seed, n, out, cond):
    """``P_SS y = b`` on random supports, through ``P⁻¹`` (a support missing at most a third of a
    large ``P``) or a factorisation of the block, matches a dense solve; the products ``P[:, S] y``
    come back with it. Eigenvalues over 2 decades, or 8 (badly conditioned)."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    P = (Q * np.geomspace(1.0, 1.0 / cond, n)) @ Q.T
    P = (P + P.T) / 2
    solver = SupportSolver(P, np.linalg.cholesky(P))
    idx = np.flatnonzero(rng.uniform(size=n) >= out)
    if len(idx) == 0:
        return
    rhs = rng.normal(size=(len(idx), 2))
    solved = solver.solve(idx, rhs)
    assert solved is not None
    Y, PY = solved
    ref = np.linalg.solve(P[np.ix_(idx, idx)], rhs)
    np.testing.assert_allclose(Y, ref, rtol=0, atol=1e-9 * cond * np.abs(ref).max())
    # two float evaluations of P[:, S] Y (other BLAS kernels sum in other orders) differ by at most
    # 2·n·eps·(|P| |Y|) entrywise (Higham, Thm 3.5); |Y| grows with the condition number, PY does not
    eps = np.finfo(float).eps
    np.testing.assert_allclose(PY, P[:, idx] @ Y, rtol=0, atol=2 * n * eps * (np.abs(P[:, idx]) @ np.abs(Y)).max())
    through_inverse = n >= 100 and 3 * (n - len(idx)) <= n and len(idx) < n
    assert solver.complements + solver.factorisations == (len(idx) < n)
    if through_inverse and cond == 1e2:
        assert solver.complements == 1  # well conditioned: the residual check passes


def test_quadratic_oracle_without_bounds_is_the_closed_form():
    rng = np.random.default_rng(3)
    n = 8
    G = rng.normal(size=(n, n))
    P = G @ G.T + np.eye(n)
    oracle = QuadraticRowOracle(P, 2.0, np.full(n, np.inf))
    v = np.abs(rng.normal(size=(4, n))) + 5 * np.linalg.solve(np.linalg.inv(P), np.ones(n))  # keep x > 0
    x_ref, _ = ball_optimum(v, P, 2.0)
    if (x_ref > 0).all():
        np.testing.assert_allclose(oracle.argmax(v), x_ref, rtol=1e-8)


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


def _budget_risk_model(P: np.ndarray, R: float, a: np.ndarray, lo: float | None, hi: float | None, sense=pyo.maximize):
    """``opt c·x  s.t.  lo <= a·x <= hi,  x'Px <= R,  0 <= x <= 1``."""
    n = len(a)
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, n - 1)
    m.c = pyo.Param(m.I, mutable=True, initialize=0.0)
    m.x = pyo.Var(m.I, bounds=(0.0, 1.0))
    m.obj = pyo.Objective(expr=sum(m.c[j] * m.x[j] for j in m.I), sense=sense)
    m.row = pyo.Constraint(expr=pyo.inequality(lo, sum(float(a[j]) * m.x[j] for j in m.I), hi))
    m.risk = pyo.Constraint(expr=sum(float(P[i, j]) * m.x[i] * m.x[j] for i in m.I for j in m.I) <= R)
    return ldopt.Problem.from_pyomo(m, m.c)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(2, 25),
    kind=st.sampled_from(["eq", "le", "ge", "range"]),
    minimize=st.booleans(),
)
def test_budget_quadratic_oracle_matches_cvxpy(seed, n, kind, minimize):
    """The whole problem ``one positive row + one risk row`` solved by the oracle backend equals
    CVXPY/Clarabel's optimum, and the oracle's point is feasible; with mixed-sign costs ``x >= 0`` binds,
    and a risk budget near a vertex's variance tests the case where the risk row is slack."""
    rng = np.random.default_rng(seed)
    G = rng.normal(size=(n, n)) * rng.uniform(0.1, 1)
    P = G @ G.T / n + np.diag(rng.uniform(0.05, 1, n))
    a = rng.uniform(0.2, 2.0, n)
    reach = np.sqrt(rng.uniform(0.2, 3.0) * float(np.min(np.diag(P))))  # risk budget: R = reach²
    R = reach**2
    side = rng.uniform(0.1, 1.0) * reach * float(np.min(a / np.sqrt(np.diag(P))))
    lo, hi = {"eq": (side, side), "le": (None, side), "ge": (side, None), "range": (0.5 * side, side)}[kind]
    p = _budget_risk_model(P, R, a, lo, hi, pyo.minimize if minimize else pyo.maximize)
    assert isinstance(fit_oracle(p.compiled), BudgetQuadraticOracle)
    costs = rng.normal(0.0, 1.0, size=(6, n)) + rng.uniform(-1, 1, size=(6, 1))
    s = p.solve(costs, solver="oracle")
    ref = p.solve(costs, solver="cvxpy")
    assert (s.status == "optimal").all() and (ref.status == "optimal").all()
    np.testing.assert_allclose(s.objective, ref.objective, rtol=1e-5, atol=1e-6)
    assert (p.violation(s.x) <= 1e-8 * max(1.0, R)).all()


def _brent_only(oracle: BudgetQuadraticOracle) -> BudgetQuadraticOracle:
    """The same oracle with its active-set methods switched off: Brent's method over ν, each step the
    risk row's NNLS dual."""
    oracle.use_active_set = oracle.risk.use_active_set = False
    return oracle


def _kkt_gap(o: BudgetQuadraticOracle, v: np.ndarray, x: np.ndarray) -> float:
    """How far ``x`` is from the KKT conditions of ``max v·x, a·x = side, x'Px <= R, x >= 0`` with both
    rows binding: the least-squares multipliers (ν, θ) on the support, then the worst violation of
    stationarity there and of the reduced returns' sign off it, relative to ``v``'s scale."""
    held = x > 0
    Px = o.P @ x
    A = np.column_stack([-o.a[held], -2 * Px[held]])  # v_S − ν a_S − 2θ (Px)_S = 0
    (nu, theta), *_ = np.linalg.lstsq(A, -v[held], rcond=None)
    reduced = 2 * theta * Px - v + nu * o.a  # ≥ 0 off the support, 0 on it
    scale = float(np.max(np.abs(v)))
    return max(float(np.max(np.abs(reduced[held]))), float(-reduced[~held].min(initial=0.0)), -theta) / scale


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.sampled_from([5, 30, 120]), spread=st.floats(0.0, 0.5))
def test_budget_quadratic_active_set_matches_brent_and_meets_kkt(seed, n, spread):
    """The active-set method (module docstring) takes every portfolio instance, predicted returns
    with noise or mixed-sign costs, and gives Brent's optimum to 1e-9 with the KKT conditions met."""
    rng = np.random.default_rng(seed)
    cov, _, ret = portfolio.gen_data(8, 5, n, deg=int(rng.integers(1, 9)), seed=int(rng.integers(1000)))
    m = portfolio.build_model(cov)
    o = fit_oracle(ldopt.Problem.from_pyomo(m, m.c).compiled)
    brent = _brent_only(fit_oracle(ldopt.Problem.from_pyomo(m, m.c).compiled))
    V = np.concatenate([ret * np.exp(spread * rng.standard_normal(ret.shape)), rng.normal(0, 0.05, (2, n))])
    for v in V:
        x, ref = o.solve_one(v), brent.solve_one(v)
        assert x is not None and ref is not None
        assert abs(v @ x - v @ ref) <= 1e-9 * np.abs(v).max() * np.abs(x).sum()
        assert abs(x.sum() - 1) <= 1e-12 and x.min() >= 0 and x @ o.P @ x <= o.R * (1 + 1e-10)
        assert _kkt_gap(o, v, x) <= 1e-8
    assert o.handed_over == 0  # the risk row binds on these: none went on to Brent's method


def test_budget_quadratic_oracle_on_the_portfolio_solves_it_whole():
    cov, _, ret = portfolio.gen_data(30, 5, 60, deg=4, seed=2)
    m = portfolio.build_model(cov)
    p = ldopt.Problem.from_pyomo(m, m.c)
    assert p.session("auto")[0] == "oracle"  # "auto" takes the exact oracle first
    s, ref = p.solve(ret), p.solve(ret, solver="cvxpy")
    assert s.solver == "oracle"
    np.testing.assert_allclose(s.objective, ref.objective, rtol=1e-7)
    np.testing.assert_allclose(s.x.sum(axis=1), 1.0, atol=1e-12)  # the budget row exactly
    # the rows hold up to the rounding of evaluating them: n·eps times the magnitude of their terms
    P = p.compiled.rows[-1].matrix if p.compiled.rows[-1].is_quadratic else p.compiled.rows[0].matrix
    terms = np.einsum("bi,ij,bj->b", np.abs(s.x), np.abs(P), np.abs(s.x)) + np.abs(s.x).sum(axis=1)
    assert (p.violation(s.x) <= 4 * s.x.shape[1] * np.finfo(float).eps * np.maximum(terms, 1.0)).all()


def test_oracle_backend_hands_what_it_cannot_finish_to_the_next_solver():
    """A risk budget that lets one asset exceed its bound of 1, and a budget row that no point inside
    the risk row meets: the first goes to CVXPY (optimal), the second is reported infeasible."""
    P = np.diag([1e-4, 1.0, 1.0])
    p = _budget_risk_model(P, 1.0, np.ones(3), None, 3.0)
    s = p.solve(np.array([[1.0, 0.1, 0.1]]), solver="oracle")
    ref = p.solve(np.array([[1.0, 0.1, 0.1]]), solver="cvxpy")
    assert s.status[0] == "optimal" and (s.x <= 1 + 1e-7).all()
    np.testing.assert_allclose(s.objective, ref.objective, rtol=1e-6)
    far = _budget_risk_model(np.eye(3), 0.01, np.ones(3), 1.0, 1.0)  # ||x|| <= 0.1 cannot sum to 1
    assert far.solve(np.ones(3), solver="oracle").status[0] == "infeasible"


def test_oracle_backend_says_why_it_does_not_fit():
    m = portfolio.build_model(np.eye(3))
    p = ldopt.Problem.from_pyomo(m, m.c)
    assert p.solvers()["oracle"]
    A = np.ones((2, 4))
    two_rows = linear_model(A, np.full(2, -np.inf), np.array([2.0, 3.0]), np.zeros(4), np.ones(4))
    q = ldopt.Problem.from_pyomo(two_rows, two_rows.c)
    why = q.solvers()["oracle"]
    assert not why and "no exact oracle fits" in why.reason
    assert q.session("auto")[0] != "oracle"


ROWS = ["flow", "gub", "cardinality", "cover", "fixed-charge", "capacity", "mixed-signs"]


def _family_row(family: str, n: int, rng: np.random.Generator):
    """A single row of a family that MILPs decompose into: ``(a, lo, hi, lb, ub, kinds, oracle)``
    where ``lo``/``hi`` is None for a one-sided row and ``oracle`` is the class (or classes: one weight
    is a cardinality row) that must fit it."""
    if family == "flow":  # a node's conservation over binary or integer arcs: Σ out − Σ in = b
        a = rng.choice([-1.0, 1.0], n)
        kinds = np.array([rng.choice(["B", "I"])] * n)
        lb, ub = np.zeros(n), np.where(kinds == "B", 1.0, rng.integers(1, 4, n))
        b = float(rng.integers(np.minimum(a * lb, a * ub).sum(), np.maximum(a * lb, a * ub).sum() + 1))
        return a, b, b, lb, ub, kinds, LinearRowOracle
    if family == "gub":  # choose at most (or exactly) one
        b = 1.0
        return (
            np.ones(n),
            (b if rng.random() < 0.5 else None),
            b,
            np.zeros(n),
            np.ones(n),
            np.array(["B"] * n),
            LinearRowOracle,
        )
    if family == "cardinality":  # between k1 and k2 of n, on general integers with shifted bounds
        lb = rng.integers(-2, 1, n).astype(float)
        ub = lb + rng.integers(1, 4, n)
        k1 = float(rng.integers(lb.sum(), ub.sum() + 1))
        return np.ones(n), k1, k1 + float(rng.integers(0, 3)), lb, ub, np.array(["I"] * n), LinearRowOracle
    if family == "cover":  # Σ w_j x_j >= d over binaries (the complement of a knapsack)
        w = rng.integers(1, 50, n).astype(float)
        either = (KnapsackRowOracle, LinearRowOracle)
        return w, float(rng.integers(1, w.sum() + 1)), None, np.zeros(n), np.ones(n), np.array(["B"] * n), either
    if family == "fixed-charge":  # x_j <= U y: continuous flows switched on by one binary
        a = np.r_[np.ones(n), -rng.uniform(1, 5)]
        lb, ub = np.zeros(n + 1), np.r_[rng.uniform(0.2, 2, n), 1.0]
        return a, None, 0.0, lb, ub, np.array(["C"] * n + ["B"]), MixedRowOracle
    if family == "capacity":  # a facility: Σ_i d_i x_ij <= u_j y_j with x continuous in [0, 1]
        d = rng.uniform(1, 10, n)
        a = np.r_[d, -rng.uniform(0.3, 1.0) * d.sum()]
        return a, None, 0.0, np.zeros(n + 1), np.ones(n + 1), np.array(["C"] * n + ["B"]), MixedRowOracle
    # continuous variables of both signs, a range row, and two small integers beside them
    a = np.r_[rng.uniform(0.5, 3, n) * rng.choice([-1, 1], n), rng.uniform(0.5, 3, 2) * rng.choice([-1, 1], 2)]
    lb, ub = np.r_[rng.uniform(-1, 0, n), -1.0, 0.0], np.r_[rng.uniform(0.1, 2, n), 1.0, 2.0]
    span = np.sort([np.minimum(a * lb, a * ub).sum(), np.maximum(a * lb, a * ub).sum()])
    mid = rng.uniform(*span)
    return a, mid - 0.5, mid + 0.5, lb, ub, np.array(["C"] * n + ["I", "I"]), MixedRowOracle


@settings(max_examples=120, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(1, 20),
    family=st.sampled_from(ROWS),
    minimize=st.booleans(),
)
def test_every_single_row_of_a_milp_has_an_exact_oracle(seed, n, family, minimize):
    """Flow conservation, GUB, cardinality, covering, fixed-charge, facility-capacity and mixed
    rows: the oracle that fits is the expected closed form or core, never a MIP solver, and its
    answer is feasible and as good as HiGHS's in both senses."""
    rng = np.random.default_rng(seed)
    a, lo, hi, lb, ub, kinds, expected = _family_row(family, n, rng)
    p = row_model(a, lo, hi, lb, ub, kinds, pyo.minimize if minimize else pyo.maximize)
    oracle = fit_oracle(_block_model(p, [0]))
    assert isinstance(oracle, expected), f"{family}: expected {expected}, got {oracle}"
    lam = rng.normal(0, 2, (8, len(a)))
    x = oracle.argmax(lam)
    assert (p.violation(x) <= 1e-8).all()
    ref = p.solve(-lam if minimize else lam, solver="highs")  # the block's max λ·x is min −λ·x
    assert (ref.status == "optimal").all()
    # HiGHS's MIP feasibility tolerance (1e-6) lets its rows bend by that much, times a ratio λ/a
    np.testing.assert_allclose((x * lam).sum(1), (-1 if minimize else 1) * ref.objective, rtol=1e-9, atol=1e-5)


def test_rows_without_an_exact_oracle_say_which_solver_runs_them():
    """A row of general integers with unequal coefficients and wide bounds fits no closed form: the
    knapsack core takes it; a row with a continuous variable beside many integers fits none."""
    p = row_model([1.0, 2.0, 3.0], None, 4.0, [0, 0, 0], [5, 5, 5], ["I", "I", "I"])
    assert fit_oracle(_block_model(p, [0])).name == "knapsack"
    many = 8  # 2^8 combinations of binaries beside a continuous variable: above MAX_COMBOS
    p = row_model([1.0] * many + [1.0], None, 4.0, [0] * (many + 1), [1] * many + [2.5], ["B"] * many + ["C"])
    assert fit_oracle(_block_model(p, [0])) is None
