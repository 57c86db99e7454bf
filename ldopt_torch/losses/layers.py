"""Differentiable layers over an argopt map: SPO+, implicit MLE, the perturbed Fenchel–Young loss,
and the exact closed form of a linear objective over one convex quadratic row.

The SPO+, I-MLE and Fenchel–Young functions follow ``pyepo.func.SPOPlus``,
``pyepo.func.implicitMLE`` and ``pyepo.func.perturbedFenchelYoung`` exactly (values and gradients,
for both senses; tested against them), but call any argopt map — an LD main subproblem or the full
problem — in a batch.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
import torch

from ldopt_torch.losses.noise import _DEFAULT_NOISE, Gaussian

_EPS = 1e-8  # finite-difference guard, as PyEPO


class Argopt(Protocol):
    """An argopt map: optimal solutions ``(..., n)`` for objectives ``(..., n)``, in its own sense."""

    minimize: bool

    def __call__(self, w: torch.Tensor) -> torch.Tensor: ...


def _masked(argopt: Argopt, noise: torch.Tensor) -> torch.Tensor:
    """``noise`` restricted to the variables the costs move, where the argopt map says which (a
    block's: [`BlockArgopt.mask`][ldopt_torch.losses.argopt.BlockArgopt.mask]); unchanged otherwise."""
    mask = getattr(argopt, "mask", None)
    return noise if mask is None else mask(noise)


class _SPOPlus(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any,
        pred: torch.Tensor,
        true_cost: torch.Tensor,
        true_sol: torch.Tensor,
        true_obj: torch.Tensor,
        argopt: Argopt,
    ) -> torch.Tensor:
        s = -1.0 if argopt.minimize else 1.0
        w = (2 * pred - true_cost).detach()
        xq = argopt(w)
        loss = s * ((w * xq).sum(-1) - 2 * (pred.detach() * true_sol).sum(-1) + true_obj)
        ctx.save_for_backward(true_sol, xq)
        ctx.s = s
        return loss

    @staticmethod
    def backward(ctx: Any, grad_out: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        w, xq = ctx.saved_tensors
        return grad_out.unsqueeze(-1) * (2 * ctx.s * (xq - w)), None, None, None, None


def spo_plus(
    pred: torch.Tensor, true_cost: torch.Tensor, true_sol: torch.Tensor, true_obj: torch.Tensor, argopt: Argopt
) -> torch.Tensor:
    """Per-instance SPO+ loss ``(B,)`` of predicted objective ``pred`` against ``true_cost``.

    ``true_sol`` is optimal for ``true_cost`` and ``true_obj = true_cost·true_sol``; the
    subgradient is ``2(x*(2ĉ−c) − w)`` for a maximisation and ``2(w − x*(2ĉ−c))`` for a min.

    Parameters
    ----------
    pred
        Predicted objectives ``(B, n)``.
    true_cost
        True objectives ``(B, n)``.
    true_sol
        Their optimal solutions ``(B, n)``.
    true_obj
        ``true_cost · true_sol`` ``(B,)``.
    argopt
        The argopt map (its ``minimize`` gives the sense).
    """
    return _SPOPlus.apply(pred, true_cost, true_sol, true_obj, argopt)


class _IMLE(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any,
        pred: torch.Tensor,
        argopt: Argopt,
        n_samples: int,
        sigma: float,
        lambd: float,
        distribution: Any,
        two_sides: bool,
    ) -> torch.Tensor:
        cp = pred.detach()
        noise = distribution.sample((cp.shape[0], n_samples, cp.shape[1]), device=cp.device, dtype=cp.dtype)
        if isinstance(noise, np.ndarray):
            noise = torch.as_tensor(noise, dtype=cp.dtype, device=cp.device)
        ptb = cp.unsqueeze(1) + sigma * _masked(argopt, noise)
        sols = argopt(ptb)
        ctx.ptb, ctx.sols, ctx.argopt = ptb, sols, argopt
        ctx.lambd, ctx.two_sides = lambd, two_sides
        return sols.mean(1)

    @staticmethod
    def backward(ctx: Any, grad_out: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        delta = ctx.lambd * grad_out.detach().unsqueeze(1)
        if ctx.two_sides:
            n = ctx.ptb.shape[1]
            both = ctx.argopt(torch.cat([ctx.ptb + delta, ctx.ptb - delta], dim=1))
            grad = (both[:, :n] - both[:, n:]).mean(1) / (2 * ctx.lambd + _EPS)
        else:
            sign = 1.0 if ctx.argopt.minimize else -1.0  # the informative direction flips for max
            shifted = ctx.argopt(ctx.ptb + sign * delta)
            grad = sign * (shifted - ctx.sols).mean(1) / (ctx.lambd + _EPS)
        return grad, None, None, None, None, None, None


def imle(
    pred: torch.Tensor,
    argopt: Argopt,
    n_samples: int = 1,
    sigma: float = 1.0,
    lambd: float = 10.0,
    distribution: Any = None,
    two_sides: bool = False,
) -> torch.Tensor:
    """Perturb-and-MAP solutions ``(B, n)`` with I-MLE gradients (defaults: the paper's settings).

    Without ``distribution`` the noise is sum-of-gamma (κ 5) drawn afresh on every call from
    torch's global generator.

    Parameters
    ----------
    pred
        Predicted objectives ``(B, n)``.
    argopt
        The argopt map (its ``minimize`` gives the sense).
    n_samples
        Perturbation samples per instance.
    sigma
        The noise scale.
    lambd
        The interpolation step ``λ``.
    distribution
        A noise stream; ``None``: sum-of-gamma (κ 5) from torch's global generator.
    two_sides
        The two-sided (central) difference.
    """
    distribution = distribution or _DEFAULT_NOISE
    return _IMLE.apply(pred, argopt, int(n_samples), float(sigma), float(lambd), distribution, bool(two_sides))


class _FenchelYoung(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any, pred: torch.Tensor, true_sol: torch.Tensor, argopt: Argopt, n_samples: int, sigma: float, noise: Any
    ) -> torch.Tensor:
        cp = pred.detach()
        z = noise.sample((cp.shape[0], n_samples, cp.shape[1]), dtype=cp.dtype).to(cp)
        ptb = cp.unsqueeze(1) + sigma * _masked(argopt, z)
        sols = argopt(ptb)
        s = -1.0 if argopt.minimize else 1.0
        ctx.save_for_backward(s * (sols.mean(1) - true_sol.detach()))
        return s * ((ptb * sols).sum(-1).mean(1) - (cp * true_sol.detach()).sum(-1))

    @staticmethod
    def backward(ctx: Any, grad_out: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        (grad,) = ctx.saved_tensors
        return grad_out.unsqueeze(-1) * grad, None, None, None, None, None


def fenchel_young(
    pred: torch.Tensor,
    true_sol: torch.Tensor,
    argopt: Argopt,
    n_samples: int = 10,
    sigma: float = 1.0,
    noise: Any = None,
) -> torch.Tensor:
    """Per-instance perturbed Fenchel–Young loss ``(B,)`` (Berthet et al., 2020) of ``pred`` against
    the decision ``true_sol``: ``s (E[(ĉ+σZ)·x*(ĉ+σZ)] − ĉ·x)`` with ``n_samples`` Gaussian draws
    (``noise``: any ``sample(shape, dtype=)`` stream; ``None``: torch's global generator). Its
    gradient is ``s (E[x*(ĉ+σZ)] − x)``; ``s = −1`` for a minimisation.

    Parameters
    ----------
    pred
        Predicted objectives ``(B, n)``.
    true_sol
        Target decisions ``(B, n)``.
    argopt
        The argopt map (its ``minimize`` gives the sense).
    n_samples
        Gaussian samples per instance.
    sigma
        The noise scale.
    noise
        A noise stream (``sample(shape, dtype=)``); ``None``: torch's global generator.
    """
    noise = noise or Gaussian()
    return _FenchelYoung.apply(pred, true_sol, argopt, int(n_samples), float(sigma), noise)


class QuadraticClosedForm(torch.nn.Module):
    """``x̄(w) = argopt {w·x : x'Px + a·x ≤ h}`` in closed form (bounds dropped; Appendix B).

    With ``x0 = −P⁻¹a/2`` and ``h' = h + a'P⁻¹a/4``: ``x̄ = x0 + sqrt(h' / v'P⁻¹v) P⁻¹v``, ``v = ±w``
    (``+`` for max). Differentiable by autograd through a Cholesky solve; ``v'P⁻¹v`` is guarded
    away from 0.

    Parameters
    ----------
    P
        The row's positive definite matrix ``(n, n)``.
    a
        The row's linear term ``(n,)``.
    h
        The row's right-hand side.
    minimize
        The argmin instead of the argmax.
    """

    def __init__(self, P: np.ndarray, a: np.ndarray, h: float, minimize: bool = False) -> None:
        super().__init__()
        L = np.linalg.cholesky(np.asarray(P, dtype=float))
        x0 = -0.5 * np.linalg.solve(P, a)
        hh = float(h) + 0.25 * float(a @ np.linalg.solve(P, a))
        if not hh > 0:
            raise ValueError(f"quadratic row: expected a nonempty interior (h' > 0), got h' = {hh}")
        self.L: torch.Tensor
        self.x0: torch.Tensor
        self.register_buffer("L", torch.as_tensor(L))
        self.register_buffer("x0", torch.as_tensor(x0))
        self.h = hh
        self.sign = -1.0 if minimize else 1.0

    def forward(self, w: torch.Tensor) -> torch.Tensor:
        """The closed-form optimum ``x̄(w)`` ``(..., n)``, differentiable in ``w``.

        Parameters
        ----------
        w
            Objectives ``(..., n)``.
        """
        L = self.L.to(device=w.device, dtype=w.dtype)
        v = self.sign * w
        y = torch.cholesky_solve(v.unsqueeze(-1), L).squeeze(-1)  # P⁻¹v
        quad = (v * y).sum(-1, keepdim=True).clamp_min(1e-12)
        return self.x0.to(device=w.device, dtype=w.dtype) + torch.sqrt(self.h / quad) * y
