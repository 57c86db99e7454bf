"""Exact structure-exploiting oracles for single-block subproblems ``max λ·x over one block``.

An oracle is built from a block's compiled form when its structure fits ([`Oracle.fit()`][ldopt.oracles.base.Oracle.fit]
returns ``None`` otherwise, with no error) and solves a whole batch of objectives at once. An
oracle that can meet instances it does not finish (a state limit, a bound that binds) hands them
to its ``fallback``, which the block sets to a registry solver.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import fields, is_dataclass

import numpy as np

from ldopt.errors import SolverError
from ldopt.model.compiled import CompiledModel
from ldopt.runtime.cache import digest


class Oracle(ABC):
    """Solves ``max λ_b · x`` over one block's feasible set for every row ``λ_b`` of a batch."""

    name: str = ""
    relaxation: bool = False  # solves a superset of the block (`decomposition.user_oracles`): bounds only
    verified: bool = False  # a user's oracle checked by its author: no first-use spot check (`user_oracles`)
    fallback_solver: str = "auto"  # the registry solver the block falls back to
    fallback: Callable[[np.ndarray], np.ndarray] | None = None
    fallback_count: int = 0

    @classmethod
    def fit(cls, block: CompiledModel) -> Oracle | None:
        """An oracle for ``block`` if its structure fits, else ``None`` (the default: an oracle a
        user gives ``decompose(..., oracles=)`` is built by the user, not fitted).

        Parameters
        ----------
        block
            A block's compiled subproblem.
        """
        return None

    @abstractmethod
    def argmax(self, lam: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Optimal ``x`` ``(B, n)`` for objectives ``lam`` ``(B, n)`` (any strides); written into
        ``out`` when given (then returned).

        Parameters
        ----------
        lam
            Objectives ``(B, n)`` (max form).
        out
            An array ``(B, n)`` to write into, or ``None``.
        """

    def argmax_on(self, lam: np.ndarray, support: np.ndarray) -> np.ndarray | None:
        """Optimal ``x`` on the block's ``support`` ``(B, s)`` for objectives given there
        ``(B, s)`` (zero elsewhere), or ``None`` where the oracle only solves whole vectors
        (then the block solves a dense objective).

        Parameters
        ----------
        lam
            Objectives on the support ``(B, s)`` (max form).
        support
            The variables the block's rows touch, sorted.
        """
        return None

    def describe(self) -> str:
        """What the oracle solves and how, in a few words."""
        return self.name

    def key(self) -> str:
        """What identifies the oracle in cache keys: its class, whether it is a relaxation, and a
        digest of its parameters (a dataclass's fields, else its public attributes; a nested
        oracle by its own key), so that oracles of one class with other parameters never share
        cached multipliers. Override it where those attributes do not say what the oracle solves."""
        if is_dataclass(self):
            params = {f.name: getattr(self, f.name) for f in fields(self)}
        else:
            params = {k: v for k, v in getattr(self, "__dict__", {}).items() if not k.startswith("_")}
        skip = ("fallback", "fallback_count", "fallback_solver", "verified")
        params = {k: v.key() if isinstance(v, Oracle) else v for k, v in params.items() if k not in skip}
        kind = f"{type(self).__module__}.{type(self).__qualname__}" + (":relaxation" if self.relaxation else "")
        return f"{kind}:{digest(params)[:16]}"

    def run_fallback(self, lam: np.ndarray) -> np.ndarray:
        """Solve ``lam`` with the fallback solver, or raise if none is set.

        Parameters
        ----------
        lam
            The objectives ``(b, n)`` the oracle did not finish.
        """
        if self.fallback is None:
            raise SolverError(
                f"{self.name} oracle: {len(lam)} instance(s) need a fallback solver and none is set; "
                "use the oracle through a decomposition block (dec.block(k).solver())"
            )
        return self.fallback(lam)

    def finish(self, lam: np.ndarray, x: np.ndarray, bad: np.ndarray, out: np.ndarray | None) -> np.ndarray:
        """``x`` with the instances flagged ``bad`` re-solved by the fallback, written into ``out``
        when given (then returned).

        Parameters
        ----------
        lam
            The batch's objectives ``(B, n)``.
        x
            The oracle's solutions ``(B, n)``.
        bad
            The instances it did not finish ``(B,)``.
        out
            An array ``(B, n)`` to write into, or ``None``.
        """
        if bad.any():
            self.fallback_count += int(bad.sum())
            x[bad] = self.run_fallback(lam[bad])
        if out is not None:
            out[...] = x
            return out
        return x

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
