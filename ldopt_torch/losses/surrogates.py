"""Surrogates: how [`LDLoss`][ldopt_torch.LDLoss] makes a main subproblem's regret differentiable.

A surrogate is one class: a subclass of [`Surrogate`][ldopt_torch.losses.surrogates.Surrogate] with a
``name`` registers itself, so ``LDLoss(dec, "name")`` and the harness's ``ld:name:…`` methods find
it (``docs/extending.md`` adds one). It is called per group of instances that share a main block
with

* ``w`` — the main objective under the prediction, ``λ_d + q(ĉ) − q(c)`` ``(B, n)``;
* ``lam`` — the true main objective ``λ_d``, and ``xd`` its optimal solution;
* ``target`` — the prices of the regret: ``λ_d`` (L1) or ``q(c)`` (L2);

and returns one loss per instance ``(B,)``, differentiable in ``w``. ``main`` gives the main block's
argopt map in the user's sense and the sense's sign ``s`` (``+1`` max, ``−1`` min).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import torch

from ldopt import Decomposition, checks
from ldopt.errors import InputError
from ldopt_torch.losses.argopt import BlockArgopt
from ldopt_torch.losses.layers import QuadraticClosedForm, fenchel_young, imle, spo_plus
from ldopt_torch.losses.noise import Gaussian, SumOfGamma

SURROGATES: dict[str, type[Surrogate]] = {}  # name → class, filled as subclasses are defined
"""Every registered surrogate by name (a subclass with a ``name`` adds itself)."""


@dataclass(frozen=True)
class MainBlock:
    """What a surrogate sees of main block ``d``: its argopt map in the user's sense and the sign."""

    dec: Decomposition
    d: int
    argopt: BlockArgopt
    sign: float


class Surrogate(ABC):
    """A differentiable surrogate of the main subproblem's regret (see the module docstring).

    Subclasses set ``name`` (the registry's key, e.g. ``"spo+"``) and ``label`` (for tables) and
    implement ``__call__``; ``fits`` says which main blocks they apply to (default: every block);
    ``reseed`` restarts any noise from [`fit()`][ldopt_torch.fit]'s seed.
    """

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if isinstance(cls.name, str) and not cls.name:
            return
        if not isinstance(cls.name, str) or any(ch in cls.name for ch in ":, ") or not cls.name.isprintable():
            raise InputError(
                f"surrogate {cls.__qualname__}: expected a name of letters, digits and signs such as '+' or '-' "
                f"(no ':', ',' or space: the harness's methods read 'ld:name:...'), got {cls.name!r}"
            )
        known = SURROGATES.get(cls.name)
        if known is not None and known.__qualname__ != cls.__qualname__:
            raise InputError(f"surrogate name {cls.name!r}: expected a new name, got one of {known.__qualname__}")
        SURROGATES[cls.name] = cls

    def fits(self, dec: Decomposition, d: int) -> bool:
        """Whether this surrogate applies with block ``d`` of ``dec`` as the main block.

        Parameters
        ----------
        dec
            The decomposition.
        d
            A block index.
        """
        return True

    def reseed(self, seed: int) -> None:
        """Restart the surrogate's noise from ``seed``: every attribute with a ``reseed`` method
        (a noise stream; none by default).

        Parameters
        ----------
        seed
            The noise stream's seed.
        """
        for value in vars(self).values():
            if callable(getattr(value, "reseed", None)):
                value.reseed(seed)

    @abstractmethod
    def __call__(
        self, main: MainBlock, w: torch.Tensor, lam: torch.Tensor, xd: torch.Tensor, target: torch.Tensor
    ) -> torch.Tensor:
        """The per-instance loss ``(B,)`` (see the module docstring)."""

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({opts})"


