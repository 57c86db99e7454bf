"""Bounds that every optimal solution meets, for variables the whole model leaves unbounded.

A penalised slack, an unmet demand or a backlog carries a fixed cost and is bounded only at an
optimum: no row stops it from growing, but growing costs more. Such a variable ``x_j`` (its
objective coefficient fixed, not a function of the costs, and strictly against moving it outward)
needs no more than its rows ask of it. Moving ``x_j`` inward to ``U = max_r U_r`` keeps every row
``r`` that holds it satisfied, whatever the other variables are (within the bounds the model
implies for them, `ldopt.model.implied_bounds.propagate`), and strictly improves the objective;
so no point beyond ``U`` is optimal, for any cost vector. A row that moving ``x_j`` inward only
loosens asks nothing (``U_r = −∞``); a variable in no row sits at its inner bound.

Adding ``x_j ≤ U`` (or ``x_j ≥ L``) to every block cuts off only points that are not optimal, so
the optimum is unchanged and every Lagrangian bound of the bounded model is a bound on it (and a
block's point, feasible for the bounded model, is feasible for the model). A variable in a
quadratic row, or whose coefficient depends on the costs, gets no such bound here.
"""

from __future__ import annotations

import numpy as np

from ldopt.model.compiled import CompiledModel
from ldopt.model.implied_bounds import InferredBound, propagate

_EPS = float(np.finfo(float).eps)
_TOL = 1e-9


def optimal_bounds(cm: CompiledModel, needed: list[tuple[int, str]]) -> list[InferredBound]:
    """Bounds every optimum meets (see the module docstring) for the variable sides ``needed``
    (``(j, "lower" | "upper")``); sides it cannot bound are left out.

    Parameters
    ----------
    cm
        The whole model.
    needed
        The sides to bound.
    """
    if not needed:
        return []
    found = propagate(cm)
    if found.conflict is not None:
        return []  # no feasible point: nothing to bound (`implied_bounds` says why)
    lb, ub = found.lb, found.ub
    fixed = np.diff(cm.Q.tocsr().indptr) == 0  # no cost moves the coefficient
    w = cm.sign * cm.q0  # the coefficients in the maximisation form
    quadratic = {int(j) for r in cm.rows if r.is_quadratic for j in np.flatnonzero(np.abs(r.matrix).sum(0))}
    holding: dict[int, list[tuple[int, float]]] = {}
    for k, r in enumerate(cm.rows):
        for j, a in zip(r.index, r.coef, strict=True):
            holding.setdefault(int(j), []).append((k, float(a)))
    out = []
    for j, side in needed:
        upper = side == "upper"
        if not fixed[j] or j in quadratic or not (w[j] < 0 if upper else w[j] > 0):
            continue
        value = _inward(cm, lb, ub, j, holding.get(j, []), upper)
        if value is None:
            continue
        rows = [cm.rows[k].name for k, _ in holding.get(j, [])]
        why = (
            f"rows {', '.join(repr(n) for n in rows[:3])}{', …' if len(rows) > 3 else ''} need no more"
            if rows
            else "no row needs it"
        )
        source = f"every optimum, for all costs: its fixed cost {cm.q0[j]:g} penalises it and {why}"
        out.append(InferredBound(j, cm.var_names[j], side, value, source))
    return out


def _inward(
    cm: CompiledModel, lb: np.ndarray, ub: np.ndarray, j: int, rows: list[tuple[int, float]], upper: bool
) -> float | None:
    """The point ``U`` (``upper``) or ``L`` to which ``x_j`` can move inward from any feasible
    point beyond it keeping every row, moved outward by the rounding error (an integer's rounded
    outward); ``None`` where none is finite."""
    inner = lb[j] if upper else ub[j]
    best = inner if np.isfinite(inner) else (-np.inf if upper else np.inf)
    for k, a in rows:
        r = cm.rows[k]
        others = np.flatnonzero(r.index != j)
        coef, idx = r.coef[others], r.index[others]
        with np.errstate(invalid="ignore", over="ignore"):
            terms_lo = np.minimum(coef * lb[idx], coef * ub[idx])
            terms_hi = np.maximum(coef * lb[idx], coef * ub[idx])
        terms_lo = np.where(np.isnan(terms_lo), -np.inf, terms_lo)
        terms_hi = np.where(np.isnan(terms_hi), np.inf, terms_hi)
        # moving x_j inward changes a·x_j towards −∞ (a > 0, upper) or +∞: the side it moves towards binds
        towards_lo = (a > 0) == upper
        side = r.lo if towards_lo else r.hi
        if not np.isfinite(side):
            continue  # moving inward only loosens this row
        rest = terms_lo.sum() if towards_lo else terms_hi.sum()
        if not np.isfinite(rest):
            return None  # the row's other variables are unbounded: it may ask anything of x_j
        value = (side - rest) / a
        # what rounding may have moved it by, relative to the magnitudes it cancelled (as propagation's)
        err = (len(r.index) + 4) * 4 * _EPS * (abs(side) + np.abs(terms_lo if towards_lo else terms_hi).sum()) / abs(a)
        value = value + err if upper else value - err  # outward: a looser bound is still one
        best = max(best, value) if upper else min(best, value)
    if not np.isfinite(best):
        return None
    if cm.var_type[j] != "C":  # within the integrality tolerance of an integer is that integer, as in propagation
        best = float(np.ceil(best - _TOL) if upper else np.floor(best + _TOL))
    return float(best)
