"""Predicted costs as the losses see them: on the model's device and dtype, finite, of the right
shape, and mapped to objective coefficients ``q(ĉ) = q0 + Qĉ``."""

from __future__ import annotations

import torch

from ldopt import Problem
from ldopt.errors import InputError
from ldopt_torch.data.batches import Batch


def _affine(problem: Problem) -> tuple[torch.Tensor | None, torch.Tensor]:
    """``Q`` as a dense tensor (``None`` when it is the identity) and ``q0``."""
    cm = problem.compiled
    return (None if cm.identity_costs else torch.as_tensor(cm.Q.toarray())), torch.as_tensor(cm.q0)


def like(t: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
    """``t`` on ``ref``'s device and in its dtype (batches live on the CPU; models may not)."""
    return t.to(device=ref.device, dtype=ref.dtype)


def check_finite(pred: torch.Tensor, batch: Batch, where: str = "") -> None:
    """Stop on NaN/inf predictions, naming the instance."""
    bad = ~torch.isfinite(pred).all(dim=-1)
    if bool(bad.any()):
        i = int(torch.nonzero(bad)[0, 0])
        idx = batch.get("index")
        inst = int(idx[i]) if idx is not None else i
        raise InputError(
            f"{where}pred_costs: expected finite predictions, got "
            f"{pred[i][~torch.isfinite(pred[i])][0].item()} for instance {inst}; lower the "
            "learning rate or check the features"
        )


class Affine:
    """``q(c) = q0 + Qc`` on tensors, and the shape checks of predictions."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.Q, self.q0 = _affine(problem)

    def diff(self, a: torch.Tensor) -> torch.Tensor:
        """``q(ĉ) − q(c) = Q(ĉ − c)`` for ``a = ĉ − c``."""
        return a if self.Q is None else a @ self.Q.to(device=a.device, dtype=a.dtype).T

    def q(self, c: torch.Tensor) -> torch.Tensor:
        return self.q0.to(device=c.device, dtype=c.dtype) + self.diff(c)

    def check(self, pred: torch.Tensor, batch: Batch) -> None:
        want = (len(batch["costs"]), self.problem.num_costs)
        if tuple(pred.shape) != want:
            raise InputError(f"pred_costs: expected shape {want} (batch, num_costs), got {tuple(pred.shape)}")
        check_finite(pred, batch)
