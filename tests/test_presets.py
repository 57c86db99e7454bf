"""Presets and the MSE warm start: ``lt.DEFAULTS`` (the symmetric multipliers, an LD loss started
from the MSE fit) and ``lt.PAPER`` (μ = 1, no warm start; the key the committed caches carry), and
the warm start's promise — the model returned is never worse on validation than the MSE fit."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="ldopt_torch needs torch (pip install 'ldopt[torch]')")

import ldopt  # noqa: E402
import ldopt_experiments  # noqa: E402
import ldopt_torch as lt  # noqa: E402
from ldopt.dual import DualSettings  # noqa: E402
from ldopt.problems import knapsack  # noqa: E402
from ldopt_torch.train.loop import Budget, Due  # noqa: E402


@pytest.fixture(scope="module")
def small():
    d = knapsack.protocol_data(60, 8, dim=2, seed=3)
    m = knapsack.build_model(d.weights, d.capacities)
    dec = ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c))
    data = lt.LDDataset(dec, d.features[:40], d.costs[:40], iterations=5, progress=False)
    return dec, data, (d.features[40:], d.costs[40:])


def _fit(small, loss=None, epochs=12, model=None, **kw):
    dec, data, val = small
    torch.manual_seed(0)
    model = torch.nn.Linear(data.num_features, dec.num_vars) if model is None else model
    loss = lt.LDLoss(dec, "spo+") if loss is None else loss
    schedule = kw.pop("schedule", lt.Schedule(patience=3))
    return lt.fit(
        model, data, loss, "multiple", None, epochs, val=val, lr=0.05, seed=1, progress=False, schedule=schedule, **kw
    )


def test_the_paper_preset_keeps_the_key_the_caches_were_written_with(small):
    dec, data, _ = small
    assert DualSettings().mu0 == "auto" and lt.DEFAULTS.dual is ldopt.dual.TRAINING
    assert lt.PAPER.dual.merged(iterations=300, mode="shared").key() == dict(
        iterations=300, mode="shared", step="polyak", lr=2.0, mu0=1.0, tol=1e-6, time_limit=None, solver="auto"
    )
    F, C = data.features.numpy(), data.costs_np
    paper = lt.LDDataset(dec, F, C, lt.PAPER.dual, iterations=5, progress=False)
    assert paper.settings == dict(data.settings, mu0=1.0) and data.settings["mu0"] == "symmetric"
    default = lt.LDDataset(dec, F[:2], C[:2], progress=False)  # what ldopt.check reports
    assert default.settings == replace(lt.DEFAULTS.dual, mu0="symmetric", layout=default.result.layout).key()
    mine = lt.LDDataset(dec, F, C, replace(lt.PAPER.dual, mu0=0.5), iterations=5, progress=False)
    assert mine.settings["mu0"] == 0.5
    with pytest.raises(TypeError, match="preset"):
        lt.LDDataset(dec, F, C, preset=lt.PAPER, progress=False)  # type: ignore[call-arg]


def test_the_warm_start_is_the_mse_fit_and_never_loses_to_it_on_validation(small):
    dec, data, val = small
    out = _fit(small, options=lt.FitOptions(warm_start="mse"))
    torch.manual_seed(0)
    alone = lt.fit(
        torch.nn.Linear(data.num_features, dec.num_vars),
        lt.OptDataset(dec.problem, data.features.numpy(), data.costs_np),
        lt.MSELoss(),
        epochs=12,
        val=val,
        lr=0.05,
        seed=1,
        progress=False,
        schedule=lt.Schedule(patience=3),
    )
    assert out.start is not None and out.start.best_val == pytest.approx(alone.best_val, abs=1e-12)
    assert out.history[0]["val_regret"] == pytest.approx(out.start.best_val, abs=1e-9)  # LD starts there
    assert out.best_val <= out.start.best_val
    assert out.improved == (out.best_epoch > 0)
    assert _fit(small).start is not None  # "auto": an LD loss with validation starts from MSE


def test_the_per_instance_validation_regrets_and_the_paired_statistic(small):
    """``val_regrets`` are the returned model's (and the start's) per-instance regrets, summing to
    ``best_val`` times the optima's total; ``improvement_t`` is the paired t statistic of the start's
    regrets minus the returned model's."""
    dec, _, val = small
    out = _fit(small, options=lt.FitOptions(warm_start="mse"))
    validator = lt.Validator(dec.problem, *val)
    total = np.abs(validator.optima.value).sum()
    assert out.improved and out.val_regrets.shape == (len(val[1]),)
    validator(out.model)
    np.testing.assert_allclose(out.val_regrets, validator.last.regrets, atol=1e-9)
    assert out.val_regrets.sum() / total == pytest.approx(out.best_val, rel=1e-12)
    assert out.start.val_regrets.sum() / total == pytest.approx(out.start.best_val, rel=1e-12)
    d = out.start.val_regrets - out.val_regrets
    assert out.improvement_t == pytest.approx(d.mean() / (d.std(ddof=1) / np.sqrt(len(d))), rel=1e-12)
    assert out.improvement_t > 0
    assert np.isnan(_fit(small, options=lt.PAPER.fit_options()).improvement_t)  # no warm start


