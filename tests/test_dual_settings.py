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
    assert not hasattr(ldopt.decomposition, "install_dual_solver")


@pytest.mark.parametrize(
    ("rule", "name", "lr"),
    [(Polyak(alpha=1.5), "polyak", 1.5), (Adam(lr=0.05), "adam", 0.05)],
    ids=["polyak", "adam"],
)
def test_a_rule_object_equals_its_older_spelling(mkp, rule, name, lr):
    dec, C = mkp
    new = dec.dual(C, iterations=40, step=rule, progress=False)
    with pytest.warns(DeprecationWarning, match=r"dec\.dual\(\.\.\., lr=\) is deprecated"):
        old = dec.dual(C, iterations=40, step=name, lr=lr, progress=False)
    same = dec.dual(C, settings=DualSettings(iterations=40, step=rule), progress=False)
    np.testing.assert_array_equal(new.bound, old.bound)
    np.testing.assert_array_equal(new.bound, same.bound)
    assert new.step == name


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
    assert DualSettings(step=Adam(lr=0.3)).key() == DualSettings(step="adam", lr=0.3).key()


def test_master_rule_and_auto(mkp):
    p = ldopt.Problem.from_pyomo(*(lambda m: (m, m.c))(shortest_path.build_model((3, 3))))
    dec = ldopt.decompose(p)
    C = shortest_path.gen_data(3, 5, (3, 3), deg=2, seed=1)[1]
    a = dec.dual(C, step=Master(), progress=False)
    b = dec.dual(C, step="master", progress=False)
    c = dec.dual(C, settings=DualSettings(step="auto"), progress=False)
    np.testing.assert_allclose(a.bound, b.bound)
    np.testing.assert_allclose(a.bound, c.bound)
    assert c.step == "master"  # every block is narrow


def test_settings_beside_keywords_are_refused(mkp):
    dec, C = mkp
    with pytest.raises(ldopt.InputError, match="iterations, step: expected them inside settings="):
        dec.dual(C, iterations=5, step="adam", settings=DualSettings())
    with pytest.raises(ldopt.InputError, match=r"lr: expected it only with a step rule's name"):
        DualSettings(step=Polyak(), lr=2.0)
    with pytest.raises(ldopt.InputError, match="alpha: expected a finite number > 0"):
        Polyak(alpha=0)
    with pytest.raises(ldopt.InputError, match=r"settings: expected an ldopt\.dual\.DualSettings"):
        dec.dual(C, settings={"iterations": 3})


def test_lddataset_passes_one_settings_object_and_keys_the_cache_by_it(mkp, tmp_path):
    lt = pytest.importorskip("ldopt_torch", reason="LDDataset needs torch (pip install 'ldopt[torch]')")
    dec, C = mkp
    F = np.random.default_rng(0).normal(size=(len(C), 3))
    by_words = lt.LDDataset(dec, F, C, iterations=12, step=Adam(lr=0.02), cache=tmp_path, progress=False)
    settings = DualSettings(iterations=12, mode="joint", step=Adam(lr=0.02))
    by_object = lt.LDDataset(dec, F, C, dual=settings, cache=tmp_path, progress=False)
    assert by_object.loaded_from_cache and by_object.dual_settings == by_words.dual_settings
    np.testing.assert_array_equal(by_object.bound, by_words.bound)
    with pytest.raises(ldopt.InputError, match="iterations, mu0: expected them inside dual="):
        lt.LDDataset(dec, F, C, iterations=3, dual=settings, mu0=0.5, progress=False)
    with pytest.warns(DeprecationWarning, match=r"LDDataset\(\.\.\., lr=\) is deprecated"):
        lt.LDDataset(dec, F, C, iterations=3, lr=1.0, progress=False)


def test_an_lr_given_with_auto_reaches_the_rule_it_resolves_to(mkp):
    """``lr`` beside ``step="auto"`` is kept until the rule is known, then becomes its parameter."""
    from dataclasses import replace  # noqa: PLC0415

    dec, C = mkp
    assert replace(DualSettings(step="auto", lr=0.7), step="polyak").rule == Polyak(alpha=0.7)
    assert replace(DualSettings(step="auto", lr=0.7), step="adam").rule == Adam(lr=0.7)
    with pytest.warns(DeprecationWarning):
        old = dec.dual(C, iterations=20, step="polyak", lr=0.7, progress=False)
    new = dec.dual(C, iterations=20, step=Polyak(alpha=0.7), progress=False)
    np.testing.assert_array_equal(old.bound, new.bound)
