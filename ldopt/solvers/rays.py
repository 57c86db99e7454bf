"""Whether a mixed-integer linear model is unbounded for a cost: a ray of its LP relaxation.

A MIP solver may call an unbounded model "optimal" (Gurobi did, on the audit's random models, where
HiGHS answered "unbounded"). For rational data, a feasible MILP is unbounded for a cost exactly
when its LP relaxation's recession cone holds a direction ``d`` that improves it (Meyer, 1974):
``A d`` within the rows' cone (``≤ 0`` under a finite upper side, ``≥ 0`` over a finite lower
one), ``d_j ≥ 0`` where only ``x_j``'s lower bound is finite (``≤ 0`` for the upper, ``0`` for
both), and ``q·d > 0`` (``< 0`` for a minimisation). [`RayCheck`][ldopt.solvers.rays.RayCheck]
decides it with one LP over ``d`` in the unit box, solved by HiGHS; it first asks whether the
cone holds any direction at all (most models: no), and then checks nothing more.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..compiled import CompiledModel
from .highs import quiet_highs

RAY_TOL = 1e-7  # an improving direction worth less than this × max(1, |q|∞) in the unit box is noise


class RayCheck:
    """The recession cone of a linear model's LP relaxation, as an LP over directions ``d = d⁺ − d⁻``
    in the unit box (only the variables unbounded that way move)."""

    def __init__(self, model: CompiledModel) -> None:
        import highspy  # noqa: PLC0415  (ldopt's one required solver, imported where it runs)

        self.up = np.flatnonzero(~np.isfinite(model.var_ub))
        self.down = np.flatnonzero(~np.isfinite(model.var_lb))
        self.sign = 1.0 if model.sense == "max" else -1.0
        A = model.linear_matrix().tocsc()
        D = sp.hstack([A[:, self.up], -A[:, self.down]]).tocsc()
        lo = np.array([r.lo for r in model.rows], dtype=float)
        hi = np.array([r.hi for r in model.rows], dtype=float)
        k = D.shape[1]
        h = quiet_highs()
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = k, D.shape[0]
        lp.col_cost_, lp.col_lower_, lp.col_upper_ = np.zeros(k), np.zeros(k), np.ones(k)
        lp.row_lower_ = np.where(np.isfinite(lo), 0.0, -np.inf)
        lp.row_upper_ = np.where(np.isfinite(hi), 0.0, np.inf)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = D.indptr.astype(np.int32)
        lp.a_matrix_.index_ = D.indices.astype(np.int32)
        lp.a_matrix_.value_ = D.data
        lp.sense_ = highspy.ObjSense.kMaximize
        self.k, self.highs, self._idx = k, h, np.arange(k, dtype=np.int32)
        self._optimal = highspy.HighsModelStatus.kOptimal
        h.passModel(lp)
        self.pointed = k == 0 or self._best(np.ones(k)) <= RAY_TOL  # no direction at all: nothing to check

    def _best(self, w: np.ndarray) -> float:
        """``max w·(d⁺, d⁻)`` over the cone in the unit box (``inf`` where HiGHS cannot tell)."""
        self.highs.changeColsCost(self.k, self._idx, w)
        self.highs.run()
        if self.highs.getModelStatus() != self._optimal:
            return np.inf
        return float(self.highs.getInfo().objective_function_value)

    def improving(self, q: np.ndarray) -> bool:
        """Whether the linear objective ``q`` (the model's sense) improves along some direction of
        the cone: then a feasible MILP is unbounded for it."""
        if self.pointed:
            return False
        w = self.sign * np.concatenate([q[self.up], -q[self.down]])
        return self._best(w) > RAY_TOL * max(1.0, float(np.abs(q).max(initial=0.0)))