def test_a_loss_that_cannot_improve_returns_the_start_and_says_so(small):
    dec, data, val = small
    torch.manual_seed(0)
    model = torch.nn.Linear(data.num_features, dec.num_vars)
    frozen = torch.optim.SGD(model.parameters(), lr=0.0)  # the LD phase cannot move the model
    out = lt.fit(
        model,
        data,
        lt.LDLoss(dec, "spo+"),
        "multiple",
        None,
        50,
        val=val,
        lr=0.05,
        seed=1,
        progress=False,
        schedule=lt.Schedule(patience=2),
        options=lt.FitOptions(optimizer=frozen, warm_start="mse"),
    )
    assert out.improved is False and out.best_epoch == 0 and out.improvement_t == 0.0
    assert out.stopped == "patience" and out.epochs == 2  # patience counts from the trained start
    assert out.best_val == pytest.approx(out.start.best_val, abs=1e-12)
    again = lt.Validator(dec.problem, *val)(out.model)  # the model returned is the start's best
    assert again == pytest.approx(out.start.best_val, abs=1e-9)


def test_the_loss_starts_from_the_constant_predictor_where_it_validates_better():
    """Costs the features do not predict (a fixed vector and noise): the training costs' mean
    decides better than the MSE fit on validation, so a model whose last layer is linear starts
    the loss from it (weights zero, bias the mean) and is never worse than it; a model ending in
    another layer keeps the MSE start."""
    d = knapsack.protocol_data(60, 8, dim=2, seed=3)
    m = knapsack.build_model(d.weights, d.capacities)
    dec = ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c))
    costs = d.costs.mean(0) + np.random.default_rng(0).normal(0.0, 1.0, d.costs.shape)
    data = lt.LDDataset(dec, d.features[:40], costs[:40], iterations=5, progress=False)
    validator = lt.Validator(dec.problem, d.features[40:], costs[40:])
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(data.num_features, 8), torch.nn.ReLU(), torch.nn.Linear(8, 8))
    out = _fit((dec, data, validator), model=model, epochs=10)
    mean = torch.nn.Linear(data.num_features, dec.num_vars)
    with torch.no_grad():
        mean.weight.zero_()
        mean.bias.copy_(torch.as_tensor(costs[:40].mean(0)))
    assert out.constant_start and out.start.best_val == pytest.approx(validator(mean), abs=1e-12)
    np.testing.assert_array_equal(out.start.val_regrets, validator.last.regrets)  # the mean's
    assert out.start.best_val < min(h["val_regret"] for h in out.start.history if np.isfinite(h["val_regret"]))
    assert out.best_val <= out.start.best_val and validator(out.model) == pytest.approx(out.best_val, abs=1e-9)
    torch.manual_seed(0)
    relu = torch.nn.Sequential(torch.nn.Linear(data.num_features, 8), torch.nn.ReLU())
    assert not _fit((dec, data, validator), model=relu, epochs=10).constant_start


def test_no_warm_start_without_validation_for_mse_or_with_the_paper_preset(small):
    dec, data, _ = small
    torch.manual_seed(0)
    model = torch.nn.Linear(data.num_features, dec.num_vars)
    assert lt.fit(model, data, lt.LDLoss(dec, "spo+"), epochs=2, progress=False).start is None
    assert _fit(small, options=lt.PAPER.fit_options()).start is None
    assert _fit(small, options=lt.PAPER.fit_options()).improved is None
    opt = lt.OptDataset(dec.problem, data.features.numpy(), data.costs_np)
    torch.manual_seed(0)
    mse = lt.fit(
        torch.nn.Linear(data.num_features, dec.num_vars),
        opt,
        lt.MSELoss(),
        epochs=2,
        val=small[2],
        progress=False,
        options=lt.FitOptions(warm_start="mse"),
    )
    assert mse.start is None


def test_a_time_budget_is_shared_with_the_warm_start():
    b = Budget(10, 5.0, Due(lt.Schedule()))
    assert b.less(2.0).seconds == pytest.approx(3.0) and b.less(9.0).seconds > 0
    assert Budget(10, None, Due(lt.Schedule())).less(2.0).seconds is None


def test_bad_presets_and_warm_starts_are_named():
    with pytest.raises(ldopt.InputError, match="warm_start: expected one of"):
        lt.FitOptions(warm_start="yes")
    with pytest.raises(ldopt.InputError, match=r"dual: expected an ldopt\.dual\.DualSettings"):
        lt.Preset("mine", dual={"mu0": 1.0}, imle_lambda=1.0, warm_start="auto")
    with pytest.raises(ldopt.InputError, match="name: expected a non-empty string"):
        lt.Preset("", dual=lt.PAPER.dual, imle_lambda=1.0, warm_start="auto")
    assert lt.PAPER.fit_options(batch_size=8) == lt.FitOptions(batch_size=8, warm_start="none")
    with pytest.raises(ldopt.InputError, match="imle_lambda: expected"):
        lt.Preset("mine", dual=lt.PAPER.dual, imle_lambda=0.0, warm_start="auto")


def test_i_mles_default_step_is_the_defaults_and_the_paper_keeps_the_references():
    assert lt.IMLE().lambd == lt.DEFAULTS.imle_lambda == 100.0
    assert lt.PAPER.imle().lambd == 10.0 and lt.PAPER.imle(n_samples=3).n_samples == 3
    assert ldopt_experiments.parse_method("ld:imle:multiple:L2").lambd == 10.0  # the harness pins it


def test_the_warm_start_always_stops_early_and_takes_half_a_time_budget(small):
    """Without patience the MSE phase stops after 4 validations without a better regret (an epoch
    cap meant for the decision loss would otherwise run MSE as long); a time budget is halved."""
    out = _fit(small, epochs=60, schedule=lt.Schedule(), options=lt.FitOptions(warm_start="mse"))
    assert out.start is not None and out.start.stopped == "patience" and out.start.epochs < 60
    assert out.epochs == 60  # the decision loss keeps its own budget: no patience, every epoch
    timed = _fit(small, schedule=lt.Schedule(time_budget=0.4), options=lt.FitOptions(warm_start="mse"))
    assert timed.start is not None and timed.start.train_time <= 0.2 + 0.2  # one epoch may overrun
