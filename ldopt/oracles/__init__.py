"""Exact oracles for single-block subproblems; [`fit_oracle()`][ldopt.oracles.fit_oracle] picks the first that fits."""

from __future__ import annotations

from ldopt.model.compiled import CompiledModel
from ldopt.oracles.assignment import AssignmentOracle
from ldopt.oracles.base import Oracle
from ldopt.oracles.budget_quadratic import BudgetQuadraticOracle
from ldopt.oracles.knapsack import KnapsackRowOracle
from ldopt.oracles.linear_row import LinearRowOracle, MixedRowOracle
from ldopt.oracles.min_cost_flow import MinCostFlowOracle
from ldopt.oracles.quadratic import QuadraticRowOracle
from ldopt.oracles.unit_flow import UnitFlowOracle

# closed forms first: a cardinality row over integers is also a knapsack row, solved faster in closed form
ORACLES: list[type[Oracle]] = [
    LinearRowOracle,
    KnapsackRowOracle,
    MixedRowOracle,
    QuadraticRowOracle,
    BudgetQuadraticOracle,
    AssignmentOracle,
    UnitFlowOracle,
    MinCostFlowOracle,
]


def fit_oracle(block: CompiledModel) -> Oracle | None:
    """The first oracle whose structure fits ``block``, or ``None``: the oracles its problem
    declared (``Problem.from_pyomo(..., oracles=)``) first, then those of ``ORACLES``.

    Parameters
    ----------
    block
        A block's compiled subproblem.
    """
    for cls in (*block.oracles, *ORACLES):
        oracle = cls.fit(block)
        if oracle is not None:
            return oracle
    return None


__all__ = [
    "ORACLES",
    "AssignmentOracle",
    "BudgetQuadraticOracle",
    "KnapsackRowOracle",
    "LinearRowOracle",
    "MinCostFlowOracle",
    "MixedRowOracle",
    "Oracle",
    "QuadraticRowOracle",
    "UnitFlowOracle",
    "fit_oracle",
]
