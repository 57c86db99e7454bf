"""The baselines every LD method is compared with, through the same trainer:

* [`MSELoss`][ldopt_torch.losses.baselines.MSELoss] — two-stage: mean squared error of the predicted costs;
* [`FullLoss`][ldopt_torch.losses.baselines.FullLoss] — SPO+ or I-MLE on the full problem, through PyEPO's own losses;
* solver-free, over the true optima of a linear program: CaVE / CaVE+ and LAVA
  (`ldopt_torch.losses.solver_free`).
"""

from __future__ import annotations

import functools
from typing import Any, Literal

import torch
from torch import nn

from ldopt import Problem
from ldopt.errors import InputError
from ldopt_torch.data.batches import Batch, OptBatch
from ldopt_torch.data.predictions import check_finite, like
from ldopt_torch.losses.base import Loss
from ldopt_torch.losses.noise import SumOfGamma
from ldopt_torch.losses.surrogates import IMLE


class MSELoss(Loss):
    """Two-stage baseline: mean squared error of the predicted costs.

    Unlike ``torch.nn.MSELoss`` (called with predictions and targets), every ldopt loss is called
    as ``loss(pred_costs, batch)``; the target is ``batch["costs"]``.
    """

    def forward(self, pred_costs: torch.Tensor, batch: Batch) -> torch.Tensor:
        """The mean squared error of the predicted costs.

        Parameters
        ----------
        pred_costs
            Predicted costs ``(B, num_costs)``.
        batch
            Any batch (it reads ``costs``).
        """
        c = like(batch["costs"], pred_costs)
        if pred_costs.shape != c.shape:
            raise InputError(f"pred_costs: expected shape {tuple(c.shape)}, got {tuple(pred_costs.shape)}")
        check_finite(pred_costs, batch)
        return ((pred_costs - c) ** 2).mean()


class FullLoss(Loss):
    """SPO+ or I-MLE on the full problem through PyEPO's own losses and our optModel adapter.

    Needs batches with the true optimal ``solution`` and ``objective`` ([`OptDataset`][ldopt_torch.OptDataset]).
    ``time_limit`` (seconds per solve) lets large problems train on incumbents.

    Parameters
    ----------
    problem
        The problem.
    surrogate
        ``"spo+"`` (PyEPO's SPO+), ``"imle"`` (PyEPO's I-MLE with [`IMLE`][ldopt_torch.IMLE]'s
        defaults, as [`LDLoss`][ldopt_torch.LDLoss]'s) or an ``lt.IMLE(n_samples=, sigma=,
        lambd=, two_sides=, distribution=lt.SumOfGamma(kappa=, n_iterations=))`` (PyEPO draws the
        noise from that law; ``lt.PAPER.imle()`` is the reference's ``λ = 10``).
    solver
        The full problem's solver.
    processes
        PyEPO's solver processes.
    time_limit
        Seconds per solve, or ``None``.
    """

    def __init__(
        self,
        problem: Problem,
        surrogate: Literal["spo+", "imle"] | IMLE = "spo+",
        *,
        solver: str = "auto",
        processes: int = 1,
        time_limit: float | None = None,
    ) -> None:
        super().__init__()
        try:
            import pyepo.func  # noqa: PLC0415
        except ImportError as exc:  # pragma: no cover - pyepo is in the torch extra
            raise InputError("FullLoss needs PyEPO: pip install 'ldopt[torch]'") from exc
        from ldopt_torch.losses.pyepo_adapter import PyEPOModel  # noqa: PLC0415

        if surrogate == "imle":
            surrogate = IMLE()
        if not (surrogate == "spo+" or isinstance(surrogate, IMLE)):
            raise InputError(f"surrogate: expected 'spo+', 'imle' or an lt.IMLE, got {surrogate!r}")
        if isinstance(surrogate, IMLE) and not isinstance(surrogate.distribution, SumOfGamma):
            raise InputError(
                "surrogate: expected an lt.IMLE with sum-of-gamma noise (PyEPO draws its own from that law), got "
                f"{type(surrogate.distribution).__name__}"
            )
        imle = surrogate if isinstance(surrogate, IMLE) else None
        law = imle.distribution if imle is not None else SumOfGamma()
        self.problem, self.method = problem, "spo+" if imle is None else "imle"
        self.optmodel = PyEPOModel(problem, solver=solver, time_limit=time_limit)
        self.sign = problem.sign
        # I-MLE's sum-of-gamma law, with the lt.IMLE's κ and terms, re-seeded by fit
        self._noise = functools.partial(
            pyepo.func.utils.sumGammaDistribution, kappa=law.kappa, n_iterations=law.n_iterations
        )
        self.layer: nn.Module = (
            pyepo.func.SPOPlus(self.optmodel, processes=processes)
            if imle is None
            else pyepo.func.implicitMLE(
                self.optmodel,
                n_samples=imle.n_samples,
                sigma=imle.sigma,
                lambd=imle.lambd,
                distribution=self._noise(),
                two_sides=imle.two_sides,
                processes=processes,
            )
        )

    def reseed(self, seed: int) -> None:
        """Restart I-MLE's noise stream from ``seed``; [`fit()`][ldopt_torch.fit] calls it.

        Parameters
        ----------
        seed
            The noise stream's seed.
        """
        if self.method == "imle":
            layer: Any = self.layer  # PyEPO's implicitMLE draws from its ``distribution``
            layer.distribution = self._noise(seed=seed)

    def forward(self, pred_costs: torch.Tensor, batch: OptBatch) -> torch.Tensor:
        """The mean SPO+ or I-MLE loss of a batch on the full problem.

        Parameters
        ----------
        pred_costs
            Predicted costs ``(B, num_costs)``.
        batch
            An [`OptDataset`][ldopt_torch.OptDataset] batch.
        """
        if "solution" not in batch:
            raise InputError(
                "FullLoss: expected batches with the true 'solution' and 'objective' of the full "
                "problem, got none; build the training data with lt.OptDataset"
            )
        check_finite(pred_costs, batch)
        c, sol, obj = (like(batch[k], pred_costs) for k in ("costs", "solution", "objective"))
        sol = sol[:, torch.as_tensor(self.optmodel.selected, device=sol.device)]  # the costed variables
        if self.method == "spo+":
            return self.layer(pred_costs, c, sol, obj)
        xh = self.layer(pred_costs)
        return (self.sign * ((c * sol).sum(-1) - (c * xh).sum(-1))).mean()
