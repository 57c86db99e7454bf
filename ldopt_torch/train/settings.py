"""[`fit()`][ldopt_torch.fit]'s settings as objects: when to validate and stop
([`Schedule`][ldopt_torch.Schedule]) and how to run ([`FitOptions`][ldopt_torch.FitOptions])."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

import torch

from ldopt import checks
from ldopt.errors import InputError

WarmStart = Literal["auto", "mse", "none"]  # "auto": "mse" for an LD loss with validation


def warm_start_choice(value: object) -> WarmStart:
    """``value`` as a ``WarmStart`` (``"auto"``, ``"mse"`` or ``"none"``).

    Parameters
    ----------
    value
        The choice to check.
    """
    return cast(WarmStart, checks.choice("warm_start", value, get_args(WarmStart)))


@dataclass(frozen=True)
class Schedule:
    """When ``fit`` validates and when it stops before ``epochs``.

    Parameters
    ----------
    patience
        Stop after this many validations without a better regret, counted from the first model that
        beats the untrained one (early in training the decisions can sit on a plateau while the loss
        still falls). ``None``: never.
    time_budget
        Seconds of training at most, or ``None``; results then depend on the machine's load (use it
        for time figures, ``epochs`` and ``patience`` for quality claims).
    eval_every
        Validate every this many epochs (unless ``eval_interval`` or ``eval_times`` is given).
    eval_interval
        Validate after every this many seconds of training instead.
    eval_times
        Validate once the training time passes each of these seconds instead.
    on_validate
        Called as ``on_validate(row, best_state)`` after every validation with the history row and
        the best model's state so far.
    """

    patience: int | None = None
    time_budget: float | None = None
    eval_every: int = 1
    eval_interval: float | None = None
    eval_times: Sequence[float] | None = None
    on_validate: Callable[[dict[str, Any], dict[str, Any]], None] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "patience", checks.positive_int_or_none("patience", self.patience))
        object.__setattr__(self, "time_budget", checks.positive_or_none("time_budget", self.time_budget, " (seconds)"))
        object.__setattr__(self, "eval_every", checks.positive_int("eval_every", self.eval_every))
        interval = checks.positive_or_none("eval_interval", self.eval_interval, " (seconds)")
        object.__setattr__(self, "eval_interval", interval)
        if self.eval_times is not None:
            times = self.eval_times
            if isinstance(times, (str, bytes)) or not hasattr(times, "__iter__"):
                raise InputError(f"eval_times: expected a sequence of seconds of training, got {times!r}")
            object.__setattr__(
                self, "eval_times", tuple(checks.nonnegative(f"eval_times[{k}]", t) for k, t in enumerate(times))
            )
        if self.on_validate is not None and not callable(self.on_validate):
            raise InputError(f"on_validate: expected a callable(row, best_state) or None, got {self.on_validate!r}")


@dataclass(frozen=True)
class FitOptions:
    """How ``fit`` runs: the optimizer, the batches, the validation solver and the threads.

    Parameters
    ----------
    optimizer
        A ``torch.optim.Optimizer`` over the model's parameters; ``None``: Adam with ``fit``'s ``lr``.
    batch_size
        Instances per step.
    solver
        The solver of the validation decisions when ``val`` is ``(features, costs)``.
    threads
        Torch's threads while training (default 1: a small model's step is no faster on two, and
        two slow down badly on a busy machine); ``None`` leaves them as they are.
    executor
        A ``concurrent.futures.Executor`` for the validation solves, or ``None`` (this process's threads).
    warm_start
        ``"mse"``: train by MSE first (on the same schedule, always early-stopped on the
        validation regret: the schedule's patience, else 4 validations; within half of any time
        budget; Ctrl-C there ends the fit) and by the loss from the best MSE model, which is
        validated as epoch 0: with ``val`` the model returned is never worse on validation than
        the two-stage one (``FitResult.start`` is the MSE phase, ``FitResult.improved`` says
        whether the loss beat it); a model whose last layer is an ``nn.Linear`` starts instead
        from the constant predictor (the training costs' mean) where that validates better
        (``FitResult.constant_start``); ``"auto"`` (the default, ``lt.DEFAULTS``): so for an
        [`LDLoss`][ldopt_torch.LDLoss] when ``val`` is given; ``"none"`` (``lt.PAPER``): train
        from the model as it comes.
    """

    optimizer: torch.optim.Optimizer | None = None
    batch_size: int = 32
    solver: str = "auto"
    threads: int | None = 1
    executor: Executor | None = None
    warm_start: WarmStart = "auto"

    def __post_init__(self) -> None:
        object.__setattr__(self, "warm_start", warm_start_choice(self.warm_start))
        if self.optimizer is not None:
            checks.instance("optimizer", self.optimizer, torch.optim.Optimizer, "a torch.optim.Optimizer or None")
        object.__setattr__(self, "batch_size", checks.positive_int("batch_size", self.batch_size))
        object.__setattr__(self, "solver", checks.solver_name("solver", self.solver))
        object.__setattr__(self, "threads", checks.positive_int_or_none("threads", self.threads))
        checks.executor_or_none("executor", self.executor)
