"""Exact oracles for single-block subproblems; :func:`fit_oracle` picks the first that fits."""

from __future__ import annotations

from ..compile import CompiledModel
from .base import Oracle
from .knapsack import KnapsackRowOracle
from .linear_row import LinearRowOracle
from .quadratic import QuadraticRowOracle

ORACLES: list[type[Oracle]] = [KnapsackRowOracle, LinearRowOracle, QuadraticRowOracle]


def fit_oracle(block: CompiledModel) -> Oracle | None:
    """The first oracle whose structure fits ``block``, or ``None``."""
    for cls in ORACLES:
        oracle = cls.fit(block)
        if oracle is not None:
            return oracle
    return None


__all__ = ["ORACLES", "KnapsackRowOracle", "LinearRowOracle", "Oracle", "QuadraticRowOracle", "fit_oracle"]
