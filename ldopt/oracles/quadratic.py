"""A linear objective over one convex quadratic row and ``x >= 0``: the dual NNLS method.

Fits ``max v·x  s.t.  x'Px <= R,  0 <= x (<= u)`` with ``P`` positive definite and no linear term
in the row. With ``P = LL'`` the Lagrangian dual over the sign constraints is
``min_{α >= 0} sqrt(R) ||L^-1 (v + α)||``, a nonnegative least-squares problem; then
``x = sqrt(R / w'P^-1 w) P^-1 w`` with ``w = v + α``. An instance whose ``x`` exceeds a finite
upper bound ``u`` (rare: the risk row usually binds first) is re-solved by the fallback solver.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
from scipy.optimize import nnls

from ..compiled import CompiledModel
from .base import Oracle


class QuadraticRowOracle(Oracle):
    name = "quadratic-nnls"

    def __init__(self, P: np.ndarray, R: float, ub: np.ndarray) -> None:
        self.L = np.linalg.cholesky(P)
        self.Linv = sla.solve_triangular(self.L, np.eye(len(P)), lower=True)
        self.R = float(R)
        self.ub = ub
        self.fallback_count = 0

    @classmethod
    def fit(cls, block: CompiledModel) -> QuadraticRowOracle | None:
        """An oracle if ``block`` is one positive definite quadratic row over ``x >= 0``, else ``None``."""
        if len(block.rows) != 1 or not block.rows[0].is_quadratic or (block.var_type != "C").any():
            return None
        row = block.rows[0]
        if len(row.index) or not (block.var_lb == 0).all() or not row.hi > 0:
            return None
        P = row.matrix
        if np.linalg.eigvalsh(P)[0] <= 1e-12 * max(1.0, float(np.abs(P).max())):
            return None
        return cls(P, row.hi, block.var_ub.copy())

    def solve_one(self, v: np.ndarray) -> np.ndarray:
        """The optimum for one objective ``v`` (upper bounds ignored)."""
        if (v <= 0).all():
            return np.zeros_like(v)
        alpha, _ = nnls(self.Linv, -(self.Linv @ v))
        w = v + alpha
        Pw = sla.cho_solve((self.L, True), w)
        quad = float(w @ Pw)
        if quad <= 0:
            return np.zeros_like(v)
        return np.maximum(np.sqrt(self.R / quad) * Pw, 0.0)

    def argmax(self, lam: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        lam = np.atleast_2d(np.asarray(lam, dtype=float))
        x = np.array([self.solve_one(v) for v in lam])
        return self.finish(lam, x, np.asarray((x > self.ub + 1e-9).any(axis=1)), out)
