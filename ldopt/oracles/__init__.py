"""Exact oracles for single-block subproblems; [`fit_oracle()`][ldopt.oracles.fit_oracle] picks the first that fits."""

from __future__ import annotations

from ..compiled import CompiledModel
from .base import Oracle
from .budget_quadratic import BudgetQuadraticOracle
from .knapsack import KnapsackRowOracle
from .linear_row import LinearRowOracle, MixedRowOracle
from .quadratic import QuadraticRowOracle

# closed forms first: a cardinality row over integers is also a knapsack row, solved faster in closed form
ORACLES: list[type[Oracle]] = [
    LinearRowOracle,
    KnapsackRowOracle,
    MixedRowOracle,
    QuadraticRowOracle,
    BudgetQuadraticOracle,
]


def fit_oracle(block: CompiledModel) -> Oracle | None:
    """The first oracle whose structure fits ``block``, or ``None``.

    Parameters
    ----------
    block
        A block's compiled subproblem.
    """
    for cls in ORACLES:
        oracle = cls.fit(block)
        if oracle is not None:
            return oracle
    return None


__all__ = [
    "ORACLES",
    "BudgetQuadraticOracle",
    "KnapsackRowOracle",
    "LinearRowOracle",
    "MixedRowOracle",
    "Oracle",
    "QuadraticRowOracle",
    "fit_oracle",
]
