"""Warm-started dual solves and multipliers that follow the model during training.

Checked: a warm start with one iteration reproduces the multipliers it starts from; continuing
never loses the kept bound; multipliers priced for other costs are still valid bounds (against
exact optima, for random costs); during training every multiplier set in force is a valid bound for
the true costs, the batches carry ``λ_d = q(c) + Σ μ_k`` and its main-block argmax, the dataset a
user built is left as it was, runs repeat, and bad options are refused with a clear error."""

from __future__ import annotations

import argparse
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch", reason="ldopt_torch needs torch (pip install 'ldopt[torch]')")

import ldopt  # noqa: E402
import ldopt_torch as lt  # noqa: E402
from ldopt.dual import DualSettings  # noqa: E402
from ldopt.errors import CacheError, InputError  # noqa: E402
from ldopt.problems import facility, knapsack  # noqa: E402
from ldopt_experiments.arguments import dynamic_option  # noqa: E402


@pytest.fixture(scope="module")
def mkp():
    """A small MKP (n = 30, m = 4), standardised features, 80 train / 30 validation instances."""
    d = knapsack.protocol_data(110, 30, dim=4, deg=4, seed=3)
    model = knapsack.build_model(d.weights, d.capacities)
    p = ldopt.Problem.from_pyomo(model, model.c)
    F = (d.features - d.features[:80].mean(0)) / d.features[:80].std(0)
    opt = p.solve(d.costs[:80], solver="highs").objective
    return ldopt.decompose(p), F, d.costs, opt


@pytest.mark.parametrize("mode", ["joint", "independent", "shared"])
def test_a_warm_start_of_one_iteration_reproduces_the_result_it_starts_from(mkp, mode):
    dec, _, C, opt = mkp
    r = dec.dual(C[:80], iterations=12, mode=mode, progress=False)
    again = dec.dual(C[:80], iterations=1, mode=mode, warm=r, progress=False)
    np.testing.assert_allclose(again.run_bounds, r.run_bounds, rtol=1e-10, atol=1e-9)
    for d in range(dec.num_blocks):  # (a joint run stores q − Σλ where the master stored every λ_d)
        np.testing.assert_allclose(again.main_objective(d), r.main_objective(d), rtol=1e-10, atol=1e-9)
    np.testing.assert_array_equal(again.main_x, r.main_x)
    more = dec.dual(C[:80], iterations=20, mode=mode, warm=r, progress=False)
    # every run keeps its best score: the sum of its bounds (joint), its bound (others)
    assert (more.run_bounds.sum(1) <= r.run_bounds.sum(1) + 1e-9).all()
    assert (more.run_bounds >= opt[:, None] - 1e-6).all()


def test_a_warm_start_runs_the_same_through_an_executor_and_a_checkpoint(mkp, tmp_path):
    dec, _, C, _ = mkp
    r = dec.dual(C[:40], iterations=8, mode="joint", step="polyak", progress=False)
    plain = dec.dual(C[:40], iterations=6, mode="joint", warm=r, progress=False)
    with ThreadPoolExecutor(2) as ex:
        spread = dec.dual(C[:40], iterations=6, mode="joint", warm=r, executor=ex, chunk_size=7, progress=False)
    saved = dec.dual(C[:40], iterations=6, mode="joint", warm=r, checkpoint=tmp_path / "ck", progress=False)
    for other in (spread, saved):
        np.testing.assert_allclose(other.run_bounds, plain.run_bounds, rtol=1e-12)
        np.testing.assert_allclose(other.lam, plain.lam, rtol=1e-12)
    # the checkpoint is keyed by the start: chunks of another start are refused, never loaded
    r2 = dec.dual(C[:40], iterations=3, mode="joint", step="polyak", progress=False)
    with pytest.raises(CacheError, match="written for other warm"):
        dec.dual(C[:40], iterations=6, mode="joint", warm=r2, checkpoint=tmp_path / "ck", progress=False)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), spread=st.floats(0.0, 2.0), mode=st.sampled_from(["joint", "independent"]))
