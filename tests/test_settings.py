"""Settings as objects: ``fit``'s Schedule and FitOptions, the older keywords gone, and the size of
the entry points' signatures."""

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


def test_the_settings_objects_are_the_one_way(small):
    """fit's schedule and options are objects; the older keywords are gone (Python refuses them)."""
    out = _train(
        small,
        schedule=lt.Schedule(patience=3, eval_every=2),
        options=lt.FitOptions(batch_size=4, solver="highs"),
    )
    assert _validated(out) == [0, 2, 4]
    for old in ("patience", "eval_every", "batch_size", "solver", "time_budget", "optimizer"):
        with pytest.raises(TypeError, match=f"unexpected keyword argument '{old}'"):
            _train(small, **{old: 3})
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
    older ``optimum=`` is gone."""
    dec, _, (F, C) = small
    opt = ldopt.evaluate.regret.optima(dec.problem, C, "highs")
    pred = C + 1.0
    assert lt.relative_regret(dec.problem, pred, C, "highs", optima=opt) == lt.relative_regret(
        dec.problem, pred, C, "highs"
    )
    assert lt.Validator(dec.problem, F, C, "highs", optima=opt).optima is opt
    with pytest.raises(TypeError, match="optimum"):
        lt.relative_regret(dec.problem, pred, C, "highs", optimum=opt)  # type: ignore[call-arg]


def test_entry_points_have_few_parameters_and_no_catch_all():
    """Issue 48's limits: one settings object per algorithm plus a few everyday keywords."""
    limits = {
        lt.fit: 12,
        ldopt.Decomposition.dual: 12,  # the decomposition itself, then at most 11
        lt.LDDataset.__init__: 11,  # self, then at most 10
        lt.LDLoss.__init__: 7,  # self, then at most 6
        ldopt.check: 5,
        ldopt.lagrangian_bound: 6,  # column generation: EXACT plus iterations, solver, progress
    }
    for fn, most in limits.items():
        params = inspect.signature(fn).parameters.values()
        assert not [p for p in params if p.kind is inspect.Parameter.VAR_KEYWORD], fn
        assert len(_named(fn)) <= most, (fn, _named(fn))
    # no public callable of the library or the harness takes a **catch-all
    import ldopt_experiments  # noqa: PLC0415

    found = []
    for module in (ldopt, ldopt.dual, lt, ldopt_experiments):
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name, None)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)) or not obj.__module__.startswith("ldopt"):
                continue  # type aliases, and what comes from elsewhere
            if isinstance(obj, type) and issubclass(obj, BaseException):
                continue  # an error's message arguments
            for fn in (obj.__dict__.get("__init__"),) if isinstance(obj, type) else (obj,):  # our own __init__
                try:
                    params = inspect.signature(fn).parameters.values()  # type: ignore[arg-type]
                except (TypeError, ValueError):
                    continue
                if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
                    found.append(f"{module.__name__}.{name}")
    assert found == [], found


def test_no_deprecated_spelling_is_left_in_the_library():
    from pathlib import Path  # noqa: PLC0415

    root = Path(ldopt.__file__).parent.parent
    hits = [
        str(f.relative_to(root))
        for pkg in ("ldopt", "ldopt_torch", "ldopt_experiments")
        for f in (root / pkg).rglob("*.py")
        if "DeprecationWarning" in f.read_text(encoding="utf-8") or "deprecated" in f.read_text(encoding="utf-8")
    ]
    assert hits == []
