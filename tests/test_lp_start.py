"""Multipliers from the LP relaxation (`mu0="lp"`, `ldopt.dual.lp_start`).

The split ``λ_k = A_kᵀ y_k + r / c`` sums to ``q``; its bound, recomputed by each block's own
HiGHS solve, lies between the exact optimum (weak duality) and the LP's optimum, and equals the
LP's optimum when the blocks are LPs themselves; every mode starts from it."""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from models import bound_from_multipliers, linear_model

import ldopt
from ldopt.dual import DualSettings
from ldopt.dual.lp_start import lp_multipliers
from ldopt.dual.support import Support
from ldopt.errors import InputError
from ldopt.evaluate.lp_relaxation import solve_relaxation
from ldopt.runtime import threads


def _mkp(seed: int, n: int = 12, rows: int = 3, domain=pyo.Binary, sense=pyo.maximize):
    rng = np.random.default_rng(seed)
    A = rng.integers(1, 9, (rows, n)).astype(float)
    A[rng.random((rows, n)) < 0.4] = 0.0  # sparse rows: the supports differ
    A[np.arange(n) % rows, np.arange(n)] = rng.integers(1, 9, n)  # every variable in some block
    hi = np.maximum(1.0, 0.4 * A.sum(axis=1))
    lo = np.full(rows, -np.inf)
    if sense == pyo.minimize:  # covering rows
        lo, hi = np.maximum(1.0, 0.3 * A.sum(axis=1)), np.full(rows, np.inf)
    m = linear_model(A, lo, hi, np.zeros(n), np.ones(n), domain=domain, sense=sense)
    p = ldopt.Problem.from_pyomo(m, m.c)
    return p, ldopt.decompose(p), rng.uniform(1, 10, (4, n))


def _block_bound(dec, lam_user: np.ndarray, sense: str) -> np.ndarray:
    """``Σ_k max λ_k·x`` over block k (user's sense), each block solved by HiGHS."""
    sign = 1.0 if sense == "max" else -1.0
    return sum(
        sign * dec.block(k).problem.solve(sign * lam_user[:, k], solver="highs").objective
        for k in range(dec.num_blocks)
    )


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), sparse=st.booleans(), minimise=st.booleans())
def test_lp_split_sums_to_q_and_its_bound_lies_between_the_optimum_and_the_lp(seed, sparse, minimise):
    p, dec, costs = _mkp(seed, sense=pyo.minimize if minimise else pyo.maximize)
    q = p.sign * p.objective_coefficients(costs)
    lp = solve_relaxation(p, q)
    lam, x, value = lp_multipliers(dec, q, sparse, lp), lp.x, lp.value
    sup = Support.of(dec)
    dense = sup.to_dense(lam) if sparse else lam
    np.testing.assert_allclose(dense.sum(axis=1), q, atol=1e-9 * np.abs(q).max())
    if sparse:  # a block's multipliers stay on its support
        assert lam.shape == (len(q), sup.nnz)
    bound = _block_bound(dec, p.sign * dense, p.sense)
    lp = p.sign * value  # the LP relaxation's optimum, user's sense
    opt = p.solve(costs, solver="highs").objective
    tol = 1e-6 * np.maximum(1.0, np.abs(opt))
    if p.sense == "max":
        assert np.all(opt <= bound + tol) and np.all(bound <= lp + tol)
    else:
        assert np.all(opt >= bound - tol) and np.all(bound >= lp - tol)
    assert np.allclose(p.objective(x, costs), lp, atol=1e-6 * np.abs(lp).max())


def test_continuous_blocks_give_the_lp_optimum_exactly():
    """For an LP, LD is the LP dual: the split's bound is the LP's optimum, not only below it."""
    p, dec, costs = _mkp(3, n=15, rows=4, domain=pyo.NonNegativeReals)
    q = p.sign * p.objective_coefficients(costs)
    for sparse in (False, True):
        lam = lp_multipliers(dec, q, sparse)
        value = solve_relaxation(p, q).value
        dense = Support.of(dec).to_dense(lam) if sparse else lam
        np.testing.assert_allclose(_block_bound(dec, dense, "max"), value, rtol=1e-7)
    np.testing.assert_allclose(value, p.solve(costs, solver="highs").objective, rtol=1e-7)