def test_multipliers_priced_for_any_costs_bound_their_optimum(mkp, seed, spread, mode):
    """Weak duality in the μ-form holds for any μ: the bounds of repriced multipliers ≥ the exact optimum."""
    dec, _, C, _ = mkp
    r = dec.dual(C[:6], iterations=5, mode=mode, progress=False)
    other = C[:6] + spread * np.random.default_rng(seed).normal(size=C[:6].shape) * C[:6].std()
    priced = dec.dual(other, iterations=1, mode=mode, warm=r, progress=False)
    exact = dec.problem.solve(other, solver="highs").objective
    assert (priced.run_bounds >= exact[:, None] - 1e-6 * np.maximum(1, np.abs(exact[:, None]))).all()
    # the multipliers are the same μ; only the main objectives moved, by q(other) − q(c)
    for d in range(dec.num_blocks):
        np.testing.assert_allclose(priced.multipliers(d), r.multipliers(d), atol=1e-12)
        np.testing.assert_allclose(priced.main_objective(d) - r.main_objective(d), other - C[:6], atol=1e-9)


def test_a_minimisation_keeps_its_sense_through_warm_starts():
    d = facility.gen_data(8, 5, facilities=2, customers=4, deg=2, seed=1)
    model = facility.build_model(d.demands, d.capacities, d.fixed_costs)
    p = ldopt.Problem.from_pyomo(model, model.c)
    dec = ldopt.decompose(p)
    r = dec.dual(d.costs, DualSettings(mu0="symmetric"), iterations=30, mode="joint", progress=False)
    priced = dec.dual(d.costs * 1.3, iterations=1, mode="joint", warm=r, progress=False)
    exact = p.solve(d.costs * 1.3, solver="highs").objective
    assert (priced.run_bounds <= exact[:, None] + 1e-6 * np.maximum(1, np.abs(exact[:, None]))).all()


def strip(history):
    """What a run's history says apart from its times."""
    return np.array([(h["epoch"], h["d"], h["train_loss"], h["val_regret"]) for h in history])


def _fit(dec, F, C, data, dynamic, method="spo+", loss="L1", epochs=12):
    torch.manual_seed(0)
    model = torch.nn.Linear(F.shape[1], C.shape[1])
    return lt.fit(
        model,
        data.following(dynamic),
        lt.LDLoss(dec, method, loss),
        mode="multiple",
        epochs=epochs,
        val=(F[80:], C[80:]),
        lr=1e-2,
        seed=1,
        progress=False,
        schedule=lt.Schedule(eval_every=3),
        options=lt.FitOptions(solver="highs"),
    )


def test_following_multipliers_stay_valid_bounds_and_count_as_training_time(mkp):
    dec, F, C, opt = mkp
    data = lt.LDDataset(dec, F[:80], C[:80], progress=False)
    start = data.result
    policy = lt.DynamicMultipliers(every=3, steps=4, mix=0.7)
    out = _fit(dec, F, C, data, policy)
    assert data.result is start and data.dynamic is None  # the user's dataset is unchanged
    assert len(out.dual_bounds) == 3  # before epochs 4, 7 and 10
    for bounds in out.dual_bounds:
        assert bounds.shape == (80, dec.num_blocks)
        assert (bounds >= opt[:, None] - 1e-6 * np.abs(opt[:, None])).all()  # weak duality, every d
    times = [h["dual_time"] for h in out.history]
    assert times[0] == 0.0 and times[-1] > 0 and times == sorted(times)
    assert all(h["time"] >= h["dual_time"] for h in out.history)
    again = _fit(dec, F, C, data, policy)
    np.testing.assert_array_equal(strip(again.history), strip(out.history))  # same seed, same numbers
    fixed = _fit(dec, F, C, data, None)
    assert fixed.dual_bounds == [] and all(h["dual_time"] == 0.0 for h in fixed.history)
    np.testing.assert_array_equal(strip(fixed.history)[:4], strip(out.history)[:4])  # same until the first update
    assert not np.array_equal(strip(fixed.history)[4:], strip(out.history)[4:])


@pytest.mark.parametrize("mode", ["joint", "independent"])
def test_the_batches_after_an_update_carry_the_new_main_objective_and_its_argmax(mkp, mode):
    dec, F, C, opt = mkp
    policy = lt.DynamicMultipliers(steps=3, mix=1.0)
    data = lt.LDDataset(
        dec, F[:80], C[:80], lt.DEFAULTS.dual.merged(mode=mode), iterations=10, progress=False, dynamic=policy
    )
    follower = lt.data.dynamic.Follower(data, data.dynamic)
    model = torch.nn.Linear(F.shape[1], C.shape[1])
    moved = follower.update(model)
    r = moved.result
    assert not np.allclose(r.lam, data.result.lam)  # the multipliers moved
    assert (r.run_bounds >= opt[:, None] - 1e-6 * np.abs(opt[:, None])).all()  # valid for the true costs
    q = dec.problem.objective_coefficients(C[:80])
    for d in range(dec.num_blocks):
        batch = next(moved.view(d).batches(80, shuffle=False))
        lam = batch["main_objective"].double().numpy()
        np.testing.assert_allclose(lam, q + r.multipliers(d).sum(1), rtol=1e-5, atol=1e-4)
        exact = dec.block(d).solver("highs").argmax(r.main_objective(d))
        np.testing.assert_allclose(
            (r.main_objective(d) * r.main_solution(d)).sum(1), (r.main_objective(d) * exact).sum(1), atol=1e-6
        )
        np.testing.assert_allclose(batch["main_solution"].numpy(), r.main_solution(d), atol=1e-6)


