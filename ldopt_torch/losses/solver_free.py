"""Solver-free baselines over the true optima of a linear program with bounded variables:

* CaVE / CaVE+ (Tang & Khalil 2024): align the predicted cost with the cone of the binding
  constraint normals at the true optimum — PyEPO's ``coneAlignedCosine``, with the normals
  computed here from the compiled rows (PyEPO's own extraction needs a Gurobi model).
* LAVA (Berden et al. 2025, "Solver-free DFL for linear optimization"): the true optimum must be
  at least as good as its adjacent vertices under the prediction; the loss sums
  ``max(ĉ·(z_adj − z*), −ε)`` (maximisation form) over the adjacent vertices. For a vertex whose
  variables all sit at bounds (binary and integer programs at a bound), the basis of the row
  slacks is a valid basis; pivoting one nonbasic variable moves it towards its other bound until
  that bound or a row's slack stops it, so each adjacent vertex differs from ``z*`` in one
  coordinate by a step ``t_j`` (zero steps — degenerate pivots — are left out).

Both need ``q(c) = c`` (objective coefficients equal to the costs) and linear rows only.
"""

from __future__ import annotations

from typing import Literal, get_args

import torch

from ldopt import Problem, checks
from ldopt.errors import InputError
from ldopt_torch.data.batches import OptBatch
from ldopt_torch.data.predictions import like
from ldopt_torch.data.structure import check_linear
from ldopt_torch.losses.base import Loss


def _structured(batch: OptBatch, key: str, loss: str, what: str) -> None:
    """Refuse a batch without ``key`` (``OptDataset`` built without ``structure=True``)."""
    if key not in batch:
        raise InputError(
            f"{loss}: expected batches with {what}, got none; build the data with lt.OptDataset(..., structure=True)"
        )


class CaVELoss(Loss):
    """CaVE (``plus=False``: the projection solved to convergence) or CaVE+ (``plus=True``: PyEPO's
    3-iteration preset), on batches with ``tight`` normals (``lt.OptDataset(..., structure=True)``).

    Parameters
    ----------
    problem
        A linear problem.
    plus
        CaVE+ (PyEPO's few projection steps) instead of the projection solved to convergence.
    max_iter
        Projection steps (``None``: 3 for CaVE+, 100 for CaVE).
    """

    def __init__(self, problem: Problem, plus: bool = True, max_iter: int | None = None) -> None:
        super().__init__()
        import pyepo.func  # noqa: PLC0415

        from ldopt_torch.losses.pyepo_adapter import PyEPOModel  # noqa: PLC0415

        check_linear(problem, "CaVE")
        self.layer = pyepo.func.coneAlignedCosine(PyEPOModel(problem), max_iter=max_iter or (3 if plus else 100))

    def forward(self, pred_costs: torch.Tensor, batch: OptBatch) -> torch.Tensor:
        """The mean CaVE loss of a batch.

        Parameters
        ----------
        pred_costs
            Predicted costs ``(B, num_costs)``.
        batch
            An [`OptDataset`][ldopt_torch.OptDataset] batch built with ``structure=True``.
        """
        _structured(batch, "tight", "CaVELoss", "'tight' normals")
        return self.layer(pred_costs, like(batch["tight"], pred_costs))


Margin = Literal["relative", "absolute"]  # LAVALoss's margin: times the costs' mean magnitude, or as given


class LAVALoss(Loss):
    """LAVA: ``mean_i Σ_j max(s ĉ·t_ij, −ε)`` over the nonzero adjacent steps ``t_ij``.

    The margin ``ε`` is ``epsilon`` times the batch's mean true cost magnitude
    (``margin="relative"``, the default: the same hinge whatever the costs' scale) or ``epsilon``
    itself (``margin="absolute"``). A margin far below the costs' scale stops pushing once the
    adjacent vertices look barely worse (measured in ``docs/results.md``, "LAVA's margin").

    Parameters
    ----------
    problem
        A linear problem.
    epsilon
        The margin ``ε``.
    margin
        ``"relative"`` (``ε`` times the costs' mean magnitude) or ``"absolute"`` (``ε`` as given).
    """

    def __init__(self, problem: Problem, epsilon: float = 1.0, margin: Margin = "relative") -> None:
        super().__init__()
        check_linear(problem, "LAVA")
        if not epsilon >= 0:
            raise InputError(f"epsilon: expected a margin >= 0, got {epsilon}")
        self.sign = problem.sign
        self.epsilon = float(epsilon)
        self.margin = checks.choice("margin", margin, get_args(Margin))

    def forward(self, pred_costs: torch.Tensor, batch: OptBatch) -> torch.Tensor:
        """The mean LAVA loss of a batch.

        Parameters
        ----------
        pred_costs
            Predicted costs ``(B, num_costs)``.
        batch
            An [`OptDataset`][ldopt_torch.OptDataset] batch built with ``structure=True``.
        """
        _structured(batch, "steps", "LAVALoss", "adjacent-vertex 'steps'")
        steps = like(batch["steps"], pred_costs)
        gain = self.sign * pred_costs * steps  # how much better each adjacent vertex looks under ĉ
        scale = like(batch["costs"], pred_costs).abs().mean() if self.margin == "relative" else 1.0
        hinge = torch.clamp(gain, min=-self.epsilon * scale)
        return torch.where(steps != 0, hinge, torch.zeros_like(hinge)).sum(-1).mean()