def regret(main: MainBlock, x: torch.Tensor, xd: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """``s (target·x_d − target·x)``: the regret of decision ``x`` priced by ``target`` ``(B,)``."""
    return main.sign * ((target * xd).sum(-1) - (target * x).sum(-1))


class SPOPlus(Surrogate):
    """The SPO+ surrogate with target cost ``target`` and target decision ``x_d`` (the paper's)."""

    name, label = "spo+", "SPO+"

    def __call__(
        self, main: MainBlock, w: torch.Tensor, lam: torch.Tensor, xd: torch.Tensor, target: torch.Tensor
    ) -> torch.Tensor:
        return spo_plus(w, target, xd, (target * xd).sum(-1), main.argopt)


class IMLE(Surrogate):
    """Implicit MLE: the regret of the perturbed decision, differentiated by I-MLE.

    Parameters
    ----------
    n_samples
        Perturbation samples per instance.
    sigma
        The noise scale.
    lambd
        The interpolation step ``λ``: 100 by default, chosen on the zoo and the families
        (``docs/results.md``, "I-MLE's settings"); ``lt.PAPER.imle()`` is the reference's (10).
    distribution
        The noise law (any ``sample(shape, device=, dtype=)`` stream); ``None``: sum-of-gamma with
        ``κ = 5``, re-seeded by ``fit``.
    two_sides
        The two-sided (central) difference instead of the one-sided one.
    """

    name, label = "imle", "IMLE"

    def __init__(
        self,
        n_samples: int = 1,
        sigma: float = 1.0,
        lambd: float = 100.0,
        distribution: Any = None,
        two_sides: bool = False,
    ) -> None:
        self.n_samples = checks.positive_int("n_samples", n_samples)
        self.sigma = checks.positive("sigma", sigma)
        self.lambd = checks.positive("lambd", lambd)
        self.two_sides = checks.boolean("two_sides", two_sides)
        self.distribution = SumOfGamma(5.0, seed=0) if distribution is None else distribution

    def __call__(
        self, main: MainBlock, w: torch.Tensor, lam: torch.Tensor, xd: torch.Tensor, target: torch.Tensor
    ) -> torch.Tensor:
        x = imle(w, main.argopt, self.n_samples, self.sigma, self.lambd, self.distribution, self.two_sides)
        return regret(main, x, xd, target)


class FenchelYoung(Surrogate):
    """The perturbed Fenchel–Young loss against the main decision ``x_d`` (PyEPO's PFYL on the main
    block; the target prices are not used: it matches decisions, not their values).

    Parameters
    ----------
    n_samples
        Gaussian perturbation samples per instance.
    sigma
        The noise scale.
    noise
        The noise stream; ``None``: Gaussian, re-seeded by ``fit``.
    """

    name, label = "fy", "FY"

    def __init__(self, n_samples: int = 10, sigma: float = 1.0, noise: Any = None) -> None:
        self.n_samples = checks.positive_int("n_samples", n_samples)
        self.sigma = checks.positive("sigma", sigma)
        self.noise = Gaussian(seed=0) if noise is None else noise

    def __call__(
        self, main: MainBlock, w: torch.Tensor, lam: torch.Tensor, xd: torch.Tensor, target: torch.Tensor
    ) -> torch.Tensor:
        return fenchel_young(w, xd, main.argopt, self.n_samples, self.sigma, self.noise)


def quadratic_block(dec: Decomposition, d: int) -> bool:
    """Whether block ``d`` is one convex quadratic row with a positive definite matrix over
    continuous variables (where [`Exact`][ldopt_torch.losses.surrogates.Exact] fits)."""
    cm = dec.block(d).compiled
    if len(cm.rows) != 1 or not cm.rows[0].is_quadratic or (cm.var_type != "C").any():
        return False
    P = cm.rows[0].matrix
    return bool(np.linalg.eigvalsh(P)[0] > 1e-12 * max(1.0, float(np.abs(P).max())))


class Exact(Surrogate):
    """The regret through the closed form of a main block of one convex quadratic row over
    continuous variables (Appendix B), differentiated by autograd."""

    name, label = "exact", "Exact"

    def __init__(self) -> None:
        self._layers: dict[tuple[int, int], QuadraticClosedForm] = {}

    def fits(self, dec: Decomposition, d: int) -> bool:
        return quadratic_block(dec, d)

    def layer(self, dec: Decomposition, d: int) -> QuadraticClosedForm:
        """The (cached) closed-form layer of quadratic block ``d``.

        Parameters
        ----------
        dec
            The decomposition.
        d
            A quadratic block's index.
        """
        key = (id(dec), d)
        if key not in self._layers:
            cm = dec.block(d).compiled
            row = cm.rows[0]
            self._layers[key] = QuadraticClosedForm(
                row.matrix, row.dense(cm.num_vars), row.hi, minimize=dec.problem.sign < 0
            )
        return self._layers[key]

    def __call__(
        self, main: MainBlock, w: torch.Tensor, lam: torch.Tensor, xd: torch.Tensor, target: torch.Tensor
    ) -> torch.Tensor:
        layer = self.layer(main.dec, main.d)
        return regret(main, layer(w), layer(lam).detach(), target)


def make_surrogate(surrogate: Any) -> Surrogate:
    """A [`Surrogate`][ldopt_torch.losses.surrogates.Surrogate] from an instance or a registered name
    (with its defaults)."""
    if isinstance(surrogate, Surrogate):
        return surrogate
    if isinstance(surrogate, str) and surrogate in SURROGATES:
        return SURROGATES[surrogate]()
    raise InputError(f"surrogate: expected one of {sorted(SURROGATES)} or an lt.Surrogate, got {surrogate!r}")
