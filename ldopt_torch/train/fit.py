"""One trainer for every loss: [`fit()`][ldopt_torch.train.fit.fit].

Static mode trains on one decomposition's main block; multiple mode draws a decomposition per
epoch from the dataset's. The baselines (MSE, full-problem SPO+/I-MLE) run through the same loop.
Validation is the full problem's relative regret ([`Validator`][ldopt_torch.Validator]: true optima solved once,
decisions warm-started from the previous validation); the best model by validation regret is kept.

Budgets: ``epochs`` with early stopping (``Schedule(patience=...)``: validations without
improvement) give the same numbers for the same seed whatever the machine's load — use them for
quality claims. ``Schedule(time_budget=...)`` (seconds of training) exists for the budget
experiments; their results change with the load. Times: ``time`` counts training only (forward,
losses, backward, steps); ``wall`` adds validation. ``time_to_best`` is ``time`` at the end of the
best epoch.

Determinism: the shuffling, the decomposition drawn per epoch and every loss's noise (I-MLE, FY)
come from streams seeded by ``seed``; torch runs on ``FitOptions(threads=...)`` threads (default
1). Ctrl-C ends training early and still returns the best model and the history
(``FitResult.stopped == "interrupted"``); so does SIGTERM, a batch system's signal to stop
(``"terminated"``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import torch
from torch import nn

from ldopt import checks
from ldopt.errors import InputError
from ldopt.runtime.progress import bar_options, enabled
from ldopt_torch.data.batches import CostsOnly
from ldopt_torch.losses.base import Loss, Mode, training_plan
from ldopt_torch.losses.baselines import MSELoss
from ldopt_torch.train.checks import check_features, check_parts
from ldopt_torch.train.loop import Budget, Due, Loop
from ldopt_torch.train.result import FitResult
from ldopt_torch.train.settings import FitOptions, Schedule
from ldopt_torch.train.validation import Validator
from ldopt_torch.train.warm_start import constant_or, wants_mse_start


@contextlib.contextmanager
def torch_threads(threads: int | None) -> Iterator[None]:
    """Run the block with ``threads`` torch threads (``None``: leave them as they are)."""
    threads = checks.positive_int_or_none("threads", threads)
    if threads is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(int(threads))
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _bar(epochs: int, time_budget: float | None, loss: nn.Module, progress: bool) -> Any:
    if not enabled(progress):
        return None
    from tqdm.auto import tqdm  # noqa: PLC0415

    desc = f"fit[{type(loss).__name__}]"
    if time_budget is not None:  # the budget that binds first sets the total the bar shows
        return tqdm(
            **bar_options(
                total=round(float(time_budget), 1),
                unit="s",
                desc=desc,
                bar_format="{l_bar}{bar}| {n:.1f}/{total:.1f} s of training [{elapsed}{postfix}]",
            )
        )
    return tqdm(**bar_options(total=int(epochs), unit="epoch", desc=desc))


def mse_start(
    model: nn.Module,
    data: Any,
    epochs: int,
    validator: Validator | None,
    lr: float,
    seed: int,
    progress: bool,
    schedule: Schedule,
    options: FitOptions,
) -> FitResult:
    """The warm start of ``fit``: ``model`` trained by MSE on ``data``'s costs, always early-stopped
    (the schedule's patience, else 4 validations) and within half of any time budget, with a
    fresh Adam (the caller's optimizer is for the decision loss)."""
    half = None if schedule.time_budget is None else schedule.time_budget / 2
    mse_schedule = replace(schedule, patience=schedule.patience or 4, time_budget=half)
    mse_options = replace(options, optimizer=None, warm_start="none")
    return fit(
        model,
        CostsOnly(data),
        MSELoss(),
        "static",
        None,
        epochs,
        val=validator,
        lr=lr,
        seed=seed,
        progress=progress,
        schedule=mse_schedule,
        options=mse_options,
    )


def fit(
    model: nn.Module,
    data: Any,
    loss: nn.Module,
    mode: Mode = "static",
    main: int | None = None,
    epochs: int = 10,
    *,
    val: tuple[Any, Any] | Validator | None = None,
    lr: float = 1e-3,
    seed: int = 0,
    progress: bool = True,
    schedule: Schedule | None = None,
    options: FitOptions | None = None,
) -> FitResult:
    """Train ``model`` (features → costs) on ``data`` with ``loss``; the best model by validation regret.

    See the module docstring for budgets, times and determinism.

    Parameters
    ----------
    model
        A ``torch.nn.Module`` from features ``(B, p)`` to predicted costs ``(B, num_costs)``; it may
        live on any device (a GPU): batches follow it, the oracles run on the CPU.
    data
        An [`LDDataset`][ldopt_torch.LDDataset] (LD losses) or [`OptDataset`][ldopt_torch.OptDataset]
        (MSE and the full-problem baselines).
    loss
        One of ldopt's losses, called as ``loss(pred_costs, batch)``: [`LDLoss`][ldopt_torch.LDLoss],
        [`MSELoss`][ldopt_torch.MSELoss], [`FullLoss`][ldopt_torch.FullLoss], ...
    mode
        ``"static"``: train on one decomposition's main block (``main``); ``"multiple"``: draw one of
        the dataset's decompositions per epoch (LD losses only).
    main
        The main block of static mode; ``None``: the first of the dataset's decompositions that the
        loss fits, where those blocks are alike (solved by one kind of oracle or solver); where they
        differ no choice is safe (the portfolio's budget row decides the same vertex whatever the
        prediction) and an ``InputError`` lists them.
    epochs
        Epochs at most (the budget for quality claims, with the schedule's ``patience``).
    val
        ``(features, costs)`` or a [`Validator`][ldopt_torch.Validator] of the same problem, or
        ``None`` (no validation: the last model is returned). Evaluated before training (epoch 0),
        on the schedule and after the last epoch.
    lr
        Adam's learning rate when ``options`` gives no optimizer.
    seed
        Seeds the shuffling, the decomposition drawn per epoch and every loss's noise.
    progress
        Show a progress bar (``LDOPT_PROGRESS=0`` silences every bar).
    schedule
        When to validate and when to stop early: a [`Schedule`][ldopt_torch.Schedule] (patience,
        time budget, validation every so many epochs or seconds, a callback); ``None``: validate
        every epoch, no early stop.
    options
        How to run: a [`FitOptions`][ldopt_torch.FitOptions] (optimizer, batch size, validation
        solver, threads, executor, the warm start); ``None``: its defaults, which start an LD loss
        from the MSE fit when ``val`` is given (``FitResult.start``); ``lt.PAPER.fit_options()``
        trains from the model as it comes.

    Returns
    -------
    FitResult
        The best model (loaded into ``model``), the per-validation history, the best epoch, its
        validation regret, the training time to it and why training stopped.
    """
    schedule = checks.instance("schedule", Schedule() if schedule is None else schedule, Schedule, "an lt.Schedule")
    options = checks.instance("options", FitOptions() if options is None else options, FitOptions, "an lt.FitOptions")
    budget = Budget(checks.positive_int("epochs", epochs), schedule.time_budget, Due(schedule))
    seed, lr = checks.nonnegative_int("seed", seed), checks.positive("lr", lr)
    check_parts(model, data, loss, val, options.optimizer)
    ds = training_plan(loss, data, mode, main)
    if isinstance(loss, Loss):  # losses with noise (I-MLE, FY) restart it from the seed
        loss.reseed(seed)
    validator = (
        val
        if isinstance(val, Validator) or val is None
        else Validator(data.problem, *val, solver=options.solver, executor=options.executor)
    )
    progress = checks.boolean("progress", progress)
    if isinstance(val, Validator) and val.problem.compiled.fingerprint() != data.problem.compiled.fingerprint():
        raise InputError(
            f"val: expected a Validator of the training data's problem {data.problem!r}, got one of {val.problem!r}"
        )
    check_features(model, data, validator)
    start = None
    if wants_mse_start(options.warm_start, loss, validator):
        start = mse_start(model, data, epochs, validator, lr, seed, progress, schedule, options)
        if start.stopped in ("interrupted", "terminated"):  # Ctrl-C in the warm start ends the fit
            return start
        budget = budget.less(start.train_time)
        if validator is not None:  # the mean can decide better where the features say little
            start = constant_or(start, data, validator)
    with torch_threads(options.threads):
        opt = options.optimizer or torch.optim.Adam(model.parameters(), lr=lr)
        bar = _bar(budget.epochs, budget.seconds, loss, progress)
        loop = Loop(model, validator, schedule.on_validate, schedule.patience, start=start)
        result = loop.run(data, loss, opt, ds, budget, options.batch_size, seed, bar)
    result.start, result.constant_start = start, start is not None and start.constant_start
    if start is not None and enabled(progress):
        from tqdm.auto import tqdm  # noqa: PLC0415

        which = "the constant predictor" if result.constant_start else "the MSE warm start"
        t = result.improvement_t
        if not result.improved:
            tqdm.write(f"fit: {type(loss).__name__} did not improve on {which} on validation; returning it")
        elif t < 2:  # within the validation set's noise
            tqdm.write(
                f"fit: {type(loss).__name__} improved on {which} by {t:.1f} standard errors of the validation "
                "regret (FitResult.improvement_t): within its noise; more validation instances would tell"
            )
    return result
