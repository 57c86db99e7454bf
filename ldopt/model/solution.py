"""The result of solving a batch of instances."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ldopt.errors import InputError
from ldopt.solvers.base import HAS_SOLUTION


@dataclass
class Solution:
    """Solutions of ``B`` instances; rows without a solution are NaN (see ``status``).

    ``objective`` is ``f(x, c)`` recomputed from ``x``; ``bound`` is the solver's bound on the
    optimum in the user's sense (upper for max, lower for min); ``time`` is seconds per instance.

    Parameters
    ----------
    x
        Solutions ``(B, num_vars)``; NaN rows where there is none.
    objective
        ``f(x, c)`` per instance, recomputed from ``x``.
    bound
        The solver's bound on the optimum (user's sense).
    status
        Each instance's status (see [`Status`][ldopt.Status]).
    time
        Seconds per instance.
    solver
        The solver that answered.
    messages
        The solver's message per instance (empty when optimal).
    """

    x: np.ndarray  # (B, num_vars)
    objective: np.ndarray  # (B,)
    bound: np.ndarray  # (B,)
    status: np.ndarray  # (B,) of str
    time: np.ndarray  # (B,)
    solver: str
    messages: list[str]

    @property
    def ok(self) -> np.ndarray:
        """Mask of the instances that have a solution (optimal or feasible)."""
        return np.isin(self.status, HAS_SOLUTION)

    @property
    def gap(self) -> np.ndarray:
        """Relative gap ``|bound - objective| / max(1, |objective|)`` per instance."""
        return np.abs(self.bound - self.objective) / np.maximum(1.0, np.abs(self.objective))

    def __len__(self) -> int:
        return len(self.objective)


def objectives(q: np.ndarray, X: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """``f(x, c) = q·x + offset`` per instance ``(B,)`` (NaN where ``X`` has no solution); an
    objective that overflows float64 is an ``InputError``.

    Parameters
    ----------
    q
        Objective coefficients ``(B, n)``.
    X
        Solutions ``(B, n)``, NaN rows where there is none.
    offset
        The constant part per instance ``(B,)``.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        obj = np.einsum("bi,bi->b", q, np.nan_to_num(X)) + offset
    obj[np.isnan(X).any(axis=1)] = np.nan
    overflow = np.flatnonzero(np.isinf(obj))
    if len(overflow):
        raise InputError(
            f"costs: the objective of instance {int(overflow[0])} overflows float64 ({obj[overflow[0]]}) at "
            "its solution; expected costs and variables on a scale the objective can hold: rescale them"
        )
    return obj
