"""Regret evaluation that scales: certified intervals that always contain the exact relative regret,
LD bounds that tighten them, decisions that improve the best known optima, and warm starts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ldopt
from ldopt.evaluate.regret import Optima, evaluate, optima, relative_regret, report
from ldopt.problems import knapsack


@pytest.fixture(scope="module")
def mkp():
    d = knapsack.protocol_data(30, 120, dim=8, seed=4)
    model = knapsack.build_model(d.weights, d.capacities)
    p = ldopt.Problem.from_pyomo(model, model.c)
    pred = d.costs + np.random.default_rng(0).normal(0, 4, d.costs.shape)
    return p, d.costs, pred


def test_exact_optima_give_a_point_interval(mkp):
    p, C, pred = mkp
    exact = optima(p, C, "highs")
    assert exact.proven.all()
    rep = evaluate(p, pred, C, "highs", optima=exact)
    assert rep.value == pytest.approx(relative_regret(p, pred, C, "highs"), rel=1e-12)
    assert rep.lower == pytest.approx(rep.value) and rep.upper == pytest.approx(rep.value)
    assert "≤" not in str(rep) and str(rep).endswith("%")


def test_loose_optima_give_an_interval_that_contains_the_exact_regret(mkp):
    """Optima cut short at a 2% gap: the certified interval holds the exact figure, and an LD bound
    (the shared dual's) makes it narrower while still holding it."""
    p, C, pred = mkp
    exact = relative_regret(p, pred, C, "highs")
    loose = optima(p, C, "highs", gap=0.02)
    x_hat = ldopt.evaluate.regret.decisions(p, pred, "highs")
    rep = report(loose, p.objective(x_hat, C))
    assert rep.lower - 1e-12 <= exact <= rep.upper + 1e-12
    assert "≤" in str(rep) or rep.proven == len(C)
    bound = ldopt.decompose(p).dual(C, iterations=200, progress=False).bound
    tight = report(loose.tighten(bound), p.objective(x_hat, C))
    assert tight.upper <= rep.upper + 1e-15
    assert tight.lower - 1e-12 <= exact <= tight.upper + 1e-12


def test_a_better_decision_improves_the_best_known_optimum(mkp):
    p, C, _ = mkp
    exact = optima(p, C, "highs")
    worse = Optima(p.sense, exact.value - 5.0, exact.bound, exact.x)  # an incumbent 5 below the optimum
    better = worse.improve(exact.x, exact.value)
    np.testing.assert_allclose(better.value, exact.value)
    rep = report(worse, p.objective(exact.x, C))  # perfect decisions: no regret, even against the worse value
    assert rep.value == 0.0 and rep.upper >= 0.0
    with pytest.raises(ldopt.InputError, match=r"bound: expected 30 numbers \(shape \(30,\)\), got shape \(3,\)"):
        exact.tighten(np.zeros(3))


def test_warm_starts_do_not_change_the_decisions_value(mkp):
    p, C, pred = mkp
    cold = evaluate(p, pred, C, "highs")
    first = ldopt.evaluate.regret.decisions(p, pred, "highs")
    warm = evaluate(p, pred, C, "highs", start=first)
    assert warm.value == pytest.approx(cold.value, abs=1e-12)
    with pytest.raises(ldopt.InputError, match="start: expected"):
        ldopt.evaluate.regret.solve_many(p, C, "highs", start=first[:3])


def test_a_minimisation_interval_has_the_right_orientation():
    """For a minimisation the bound is below the incumbent; the interval still holds the exact figure."""
    import pyomo.environ as pyo  # noqa: PLC0415
    from models import linear_model  # noqa: PLC0415

    r = np.random.default_rng(2)
    A = (r.random((6, 25)) < 0.3).astype(float)
    A[np.arange(6), r.integers(0, 25, 6)] = 1.0
    model = linear_model(A, np.ones(6), np.full(6, np.inf), np.zeros(25), np.ones(25), sense=pyo.minimize)
    p = ldopt.Problem.from_pyomo(model, model.c)
    C = r.uniform(1, 10, (20, 25))
    pred = C + r.normal(0, 3, C.shape)
    exact = relative_regret(p, pred, C, "highs")
    loose = optima(p, C, "highs", gap=0.05)
    assert (loose.bound <= loose.value + 1e-9).all()
    rep = evaluate(p, pred, C, "highs", optima=loose)
    assert rep.lower - 1e-12 <= exact <= rep.upper + 1e-12


def test_cached_optima_load_without_solving_and_are_keyed_by_costs_and_limits(mkp, tmp_path, monkeypatch):
    """A second call with the same problem, costs and limits loads the optima (no solve); other costs
    or another gap get their own entry; a torn entry is not trusted: it is solved again."""
    import ldopt.evaluate.optima as optima_module  # noqa: PLC0415

    p, C, _ = mkp
    solved = []
    real = optima_module.solve_many

    def counting(problem, costs, *args, **kwargs):
        solved.append(len(costs))
        return real(problem, costs, *args, **kwargs)

    monkeypatch.setattr(optima_module, "solve_many", counting)
    first = optima(p, C, "highs", cache=tmp_path)
    again = optima(p, C, "highs", cache=tmp_path)
    assert solved == [len(C)]  # the second call solved nothing
    for a, b in ((first.value, again.value), (first.bound, again.bound), (first.x, again.x)):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(again.value, optima(p, C, "highs").value)  # and they are the optima
    optima(p, C[:10], "highs", cache=tmp_path)
    optima(p, C, "highs", gap=0.02, cache=tmp_path)
    assert solved == [len(C), len(C), 10, len(C)]  # the uncached check, other costs, another gap
    assert len(list(tmp_path.glob("optima-*.npz"))) == 3
    # an explicit .npz path written for other costs is refused, naming what differs
    one = tmp_path / "one.npz"
    optima(p, C, "highs", cache=one)
    with pytest.raises(ldopt.CacheError, match="other costs"):
        optima(p, C[:10], "highs", cache=one)
    one.write_bytes(b"torn")  # a torn entry is solved again (with a warning) and replaced
    with pytest.warns(UserWarning, match="computing it again"):
        redone = optima(p, C, "highs", cache=one)
    np.testing.assert_array_equal(redone.value, first.value)
    assert optima(p, C, "highs", cache=one).value.tolist() == first.value.tolist()


def test_optima_that_cannot_be_cached_are_kept_with_a_warning(mkp, tmp_path):
    p, C, _ = mkp
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache folder should be")
    with pytest.warns(UserWarning, match="without being cached"):
        out = optima(p, C[:5], "highs", cache=blocked / "sub")
    np.testing.assert_allclose(out.value, optima(p, C[:5], "highs").value)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    sense=st.sampled_from(["max", "min"]),
    sign=st.sampled_from([1.0, -1.0, 0.0]),  # optima all positive, all negative, or of mixed signs
)
def test_the_certified_interval_holds_the_regret_for_every_optimum_inside_the_bounds(seed, sense, sign):
    """Whatever the true optima are within [best known, bound], their regret lies in the interval;
    where every optimum has one sign the interval's ends are attained (optima at either end)."""
    rng = np.random.default_rng(seed)
    B = int(rng.integers(1, 6))
    s = 1.0 if sense == "max" else -1.0
    base = rng.uniform(1, 10, B) * (sign if sign else rng.choice([-1.0, 1.0], B))
    gap = rng.uniform(0, 0.3, B) * np.abs(base)
    value, bound = base, base + s * gap  # the bound beyond the best known value
    achieved = value - s * rng.uniform(0, 2, B) * np.abs(base)  # decisions no better than the optimum
    rep = report(Optima(sense, value, bound, np.zeros((B, 1))), achieved)
    for t in [np.zeros(B), np.ones(B), *rng.uniform(0, 1, (50, B))]:
        opt = value + t * (bound - value)
        true = np.sum(s * (opt - achieved)) / np.sum(np.abs(opt))
        assert rep.lower - 1e-12 <= true <= rep.upper + 1e-12
    ends = np.concatenate([value, bound])
    if (ends > 0).all() or (ends < 0).all():
        at = [np.sum(s * (o - achieved)) / np.sum(np.abs(o)) for o in (value, bound)]
        assert rep.lower == pytest.approx(min(at), abs=1e-12) and rep.upper == pytest.approx(max(at), abs=1e-12)
