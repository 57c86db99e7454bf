"""The paper's training losses L1/L2 on an LD main subproblem ([`LDLoss`][ldopt_torch.losses.ld.LDLoss]); the
baselines are in `ldopt_torch.losses.baselines`.

Every loss is ``forward(pred_costs, batch) -> scalar`` over a batch dictionary from
`ldopt_torch.data.dataset`, so one trainer runs them all.

Notation (user's sense ``s = +1`` for max, ``-1`` for min; ``q(c) = q0 + Qc``):
``λ_d`` is the main objective ``q(c) + Σ_{k≠d} μ_k`` stored per instance, ``x_d`` its main
solution, and a prediction ``ĉ`` gives the main objective ``w = λ_d + q(ĉ) − q(c)``. Then

* L1 = ``s (λ_d·x_d − λ_d·x_d*(w))`` — the regret of the main subproblem (≥ 0);
* L2 = ``s (q(c)·x_d − q(c)·x_d*(w))`` — the same decision priced by the true objective.

A [surrogate][ldopt_torch.losses.surrogates] makes them differentiable: ``"spo+"`` trains on the SPO+
surrogate of these (target cost ``λ_d`` for L1, ``q(c)`` for L2, target decision ``x_d``);
``"imle"`` and ``"exact"`` differentiate ``x_d*(w)`` and plug it into the formulas above; ``"fy"``
is the perturbed Fenchel–Young loss against ``x_d``.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import torch

from ldopt import Decomposition, checks
from ldopt.errors import InputError
from ldopt_torch.data.batches import LDBatch
from ldopt_torch.data.dataset import LDDataset
from ldopt_torch.data.predictions import Affine, like
from ldopt_torch.losses.argopt import BlockArgopt
from ldopt_torch.losses.base import Loss, Mode
from ldopt_torch.losses.layers import QuadraticClosedForm
from ldopt_torch.losses.surrogates import SURROGATES, Exact, MainBlock, Surrogate, make_surrogate, regret

LOSSES = ("L1", "L2")
SCALES = ("none", "costs", "unit")
Target = Literal["L1", "L2"]
Scale = Literal["none", "costs", "unit"]


def method_fits(dec: Decomposition, method: str | Surrogate, d: int) -> bool:
    """Whether surrogate ``method`` (a registered name or an instance) applies with block ``d`` as
    the main block (``"exact"``: one convex quadratic row with a positive definite matrix over
    continuous variables; the others: any block).

    Parameters
    ----------
    dec
        The decomposition.
    method
        A registered surrogate's name, or a surrogate.
    d
        A block index.
    """
    return make_surrogate(method).fits(dec, d)


class LDLoss(Loss):
    """The paper's LD losses on a decomposition's main block (see the module docstring).

    ``scale="costs"`` rescales each instance's main subproblem (``w`` and ``λ_d``, hence L1) by
    ``s = mean|q(c)| / mean|λ_d|``, ``scale="unit"`` by ``1 / mean|λ_d|``: the argmax is unchanged,
    but fixed-size perturbations (I-MLE's σ and λ) then act at that scale
    (``benchmarks/bench_imle_noise.py`` measures the three; the user guide says when to use them).

    Parameters
    ----------
    dec
        The decomposition whose main blocks it trains through (the dataset's).
    surrogate
        How the main subproblem's regret is differentiated: a registered name — ``"spo+"``,
        ``"imle"`` (1 sample, σ 1, λ 100, sum-of-gamma κ 5; ``lt.PAPER.imle()`` has the
        reference's λ 10), ``"fy"`` (perturbed Fenchel–Young), ``"exact"`` (the closed form of one
        convex quadratic row over continuous variables) — or a
        [`Surrogate`][ldopt_torch.losses.surrogates.Surrogate] with its own settings, e.g. ``lt.IMLE(sigma=2)``.
    target
        ``"L1"`` (the main subproblem's regret, priced by ``λ_d``) or ``"L2"`` (its decision priced
        by the true costs ``q(c)``). Fenchel–Young trains the same under either: it matches the
        main block's decisions, not their prices (the target prices only ``regret``).
    solver
        The main-block solver: ``"auto"`` (the block's exact oracle when one fits), or a solver name.
    scale
        ``"none"``, ``"costs"`` or ``"unit"``: how each instance's main subproblem is rescaled (above).
    """

    def __init__(
        self,
        dec: Decomposition,
        surrogate: str | Surrogate = "spo+",
        target: Target = "L1",
        *,
        solver: str = "auto",
        scale: Scale = "none",
    ) -> None:
        super().__init__()
        checks.instance("dec", dec, Decomposition, "an ldopt.Decomposition (ldopt.decompose(problem))")
        self.dec = dec
        self.surrogate = make_surrogate(surrogate)
        self.target = checks.choice("target", target, LOSSES)
        self.scale = checks.choice("scale", scale, SCALES)
        self.solver = checks.solver_name("solver", solver)
        self.sign = dec.problem.sign
        self.affine = Affine(dec.problem)
        self._argopt: dict[int, BlockArgopt] = {}
        self._exact = Exact()
        if not any(self.fits(d) for d in range(dec.num_blocks)):
            raise InputError(
                f"surrogate {self.method!r} fits no block of {dec!r}; it needs a block of one convex "
                "quadratic row over continuous variables; use 'spo+' or 'imle'"
            )

    @property
    def method(self) -> str:
        """The surrogate's registered name (``"spo+"``, ``"imle"``, ...)."""
        return self.surrogate.name or type(self.surrogate).__name__

    auto_warm_start = True

    def reseed(self, seed: int) -> None:
        """Restart the surrogate's noise (I-MLE, FY) from ``seed``; [`fit()`][ldopt_torch.fit] calls it.

        Parameters
        ----------
        seed
            The noise stream's seed.
        """
        self.surrogate.reseed(seed)

    def plan(self, data: LDDataset, mode: Mode, main: int | None) -> list[int | None]:
        """The main blocks ``fit`` trains through: static mode ``main``, or
        [`default_main()`][ldopt_torch.LDLoss.default_main] of the dataset's decompositions;
        multiple mode every decomposition of the dataset that the surrogate fits.

        Parameters
        ----------
        data
            An [`LDDataset`][ldopt_torch.LDDataset] of this loss's decomposition.
        mode
            ``"static"`` or ``"multiple"``.
        main
            The main block of static mode, or ``None``.
        """
        if not isinstance(data, LDDataset):
            raise InputError(f"data: expected an lt.LDDataset for an LDLoss, got {type(data).__name__}")
        if self.dec is not data.dec and self.dec.key != data.dec.key:
            raise InputError(
                f"loss and data: expected the same decomposition, got {self.dec!r} and {data.dec!r} "
                "(another problem or other blocks)"
            )
        fits: list[int] = [d for d in data.decompositions if self.fits(d)]
        if not fits:
            raise InputError(f"method {self.method!r} fits none of the dataset's decompositions {data.decompositions}")
        if mode == "multiple":
            return list(fits)
        if main is None:
            return [self.default_main(fits)]
        if (
            isinstance(main, (bool, np.bool_))
            or not isinstance(main, (int, np.integer))
            or main not in data.decompositions
        ):
            raise InputError(f"main: expected one of the dataset's decompositions {data.decompositions}, got {main!r}")
        self._check_fit(int(main))
        return [int(main)]

    def __repr__(self) -> str:
        extra = "" if self.scale == "none" else f", scale={self.scale!r}"
        return f"LDLoss(surrogate={self.surrogate!r}, target={self.target!r}{extra})"

    # which blocks the surrogate fits ------------------------------------------------------
    def fits(self, d: int) -> bool:
        """Whether the surrogate can be used with block ``d`` as the main block.

        Parameters
        ----------
        d
            A block index.
        """
        return self.surrogate.fits(self.dec, d)

    def methods_for(self, d: int) -> list[str]:
        """The registered surrogates that fit block ``d`` as the main block.

        Parameters
        ----------
        d
            A block index.
        """
        return [name for name in SURROGATES if method_fits(self.dec, name, d)]

    def default_main(self, candidates: list[int] | None = None) -> int:
        """The main block of static training when none is given (what [`fit()`][ldopt_torch.fit]
        uses): the first of ``candidates`` the surrogate fits, where every block it fits is of one
        kind (solved alike, e.g. the MKP's knapsack rows). Where they differ no choice is safe — a
        block whose decision ignores the prediction (the portfolio's budget row picks a vertex
        whatever the costs) trains nothing — and an ``InputError`` lists them.

        Parameters
        ----------
        candidates
            Block indices to choose from; ``None``: all.
        """
        cands = list(range(self.dec.num_blocks)) if candidates is None else list(candidates)
        fits = [int(d) for d in cands if self.fits(d)]
        if not fits:
            raise InputError(f"surrogate {self.method!r} fits none of the decompositions {cands}")
        kinds = {d: self.dec.block(d).solver(self.solver).name for d in fits}
        if len(set(kinds.values())) <= 1:
            return fits[0]
        shown = ", ".join(f"{d} ({self.dec.block(d).describe()}: {kinds[d]})" for d in fits[:6])
        raise InputError(
            f"main: static mode needs main= when the blocks differ; expected one of {shown}"
            f"{', …' if len(fits) > 6 else ''} — the block whose decision the prediction should drive"
        )

    def _check_fit(self, d: int) -> None:
        if not self.fits(d):
            raise InputError(
                f"surrogate {self.method!r} does not fit block {d} "
                f"({self.dec.block(d).describe()}); surrogates that fit it: {self.methods_for(d)}"
            )

    def argopt(self, d: int) -> BlockArgopt:
        """The (cached) argopt map of main block ``d`` in the user's sense.

        Parameters
        ----------
        d
            A main block.
        """
        if d not in self._argopt:
            self._argopt[d] = BlockArgopt(self.dec, d, self.solver)
        return self._argopt[d]

    def exact_layer(self, d: int) -> QuadraticClosedForm:
        """The (cached) closed-form layer of quadratic main block ``d``.

        Parameters
        ----------
        d
            A quadratic main block.
        """
        exact = self.surrogate if isinstance(self.surrogate, Exact) else self._exact
        if not exact.fits(self.dec, d):
            raise InputError(
                f"block {d}: expected one convex quadratic row over continuous variables, got "
                f"{self.dec.block(d).describe()}"
            )
        return exact.layer(self.dec, d)

    def main_block(self, d: int) -> MainBlock:
        """What the surrogate sees of main block ``d``.

        Parameters
        ----------
        d
            A main block.
        """
        return MainBlock(self.dec, d, self.argopt(d), self.sign)

    # the losses -----------------------------------------------------------------------------
    def _parts(self, pred: torch.Tensor, batch: LDBatch, scaled: bool = True) -> tuple[torch.Tensor, ...]:
        self.affine.check(pred, batch)
        if self.dec.cost_range is not None:  # the blocks' bounds hold for costs in the domain only
            self.dec.check_costs(pred.detach().cpu().numpy(), "pred_costs")
        c, lam, xd = (like(batch[k], pred) for k in ("costs", "main_objective", "main_solution"))
        w, qc = lam + self.affine.diff(pred - c), self.affine.q(c)
        if scaled and self.scale != "none":
            top = qc.abs().mean(-1) if self.scale == "costs" else torch.ones_like(lam[:, 0])
            s = (top / lam.abs().mean(-1).clamp_min(1e-12)).unsqueeze(-1)
            w, lam = w * s, lam * s
            if self.scale == "unit":  # the whole main subproblem, L2's prices too: only σ's scale changes
                qc = qc * s
        target = lam if self.target == "L1" else qc
        return w, lam, xd, target

    def _groups(self, batch: LDBatch) -> list[tuple[int, torch.Tensor | slice]]:
        d = batch["d"]
        if isinstance(d, (int, np.integer)):
            return [(int(d), slice(None))]
        d = torch.as_tensor(d)
        uniq = torch.unique(d)
        if len(uniq) == 1:
            return [(int(uniq[0]), slice(None))]
        return [(int(u), torch.nonzero(d == u).squeeze(1)) for u in uniq]

    def per_instance(self, pred_costs: torch.Tensor, batch: LDBatch) -> torch.Tensor:
        """The training loss of every instance: ``(B,)``.

        Parameters
        ----------
        pred_costs
            Predicted costs ``(B, num_costs)``.
        batch
            An [`LDDataset`][ldopt_torch.LDDataset] batch.
        """
        w, lam, xd, target = self._parts(pred_costs, batch)
        out = torch.empty(len(w), dtype=w.dtype, device=w.device)
        pieces = []
        for d, sel in self._groups(batch):
            self._check_fit(d)
            pieces.append((sel, self.surrogate(self.main_block(d), w[sel], lam[sel], xd[sel], target[sel])))
        if len(pieces) == 1:
            return pieces[0][1]
        index = torch.cat([torch.as_tensor(s) for s, _ in pieces]).to(w.device)  # several groups: index tensors
        return out.index_put((index,), torch.cat([v for _, v in pieces]))

    def forward(self, pred_costs: torch.Tensor, batch: LDBatch) -> torch.Tensor:
        """The mean training loss of a batch.

        Parameters
        ----------
        pred_costs
            Predicted costs ``(B, num_costs)``.
        batch
            An [`LDDataset`][ldopt_torch.LDDataset] batch.
        """
        return self.per_instance(pred_costs, batch).mean()

    @torch.no_grad()
    def regret(self, pred_costs: torch.Tensor, batch: LDBatch) -> torch.Tensor:
        """L1 or L2 evaluated exactly (true main-block argopt, no surrogate): ``(B,)``.

        Parameters
        ----------
        pred_costs
            Predicted costs ``(B, num_costs)``.
        batch
            An [`LDDataset`][ldopt_torch.LDDataset] batch.
        """
        w, _, xd, target = self._parts(pred_costs, batch, scaled=False)
        out = torch.empty(len(w), dtype=w.dtype, device=w.device)
        for d, sel in self._groups(batch):
            out[sel] = regret(self.main_block(d), self.argopt(d)(w[sel]), xd[sel], target[sel])
        return out
