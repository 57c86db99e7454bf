"""The dual's settings as objects: step rules with their own parameters give the same answers as
the older spellings, one DualSettings travels from LDDataset to the solver and keys the cache, and
``dec.dual`` is the typed algorithm itself (no hook installed at import)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import ldopt
from ldopt.dual import Adam, DualSettings, Master, Polyak, solve_dual
from ldopt.problems import knapsack, shortest_path


@pytest.fixture(scope="module")
def mkp():
    d = knapsack.protocol_data(6, 10, dim=3, seed=5)
    m = knapsack.build_model(d.weights, d.capacities)
    return ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c)), d.costs


def test_dec_dual_is_the_typed_algorithm():
    assert ldopt.Decomposition.dual is solve_dual
    assert inspect.signature(ldopt.Decomposition.dual).return_annotation in ("DualResult", ldopt.DualResult)
    assert not hasattr(ldopt.decomposition.blocks, "install_dual_solver")


@pytest.mark.parametrize("rule", [Polyak(alpha=1.5), Adam(lr=0.05)], ids=["polyak", "adam"])
def test_keywords_merge_into_the_settings_object(mkp, rule):
    """``dec.dual(costs, settings, iterations=, mode=, step=, solver=)``: a keyword given replaces
    that field of ``settings`` (the others stay), as Pyomo merges keywords into one config."""
    dec, C = mkp
    by_words = dec.dual(C, iterations=40, step=rule, progress=False)
    by_object = dec.dual(C, DualSettings(iterations=40, step=rule), progress=False)
    merged = dec.dual(C, DualSettings(iterations=7, step="master", tol=0.0), iterations=40, step=rule, progress=False)
    np.testing.assert_array_equal(by_words.bound, by_object.bound)
    assert by_words.step == rule.name and merged.step == rule.name and merged.iterations <= 40
    assert DualSettings(iterations=7, tol=0.5).merged(iterations=None, mode="joint") == DualSettings(
        iterations=7, tol=0.5, mode="joint"
    )


def test_polyak_patience_is_a_parameter_of_its_own(mkp):
    dec, C = mkp
    default = dec.dual(C, iterations=60, step="polyak", progress=False)
    quick = dec.dual(C, iterations=60, step=Polyak(patience=1), progress=False)
    assert not np.array_equal(default.history, quick.history)  # α halves after every stall
    assert DualSettings(step=Polyak(patience=1)).key()["patience"] == 1


def test_the_default_step_is_auto_master_on_narrow_rows_polyak_on_wide(mkp):
    dec, C = mkp  # 10 items: every row is narrow
    assert dec.dual(C, iterations=5, progress=False).step == "master"
    d = knapsack.protocol_data(3, 40, dim=2, seed=1)  # 40 items: wider than MASTER_WIDTH
    m = knapsack.build_model(d.weights, d.capacities)
    wide = ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c))
    assert wide.dual(d.costs, iterations=5, progress=False).step == "polyak"


def test_the_paper_start_keeps_the_key_caches_were_written_with():
    assert DualSettings(step="polyak", mu0=1.0, layout="dense").key() == dict(
        iterations=300, mode="shared", step="polyak", lr=2.0, mu0=1.0, tol=1e-6, time_limit=None, solver="auto"
    )
    assert DualSettings(step="polyak", mu0=1.0, layout="sparse").key()["layout"] == "sparse"
    assert DualSettings(step="adam").key()["lr"] == 0.01
    assert DualSettings(step=Adam(lr=0.3)).key()["lr"] == 0.3


def test_master_rule_and_auto(mkp):
    p = ldopt.Problem.from_pyomo(*(lambda m: (m, m.c))(shortest_path.build_model((3, 3))))
    dec = ldopt.decompose(p)
    C = shortest_path.gen_data(3, 5, (3, 3), deg=2, seed=1)[1]
    a = dec.dual(C, step=Master(), progress=False)
    b = dec.dual(C, step="master", progress=False)
    c = dec.dual(C, DualSettings(step="auto"), progress=False)
    np.testing.assert_allclose(a.bound, b.bound)
    np.testing.assert_allclose(a.bound, c.bound)
    assert c.step == "master"  # every block is narrow


def test_bad_settings_are_refused(mkp):
    dec, C = mkp
    with pytest.raises(ldopt.InputError, match="alpha: expected a finite number > 0"):
        Polyak(alpha=0)
    with pytest.raises(ldopt.InputError, match=r"settings: expected an ldopt\.dual\.DualSettings"):
        dec.dual(C, {"iterations": 3})
    with pytest.raises(ldopt.InputError, match="mu0: expected a number, 'auto', 'symmetric' or 'lp'"):
        DualSettings(mu0="warm")
    with pytest.raises(TypeError, match="lr"):
        DualSettings(step="polyak", lr=2.0)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="independent"):
        dec.dual(C, independent=True)  # type: ignore[call-arg]


def test_lddataset_passes_one_settings_object_and_keys_the_cache_by_it(mkp, tmp_path):
    lt = pytest.importorskip("ldopt_torch", reason="LDDataset needs torch (pip install 'ldopt[torch]')")
    dec, C = mkp
    F = np.random.default_rng(0).normal(size=(len(C), 3))
    settings = DualSettings(iterations=12, mode="joint", step=Adam(lr=0.02))
    by_object = lt.LDDataset(dec, F, C, settings, cache=tmp_path, progress=False)
    merged = lt.LDDataset(
        dec, F, C, DualSettings(mode="joint", step=Adam(lr=0.02)), iterations=12, cache=tmp_path, progress=False
    )
    assert merged.loaded_from_cache and merged.dual_settings == by_object.dual_settings
    np.testing.assert_array_equal(merged.bound, by_object.bound)
    default = lt.LDDataset(dec, F, C, progress=False)
    assert default.dual_settings == ldopt.dual.resolve_settings(dec, lt.DEFAULTS.dual)
    assert (default.result.mode, default.result.start) == ("joint", "symmetric")  # 10 items: narrow blocks
    with pytest.raises(ldopt.InputError, match=r"dual: expected an ldopt\.dual\.DualSettings"):
        lt.LDDataset(dec, F, C, 30, progress=False)  # the older positional iterations


def test_the_auto_start_prices_the_lp_duals_once_on_wide_linear_blocks():
    """``mu0="auto"`` on a knapsack of 1,200 items and 2 rows (every block wider than ``LP_WIDTH``):
    the LP's duals priced once, a bound between the exact optimum and the LP's bound; on narrow
    blocks the symmetric start with the iterations asked for; ``ldopt.check`` says which and why."""
    from ldopt.dual import LP_WIDTH, TRAINING  # noqa: PLC0415
    from ldopt.evaluate.lp_relaxation import relaxed_problem  # noqa: PLC0415

    n = LP_WIDTH + 200
    d = knapsack.protocol_data(3, n, dim=2, seed=7)
    m = knapsack.build_model(d.weights, d.capacities)
    p = ldopt.Problem.from_pyomo(m, m.c)
    dec = ldopt.decompose(p)
    r = dec.dual(d.costs, TRAINING, progress=False)
    assert (r.start, r.iterations, r.mode) == ("lp", 1, "joint")
    optimum = p.solve(d.costs, solver="highs").objective
    lp = relaxed_problem(p).solve(d.costs, solver="highs").objective  # the LP relaxation, solved apart
    scale = np.abs(optimum)
    assert (r.bound >= optimum - 1e-6 * scale).all()  # a bound (weak duality)
    assert (r.bound <= lp + 1e-6 * scale).all()  # no worse than the LP's (the split of its duals)
    assert dec.dual(d.costs, TRAINING.merged(mu0="symmetric"), progress=False).iterations > 1
    master = ldopt.dual.resolve_settings(dec, TRAINING.merged(step="master", iterations=300))
    assert (master.mu0, master.iterations) == ("lp", 300)  # the exact optimum is not cut to one round
    report = ldopt.check(dec, d.costs[:1], time_limit=1.0)
    assert report.dual.mu0 == "lp" and "at least LP_WIDTH" in str(report)
    mkp = knapsack.protocol_data(3, 10, dim=2, seed=1)
    narrow = ldopt.decompose(
        ldopt.Problem.from_pyomo(*(lambda m: (m, m.c))(knapsack.build_model(mkp.weights, mkp.capacities)))
    )
    s = narrow.dual(mkp.costs, TRAINING, progress=False)
    assert s.start == "symmetric"
    assert "(< LP_WIDTH" in str(ldopt.check(narrow, mkp.costs[:2]))
    assert (report.ld_bound >= optimum[0] - 1e-6 * scale[0]).all()  # stopped early, still a bound
