"""Multipliers that follow the model during training (the paper's open question; see
``docs/dynamic.md`` for the scheme, why the losses stay valid, and what it measured).

The paper fixes ``μ = μ*(c)`` before training. With
[`DynamicMultipliers`][ldopt_torch.data.dynamic.DynamicMultipliers] on an
[`LDDataset`][ldopt_torch.LDDataset], [`fit()`][ldopt_torch.fit] instead, every ``every`` epochs,

1. predicts ``ĉ`` for every training instance with the current model;
2. continues the dataset's own dual run (``"joint"`` or ``"independent"``) for ``steps``
   subgradient steps, warm-started at the multipliers in force, on the mixed costs
   ``c̃ = c + mix · (ĉ − c)``;
3. prices the new multipliers for the true costs: ``λ_d = q(c) + Σ_{k≠d} μ_k`` and
   ``x_d* = argmax_{x ∈ X_d} λ_d·x`` (one iteration of the same run at ``c``, which also gives each
   decomposition's bound for ``c``).

L1 and L2 keep DESIGN's definitions with the multipliers in force, and every multiplier set is a
valid dual point for the true costs (weak duality holds for any ``μ`` in the μ-form), so
`Follower.bounds` never falls below the optimum (tested). The seconds spent here count as
training time (``time`` in the history, ``time_to_best``, ``time_budget``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np
import torch
from torch import nn

from ldopt import Decomposition, checks
from ldopt.dual import DualResult, DualSettings
from ldopt.errors import InputError
from ldopt_torch.data.batches import model_inputs

FOLLOWING_MODES = ("joint", "independent")


@dataclass(frozen=True)
class DynamicMultipliers:
    """When and how the multipliers follow the model (see the module docstring).

    ``every``: epochs between updates (the first update comes before epoch ``every + 1``);
    ``steps``: warm-started subgradient steps per update; ``mix``: where the costs of those steps
    lie between the true costs (0: keep tightening the dual of ``c``) and the predictions (1);
    ``scale``: the steps' scale (Polyak's α, default the dataset's rule's). The defaults are the best of the
    configurations measured on the MKP (``benchmarks/results/dynamic/``).

    Parameters
    ----------
    every
        Update the multipliers every this many epochs.
    steps
        Warm-started dual steps per update.
    mix
        Where the steps aim: ``c + mix (ĉ − c)`` (1: the model's predictions; 0: the true costs).
    scale
        The steps' scale (Polyak's ``α`` or Adam's rate; ``None``: the training set's step rule's).
    """

    every: int = 20
    steps: int = 10
    mix: float = 1.0
    scale: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "every", checks.positive_int("every", self.every))
        object.__setattr__(self, "steps", checks.positive_int("steps", self.steps))
        mix = checks.finite("mix", self.mix)
        if not 0.0 <= mix <= 1.0:
            raise InputError(f"mix: expected a number in [0, 1], got {self.mix!r}")
        object.__setattr__(self, "mix", mix)
        object.__setattr__(self, "scale", checks.positive_or_none("scale", self.scale))

    def due(self, epoch: int) -> bool:
        """Whether the multipliers are updated before ``epoch`` (1-based).

        Parameters
        ----------
        epoch
            The coming epoch (1-based).
        """
        return epoch > 1 and (epoch - 1) % self.every == 0


def check_following(policy: Any, mode: str) -> DynamicMultipliers | None:
    """``policy`` checked for a training set whose dual ran in ``mode``."""
    if policy is None:
        return None
    checks.instance("dynamic", policy, DynamicMultipliers, "an lt.DynamicMultipliers or None")
    if mode not in FOLLOWING_MODES:
        raise InputError(
            f"dynamic: expected a training set of μ-form multipliers (mode in {FOLLOWING_MODES}), got "
            f"mode={mode!r}; build it with lt.LDDataset(..., ldopt.dual.DualSettings(mode='joint', ...))"
        )
    return policy


class Followed(Protocol):
    """What a [`Follower`][ldopt_torch.data.dynamic.Follower] reads of its training set (an
    [`LDDataset`][ldopt_torch.LDDataset]: this module does not import it)."""

    dec: Decomposition
    result: DualResult
    dual_settings: DualSettings
    features: torch.Tensor
    costs_np: np.ndarray

    def with_result(self, result: DualResult) -> Any:
        """The same instances with the multipliers ``result``."""


class Follower:
    """One training run's multipliers as they follow the model; the dataset itself is left as built,
    so every [`fit()`][ldopt_torch.fit] starts from the same multipliers."""

    def __init__(self, data: Followed, policy: DynamicMultipliers) -> None:
        self.data, self.policy = data, policy
        self.result: DualResult = data.result
        base = data.dual_settings
        rule = base.rule if policy.scale is None else base.rule.scaled(policy.scale)
        self.settings = replace(base, step=rule, mu0=1.0, time_limit=None)  # warm-started: mu0 unused
        self.seconds = 0.0
        self.bounds: list[np.ndarray] = []  # per update: each decomposition's bound for the true costs

    @torch.no_grad()
    def predictions(self, model: nn.Module) -> np.ndarray:
        """The model's costs for every training instance, as float64 numbers."""
        was_training = model.training
        model.eval()
        try:
            pred = model(model_inputs(model, self.data.features))
        finally:
            model.train(was_training)
        return pred.detach().cpu().double().numpy()

    def update(self, model: nn.Module) -> Any:
        """Move the multipliers towards the model's predictions; the training set they give."""
        t0 = time.perf_counter()
        c = self.data.costs_np
        mixed = c + self.policy.mix * (self.predictions(model) - c)
        if not np.isfinite(mixed).all():
            raise InputError("dynamic: the model predicted NaN/inf costs; lower the learning rate")
        dec, settings = self.data.dec, self.settings
        moved = dec.dual(
            mixed, warm=self.result, progress=False, settings=replace(settings, iterations=self.policy.steps)
        )
        priced = replace(settings, iterations=1)  # the same μ, priced for c
        self.result = dec.dual(c, warm=moved, progress=False, settings=priced)
        self.bounds.append(np.array(self.result.run_bounds))
        self.seconds += time.perf_counter() - t0
        return self.data.with_result(self.result)