@pytest.mark.parametrize(
    ("mode", "layout"),
    [("shared", "dense"), ("shared", "sparse"), ("joint", "dense"), ("joint", "sparse"), ("independent", "dense")],
)
def test_every_mode_starts_from_the_lp_split(mode, layout):
    p, dec, costs = _mkp(11, n=14, rows=3)
    r = dec.dual(costs, DualSettings(mu0="lp", layout=layout), mode=mode, iterations=1, step="polyak", progress=False)
    q = p.sign * p.objective_coefficients(costs)
    lp = solve_relaxation(p, q).value
    opt = p.solve(costs, solver="highs").objective
    for d in range(dec.num_blocks):  # every decomposition's bound, from its multipliers alone
        b = bound_from_multipliers(dec, r, d, p.sense)
        np.testing.assert_allclose(b, r.bound_of(d), rtol=1e-7, atol=1e-7)
        assert np.all(opt <= b + 1e-6) and np.all(b <= lp + 1e-6)
    # the LP's point, repaired, is a feasible first primal value
    assert np.all(np.isfinite(r.primal_objective)) and np.all(p.violation(r.primal_x) <= 1e-9)
    assert np.all(r.primal_objective <= opt + 1e-9)


def test_lp_start_beats_the_symmetric_start_after_one_iteration():
    _, dec, costs = _mkp(5, n=30, rows=5)
    lp = dec.dual(costs, DualSettings(mu0="lp"), iterations=1, step="polyak", progress=False).bound
    sym = dec.dual(costs, iterations=1, step="polyak", progress=False).bound
    assert np.all(lp <= sym + 1e-9) and np.any(lp < sym - 1e-6)


def test_lp_start_names_what_it_cannot_do():
    from models import portfolio_instances  # noqa: PLC0415

    _, dec, ret, _ = portfolio_instances(2, 4)
    with pytest.raises(InputError, match=r"expected linear rows, got the quadratic row.*use mu0='symmetric'"):
        dec.dual(ret, DualSettings(mu0="lp"), iterations=1, step="polyak", progress=False)
    with pytest.raises(InputError, match="expected a number, 'auto', 'symmetric' or 'lp', got 'LP'"):
        DualSettings(mu0="LP")
    assert DualSettings(mu0="lp", step="polyak").key()["mu0"] == "lp"  # a cache key of its own


def test_column_generation_prices_the_lp_split_first_and_reaches_ld_star():
    _, dec, costs = _mkp(2, n=12, rows=3)
    r = dec.dual(costs, DualSettings(mu0="lp"), step="master", progress=False)
    exact = ldopt.lagrangian_bound(dec, costs)
    np.testing.assert_allclose(r.bound, exact.bound, rtol=1e-6)


def test_the_repair_ranks_items_by_the_prices_it_is_given():
    from ldopt.model.primal import PrimalHeuristic  # noqa: PLC0415

    p, _, costs = _mkp(9, n=30, rows=4)
    q = p.sign * p.objective_coefficients(costs)
    lp = solve_relaxation(p, q)
    h = PrimalHeuristic(p)
    X = lp.x[:, None, :]
    idx = np.arange(len(q))
    plain = (np.full(len(q), -np.inf), np.full(q.shape, np.nan))
    zero = (np.full(len(q), -np.inf), np.full(q.shape, np.nan))
    priced = (np.full(len(q), -np.inf), np.full(q.shape, np.nan))
    h.update(q, X, *plain, idx)
    h.update(q, X, *zero, idx, prices=np.zeros_like(lp.duals))  # no prices: the capacity shares' ranking
    h.update(q, X, *priced, idx, prices=lp.duals)
    np.testing.assert_array_equal(plain[1], zero[1])
    for value, x in (plain, priced):
        assert np.all(p.violation(x) <= 1e-9) and np.allclose(np.einsum("bn,bn->b", x, q), value)
        assert np.all(value <= lp.value + 1e-9)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_polish_ends_feasible_better_and_at_a_local_optimum(seed):
    from ldopt.model.primal import PrimalHeuristic  # noqa: PLC0415

    p, _, costs = _mkp(seed, n=16, rows=3)
    q = p.sign * p.objective_coefficients(costs)
    h = PrimalHeuristic(p)
    idx = np.arange(len(q))
    p_val, p_x = np.zeros(len(q)), np.zeros(q.shape)  # the empty packing: feasible, worth 0
    start = p_val.copy()
    cand = np.repeat(np.arange(q.shape[1])[None], len(q), axis=0)
    h.polish(q, p_val, p_x, idx, cand)
    A, hi = h.A, h.hi
    for b in idx:
        x = p_x[b]
        assert p.violation(x) <= 1e-9 and p_val[b] >= start[b] and np.isclose(x @ q[b], p_val[b])
        load = A @ x
        for j in np.flatnonzero(x < 0.5):  # no add, no swap improves it
            assert not (q[b, j] > 1e-9 and np.all(load + A[:, j] <= hi + 1e-9))
            for i in np.flatnonzero(x > 0.5):
                assert not (q[b, j] - q[b, i] > 1e-9 and np.all(load - A[:, i] + A[:, j] <= hi + 1e-9))


