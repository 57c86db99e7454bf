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

from ldopt.model.compiled import CompiledModel, Row
from ldopt.solvers.base import OPTIMAL, SolverOptions
from ldopt.solvers.highs import HighsSession

RAY_TOL = 1e-7  # an improving direction worth less than this × max(1, |q|∞) in the unit box is noise


def _cone(model: CompiledModel, up: np.ndarray, down: np.ndarray) -> CompiledModel:
    """The LP over directions ``(d⁺, d⁻)`` in the unit box (``d⁺`` for the variables unbounded
    above, ``d⁻`` below): the model's rows on ``d = d⁺ − d⁻`` with every finite side 0."""
    A = model.linear_matrix().tocsc()
    D = sp.hstack([A[:, up], -A[:, down]]).tocsr()
    k = D.shape[1]
    rows = []
    for t, r in enumerate(model.rows):
        at = slice(D.indptr[t], D.indptr[t + 1])
        lo, hi = (0.0 if np.isfinite(r.lo) else -np.inf), (0.0 if np.isfinite(r.hi) else np.inf)
        rows.append(Row(r.name, r.component, D.indices[at], D.data[at], lo, hi))
    names = [f"d+{model.var_names[j]}" for j in up] + [f"d-{model.var_names[j]}" for j in down]
    return CompiledModel(
        var_names=names, var_lb=np.zeros(k), var_ub=np.ones(k), var_type=np.full(k, "C"), sense="max",
        q0=np.zeros(k), Q=sp.identity(k, format="csr"), k0=0.0, r=np.zeros(k), rows=rows, cost_keys=list(range(k)),
    )  # fmt: skip


class RayCheck:
    """The recession cone of a linear model's LP relaxation, as an LP over directions ``d = d⁺ − d⁻``
    in the unit box (only the variables unbounded that way move), on a HiGHS session."""

    def __init__(self, model: CompiledModel) -> None:
        self.up = np.flatnonzero(~np.isfinite(model.var_ub))
        self.down = np.flatnonzero(~np.isfinite(model.var_lb))
        self.sign = 1.0 if model.sense == "max" else -1.0
        k = len(self.up) + len(self.down)
        self.session = HighsSession(_cone(model, self.up, self.down), SolverOptions()) if k else None
        self.pointed = k == 0 or self._best(np.ones(k)) <= RAY_TOL  # no direction at all: nothing to check

    def _best(self, w: np.ndarray) -> float:
        """``max w·(d⁺, d⁻)`` over the cone in the unit box (``inf`` where HiGHS cannot tell)."""
        assert self.session is not None
        res = self.session.solve(w, w)
        return float(res.bound) if res.status == OPTIMAL else np.inf

    def improving(self, q: np.ndarray) -> bool:
        """Whether the linear objective ``q`` (the model's sense) improves along some direction of
        the cone: then a feasible MILP is unbounded for it."""
        if self.pointed:
            return False
        w = self.sign * np.concatenate([q[self.up], -q[self.down]])
        return self._best(w) > RAY_TOL * max(1.0, float(np.abs(q).max(initial=0.0)))
