"""The exact Lagrangian bound by column generation, and ``dec.dual(step="master")``: equal to the LP
over the intersection of the blocks' enumerated convex hulls, certified from both sides, valid
for every decomposition's multipliers, and converged on the families where no primal exists."""

from __future__ import annotations

import highspy
import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from models import bound_from_multipliers, ld_dual_value, linear_model, portfolio_instances

import ldopt
from ldopt.problems import knapsack
from ldopt_experiments import protocol

ATOL = 1e-5  # HiGHS's LP and MIP tolerances


def _knapsack(seed: int, n: int, rows: int) -> tuple[ldopt.Problem, np.ndarray]:
    rng = np.random.default_rng(seed)
    W = rng.integers(1, 8, (rows, n)).astype(float)
    model = knapsack.build_model(W, np.floor(0.5 * W.sum(axis=1)))
    return ldopt.Problem.from_pyomo(model, model.c), rng.integers(1, 30, (3, n)).astype(float)


def _mixed(seed: int) -> tuple[ldopt.Problem, np.ndarray]:
    """A minimisation with an equality row, a covering row and a mixed-sign row over integers 0..2."""
    rng = np.random.default_rng(seed)
    A = np.array([[1, 1, 1, 0, 0], [0, 1, 0, 1, 1], [2, -1, 0, 1, -1]], float)
    lo = np.array([2, 2, -np.inf])
    hi = np.array([2, np.inf, 2])
    model = linear_model(A, lo, hi, np.zeros(5), np.full(5, 2.0), domain=pyo.Integers, sense=pyo.minimize)
    return ldopt.Problem.from_pyomo(model, model.c), rng.uniform(-3, 10, (3, 5))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), rows=st.integers(2, 4), kind=st.sampled_from(["knapsack", "mixed"]))
def test_the_bound_is_the_lp_over_the_intersection_of_the_convex_hulls(seed, rows, kind):
    p, costs = _knapsack(seed, 6, rows) if kind == "knapsack" else _mixed(seed)
    dec = ldopt.decompose(p)
    ld = ld_dual_value(p, dec, costs, p.sense)
    r = ldopt.lagrangian_bound(dec, costs, progress=False)
    assert r.converged.all()
    np.testing.assert_allclose(r.bound, ld, rtol=1e-6, atol=ATOL)
    np.testing.assert_allclose(r.certificate, ld, rtol=1e-6, atol=ATOL)
    np.testing.assert_allclose(r.lam.sum(axis=1), p.objective_coefficients(costs), atol=1e-9)


@pytest.mark.parametrize("mode", ["shared", "independent", "joint"])
def test_every_mode_stores_the_optimum_as_valid_multipliers_of_each_decomposition(mode):
    p, costs = _knapsack(3, 8, 3)
    dec = ldopt.decompose(p)
    ld = ld_dual_value(p, dec, costs)
    opt = p.solve(costs, solver="highs").objective
    r = dec.dual(costs, mode=mode, step="master", progress=False)
    assert r.step == "master" and r.mode == mode
    for d in range(dec.num_blocks):
        B_d = bound_from_multipliers(dec, r, d, "max")  # recomputed from μ^(d) alone
        np.testing.assert_allclose(B_d, r.bound_of(d), rtol=1e-9, atol=ATOL)
        np.testing.assert_allclose(B_d, ld, rtol=1e-6, atol=ATOL)
        x_d = r.main_solution(d)
        np.testing.assert_allclose(
            (x_d * r.main_objective(d)).sum(axis=1),
            dec.block(d).problem.solve(r.main_objective(d), solver="highs").objective,
            atol=ATOL,
        )
    assert (r.bound >= opt - ATOL).all()
    assert (np.diff(r.history, axis=0) <= 1e-12).all()  # best-so-far never rises
    ok = np.isfinite(r.primal_objective)
    assert (r.primal_objective[ok] <= opt[ok] + 1e-7).all()


FAMILIES = [
    ("shortest_path", dict(size=3)),
    ("facility", dict(size=6)),
    ("lot_sizing", dict(size=2)),
    ("set_cover", dict(size=12)),
]


@pytest.mark.parametrize(("name", "size"), FAMILIES, ids=[f[0] for f in FAMILIES])
def test_the_master_closes_the_dual_where_polyak_has_no_target(name, size):
    """On minimisations whose rows give the primal heuristic nothing, the exact bound is certified,
    bounds the optimum, and beats (or equals) every subgradient run's bound."""
    setup = protocol.FAMILIES[name](**size, train=3, val=1, test=1)
    C = setup.train[1]
    opt = setup.problem.solve(C, solver="highs").objective
    exact = ldopt.lagrangian_bound(setup.dec, C, progress=False)
    assert exact.converged.all() and (exact.gap <= 1e-6).all()
    assert (exact.bound <= opt + ATOL * np.maximum(1.0, np.abs(opt))).all()  # weak duality (minimisation)
    r = setup.dec.dual(C, step="master", mode="independent", progress=False)
    np.testing.assert_allclose(r.run_bounds, np.repeat(exact.bound[:, None], setup.dec.num_blocks, axis=1), rtol=1e-6)
    assert r.iterations <= 300  # within the default iterations
    polyak = setup.dec.dual(C, iterations=100, progress=False)
    assert (polyak.bound <= exact.bound + 1e-6 * np.maximum(1.0, np.abs(exact.bound))).all()


