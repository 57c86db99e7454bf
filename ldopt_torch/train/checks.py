"""[`fit()`][ldopt_torch.fit]'s checks of its arguments before the first step."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from ldopt import checks
from ldopt.errors import InputError
from ldopt_torch.data.batches import model_inputs
from ldopt_torch.train.validation import Validator


def check_parts(model: Any, data: Any, loss: Any, val: Any, optimizer: Any) -> None:
    """The parts of a ``fit`` call are of the kinds it takes (an ``InputError`` naming the one that is not)."""
    checks.instance("model", model, nn.Module, "a torch.nn.Module")
    checks.instance("loss", loss, nn.Module, "a loss module (lt.LDLoss, lt.MSELoss, lt.FullLoss, ...)")
    if isinstance(loss, nn.modules.loss._Loss):  # torch's own losses are called as loss(input, target)
        raise InputError(
            "loss: expected an ldopt loss, called as loss(pred_costs, batch) (lt.LDLoss, lt.MSELoss, "
            f"lt.FullLoss, ...), got torch's {type(loss).__name__}, called as loss(input, target); "
            "for the two-stage baseline use lt.MSELoss()"
        )
    if optimizer is not None:
        checks.instance("optimizer", optimizer, torch.optim.Optimizer, "a torch.optim.Optimizer or None")
        mine = {id(p) for p in model.parameters()}
        if mine and not any(id(p) in mine for g in optimizer.param_groups for p in g["params"]):
            raise InputError(
                "optimizer: expected an optimizer over the model's parameters (e.g. torch.optim.Adam("
                "model.parameters())), got one over none of them; it would train nothing"
            )
    check_model(model)
    if not hasattr(data, "batches"):
        raise InputError(f"data: expected an lt.LDDataset or lt.OptDataset, got {type(data).__name__}")
    if val is not None and not isinstance(val, Validator) and not (isinstance(val, (tuple, list)) and len(val) == 2):
        raise InputError(f"val: expected (features, costs), an lt.Validator or None, got {type(val).__name__}")


def check_model(model: nn.Module) -> None:
    """The model's floating parameters sit on one device that holds data, in single or double
    precision (the losses hand predictions to the block solvers as numpy arrays)."""
    floats = [p for p in model.parameters() if p.is_floating_point()]
    dtypes = sorted({str(p.dtype) for p in floats})
    devices = sorted({str(p.device) for p in floats})
    low = [d for d in dtypes if d in ("torch.bfloat16", "torch.float16")]
    if low:
        raise InputError(
            f"model: expected float32 or float64 parameters (the block solvers take numpy arrays, and half precision "
            f"loses the costs' digits), got {low[0]}; train it in float32 (model.float()) and cast it after"
        )
    if len(devices) > 1:
        raise InputError(f"model: expected every parameter on one device (batches follow it), got {devices}")
    if devices == ["meta"]:
        raise InputError(
            "model: expected parameters with data, got parameters on the 'meta' device; materialise it first "
            "(model.to_empty(device='cpu'), then initialise its weights)"
        )


def check_features(model: nn.Module, data: Any, validator: Validator | None) -> None:
    """The validation features have the training features' columns, and the model takes them: a
    forward pass on one training row (eval mode, no gradient) before the first step."""
    features = getattr(data, "features", None)
    if not isinstance(features, torch.Tensor) or features.ndim != 2 or len(features) == 0:
        return
    n = features.shape[1]
    if validator is not None and validator.features.shape[1] != n:
        raise InputError(
            f"val: expected features with {n} columns (as the training data's), got {validator.features.shape[1]}"
        )
    was = model.training
    model.eval()
    try:
        with torch.no_grad():
            model(model_inputs(model, features[:1]))
    except RuntimeError as exc:
        raise InputError(
            f"model: expected a model that takes (batch, {n}) features, got one that fails on a training row: {exc}"
        ) from None
    finally:
        model.train(was)
