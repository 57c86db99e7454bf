"""[`fit()`][ldopt_torch.fit]'s warm start: the model trained by MSE first, then by the decision
loss from there, so that the model returned is never worse on validation than the two-stage one.

Starting a decision-focused loss from the MSE fit is common practice in DFL; on the zoo it is
what keeps LD(SPO+) from ending worse than MSE where the multipliers train poorly
(``benchmarks/bench_zoo_training.py``). Where the features say little about the decisions, the
constant predictor (the training costs' mean) can decide better than the MSE fit (five of the
zoo's models): a model whose last layer is linear can predict it, and the loss starts from it
where it validates better.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import numpy as np
import torch
from torch import nn

from ldopt_torch.losses.base import Loss
from ldopt_torch.losses.baselines import MSELoss
from ldopt_torch.train.result import FitResult
from ldopt_torch.train.settings import WarmStart
from ldopt_torch.train.validation import Validator


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
        return isinstance(loss, Loss) and loss.auto_warm_start and validator is not None
    return choice == "mse" and not isinstance(loss, MSELoss)


def last_linear(model: nn.Module) -> nn.Linear | None:
    """The model's output layer where it is an ``nn.Linear`` with a bias (the model itself, or the
    last module of an ``nn.Sequential``), else ``None``."""
    layer = model[-1] if isinstance(model, nn.Sequential) and len(model) else model
    return layer if isinstance(layer, nn.Linear) and layer.bias is not None else None


def constant_or(start: FitResult, data: Any, validator: Validator) -> FitResult:
    """``start`` (the MSE phase), or the constant predictor as the loss's start where it validates
    better: ``start.model``'s last linear layer set to predict the training costs' mean whatever
    the features (weights zero, bias the mean), ``constant_start`` set.

    Parameters
    ----------
    start
        The MSE phase's result (its best model loaded).
    data
        The training set (its ``costs``).
    validator
        The validation.
    """
    model, layer = start.model, last_linear(start.model)
    if layer is None or layer.out_features != data.costs.shape[1]:
        return start
    kept = copy.deepcopy(model.state_dict())
    with torch.no_grad():
        layer.weight.zero_()
        layer.bias.copy_(data.costs.mean(0).to(layer.bias))
    regret = validator(model)
    if np.isfinite(regret) and regret < start.best_val:
        regrets = validator.last.regrets.copy() if validator.last is not None else None
        return replace(start, best_val=regret, constant_start=True, val_regrets=regrets)
    model.load_state_dict(kept)
    return start
