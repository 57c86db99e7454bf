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


def support_solve(P: np.ndarray, L: np.ndarray, idx: np.ndarray, rhs: np.ndarray) -> np.ndarray | None:
    """``P_SS⁻¹ rhs`` on the support ``idx`` (``rhs``: ``(|S|,)`` or ``(|S|, k)``), through ``P``'s
    own Cholesky factor ``L`` when ``S`` holds every variable; ``None`` if ``P_SS`` is not numerically
    positive definite."""
    if len(idx) == len(P):
        return sla.cho_solve((L, True), rhs, check_finite=False)
    try:
        factor = sla.cho_factor(P[np.ix_(idx, idx)], lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        return None
    return sla.cho_solve(factor, rhs, check_finite=False)