@pytest.mark.parametrize("minimise", [False, True])
def test_lp_optima_give_feasible_decisions_and_a_certified_interval(minimise):
    from ldopt.evaluate.regret import report  # noqa: PLC0415

    p, _, costs = _mkp(4, n=20, rows=4, sense=pyo.minimize if minimise else pyo.maximize)
    opt, lp_x = ldopt.lp_optima(p, costs)
    exact = p.solve(costs, solver="highs").objective
    s = p.sign
    assert np.all(p.violation(opt.x) <= 1e-9)
    np.testing.assert_allclose(p.objective(opt.x, costs), opt.value, rtol=1e-12)
    assert np.all(s * opt.value <= s * exact + 1e-9) and np.all(s * exact <= s * opt.bound + 1e-9)
    np.testing.assert_allclose(p.objective(lp_x, costs), opt.bound, rtol=1e-9)  # the LP's points
    # decisions for other costs, certified against these optima: the interval holds the exact regret
    pred = costs[::-1].copy()
    x_hat = ldopt.lp_optima(p, pred)[0].x
    f = p.objective(x_hat, costs)
    rep = report(opt.improve(x_hat, f), f)
    true = np.sum(np.abs(exact - f)) / np.sum(np.abs(exact))
    assert rep.lower - 1e-12 <= true <= rep.upper + 1e-12


@pytest.mark.parametrize(("mode", "layout"), [("joint", "dense"), ("joint", "sparse"), ("independent", "dense")])
def test_the_mu_forms_start_from_the_symmetric_split(mode, layout):
    p, dec, costs = _mkp(13, n=14, rows=3)
    r = dec.dual(costs, DualSettings(mu0="lp", layout=layout), mode=mode, iterations=1, step="polyak", progress=False)
    q = p.sign * p.objective_coefficients(costs)
    lam = lp_multipliers(dec, q, sparse=False)
    for d in range(dec.num_blocks):
        np.testing.assert_allclose(p.sign * r.main_objective(d), lam[:, d], atol=1e-9 * np.abs(q).max())


def test_the_relaxed_problem_is_the_lp_relaxation():
    from ldopt.evaluate.lp_relaxation import relaxed_problem  # noqa: PLC0415

    p, _, costs = _mkp(6, n=15, rows=3)
    lp = relaxed_problem(p)
    assert not lp.is_mip and lp.num_vars == p.num_vars and lp.cost_names == p.cost_names
    s = lp.solve(costs, solver="highs")
    q = p.sign * p.objective_coefficients(costs)
    np.testing.assert_allclose(s.objective, solve_relaxation(p, q).value, rtol=1e-9)
    assert np.all(p.solve(costs, solver="highs").objective <= s.objective + 1e-9)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), minimise=st.booleans())
