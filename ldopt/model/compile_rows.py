"""The constraint rows of a Pyomo model, compiled: linear ``lo <= a·x <= hi`` or convex quadratic
``x'Px + a·x <= hi`` (a ``>=`` concave row is negated into that form)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ldopt.errors import ConstraintError, CostParamError
from ldopt.model.compiled import Row

_PSD_TOL = 1e-9


@dataclass
class RawRow:
    """One constraint's parts before the variables have their final positions."""

    name: str
    component: str
    lin: list[tuple[int, float]]
    quad: list[tuple[int, int, float]]
    lo: float
    hi: float


def _is_psd(P: np.ndarray) -> bool:
    if not P.size:
        return True
    w = np.linalg.eigvalsh(P)
    return bool(w[0] >= -_PSD_TOL * max(1.0, float(np.abs(w).max())))


def compile_rows(model: Any, cost: Any, cost_data: list[Any], pos: Callable[[Any], int]) -> list[RawRow]:
    """Every active constraint's linear and quadratic parts and its sides, in declaration order."""
    import pyomo.environ as pyo  # noqa: PLC0415 - heavy import kept lazy
    from pyomo.core.expr.visitor import identify_mutable_parameters  # noqa: PLC0415
    from pyomo.repn.standard_repn import generate_standard_repn  # noqa: PLC0415

    cost_ids = {id(p) for p in cost_data}
    rows = []
    for con in model.component_data_objects(pyo.Constraint, active=True, descend_into=True):
        sides = (" as its right-hand side",) * 2 if con.equality else (" as its lower side", " as its upper side")
        for part, where in ((con.body, ""), (con.lower, sides[0]), (con.upper, sides[1])):
            if part is None or isinstance(part, (int, float)):
                continue
            if any(id(p) in cost_ids for p in identify_mutable_parameters(part)):
                raise CostParamError(
                    f"cost Param '{cost.name}' appears in constraint '{con.name}'{where}; only the objective may "
                    "depend on the cost (its value there would stay the one at compile time): give the "
                    "constraint a Param of its own"
                )
        try:
            crepn = generate_standard_repn(con.body, compute_values=True, quadratic=True)
        except (ValueError, TypeError) as exc:
            raise ConstraintError(f"constraint '{con.name}' cannot be evaluated: {exc}") from None
        if crepn.nonlinear_expr is not None:
            raise ConstraintError(
                f"constraint '{con.name}' is nonlinear; only linear and convex quadratic constraints are supported"
            )
        lin = [(pos(v), float(a)) for v, a in zip(crepn.linear_vars, crepn.linear_coefs, strict=True)]
        quad = [
            (pos(a), pos(b), float(w)) for (a, b), w in zip(crepn.quadratic_vars, crepn.quadratic_coefs, strict=True)
        ]
        lo = -np.inf if con.lower is None else float(pyo.value(con.lower)) - float(crepn.constant)
        hi = np.inf if con.upper is None else float(pyo.value(con.upper)) - float(crepn.constant)
        if not lin and not quad:
            if lo > 1e-9 or hi < -1e-9:
                raise ConstraintError(
                    f"constraint '{con.name}' has no free variable and is violated "
                    f"({lo:g} <= 0 <= {hi:g} fails); fix the data or deactivate it"
                )
            continue
        rows.append(RawRow(con.name, con.parent_component().name, lin, quad, lo, hi))
    return rows


def make_row(raw: RawRow, n: int, pos: np.ndarray) -> Row:
    """The compiled row of ``raw`` over ``n`` variables, positions mapped by ``pos``; a ``>=`` quadratic
    row is negated into ``<=`` form and must be convex."""
    a = np.zeros(n)
    for k, w in raw.lin:
        a[pos[k]] += w
    nz = np.flatnonzero(a)
    lo, hi = raw.lo, raw.hi
    if not raw.quad:
        return Row(raw.name, raw.component, nz, a[nz], lo, hi)
    P = np.zeros((n, n))
    for i, j, w in raw.quad:
        P[pos[i], pos[j]] += w / 2.0
        P[pos[j], pos[i]] += w / 2.0
    if np.isfinite(lo) and np.isfinite(hi):
        raise ConstraintError(
            f"quadratic constraint '{raw.name}' is an equality or range, which is nonconvex; "
            "use a single '<=' bound with a convex (PSD) quadratic"
        )
    if np.isfinite(lo):  # x'Px + a x >= lo  <=>  x'(-P)x - a x <= -lo
        P, a, lo, hi = -P, -a, -np.inf, -lo
        nz = np.flatnonzero(a)
    if not _is_psd(P):
        raise ConstraintError(
            f"quadratic constraint '{raw.name}' is nonconvex (its matrix is not positive "
            "semidefinite in '<=' form); only convex quadratic constraints are supported"
        )
    return Row(raw.name, raw.component, nz, a[nz], lo, hi, P)
