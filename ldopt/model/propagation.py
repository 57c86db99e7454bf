"""Bound propagation (FBBT) over a compiled model's linear rows: the bounds every feasible point
meets, each valid for the exact rows despite rounding, and the conflict that proves a model
infeasible. Pure arrays: the oracles use it on their blocks, `ldopt.model.implied_bounds` on whole
models."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ldopt.model.compiled import CompiledModel

_PASSES = 50
_TOL = 1e-9
_EPS = float(np.finfo(float).eps)


@dataclass(frozen=True)
class Propagated:
    """What bound propagation proved: the bounds ``lb``/``ub`` and for each the row that gave it
    (``src_lb``/``src_ub``, -1: declared); ``conflict``, where the bounds of a variable crossed,
    is that variable (the model is then infeasible)."""

    lb: np.ndarray
    ub: np.ndarray
    src_lb: np.ndarray
    src_ub: np.ndarray
    conflict: int | None = None

    def conflict_message(self, cm: CompiledModel) -> str:
        """The infeasibility found, naming the variable and the rows whose bounds on it cross."""
        j = self.conflict
        assert j is not None

        def source(src: int) -> str:
            return f"row '{cm.rows[src].name}'" if src >= 0 else "its declared bounds"

        return (
            f"the model is infeasible: {source(int(self.src_lb[j]))} implies {cm.var_names[j]} ≥ {self.lb[j]:.10g} "
            f"and {source(int(self.src_ub[j]))} implies {cm.var_names[j]} ≤ {self.ub[j]:.10g}; "
            "check those constraints' data"
        )


def propagate(cm: CompiledModel) -> Propagated:
    """Bounds by propagation over the linear rows, each valid for the exact rows despite rounding.

    A candidate ``(side − Σ_{i≠j} a_i x_i) / a_j`` is computed in floating point, which cancels
    magnitudes up to ``|side| + Σ|a_i x_i|``: it is moved outward by a bound on that rounding
    error (relative to the cancelled magnitudes, not to the result) before an integer variable's is
    rounded inward. Sums that overflow give no bound. Bounds that cross prove infeasibility
    (``Propagated.conflict``). Computed once per model (decomposing asks twice: for the bounds the
    model implies, then for those an optimum meets); the arrays returned are read-only."""
    done = cm.__dict__.get("_propagated")
    if done is not None:
        return done
    found = _propagate(cm)
    for a in (found.lb, found.ub, found.src_lb, found.src_ub):
        a.flags.writeable = False
    cm.__dict__["_propagated"] = found
    return found


def _propagate(cm: CompiledModel) -> Propagated:
    A = cm.linear_matrix().tocoo()
    linear = np.array([not r.is_quadratic for r in cm.rows], dtype=bool)
    lo_side = np.array([r.lo for r in cm.rows], dtype=float)
    hi_side = np.array([r.hi for r in cm.rows], dtype=float)
    lb, ub = cm.var_lb.copy(), cm.var_ub.copy()
    src_lb = np.full(len(lb), -1)
    src_ub = np.full(len(ub), -1)
    integer = cm.var_type != "C"
    rows, cols, vals = A.row, A.col, A.data
    keep = linear[rows] & (vals != 0)
    rows, cols, vals = rows[keep], cols[keep], vals[keep]
    m = A.shape[0]
    # a bound on the relative rounding error of a row's sum and one subtraction and division
    err = (np.bincount(rows, minlength=m)[rows] + 4) * 4 * _EPS
    conflict: int | None = None
    for _ in range(_PASSES):
        # each term's smallest and largest value a_j x_j over the current box
        with np.errstate(over="ignore", invalid="ignore"):
            t_lo = np.where(vals > 0, vals * lb[cols], vals * ub[cols])
            t_hi = np.where(vals > 0, vals * ub[cols], vals * lb[cols])
            lo_fin, hi_fin = np.isfinite(t_lo), np.isfinite(t_hi)
            min_fin = np.bincount(rows, np.where(lo_fin, t_lo, 0.0), m)
            max_fin = np.bincount(rows, np.where(hi_fin, t_hi, 0.0), m)
            size_min = np.bincount(rows, np.where(lo_fin, np.abs(t_lo), 0.0), m)  # what rest_min sums
            size_max = np.bincount(rows, np.where(hi_fin, np.abs(t_hi), 0.0), m)
        min_inf = np.bincount(rows, ~lo_fin, m)
        max_inf = np.bincount(rows, ~hi_fin, m)
        # the other terms' least (greatest) sum: finite only if no other term is unbounded that way
        # (and the sum did not overflow)
        with np.errstate(over="ignore", invalid="ignore"):
            rest_min = np.where(
                (min_inf[rows] - ~lo_fin == 0) & np.isfinite(min_fin[rows]),
                min_fin[rows] - np.where(lo_fin, t_lo, 0.0), -np.inf,
            )  # fmt: skip
            rest_max = np.where(
                (max_inf[rows] - ~hi_fin == 0) & np.isfinite(max_fin[rows]),
                max_fin[rows] - np.where(hi_fin, t_hi, 0.0), np.inf,
            )  # fmt: skip
            from_hi = (hi_side[rows] - rest_min) / vals  # a_j x_j ≤ hi − rest_min
            from_lo = (lo_side[rows] - rest_max) / vals  # a_j x_j ≥ lo − rest_max
            # what the rounding may have moved each candidate by (the magnitudes it cancelled)
            slack_hi = err * (np.abs(hi_side[rows]) + size_min[rows]) / np.abs(vals)
            slack_lo = err * (np.abs(lo_side[rows]) + size_max[rows]) / np.abs(vals)
            new_ub = np.where(vals > 0, from_hi + slack_hi, from_lo + slack_lo)
            new_lb = np.where(vals > 0, from_lo - slack_lo, from_hi - slack_hi)
        changed = False
        for cand, bound, src, upper in ((new_ub, ub, src_ub, True), (new_lb, lb, src_lb, False)):
            ok = np.flatnonzero(np.isfinite(cand))
            if not len(ok):
                continue
            sign = 1.0 if upper else -1.0  # the tightest candidate per variable: the least of sign·v
            best = np.full(len(bound), np.inf)
            np.minimum.at(best, cols[ok], sign * cand[ok])
            won = ok[sign * cand[ok] == best[cols[ok]]]  # a row that gives each variable's tightest
            j, v = cols[won], sign * best[cols[won]]
            v = np.where(integer[j], np.floor(v + _TOL) if upper else np.ceil(v - _TOL), v)
            slack = _TOL * np.maximum(1.0, np.abs(v))
            tighter = (v < bound[j] - slack) if upper else (v > bound[j] + slack)
            if tighter.any():
                bound[j[tighter]], src[j[tighter]] = v[tighter], rows[won[tighter]]
                changed = True
        crossed = np.flatnonzero(lb > ub)
        if len(crossed):
            conflict = int(crossed[0])
            break
        if not changed:
            break
    return Propagated(lb, ub, src_lb, src_ub, conflict)
