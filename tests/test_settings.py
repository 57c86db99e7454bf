"""Settings as objects: ``fit``'s Schedule and FitOptions (the older keywords still work, with a
deprecation warning, and give the same training), and the size of the signatures."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="ldopt_torch needs torch (pip install 'ldopt[torch]')")

import ldopt  # noqa: E402
import ldopt_torch as lt  # noqa: E402
from ldopt.problems import knapsack  # noqa: E402


def _named(fn) -> list[str]:
    kinds = (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL)
    return [n for n, p in inspect.signature(fn).parameters.items() if p.kind not in kinds]


def test_fit_takes_at_most_twelve_named_parameters():
    assert len(_named(lt.fit)) <= 12, _named(lt.fit)


@pytest.fixture(scope="module")
def small():
    d = knapsack.protocol_data(24, 8, dim=2, seed=3)
    m = knapsack.build_model(d.weights, d.capacities)
    dec = ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c))
    data = lt.LDDataset(dec, d.features[:16], d.costs[:16], iterations=5, progress=False)
    return dec, data, (d.features[16:], d.costs[16:])


def _train(small, **kw):
    dec, data, val = small
    torch.manual_seed(0)
    model = torch.nn.Linear(data.num_features, dec.num_vars)
    return lt.fit(model, data, lt.LDLoss(dec, "spo+"), epochs=4, val=val, seed=2, progress=False, **kw)


def _validated(out) -> list[int]:
    return [h["epoch"] for h in out.history if np.isfinite(h["val_regret"])]


def test_the_older_keywords_train_the_same_with_a_warning(small):
    new = _train(
        small,
        schedule=lt.Schedule(patience=3, eval_every=2),
        options=lt.FitOptions(batch_size=4, solver="highs"),
    )
    with pytest.warns(DeprecationWarning) as caught:
        old = _train(small, patience=3, eval_every=2, batch_size=4, solver="highs")
    said = sorted(str(w.message) for w in caught)
    assert said == [
        "fit(..., batch_size=) is deprecated; use options=lt.FitOptions(batch_size=...)",
        "fit(..., eval_every=) is deprecated; use schedule=lt.Schedule(eval_every=...)",
        "fit(..., patience=) is deprecated; use schedule=lt.Schedule(patience=...)",
        "fit(..., solver=) is deprecated; use options=lt.FitOptions(solver=...)",
    ]
    assert all(w.filename == __file__ for w in caught)  # the warning points at the caller
    np.testing.assert_array_equal([h["val_regret"] for h in old.history], [h["val_regret"] for h in new.history])
    assert _validated(new) == [0, 2, 4]


def test_an_older_keyword_overrides_the_object_and_an_unknown_one_is_refused(small):
    with pytest.warns(DeprecationWarning):
        out = _train(small, schedule=lt.Schedule(eval_every=1), eval_every=4)
    assert _validated(out) == [0, 4]
    with pytest.raises(ldopt.InputError, match=r"unexpected keyword\(s\) \['epoch'\]"):
        _train(small, epoch=3)
    with pytest.raises(ldopt.InputError, match=r"schedule: expected an lt\.Schedule, got dict"):
        _train(small, schedule={"patience": 2})


def test_schedule_and_options_check_their_fields():
    with pytest.raises(ldopt.InputError, match="patience: expected a positive integer"):
        lt.Schedule(patience=0)
    with pytest.raises(ldopt.InputError, match="on_validate: expected a callable"):
        lt.Schedule(on_validate=3)
    assert lt.Schedule(eval_times=[2, 1.5]).eval_times == (2.0, 1.5)
    with pytest.raises(ldopt.InputError, match="batch_size: expected a positive integer"):
        lt.FitOptions(batch_size=0)
    with pytest.raises(ldopt.InputError, match=r"optimizer: expected a torch\.optim\.Optimizer"):
        lt.FitOptions(optimizer="adam")
    assert np.isfinite(lt.Schedule(time_budget=2.5).time_budget)


def test_optima_is_one_name_across_the_api(small):
    """``relative_regret``, ``regrets`` and ``Validator`` take ``optima=`` as ``evaluate`` does; the
    older ``optimum=`` still works, with a warning."""
    dec, _, (F, C) = small
    opt = ldopt.regret.optima(dec.problem, C, "highs")
    pred = C + 1.0
    new = lt.relative_regret(dec.problem, pred, C, "highs", optima=opt)
    with pytest.warns(DeprecationWarning, match="optimum= is deprecated; use optima="):
        old = lt.relative_regret(dec.problem, pred, C, "highs", optimum=opt)
    assert new == old == lt.relative_regret(dec.problem, pred, C, "highs")
    with pytest.warns(DeprecationWarning, match="optimum= is deprecated"):
        v = lt.Validator(dec.problem, F, C, "highs", optimum=opt)
    assert v.optima is opt
