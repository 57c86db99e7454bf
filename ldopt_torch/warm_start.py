"""[`fit()`][ldopt_torch.fit]'s warm start: the model trained by MSE first, then by the decision
loss from there, so that the model returned is never worse on validation than the two-stage one.

Starting a decision-focused loss from the MSE fit is common practice in DFL; on the zoo it is
what keeps LD(SPO+) from ending worse than MSE where the multipliers train poorly
(``benchmarks/bench_zoo_training.py``).
"""

from __future__ import annotations

from torch import nn

from .baselines import MSELoss
from .fit_settings import WarmStart
from .losses import LDLoss
from .validation import Validator


def wants_mse_start(choice: WarmStart, loss: nn.Module, validator: Validator | None) -> bool:
    """Whether ``fit`` trains by MSE first: ``"mse"`` (unless ``loss`` is MSE itself), or ``"auto"``
    for an LD loss with validation (without it nothing could choose between the start and what LD
    makes of it).

    Parameters
    ----------
    choice
        The warm start asked for.
    loss
        The training loss.
    validator
        The validation, or ``None``.
    """
    if choice == "auto":
        return isinstance(loss, LDLoss) and validator is not None
    return choice == "mse" and not isinstance(loss, MSELoss)
