"""Checks of a compiled model's numbers, run whenever a `CompiledModel` is
made: no NaN or infinite coefficient anywhere (a solver would drop the row, answer "error", or
crash), and integer bounds rounded inward to the integers they allow (an oracle that reads the
bounds as given would return ``x = 1.5`` for an integer variable with bounds ``(0.5, 3)``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .errors import ConstraintError, ObjectiveError, VariableError

if TYPE_CHECKING:
    from .compiled import CompiledModel, Row

INTEGRALITY_TOL = 1e-9
"""An integer variable's bound within this of an integer is that integer (``2.0000000001`` → 2)."""


def integer_bounds(names: list[str], lb: np.ndarray, ub: np.ndarray, vtype: np.ndarray) -> None:
    """Round the bounds of integer and binary variables inward, in place; raise where no integer is left."""
    integer = vtype != "C"
    if not integer.any():
        return
    lo = np.where(integer & np.isfinite(lb), np.ceil(lb - INTEGRALITY_TOL), lb)
    hi = np.where(integer & np.isfinite(ub), np.floor(ub + INTEGRALITY_TOL), ub)
    empty = np.flatnonzero(integer & (lo > hi))
    if len(empty):
        j = int(empty[0])
        raise VariableError(
            f"integer variable '{names[j]}': expected bounds that hold an integer, got ({lb[j]:g}, {ub[j]:g}); "
            "widen them or make the variable continuous"
        )
    lb[:] = lo
    ub[:] = hi


def _bad(values: np.ndarray) -> int | None:
    """The first position of a NaN or infinite value, or ``None``."""
    bad = np.flatnonzero(~np.isfinite(values))
    return int(bad[0]) if len(bad) else None


def check_numbers(cm: CompiledModel) -> None:
    """Raise a [`ModelError`][ldopt.errors.ModelError] naming the first NaN or infinite number of ``cm``
    (a coefficient, a side or a bound) and where it is."""
    names = cm.var_names
    for side, values, wrong in (("lower", cm.var_lb, np.inf), ("upper", cm.var_ub, -np.inf)):
        bad = np.flatnonzero(np.isnan(values) | (values == wrong))
        if len(bad):
            raise VariableError(
                f"variable '{names[bad[0]]}': expected a finite {side} bound or none, got {values[bad[0]]}; "
                "fix the model's data"
            )
    j = _bad(cm.q0)
    if j is not None:
        raise ObjectiveError(f"objective: the coefficient of '{names[j]}' is {cm.q0[j]}; expected a finite number")
    Q = cm.Q.tocoo()
    j = _bad(Q.data)
    if j is not None:
        raise ObjectiveError(
            f"objective: the coefficient of cost entry {cm.cost_keys[Q.col[j]]!r} on '{names[Q.row[j]]}' is "
            f"{Q.data[j]}; expected a finite number"
        )
    j = _bad(np.r_[cm.r, cm.k0])
    if j is not None:
        raise ObjectiveError("objective: a constant term is NaN or infinite; expected finite numbers")
    for row in cm.rows:
        _check_row(row, names)


def _check_row(row: Row, names: list[str]) -> None:
    j = _bad(row.coef)
    if j is not None:
        raise ConstraintError(
            f"constraint '{row.name}': the coefficient of '{names[row.index[j]]}' is {row.coef[j]}; "
            "expected a finite number (fix the Param or data behind it)"
        )
    if np.isnan(row.lo) or np.isnan(row.hi) or row.lo == np.inf or row.hi == -np.inf:
        raise ConstraintError(
            f"constraint '{row.name}': expected finite sides (or none), got lower {row.lo} and upper {row.hi}"
        )
    if row.P is not None and not np.isfinite(row.P).all():
        raise ConstraintError(f"constraint '{row.name}': a quadratic coefficient is NaN or infinite")
