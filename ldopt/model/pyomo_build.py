"""Pyomo models rebuilt from compiled arrays: a block's standalone subproblem, or any compiled model
in a process that never saw the user's Pyomo model (a worker)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ldopt.model.compiled import CompiledModel


def linear_objective_model(cm: CompiledModel, sense: str, name: str = "") -> Any:
    """``max|min c·x`` over ``cm``'s variables and rows, ``c`` a mutable Param over ``I``.

    ``model.c[j]`` holds the objective coefficient of ``model.x[j]`` (``cm.var_names[j]``); ``sense``
    is ``"max"`` or ``"min"``.
    """
    import pyomo.environ as pyo  # noqa: PLC0415 - heavy import kept lazy

    n = cm.num_vars
    m = pyo.ConcreteModel(name=name)
    m.I = pyo.RangeSet(0, n - 1)
    m.c = pyo.Param(m.I, mutable=True, initialize=0.0)
    domain = {"C": pyo.Reals, "I": pyo.Integers, "B": pyo.Binary}

    def bounds(_: Any, j: int) -> tuple[float | None, float | None]:
        lo, hi = cm.var_lb[j], cm.var_ub[j]
        return (None if not np.isfinite(lo) else float(lo), None if not np.isfinite(hi) else float(hi))

    m.x = pyo.Var(m.I, domain=lambda _, j: domain[str(cm.var_type[j])], bounds=bounds)
    m.obj = pyo.Objective(
        expr=sum(m.c[j] * m.x[j] for j in m.I), sense=pyo.maximize if sense == "max" else pyo.minimize
    )
    m.rows = pyo.ConstraintList()
    for row in cm.rows:
        body = sum(float(a) * m.x[int(j)] for j, a in zip(row.index, row.coef, strict=True))
        if row.P is not None:
            ii, jj = np.nonzero(row.P)
            body = body + sum(float(row.P[i, j]) * m.x[int(i)] * m.x[int(j)] for i, j in zip(ii, jj, strict=True))
        if row.is_equality:
            m.rows.add(body == float(row.hi))
        else:
            lo = float(row.lo) if np.isfinite(row.lo) else None
            hi = float(row.hi) if np.isfinite(row.hi) else None
            m.rows.add(pyo.inequality(lo, body, hi))
    return m
