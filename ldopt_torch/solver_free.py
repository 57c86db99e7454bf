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

import numpy as np
import torch
from torch import nn

from ldopt import Problem, checks
from ldopt.errors import InputError

from .batches import OptBatch
from .predictions import like

_TOL = 1e-6


def _check_linear(problem: Problem, what: str) -> np.ndarray:
    cm = problem.compiled
    if any(r.is_quadratic for r in cm.rows):
        raise InputError(f"{what} is defined for linear programs; this problem has a quadratic row")
    if not cm.identity_costs:
        raise InputError(f"{what} needs objective coefficients equal to the costs (q(c) = c)")
    return cm.linear_matrix().toarray()


def tight_normals(problem: Problem, x: np.ndarray, tol: float = _TOL) -> list[np.ndarray]:
    """Per instance, the outward normals of the constraints binding at ``x`` (``<=`` orientation):
    rows at their upper side ``a``, at their lower side ``-a`` (equalities both), variables at
    their upper bound ``e_j`` and at their lower bound ``-e_j``."""
    A = _check_linear(problem, "CaVE")
    cm = problem.compiled
    lo = np.array([r.lo for r in cm.rows])
    hi = np.array([r.hi for r in cm.rows])
    n = cm.num_vars
    eye = np.eye(n)
    out = []
    for xi in np.atleast_2d(x):
        ax = A @ xi
        parts = [
            A[np.abs(ax - hi) <= tol],
            -A[np.abs(ax - lo) <= tol],
            eye[np.abs(xi - cm.var_ub) <= tol],
            -eye[np.abs(xi - cm.var_lb) <= tol],
        ]
        out.append(np.vstack(parts))
    return out


def pad(normals: list[np.ndarray]) -> np.ndarray:
    """Ragged ``(rows_i, n)`` matrices zero-padded into ``(N, max_rows, n)``."""
    rows = max((len(t) for t in normals), default=0)
    n = normals[0].shape[1] if normals else 0
    out = np.zeros((len(normals), max(rows, 1), n))
    for i, t in enumerate(normals):
        out[i, : len(t)] = t
    return out


def adjacent_steps(problem: Problem, x: np.ndarray, tol: float = _TOL) -> np.ndarray:
    """``(N, n)``: the signed step ``z_adj − z*`` along coordinate ``j`` of each adjacent vertex."""
    A = _check_linear(problem, "LAVA")
    cm = problem.compiled
    lo = np.array([r.lo for r in cm.rows])
    hi = np.array([r.hi for r in cm.rows])
    X = np.atleast_2d(x)
    at_lb = np.abs(X - cm.var_lb) <= tol
    at_ub = np.abs(X - cm.var_ub) <= tol
    if not (at_lb | at_ub).all():
        i, j = np.argwhere(~(at_lb | at_ub))[0]
        raise InputError(
            f"LAVA: expected every variable at a bound at the optimum, got x[{j}] = {X[i, j]} "
            f"in instance {i}; LAVA's slack basis needs a vertex of the box"
        )
    direction = np.where(at_lb, 1.0, -1.0)
    room = np.where(at_lb, cm.var_ub - X, X - cm.var_lb)
    steps = np.empty_like(X)
    for i, xi in enumerate(X):
        ax = A @ xi
        up, down = np.maximum(hi - ax, 0.0), np.maximum(ax - lo, 0.0)  # slack to each side
        move = A * direction[i][None, :]  # (m, n): change of a·x per unit step of x_j
        with np.errstate(divide="ignore", invalid="ignore"):
            limit = np.where(move > tol, up[:, None] / move, np.where(move < -tol, down[:, None] / -move, np.inf))
        t = np.minimum(room[i], limit.min(axis=0, initial=np.inf))
        steps[i] = direction[i] * np.where(np.isfinite(t), t, 0.0)
    return steps


def _structured(batch: OptBatch, key: str, loss: str, what: str) -> None:
    """Refuse a batch without ``key`` (``OptDataset`` built without ``structure=True``)."""
    if key not in batch:
        raise InputError(
            f"{loss}: expected batches with {what}, got none; build the data with lt.OptDataset(..., structure=True)"
        )


class CaVELoss(nn.Module):
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

        from .pyepo_adapter import PyEPOModel  # noqa: PLC0415

        _check_linear(problem, "CaVE")
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


class LAVALoss(nn.Module):
    """LAVA: ``mean_i Σ_j max(s ĉ·t_ij, −ε)`` over the nonzero adjacent steps ``t_ij``.

    The margin ``ε`` is ``epsilon`` times the batch's mean true cost magnitude
    (``margin="relative"``, the default: the same hinge whatever the costs' scale) or ``epsilon``
    itself (``margin="absolute"``; 0.1 was the default before). Measured on the MKP (n = 100,
    seed 0, costs of mean magnitude 5.3; test regret on 300 test instances): an absolute ε of 0.01
    / 0.1 / 1 / 3 / 10 / 30 gives 10.65 / 8.65 / 5.79 / 4.69 / 4.68 / 5.32%, a relative one of
    0.5 / 1 / 2 gives 4.89 / 4.92 / 5.20%. A margin far below the costs' scale stops pushing once
    the adjacent vertices look barely worse. (Each instance's own mean magnitude as the scale
    gave 5.33%: the MKP's degree-8 costs vary widely between instances.)

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
        _check_linear(problem, "LAVA")
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
