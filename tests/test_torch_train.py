"""ldopt_torch datasets, cache and trainer: identity under shuffling, cache round trips and
refusals, and training that beats the initial model and MSE on a misspecified MKP."""

from __future__ import annotations

import csv
import json

import numpy as np
import pyomo.environ as pyo
import pytest

torch = pytest.importorskip("torch", reason="ldopt_torch needs torch (pip install 'ldopt[torch]')")

from models import linear_model  # noqa: E402

import ldopt  # noqa: E402
import ldopt_torch as lt  # noqa: E402
from ldopt.problems import knapsack, portfolio  # noqa: E402


@pytest.fixture(scope="module")
def mkp():
    """A small misspecified (deg 8) MKP: n = 40, m = 4; 120 train / 60 validation instances."""
    d = knapsack.protocol_data(180, 40, dim=4, deg=8, seed=7)
    model = knapsack.build_model(d.weights, d.capacities)
    dec = ldopt.decompose(ldopt.Problem.from_pyomo(model, model.c))
    F = (d.features - d.features[:120].mean(0)) / d.features[:120].std(0)
    data = lt.LDDataset(dec, F[:120], d.costs[:120], iterations=150, progress=False)
    return dec, data, (F[120:], d.costs[120:])


def test_items_keep_instance_identity_under_a_shuffling_dataloader(mkp):
    dec, data, _ = mkp
    view = data.view(2)
    loader = torch.utils.data.DataLoader(view, batch_size=16, shuffle=True, generator=torch.Generator().manual_seed(0))
    r = data.result
    seen = []
    for batch in loader:
        idx = batch["index"].numpy()
        seen.extend(idx)
        assert (batch["d"] == 2).all()
        np.testing.assert_allclose(batch["main_solution"].numpy(), r.main_solution(2)[idx], atol=1e-6)
        np.testing.assert_allclose(data.multipliers(2, idx).numpy(), r.multipliers(2)[idx], rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(batch["costs"].numpy(), data.costs_np[idx], rtol=1e-6)
        np.testing.assert_allclose(batch["features"].numpy(), data.features.numpy()[idx])
    assert sorted(seen) == list(range(len(data)))
    fast = next(view.batches(16, generator=torch.Generator().manual_seed(1)))
    np.testing.assert_allclose(fast["main_objective"].numpy(), r.main_objective(2)[fast["index"].numpy()], rtol=1e-6)
    # μ and λ_d agree: λ_d = q(c) + Σ_k μ_k
    q = dec.problem.objective_coefficients(data.costs_np)
    np.testing.assert_allclose(r.main_objective(2), q + r.multipliers(2).sum(1), atol=1e-9)


def test_cache_round_trips_and_refuses_foreign_or_corrupt_files(tmp_path, mkp):
    dec, _, _ = mkp
    d = knapsack.protocol_data(20, 40, dim=4, seed=7)
    F, C = d.features, d.costs
    a = lt.LDDataset(dec, F, C, iterations=20, cache=tmp_path, progress=False)
    assert not a.loaded_from_cache and a.cache_path.exists()
    b = lt.LDDataset(dec, F, C, iterations=20, cache=tmp_path, progress=False)
    assert b.loaded_from_cache and b.construction_seconds == a.construction_seconds
    for k in ("lam", "main", "main_x", "run_bounds", "history", "primal_objective", "primal_x"):
        np.testing.assert_array_equal(getattr(a.result, k), getattr(b.result, k))
    assert b.result.main_x.dtype == np.uint8 and b.result.main_x.any()  # binary solutions: compact, exact
    header = json.loads(a.cache_path.with_suffix(".npz.json").read_text())
    assert header["settings"]["iterations"] == 20
    # other settings or other costs: another file in a folder; an explicit file path is refused
    c = lt.LDDataset(dec, F, C, iterations=21, cache=tmp_path, progress=False)
    assert not c.loaded_from_cache and c.cache_path != a.cache_path
    with pytest.raises(ldopt.CacheError, match="other settings"):
        lt.LDDataset(dec, F, C, iterations=22, cache=a.cache_path, progress=False)
    other = knapsack.protocol_data(20, 40, dim=4, seed=8)
    om = knapsack.build_model(other.weights, other.capacities)
    odec = ldopt.decompose(ldopt.Problem.from_pyomo(om, om.c))
    with pytest.raises(ldopt.CacheError, match="other problem"):
        lt.LDDataset(odec, F, C, iterations=20, cache=a.cache_path, progress=False)
    # a torn or corrupted file is not used: it is computed again, with a warning, and replaced
    raw = bytearray(a.cache_path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    a.cache_path.write_bytes(bytes(raw))
    with pytest.warns(UserWarning, match=r"(corrupt|unreadable).*computing it again"):
        again = lt.LDDataset(dec, F, C, iterations=20, cache=tmp_path, progress=False)
    assert not again.loaded_from_cache
    np.testing.assert_array_equal(again.result.lam, a.result.lam)
    assert lt.LDDataset(dec, F, C, iterations=20, cache=tmp_path, progress=False).loaded_from_cache
    # so is an entry whose header is valid JSON but no header (forged or from another program)
    a.cache_path.with_suffix(".npz.json").write_text("[1, 2]")
    with pytest.warns(UserWarning, match="expected a JSON object"):
        assert not lt.LDDataset(dec, F, C, iterations=20, cache=tmp_path, progress=False).loaded_from_cache
    a.cache_path.with_suffix(".npz.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.warns(UserWarning, match="unreadable"):
        assert not lt.LDDataset(dec, F, C, iterations=20, cache=tmp_path, progress=False).loaded_from_cache


def test_dataset_shape_errors(mkp):
    dec, _, _ = mkp
    d = knapsack.protocol_data(10, 40, dim=4, seed=7)
    with pytest.raises(ldopt.InputError, match=r"features: expected shape \(10, num_features\)"):
        lt.LDDataset(dec, d.features[:9], d.costs, iterations=5, progress=False)
    with pytest.raises(ldopt.InputError, match=r"costs: expected shape \(40,\) or \(B, 40\)"):
        lt.LDDataset(dec, d.features, d.costs[:, :30], iterations=5, progress=False)
    with pytest.raises(ldopt.InputError, match="decompositions"):
        lt.LDDataset(dec, d.features, d.costs, iterations=5, decompositions=[7], progress=False)


def _linear(p: int, n: int, seed: int = 0) -> torch.nn.Module:
    torch.manual_seed(seed)
    return torch.nn.Linear(p, n)


@pytest.fixture(scope="module")
def mse_regret(mkp):
    dec, data, val = mkp
    out = lt.fit(
        _linear(data.num_features, dec.num_vars),
        data,
        lt.MSELoss(),
        epochs=60,
        val=val,
        lr=1e-2,
        progress=False,
        schedule=lt.Schedule(eval_every=5),
        options=lt.FitOptions(solver="highs"),
    )
    return out.best_val


@pytest.mark.parametrize("mode", ["static", "multiple"])
def test_ld_spo_beats_the_initial_model_and_mse(mkp, mse_regret, mode):
    dec, data, val = mkp
    out = lt.fit(
        _linear(data.num_features, dec.num_vars),
        data,
        lt.LDLoss(dec, "spo+", "L1"),
        mode=mode,
        epochs=40,
        val=val,
        lr=1e-2,
        progress=False,
        schedule=lt.Schedule(eval_every=5),
        # multiple mode from the MSE warm start (the default): LD still halves the start's regret
        options=lt.FitOptions(solver="highs", warm_start="auto" if mode == "multiple" else "none"),
    )
    initial = out.history[0]["val_regret"]
    assert out.best_val < 0.5 * initial
    assert out.best_val < mse_regret
    assert out.best_epoch > 0 and out.time_to_best <= out.history[-1]["time"]
    ds = {h["d"] for h in out.history[1:]}
    assert ds == ({0} if mode == "static" else set(range(dec.num_blocks))) or (mode == "multiple" and len(ds) > 1)
    # the returned model is the best one
    again = lt.Validator(dec.problem, *val, solver="highs")(out.model)
    assert again == pytest.approx(out.best_val, rel=1e-6)


def test_ld_imle_l2_trains(mkp):
    dec, data, val = mkp
    out = lt.fit(
        _linear(data.num_features, dec.num_vars),
        data,
        lt.LDLoss(dec, "imle", "L2"),
        mode="multiple",
        epochs=60,
        val=val,
        lr=3e-2,
        progress=False,
        schedule=lt.Schedule(eval_every=10),
        options=lt.FitOptions(solver="highs"),
    )
    assert out.best_val < 0.7 * out.history[0]["val_regret"]


def test_full_problem_spo_plus_through_pyepo(mkp):
    pytest.importorskip("pyepo", reason="full-problem SPO+ runs through PyEPO (pip install 'ldopt[torch]')")
    dec, data, val = mkp
    opt = lt.OptDataset(dec.problem, data.features[:60], data.costs_np[:60], solver="highs")
    np.testing.assert_allclose(opt.optimum, dec.problem.solve(data.costs_np[:60], solver="highs").objective)
    out = lt.fit(
        _linear(data.num_features, dec.num_vars),
        opt,
        lt.FullLoss(dec.problem, "spo+", solver="highs"),
        epochs=3,
        val=(val[0][:20], val[1][:20]),
        lr=1e-2,
        progress=False,
        options=lt.FitOptions(solver="highs"),
    )
    assert out.best_val < out.history[0]["val_regret"]
    with pytest.raises(ldopt.InputError, match="OptDataset"):
        lt.fit(
            _linear(data.num_features, dec.num_vars), data, lt.FullLoss(dec.problem, "spo+"), epochs=1, progress=False
        )


def test_a_minimisation_problem_trains():
    """min c·x over covering rows A x >= 1 (binary), costs from a linear model of features."""
    r = np.random.default_rng(3)
    n, m, N = 20, 5, 160
    A = (r.random((m, n)) < 0.35).astype(float)
    A[np.arange(m), r.integers(0, n, m)] = 1.0
    model = linear_model(A, np.ones(m), np.full(m, np.inf), np.zeros(n), np.ones(n), sense=pyo.minimize)
    dec = ldopt.decompose(ldopt.Problem.from_pyomo(model, model.c))
    F = r.normal(size=(N, 6))
    C = np.exp(F @ r.normal(size=(6, n)) * 0.5) + 0.1
    data = lt.LDDataset(dec, F[:100], C[:100], iterations=100, progress=False)
    exact = dec.problem.solve(C[:100], solver="highs").objective
    assert (data.bound <= exact + 1e-9).all()  # lower bounds for a min (weak duality)
    out = lt.fit(
        _linear(6, n),
        data,
        lt.LDLoss(dec, "spo+", "L1"),
        mode="multiple",
        epochs=40,
        val=(F[100:], C[100:]),
        lr=2e-2,
        progress=False,
        schedule=lt.Schedule(eval_every=5),
        options=lt.FitOptions(solver="highs"),
    )
    assert out.best_val < 0.6 * out.history[0]["val_regret"]


def test_portfolio_exact_l2_trains():
    cov, feats, ret = portfolio.gen_data(90, 5, 12, deg=4, seed=2)
    model = portfolio.build_model(cov)
    dec = ldopt.decompose(ldopt.Problem.from_pyomo(model, model.c))
    data = lt.LDDataset(dec, feats[:60], ret[:60], iterations=100, decompositions=[1], progress=False)
    out = lt.fit(
        _linear(5, 12),
        data,
        lt.LDLoss(dec, "exact", "L2"),
        epochs=40,
        val=(feats[60:], ret[60:]),
        lr=5e-3,
        progress=False,
        schedule=lt.Schedule(eval_every=5),
        options=lt.FitOptions(solver="cvxpy"),
    )
    assert out.history[1]["d"] == 1
    assert out.best_val < 0.8 * out.history[0]["val_regret"]


def test_trainer_errors(mkp):
    dec, data, _ = mkp
    model = _linear(data.num_features, dec.num_vars)
    with torch.no_grad():
        model.weight.fill_(float("nan"))
    with pytest.raises(lt.TrainingError, match="epoch 1: the model predicted NaN"):
        lt.fit(model, data, lt.LDLoss(dec, "spo+"), epochs=1, progress=False)
    with pytest.raises(ldopt.InputError, match="mode"):
        lt.fit(model, data, lt.LDLoss(dec, "spo+"), mode="dynamic", progress=False)
    with pytest.raises(ldopt.InputError, match="main: expected one of"):
        lt.fit(model, data.view(0), lt.LDLoss(dec, "spo+"), main=9, progress=False)


def test_relative_regret_hand_computed():
    # max x0 + x1 over x0 + x1 <= 1 (binary): costs (3, 1) -> optimum 3; predicting (1, 3) picks x1 -> 1
    A = np.array([[1.0, 1.0]])
    model = linear_model(A, np.array([-np.inf]), np.array([1.0]), np.zeros(2), np.ones(2))
    p = ldopt.Problem.from_pyomo(model, model.c)
    costs = np.array([[3.0, 1.0], [2.0, 5.0]])
    pred = np.array([[1.0, 3.0], [0.0, 1.0]])
    # regrets 2 and 0, optima 3 and 5 -> 2 / 8
    assert lt.relative_regret(p, pred, costs, solver="highs") == pytest.approx(0.25)
    assert lt.relative_regret(p, torch.as_tensor(costs), costs, solver="highs") == 0.0
    with pytest.raises(ldopt.InputError, match=r"pred_costs: expected shape \(2, 2\)"):
        lt.relative_regret(p, pred[:1], costs)


def test_long_histories_are_thinned_but_keep_every_validation(tmp_path):
    hist = [
        dict(
            epoch=i,
            d=0,
            train_loss=1.0,
            val_regret=(0.1 if i % 97 == 0 else float("nan")),
            time=i * 0.01,
            wall=i * 0.02,
            epochs_per_s=100.0,
        )
        for i in range(5000)
    ]
    res = lt.FitResult(model=torch.nn.Linear(1, 1), history=hist)
    path = res.save_history(tmp_path / "h.csv", max_rows=200)
    rows = list(csv.DictReader(path.open()))
    assert len(rows) < 300
    kept = {int(r["epoch"]) for r in rows}
    assert {i for i in range(5000) if i % 97 == 0} <= kept and 4999 in kept and 0 in kept


def _histories_equal(a, b):
    assert len(a.history) == len(b.history)
    for ha, hb in zip(a.history, b.history, strict=True):
        for k in ("epoch", "d", "train_loss", "val_regret"):
            assert ha[k] == hb[k] or (np.isnan(ha[k]) and np.isnan(hb[k])), k


@pytest.mark.parametrize("method, loss, solver", [("spo+", "L1", "highs"), ("imle", "L2", "auto")])
def test_same_seed_same_history_and_early_stopping(mkp, method, loss, solver):
    """Epoch budgets are deterministic (shuffling, decompositions and I-MLE noise are seeded by fit),
    with HiGHS solving the blocks as with their exact oracles."""
    dec, data, val = mkp
    runs = []
    for seed, epochs in ((3, 200), (3, 200), (4, 4)):  # another seed: four epochs show it differs
        torch.manual_seed(0)
        runs.append(
            lt.fit(
                _linear(data.num_features, dec.num_vars),
                data,
                lt.LDLoss(dec, method, loss),
                mode="multiple",
                epochs=epochs,
                val=val,
                lr=2e-2,
                seed=seed,
                progress=False,
                schedule=lt.Schedule(patience=3, eval_every=2),
                options=lt.FitOptions(solver=solver, warm_start="none"),  # the LD loss's own history
            )
        )
    _histories_equal(runs[0], runs[1])
    other = [h["train_loss"] for h in runs[2].history[1:]]  # epoch 0 has no training loss (NaN)
    assert len(other) == 4 and [h["train_loss"] for h in runs[0].history[1:5]] != other
    assert runs[0].stopped == "patience" and runs[0].epochs < 200
    assert runs[0].epochs == runs[0].best_epoch + 2 * 3  # three validations without improvement


def test_patience_waits_for_a_model_better_than_the_untrained_one(mkp):
    """A regret plateau at the start (decisions that have not moved yet) does not stop training:
    patience counts from the first model that beats epoch 0's."""
    dec, data, val = mkp
    kw = dict(
        mode="multiple",
        epochs=12,
        val=val,
        schedule=lt.Schedule(patience=2),
        seed=0,
        options=lt.FitOptions(solver="auto", warm_start="none"),  # patience of an untrained model
        progress=False,
    )
    flat = lt.fit(_linear(data.num_features, dec.num_vars), data, lt.LDLoss(dec, "spo+", "L1"), lr=1e-12, **kw)
    regrets = [h["val_regret"] for h in flat.history]
    assert max(regrets) == min(regrets)  # the model does not move: no validation beats epoch 0
    assert flat.stopped == "epochs" and flat.epochs == 12 and flat.best_epoch == 0
    moving = lt.fit(_linear(data.num_features, dec.num_vars), data, lt.LDLoss(dec, "spo+", "L1"), lr=2e-2, **kw)
    assert moving.best_epoch > 0
    if moving.stopped == "patience":
        assert moving.epochs == moving.best_epoch + 2


def test_a_cpu_hog_does_not_change_the_result(mkp):
    """A busy machine changes times, never the numbers of an epoch budget."""
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    dec, data, val = mkp
    kw = dict(
        mode="multiple",
        epochs=15,
        val=val,
        schedule=lt.Schedule(eval_every=5),
        lr=2e-2,
        seed=1,
        options=lt.FitOptions(solver="highs", warm_start="none"),  # the LD loss alone (test_presets: the start)
        progress=False,
    )
    torch.manual_seed(0)
    quiet = lt.fit(_linear(data.num_features, dec.num_vars), data, lt.LDLoss(dec, "imle", "L2"), **kw)
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        torch.manual_seed(0)
        busy = lt.fit(_linear(data.num_features, dec.num_vars), data, lt.LDLoss(dec, "imle", "L2"), **kw)
    finally:
        for h in hogs:
            h.kill()
    _histories_equal(quiet, busy)
    assert busy.best_val == quiet.best_val


def test_bare_imle_draws_fresh_noise_every_call(mkp):
    dec, data, _ = mkp
    w = data.view(0)._batch(torch.arange(8))["main_objective"].double()
    argopt = lt.BlockArgopt(dec, 0)
    small = torch.zeros_like(w)  # all-zero objectives: the noise alone decides
    a, b = lt.imle(small, argopt), lt.imle(small, argopt)
    assert not torch.equal(a, b)
    torch.manual_seed(5)
    c = lt.imle(small, argopt)
    torch.manual_seed(5)
    assert torch.equal(c, lt.imle(small, argopt))
    assert lt.imle(w, argopt).shape == w.shape


def test_trainer_refuses_or_recovers_from_bad_validation(mkp):
    dec, data, val = mkp
    model = _linear(data.num_features, dec.num_vars)
    with pytest.raises(ldopt.InputError, match="at least one validation instance"):
        lt.fit(model, data, lt.LDLoss(dec, "spo+"), epochs=1, val=(val[0][:0], val[1][:0]), progress=False)

    class Never(lt.Validator):  # a validation that is never finite
        def __call__(self, model):
            return float("nan")

    never = Never(dec.problem, val[0][:5], val[1][:5], solver="highs")
    with pytest.warns(UserWarning, match="no validation gave a finite regret"):
        out = lt.fit(model, data, lt.LDLoss(dec, "spo+"), epochs=3, val=never, lr=1e-2, progress=False)
    assert out.best_epoch == 3  # the last model, not the initial one
    assert not torch.equal(out.model.weight, _linear(data.num_features, dec.num_vars).weight)


def test_loss_and_data_of_different_problems_are_refused(mkp):
    dec, data, _ = mkp
    d2 = knapsack.protocol_data(10, 40, dim=4, deg=8, seed=8)  # same shape, other weights
    m2 = knapsack.build_model(d2.weights, d2.capacities)
    dec2 = ldopt.decompose(ldopt.Problem.from_pyomo(m2, m2.c))
    assert dec2.num_blocks == dec.num_blocks
    with pytest.raises(ldopt.InputError, match="expected the same decomposition"):
        lt.fit(_linear(data.num_features, dec.num_vars), data, lt.LDLoss(dec2, "spo+"), epochs=1, progress=False)


def test_ctrl_c_returns_the_best_model_and_the_history(mkp):
    dec, data, val = mkp

    class Interrupting(lt.LDLoss):
        calls = 0

        def forward(self, pred, batch):
            Interrupting.calls += 1
            if Interrupting.calls > 40:  # a few epochs in (4 batches an epoch)
                raise KeyboardInterrupt
            return super().forward(pred, batch)

    with pytest.warns(UserWarning, match="interrupted"):
        out = lt.fit(
            _linear(data.num_features, dec.num_vars),
            data,
            Interrupting(dec, "spo+"),
            epochs=100,
            val=val,
            lr=2e-2,
            progress=False,
            options=lt.FitOptions(solver="highs", warm_start="none"),  # from the untrained model
        )
    assert out.stopped == "interrupted" and out.epochs == 10
    assert out.best_val < out.history[0]["val_regret"]
    again = lt.Validator(dec.problem, *val, solver="highs")(out.model)
    assert again == pytest.approx(out.best_val, rel=1e-9)


@pytest.mark.parametrize(("method", "loss"), [("spo+", "L1"), ("imle", "L2")])
def test_batches_and_gradients_follow_the_model(mkp, method, loss):
    """A model in float64 (the same path as a model on a GPU: batches are float32 on the CPU and are
    moved to the model's device and dtype; tests/test_cuda.py runs it on a GPU where one exists)."""
    dec, data, val = mkp
    torch.manual_seed(0)
    net = _linear(data.num_features, dec.num_vars).double()
    batch = next(data.view(1).batches(8))
    value = lt.LDLoss(dec, method, loss)(net(batch["features"].double()), batch)
    assert value.dtype == torch.float64
    value.backward()
    assert net.weight.grad is not None and net.weight.grad.dtype == torch.float64
    out = lt.fit(
        net,
        data,
        lt.LDLoss(dec, method, loss),
        mode="multiple",
        epochs=3,
        val=val,
        lr=1e-2,
        progress=False,
        options=lt.FitOptions(solver="highs"),
    )
    assert next(out.model.parameters()).dtype == torch.float64 and np.isfinite(out.best_val)


def test_exact_validation_depends_on_the_model_alone(mkp):
    """Exact decisions start cold: a model's regret is the same whatever was validated before it;
    under a time limit the previous decisions are the next starts."""
    dec, data, val = mkp
    a, b = _linear(data.num_features, dec.num_vars, seed=1), _linear(data.num_features, dec.num_vars, seed=2)
    v = lt.Validator(dec.problem, *val, solver="highs")
    first = v(a)
    v(b)
    assert v(a) == first and v._start is None
    timed = lt.Validator(dec.problem, *val, solver="highs", time_limit=5.0)
    timed(a)
    assert timed._start is not None and timed._start.shape == (len(val[1]), dec.num_vars)


def test_static_mode_asks_for_main_where_the_blocks_differ():
    """The portfolio's budget row (a vertex whatever the prediction) and risk row differ: static
    mode without main= says so and lists them; the MKP's knapsack rows are alike: the first one."""
    cov, F, C = portfolio.gen_data(30, 5, 8, deg=4, seed=2)
    m = portfolio.build_model(cov)
    dec = ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c))
    data = lt.LDDataset(dec, F[:20], C[:20], iterations=5, progress=False)
    args = dict(mode="static", epochs=1, progress=False)
    with pytest.raises(ldopt.InputError, match=r"static mode needs main=.*0 \(budget: linear-row\), 1 \(risk"):
        lt.fit(_linear(F.shape[1], 8), data, lt.LDLoss(dec, "spo+"), **args)
    assert lt.fit(_linear(F.shape[1], 8), data, lt.LDLoss(dec, "spo+"), main=1, **args).epochs == 1
    # one candidate (the exact loss fits the risk row only): no question
    assert lt.fit(_linear(F.shape[1], 8), data, lt.LDLoss(dec, "exact", "L2"), **args).epochs == 1


def test_fit_trains_any_loss_and_knows_nothing_of_ld(mkp):
    """A user's own ``lt.Loss`` (here a hinge on the predicted costs' alignment with the true ones)
    trains through ``fit`` like ldopt's; the loss, not ``fit``, says which decompositions it trains through
    and refuses what does not go with it. ``ldopt_torch.train`` imports no LD loss or dataset."""
    import ast  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    dec, data, val = mkp

    class Hinge(lt.Loss):  # a plain loss on the whole problem: mean of max(0, 1 − ĉ·c / ‖c‖²) per instance
        def forward(self, pred_costs, batch):
            c = batch["costs"].to(pred_costs)
            return torch.relu(1 - (pred_costs * c).sum(1) / (c * c).sum(1)).mean()

    opt_data = lt.OptDataset(dec.problem, data.features.numpy(), data.costs_np)
    torch.manual_seed(0)
    model = _linear(data.num_features, dec.num_vars)
    out = lt.fit(model, opt_data, Hinge(), epochs=3, val=val, seed=0, progress=False)
    assert len(out.history) >= 2 and out.start is None  # auto_warm_start is False for a plain Loss
    with pytest.raises(ldopt.InputError, match="mode: 'multiple' draws one of the dataset's decompositions"):
        lt.fit(model, opt_data, Hinge(), mode="multiple", epochs=1, progress=False)
    with pytest.raises(ldopt.InputError, match=r"data: expected an lt\.LDDataset for an LDLoss, got OptDataset"):
        lt.fit(model, opt_data, lt.LDLoss(dec, "spo+"), epochs=1, progress=False)
    assert lt.LDLoss(dec, "spo+").plan(data, "multiple", None) == data.decompositions
    for f in (Path(lt.__file__).parent / "train").glob("*.py"):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert node.module not in ("ldopt_torch.losses.ld", "ldopt_torch.data.dataset"), (f.name, node.module)
