"""A run's options and the seconds of its stages (see [`run()`][ldopt_experiments.runner.run])."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ldopt.dual import DualMode, DualSettings, StepChoice
from ldopt_torch import PAPER, DynamicMultipliers


@dataclass
class RunOptions:
    """How [`run()`][ldopt_experiments.runner.run] trains and evaluates (see its docstring).

    Parameters
    ----------
    solver
        The solver of the optima and decisions.
    budget
        Seconds of training per run, or ``None`` (epochs).
    epochs
        Epochs at most per run.
    patience
        Validations without improvement before a run stops.
    eval_every
        Validate every this many epochs (0: the runner's default).
    evaluations
        Validations of a time-budget run.
    lr
        The learning rate (``None``: the setup's).
    count_construction
        Count the multipliers' construction inside ``budget``.
    curve_instances
        Test instances of the budget curves.
    dual
        The LD training sets' dual (the protocol pins ``lt.PAPER.dual``, so that Table 1
        reproduces; a setup's own start replaces its ``mu0``).
    dynamic
        Multipliers that follow the model, or ``None``.
    time_limit
        Seconds per solve, or ``None``.
    certify
        Tighten the test optima's bounds with an LD bound.
    certify_iterations
        That bound's iterations.
    reference_instances
        Test instances the references are measured on: a random sample where the test set has
        more (with standard errors), or ``None``: every one.
    reference_time_limit
        Seconds per decision of the references where ``time_limit`` is ``None`` (a floor decision
        stopped there keeps a certified lower end), or ``None``: exact, however long.
    out
        The output folder, or ``None``.
    resume
        Keep the runs already saved in ``out``.
    progress
        Show progress bars and per-run lines.
    """

    solver: str = "highs"
    budget: float | None = None
    epochs: int = 500
    patience: int | None = 20
    eval_every: int = 0
    evaluations: int = 12
    lr: float | None = None
    count_construction: bool = False
    curve_instances: int = 200
    dual: DualSettings = PAPER.dual
    dynamic: DynamicMultipliers | None = None
    time_limit: float | None = None
    certify: bool = False
    certify_iterations: int = 100
    reference_instances: int | None = 200
    reference_time_limit: float | None = 10.0
    out: str | Path | None = None
    resume: bool = False
    progress: bool = True


def protocol_dual(mode: DualMode = "joint", step: StepChoice = "polyak", iterations: int | None = None) -> DualSettings:
    """The protocol's training-set dual, ``lt.PAPER.dual``, in ``mode`` with the step rule ``step``
    and ``iterations`` steps (``None``: the preset's 30, or 300 in the shared mode, which is for
    bounds).

    Parameters
    ----------
    mode
        The dual's mode.
    step
        Its step rule's name.
    iterations
        Its iterations, or ``None``.
    """
    if iterations is None and mode == "shared":
        iterations = 300
    return PAPER.dual.merged(mode=mode, step=step, iterations=iterations)


class Stages:
    """Seconds per stage, in the order they ran."""

    def __init__(self) -> None:
        self.items: list[tuple[str, float]] = []

    def timed(self, name: str, fn: Any) -> Any:
        t0 = time.perf_counter()
        out = fn()
        self.items.append((name, time.perf_counter() - t0))
        return out
