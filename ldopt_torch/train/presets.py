"""Named sets of defaults that go together: [`DEFAULTS`][ldopt_torch.train.presets.DEFAULTS], chosen by
measurement on the zoo of models others wrote and on the families (``docs/guide.md``), and
[`PAPER`][ldopt_torch.train.presets.PAPER], the paper's settings, which the Table 1 runs pin so that the
committed tables reproduce.

A preset's parts are the settings objects the entry points take:
``lt.LDDataset(dec, F, C, lt.PAPER.dual)``, ``lt.fit(..., options=lt.PAPER.fit_options())`` and
``lt.LDLoss(dec, lt.PAPER.imle())``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ldopt import checks
from ldopt.dual import TRAINING, DualSettings
from ldopt.errors import InputError
from ldopt_torch.losses.surrogates import IMLE
from ldopt_torch.train.settings import FitOptions, WarmStart, warm_start_choice


@dataclass(frozen=True)
class Preset:
    """Defaults of the training sets and the trainer that go together.

    Parameters
    ----------
    name
        The preset's name (shown in reports).
    dual
        [`LDDataset`][ldopt_torch.LDDataset]'s dual: [`TRAINING`][ldopt.dual.settings.TRAINING]
        (the start ``mu0="auto"`` picks, the layout ``"auto"``), or the paper's start ``μ = 1`` in
        the dense layout.
    imle_lambda
        I-MLE's interpolation step ``λ`` ([`IMLE`][ldopt_torch.IMLE]): 100, or the reference
        code's 10.
    warm_start
        [`fit()`][ldopt_torch.fit]'s start: ``"mse"`` trains the model with MSE first (early-stopped
        on the validation regret) and LD from there, returning the better of the two on validation;
        ``"auto"`` does so for an [`LDLoss`][ldopt_torch.LDLoss] when ``val`` is given; ``"none"``
        trains from the model as it comes.
    """

    name: str
    dual: DualSettings
    imle_lambda: float
    warm_start: WarmStart

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise InputError(f"name: expected a non-empty string, got {self.name!r}")
        checks.instance("dual", self.dual, DualSettings, "an ldopt.dual.DualSettings")
        object.__setattr__(self, "imle_lambda", checks.positive("imle_lambda", self.imle_lambda))
        object.__setattr__(self, "warm_start", warm_start_choice(self.warm_start))

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


DEFAULTS = Preset("defaults", dual=TRAINING, imle_lambda=100.0, warm_start="auto")
"""The library's defaults, chosen on the zoo and the families (``benchmarks/bench_zoo_training.py``)."""

PAPER = Preset("paper", dual=TRAINING.merged(mu0=1.0, layout="dense"), imle_lambda=10.0, warm_start="none")
"""The paper's settings (the training dual from ``μ = 1`` in the dense layout, I-MLE's ``λ = 10``, training
from the model as it comes)."""
