"""Block principal pivoting over a support: the loop the quadratic oracles share.

Both quadratic oracles reduce to a linear complementarity problem in the assets held: on a support
``S`` a closed form gives the held values ``y_S``; the KKT conditions ask ``y_S >= 0`` and a
nonnegative reduced return off ``S``. Block principal pivoting (Júdice and Pires; Kim and Park's
back-up rule) exchanges every wrong index at once while the count of wrong indices falls, allows
three exchanges that do not make it fall, then flips only the last wrong index (Murty's rule, which
terminates) until the count falls again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import scipy.linalg as sla

PIVOTS = 50  # support changes before the method gives up (the caller then uses its slower method)
KKT_TOL = 1e-10  # a sign (of y_j held, of a reduced return not held) counts as wrong beyond this, relative
_CHANCES = 3  # full exchanges allowed that do not lower the count of wrong indices
# supports missing at most a third of n variables go through P⁻¹ from this n on (measured on the
# portfolio: 1.6x faster at n = 400 with about 60 of 400 left out; slower below n = 100, and where half are out)
_COMPLEMENT_MIN_N = 100


@dataclass(frozen=True)
class OnSupport:
    """The closed form on one support: held values, every variable's reduced return, and how far
    below 0 a reduced return may go before its variable must enter."""

    y: np.ndarray  # values on the support, in its order
    reduced: np.ndarray  # (n,): >= 0 off the support at the optimum
    enter_tol: float


S = TypeVar("S", bound=OnSupport)


def principal_pivoting(held: np.ndarray, solve: Callable[[np.ndarray], S | None]) -> tuple[np.ndarray, S] | None:
    """``(idx, solve(idx))`` for the support ``idx`` where the KKT signs hold, starting from the
    mask ``held`` (changed in place); ``None`` where ``solve`` finds no point or the support does not
    settle within ``PIVOTS`` changes."""
    best, chances = len(held) + 1, _CHANCES
    for _ in range(PIVOTS):
        idx = np.flatnonzero(held)
        if len(idx) == 0:
            return None
        found = solve(idx)
        if found is None:
            return None
        leave = idx[found.y < -KKT_TOL * float(np.max(np.abs(found.y)))]
        enter = np.flatnonzero(~held & (found.reduced < -found.enter_tol))
        wrong = len(leave) + len(enter)
        if wrong == 0:
            return idx, found
        if wrong < best or chances > 0:  # full exchange while it helps, or within the back-up's chances
            chances = _CHANCES if wrong < best else chances - 1
            best = min(best, wrong)
            held[leave], held[enter] = False, True
        else:  # Murty's back-up rule: the last wrong index alone
            j = int(max(leave.max(initial=-1), enter.max(initial=-1)))
            held[j] = not held[j]
    return None


class SupportSolver:
    """Solves ``P_SS y = b`` on supports ``S`` of one positive definite ``P`` (Cholesky factor ``L``).

    The whole support uses ``L``. A support missing ``k`` variables (the set ``R``) where ``k`` is
    at most ``|S|/2`` is solved through ``P⁻¹`` (built once) instead of a new factorisation: with
    ``b`` extended by ``t`` on ``R`` so that ``w = P⁻¹(b, t)`` vanishes on ``R``,
    ``t = −(P⁻¹)_RR⁻¹ (P⁻¹)_RS b`` (a ``k × k`` solve) and ``y = w_S`` — about ``n²`` operations
    against ``|S|³/3``. Its residual is checked, and a support where it is not small (``P`` badly
    conditioned) is factorised after all.
    """

    def __init__(self, P: np.ndarray, L: np.ndarray) -> None:
        self.P, self.L = P, L
        self._Pinv: np.ndarray | None = None
        self.use_inverse = True  # False: factorise every support (the baseline of bench_oracles)
        self.factorisations = 0  # of a support's block (a diagnostic)
        self.complements = 0  # supports solved through P⁻¹

    @property
    def Pinv(self) -> np.ndarray:
        """``P⁻¹``, from ``L`` on first use."""
        if self._Pinv is None:
            self._Pinv = sla.cho_solve((self.L, True), np.eye(len(self.L)), check_finite=False)
        return self._Pinv

    def solve(self, idx: np.ndarray, rhs: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """``(Y, PY)``: ``Y = P_SS⁻¹ rhs`` on the support ``idx`` (``rhs``: ``(|S|, c)``) and
        ``PY = P[:, S] Y`` ``(n, c)``; ``None`` if ``P_SS`` is not numerically positive definite."""
        n, size = len(self.P), len(idx)
        if size == n:
            Y = sla.cho_solve((self.L, True), rhs, check_finite=False)
            return Y, self.P @ Y
        if self.use_inverse and n >= _COMPLEMENT_MIN_N and 2 * (n - size) <= size:
            out = self._through_inverse(idx, rhs)
            if out is not None:
                return out
        self.factorisations += 1
        try:
            factor = sla.cho_factor(self.P[np.ix_(idx, idx)], lower=True, check_finite=False)
        except np.linalg.LinAlgError:
            return None
        Y = sla.cho_solve(factor, rhs, check_finite=False)
        return Y, self.P[idx].T @ Y

    def _through_inverse(self, idx: np.ndarray, rhs: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        n = len(self.P)
        rest = np.ones(n, dtype=bool)
        rest[idx] = False
        out_idx = np.flatnonzero(rest)
        b = np.zeros((n, rhs.shape[1]))
        b[idx] = rhs
        w = self.Pinv @ b
        try:
            factor = sla.cho_factor(self.Pinv[np.ix_(out_idx, out_idx)], lower=True, check_finite=False)
        except np.linalg.LinAlgError:
            return None
        t = sla.cho_solve(factor, -w[out_idx], check_finite=False)
        Y = (w + self.Pinv[:, out_idx] @ t)[idx]
        PY = self.P[idx].T @ Y
        scale = float(np.abs(self.P).max()) * float(np.abs(Y).sum(axis=0).max()) + float(np.abs(rhs).max())
        if float(np.abs(PY[idx] - rhs).max()) > 1e-11 * scale:
            return None
        self.complements += 1
        return Y, PY