def test_mix_zero_keeps_tightening_the_true_costs_dual(mkp):
    dec, F, C, _ = mkp
    data = lt.LDDataset(dec, F[:80], C[:80], iterations=10, progress=False)
    follower = lt.data.dynamic.Follower(data, lt.DynamicMultipliers(steps=5, mix=0.0))
    model = torch.nn.Linear(F.shape[1], C.shape[1])
    before = data.result.run_bounds.sum(1)
    for _ in range(3):
        follower.update(model)
    after = follower.bounds
    assert (after[0].sum(1) <= before + 1e-9).all()
    assert (after[2].sum(1) <= after[0].sum(1) + 1e-9).all()
    assert after[2].sum() < before.sum()


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        (dict(every=0), "every: expected"),
        (dict(steps=-1), "steps: expected"),
        (dict(mix=1.5), "mix: expected a number in [0, 1], got 1.5"),
        (dict(mix=float("nan")), "mix: expected"),
        (dict(scale=0), "scale: expected"),
    ],
)
def test_bad_dynamic_options_are_refused(kwargs, needle):
    with pytest.raises(InputError, match=needle.replace("[", r"\[").replace("]", r"\]")):
        lt.DynamicMultipliers(**kwargs)


def test_dynamic_needs_mu_form_multipliers_and_warm_starts_must_match(mkp):
    dec, F, C, _ = mkp
    with pytest.raises(InputError, match="mode='shared'"):
        lt.LDDataset(
            dec,
            F[:20],
            C[:20],
            lt.DEFAULTS.dual.merged(mode="shared", iterations=5),
            dynamic=lt.DynamicMultipliers(),
            progress=False,
        )
    data = lt.LDDataset(dec, F[:20], C[:20], iterations=5, progress=False)
    with pytest.raises(InputError, match=r"dynamic: expected an lt\.DynamicMultipliers"):
        data.following("10:5:0.5")
    r = data.result
    with pytest.raises(InputError, match=r"warm: expected a result of .*\('independent', 20"):
        dec.dual(C[:20], iterations=2, mode="independent", warm=r, progress=False)
    with pytest.raises(InputError, match=r"warm: expected .*\('joint', 10"):
        dec.dual(C[:10], iterations=2, mode="joint", warm=r, progress=False)
    with pytest.raises(InputError, match="warm: expected a DualResult"):
        dec.dual(C[:20], iterations=2, mode="joint", warm=r.lam, progress=False)
    with pytest.raises(InputError, match="result: expected"):
        data.with_result(dec.dual(C[:10], iterations=2, mode="joint", progress=False))


def test_the_runner_parses_dynamic_options():
    assert dynamic_option("5:3:0.25") == lt.DynamicMultipliers(every=5, steps=3, mix=0.25)
    for bad in ("5:3", "a:3:0.5", "5:3:2", "0:3:0.5"):
        with pytest.raises(argparse.ArgumentTypeError, match="expected EVERY:STEPS:MIX"):
            dynamic_option(bad)


def test_updates_keep_a_per_block_solver_choice(mkp):
    """The dataset's ``solver={block: name}`` reaches the updates (a settings' solver choice is a
    valid choice again)."""
    pairs = DualSettings(solver={1: "highs"}).solver
    assert DualSettings(solver=pairs).solver == pairs == ((1, "highs"),)
    dec, F, C, opt = mkp
    data = lt.LDDataset(dec, F[:20], C[:20], lt.DEFAULTS.dual.merged(solver={1: "highs"}), iterations=5, progress=False)
    follower = lt.data.dynamic.Follower(data, lt.DynamicMultipliers(steps=2))
    moved = follower.update(torch.nn.Linear(F.shape[1], C.shape[1]))
    assert moved.result.solvers[1] != moved.result.solvers[0]  # block 1 on HiGHS, block 0 on its oracle
    assert (moved.result.run_bounds >= opt[:20, None] - 1e-6 * np.abs(opt[:20, None])).all()