def test_chunks_and_checkpoints_give_the_same_optimum(tmp_path):
    p, costs = _knapsack(5, 8, 3)
    dec = ldopt.decompose(p)
    whole = dec.dual(costs, step="master", progress=False)
    parts = dec.dual(costs, step="master", chunk_size=1, checkpoint=tmp_path, progress=False)
    np.testing.assert_allclose(parts.bound, whole.bound, rtol=1e-9)
    again = dec.dual(costs, step="master", chunk_size=1, checkpoint=tmp_path, progress=False)
    assert again.chunks_loaded == len(costs)
    np.testing.assert_array_equal(again.lam, parts.lam)


def test_a_warm_start_is_priced_first():
    p, costs = _knapsack(9, 8, 3)
    dec = ldopt.decompose(p)
    cold = dec.dual(costs, step="master", progress=False)
    warm = dec.dual(costs, step="master", warm=cold, progress=False)
    # both stop once certified within tol = 1e-6 (relative) of LD*, not at the same digits
    np.testing.assert_allclose(warm.bound, cold.bound, rtol=2e-6)
    assert warm.iterations <= cold.iterations


def test_bad_settings_are_refused():
    p, costs = _knapsack(1, 6, 2)
    dec = ldopt.decompose(p)
    with pytest.raises(ldopt.InputError, match=r"smoothing: expected a weight in \[0, 1\), got 1.0"):
        ldopt.dual.Master(smoothing=1.0)
    with pytest.raises(ldopt.InputError, match="iterations"):
        ldopt.lagrangian_bound(dec, costs, iterations=0)
    with pytest.raises(ldopt.InputError, match=r"settings.step: lagrangian_bound runs column generation; expected"):
        ldopt.lagrangian_bound(dec, costs, ldopt.dual.TRAINING)
    # the smoothing is the rule's, one setting for both entry points: plain Dantzig–Wolfe gives the same bound
    plain = ldopt.dual.EXACT.merged(step=ldopt.dual.Master(smoothing=0.0))
    np.testing.assert_allclose(
        ldopt.lagrangian_bound(dec, costs, plain, progress=False).bound,
        dec.dual(costs, plain, progress=False).bound,
        rtol=1e-6,
    )
    with pytest.raises(ldopt.InputError, match=r"master.*auto"):
        dec.dual(costs, step="bundle")


def test_auto_takes_the_master_for_narrow_blocks_and_polyak_for_wide_ones():
    """``step="auto"``: the exact master where every block is narrow (the families, where Polyak has
    no target), Polyak on the MKP's dense rows; the result names the rule it used, and so does the
    training set's cache key."""
    setup = protocol.FAMILIES["facility"](size=4, train=3, val=1, test=1)
    C = setup.train[1]
    auto = setup.dec.dual(C, step="auto", mode="independent", progress=False)
    exact = setup.dec.dual(C, step="master", mode="independent", progress=False)
    assert auto.step == "master"
    np.testing.assert_array_equal(auto.run_bounds, exact.run_bounds)
    wide, costs = _knapsack(3, ldopt.dual.MASTER_WIDTH + 1, 2)
    polyak = ldopt.decompose(wide).dual(costs, step="auto", iterations=20, progress=False)
    assert polyak.step == "polyak"
    narrow, _ = _knapsack(3, ldopt.dual.MASTER_WIDTH, 2)
    assert ldopt.dual.resolve_step(ldopt.decompose(narrow), "auto") == "master"
    ldopt_torch = pytest.importorskip("ldopt_torch", reason="LDDataset needs torch (pip install 'ldopt[torch]')")
    data = ldopt_torch.LDDataset(setup.dec, *setup.train, ldopt_torch.DEFAULTS.dual.merged(step="auto"), progress=False)
    assert data.settings["step"] == "master"


def test_a_quadratic_block_converges_to_the_convex_optimum():
    """The portfolio's risk row is convex: the decomposition has no gap, and the master closes it."""
    _, dec, ret, opt = portfolio_instances(3, 12)
    r = ldopt.lagrangian_bound(dec, ret, progress=False)
    assert r.converged.all()
    assert (r.bound >= opt - 1e-7).all()
    np.testing.assert_allclose(r.bound, opt, rtol=1e-5)
    assert (r.bound <= dec.dual(ret, iterations=100, progress=False).bound + 1e-9).all()


def test_the_master_runs_after_highs_has_started_its_threads_elsewhere():
    """Regression: HiGHS keeps one global thread pool, and an LP that asks for another thread count
    than an earlier solve's is refused ("Not Set"); the master must not ask for one."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 2)
    h.addVar(0.0, 1.0)
    h.run()
    p, costs = _knapsack(2, 6, 2)
    assert ldopt.lagrangian_bound(ldopt.decompose(p), costs, progress=False).converged.all()
