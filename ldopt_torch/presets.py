"""Named sets of defaults that go together: [`DEFAULTS`][ldopt_torch.presets.DEFAULTS], chosen by
measurement on the zoo of models others wrote and on the families (``docs/guide.md``), and
[`PAPER`][ldopt_torch.presets.PAPER], the paper's settings, which the Table 1 runs pin so that the
committed tables reproduce.

A preset fills what a call leaves unset, anything given explicitly winning:
``lt.LDDataset(dec, F, C, preset=lt.PAPER)`` and ``lt.fit(..., options=lt.PAPER.fit_options())``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, get_args

from ldopt import checks
from ldopt.dual.settings import Layout, Start, start_value
from ldopt.errors import InputError

from .fit_settings import FitOptions, WarmStart, warm_start_choice
from .surrogates import IMLE


@dataclass(frozen=True)
class Preset:
    """Defaults of the training sets and the trainer that go together.

    Parameters
    ----------
    name
        The preset's name (shown in reports).
    mu0
        [`LDDataset`][ldopt_torch.LDDataset]'s multipliers' start: ``"symmetric"`` (every block's
        objective ``q(c)/m``: the costs' scale) or a number (the paper's ``μ = 1``).
    imle_lambda
        I-MLE's interpolation step ``λ`` ([`IMLE`][ldopt_torch.IMLE]): 100, or the reference
        code's 10.
    warm_start
        [`fit()`][ldopt_torch.fit]'s start: ``"mse"`` trains the model with MSE first (early-stopped
        on the validation regret) and LD from there, returning the better of the two on validation;
        ``"auto"`` does so for an [`LDLoss`][ldopt_torch.LDLoss] when ``val`` is given; ``"none"``
        trains from the model as it comes.
    layout
        Where [`LDDataset`][ldopt_torch.LDDataset]'s multipliers live: ``"auto"`` (on each block's
        support where that is at most half of ``m × n``), ``"sparse"`` or ``"dense"`` (the paper's).
    """

    name: str
    mu0: float | Start
    imle_lambda: float
    warm_start: WarmStart
    layout: Layout = "auto"

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise InputError(f"name: expected a non-empty string, got {self.name!r}")
        object.__setattr__(self, "mu0", start_value("mu0", self.mu0))
        object.__setattr__(self, "imle_lambda", checks.positive("imle_lambda", self.imle_lambda))
        object.__setattr__(self, "warm_start", warm_start_choice(self.warm_start))
        object.__setattr__(self, "layout", checks.choice("layout", self.layout, get_args(Layout)))

    def imle(self, **options: Any) -> IMLE:
        """The I-MLE surrogate with this preset's ``λ`` (``options`` set the rest).

        Parameters
        ----------
        **options
            Any other parameter of [`IMLE`][ldopt_torch.IMLE] (``n_samples``, ``sigma``, ...).
        """
        return IMLE(**{"lambd": self.imle_lambda, **options})

    def fit_options(self, **options: Any) -> FitOptions:
        """[`FitOptions`][ldopt_torch.FitOptions] with this preset's warm start (``options`` set the rest).

        Parameters
        ----------
        **options
            Any other field of ``FitOptions`` (``batch_size``, ``solver``, ...).
        """
        return FitOptions(**{"warm_start": self.warm_start, **options})


def preset_or_default(preset: object) -> Preset:
    """``preset``, or [`DEFAULTS`][ldopt_torch.presets.DEFAULTS] when it is ``None``.

    Parameters
    ----------
    preset
        A [`Preset`][ldopt_torch.presets.Preset] or ``None``.
    """
    return checks.instance("preset", DEFAULTS if preset is None else preset, Preset, "lt.DEFAULTS, lt.PAPER or None")


DEFAULTS = Preset("defaults", mu0="symmetric", imle_lambda=100.0, warm_start="auto", layout="auto")
"""The library's defaults, chosen on the zoo and the families (``benchmarks/bench_zoo_training.py``)."""

PAPER = Preset("paper", mu0=1.0, imle_lambda=10.0, warm_start="none", layout="dense")
"""The paper's settings (multipliers from ``μ = 1`` in the dense layout, I-MLE's ``λ = 10``, training
from the model as it comes)."""