def test_the_lp_bound_is_the_dual_objective_of_its_prices(seed, minimise):
    """Ranged, equality and one-sided rows, bounds of both signs: the bound computed from the row
    prices (weak duality, whatever the solver's tolerances) is the LP's optimum."""
    rng = np.random.default_rng(seed)
    n, rows = 9, 5
    A = rng.normal(size=(rows, n))
    x0 = rng.uniform(-1, 1, n)  # a point inside every row: the LP is feasible
    mid = A @ x0
    lo = np.array([mid[0] - 1, -np.inf, mid[2], mid[3] - 0.5, mid[4] - 2])
    hi = np.array([mid[0] + 1, mid[1] + 1, mid[2], np.inf, mid[4] + 2])
    m = linear_model(A, lo, hi, np.full(n, -2.0), np.full(n, 2.0), domain=pyo.Reals,
                     sense=pyo.minimize if minimise else pyo.maximize)  # fmt: skip
    p = ldopt.Problem.from_pyomo(m, m.c)
    costs = rng.normal(size=(3, n))
    lp = solve_relaxation(p, p.sign * p.objective_coefficients(costs))
    exact = p.solve(costs, solver="highs").objective
    np.testing.assert_allclose(p.sign * lp.value, exact, rtol=1e-7, atol=1e-7)
    assert np.all(lp.value >= p.sign * exact - 1e-7)


def test_the_lp_relaxation_answers_the_same_whatever_the_order_and_the_threads():
    """Ties everywhere (costs 1 to 3 on integer weights: many optimal vertices and prices): every
    instance starts from the same basis, so its point and prices do not depend on the instances
    solved before it on that thread, nor on how many threads share the batch."""
    p, _, _ = _mkp(21, n=60, rows=6)
    rng = np.random.default_rng(21)
    costs = rng.integers(1, 4, (24, p.num_costs)).astype(float)
    q = p.sign * p.objective_coefficients(costs)
    ahead, behind = solve_relaxation(p, q), solve_relaxation(p, q[::-1].copy())
    np.testing.assert_array_equal(ahead.x, behind.x[::-1])
    np.testing.assert_array_equal(ahead.duals, behind.duals[::-1])
    runs = []
    for n in (1, 3):
        threads.configure(n)
        try:
            runs.append(ldopt.lp_optima(p, costs))
        finally:
            threads.configure(None)
    np.testing.assert_array_equal(runs[0][0].x, runs[1][0].x)
    np.testing.assert_array_equal(runs[0][1], runs[1][1])


def test_cached_lp_optima_load_without_solving_and_are_keyed_by_the_costs(tmp_path, monkeypatch):
    """A second call with the same problem and costs loads the LP optima (no LP solved) and gives
    the same bounds, decisions and LP points; other costs get their own entry; a torn entry is
    solved again with a warning."""
    import ldopt.evaluate.lp_relaxation as lp_module  # noqa: PLC0415

    p, _, costs = _mkp(6, n=16, rows=3)
    solved = []
    real = lp_module.solve_relaxation

    def counting(problem, q):
        solved.append(len(q))
        return real(problem, q)

    monkeypatch.setattr(lp_module, "solve_relaxation", counting)
    first, first_lp = ldopt.lp_optima(p, costs, cache=tmp_path)
    assert sum(solved) == len(costs)
    again, again_lp = ldopt.lp_optima(p, costs, cache=tmp_path)
    assert sum(solved) == len(costs)  # nothing solved again
    for a, b in ((first.value, again.value), (first.bound, again.bound), (first.x, again.x), (first_lp, again_lp)):
        np.testing.assert_array_equal(a, b)
    uncached, _ = ldopt.lp_optima(p, costs)
    np.testing.assert_array_equal(again.bound, uncached.bound)  # the integral rounding is applied to a hit too
    ldopt.lp_optima(p, costs[:2], cache=tmp_path)
    assert len(list(tmp_path.glob("lp_optima-*.npz"))) == 2
    (entry,) = [f for f in tmp_path.glob("lp_optima-*.npz") if ldopt.runtime.cache.load(f)[0]["x"].shape[0] == 4]
    entry.write_bytes(b"torn")
    with pytest.warns(UserWarning, match="computing it again"):
        redone, _ = ldopt.lp_optima(p, costs, cache=tmp_path)
    np.testing.assert_array_equal(redone.value, first.value)
    with pytest.raises(InputError, match="cache: expected a path"):
        ldopt.lp_optima(p, costs, cache=3)
