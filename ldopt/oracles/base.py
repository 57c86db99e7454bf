"""Exact structure-exploiting oracles for single-block subproblems ``max λ·x over one block``.

An oracle is built from a block's compiled form when its structure fits (:meth:`Oracle.fit`
returns ``None`` otherwise, with no error) and solves a whole batch of objectives at once.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from ..compile import CompiledModel


class Oracle(ABC):
    """Solves ``max λ_b · x`` over one block's feasible set for every row ``λ_b`` of a batch."""

    name: str = ""

    @classmethod
    @abstractmethod
    def fit(cls, block: CompiledModel) -> Oracle | None:
        """An oracle for ``block`` if its structure fits, else ``None``."""

    @abstractmethod
    def solve(self, lam: np.ndarray) -> np.ndarray:
        """Optimal ``x`` of shape ``(B, n)`` for objectives ``lam`` of shape ``(B, n)``."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
