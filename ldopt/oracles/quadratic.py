"""A linear objective over one convex quadratic row and ``x >= 0``: block principal pivoting.

Fits ``max v·x  s.t.  x'Px <= R,  0 <= x (<= u)`` with ``P`` positive definite and no linear term
in the row. Where some ``v_j > 0`` the row binds and ``x = sqrt(R / y'Py) y`` with ``y`` the
minimiser of ``½ y'Py − v·y`` over ``y >= 0`` (the KKT conditions of both problems agree up to the
scale). On a support ``S`` that minimiser is ``y_S = P_SS⁻¹ v_S``, and it is optimal when
``y_S >= 0`` and every reduced return ``(Py − v)_j`` off ``S`` is ``>= 0``; block principal pivoting
(`ldopt.oracles.pivoting`) finds that support from ``S = {j: v_j > 0}``, in two or three
more supports on the portfolio (about 17× faster on mixed-sign costs than the nonnegative
least-squares dual ``min_{α >= 0} ||L⁻¹(v + α)||`` with ``P = LL'``: ``docs/results.md``,
"Oracle speed"). A support
that does not settle goes to that NNLS dual (Lawson–Hanson), and an instance whose ``x`` exceeds a
finite upper bound ``u`` (rare: the risk row usually binds first) to the fallback solver.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
from scipy.optimize import nnls

from ldopt.model.compiled import CompiledModel
from ldopt.oracles.base import Oracle
from ldopt.oracles.pivoting import KKT_TOL, OnSupport, SupportSolver, principal_pivoting
from ldopt.runtime.threads import one_blas_thread


class QuadraticRowOracle(Oracle):
    """One positive definite quadratic row with no linear term over ``x >= 0``.

    Parameters
    ----------
    P
        The row's positive definite matrix.
    R
        The row's right-hand side.
    ub
        The variables' upper bounds: the solution ignores them, and an instance whose optimum
        passes one goes to the fallback solver.
    """

    name = "quadratic-row"

    def __init__(self, P: np.ndarray, R: float, ub: np.ndarray) -> None:
        self.P = np.asarray(P, dtype=float)
        self.L = np.linalg.cholesky(self.P)
        self.R = float(R)
        self.ub = ub
        self.fallback_count = 0
        self.use_active_set = True  # False: the NNLS dual alone (the baseline of bench_oracles)
        self.supports = SupportSolver(self.P, self.L)
        self.pivots = 0  # supports solved that leave some variable out (a diagnostic)
        self.handed_over = 0  # instances the active set handed to the NNLS dual
        self._Linv: np.ndarray | None = None  # L⁻¹, built when the NNLS dual first runs

    @classmethod
    def fit(cls, block: CompiledModel) -> QuadraticRowOracle | None:
        """An oracle if ``block`` is one positive definite quadratic row over ``x >= 0``, else ``None``.

        Parameters
        ----------
        block
            A block's compiled subproblem.
        """
        if len(block.rows) != 1 or not block.rows[0].is_quadratic or (block.var_type != "C").any():
            return None
        row = block.rows[0]
        if len(row.index) or not (block.var_lb == 0).all() or not row.hi > 0:
            return None
        P = row.matrix
        if np.linalg.eigvalsh(P)[0] <= 1e-12 * max(1.0, float(np.abs(P).max())):
            return None
        return cls(P, row.hi, block.var_ub.copy())

    def describe(self) -> str:
        return (
            f"a convex quadratic row over {len(self.P)} nonnegative variables: the KKT system on an "
            "active set of variables (block principal pivoting), else an NNLS dual"
        )

    def _on_support(self, v: np.ndarray, idx: np.ndarray, scale: float) -> OnSupport | None:
        if len(idx) < len(v):
            self.pivots += 1
        solved = self.supports.solve(idx, v[idx, None])
        if solved is None:
            return None
        Y, PY = solved
        return OnSupport(Y[:, 0], PY[:, 0] - v, KKT_TOL * scale)

    def _nnls(self, v: np.ndarray) -> np.ndarray:
        """The unscaled optimum ``y`` by the NNLS dual: ``y = P⁻¹(v + α)``."""
        if self._Linv is None:
            self._Linv = sla.solve_triangular(self.L, np.eye(len(self.L)), lower=True)
        alpha, _ = nnls(self._Linv, -(self._Linv @ v))
        return sla.cho_solve((self.L, True), v + alpha)

    def solve_one(self, v: np.ndarray) -> np.ndarray:
        """The optimum for one objective ``v`` (upper bounds ignored).

        Parameters
        ----------
        v
            One objective ``(n,)``.
        """
        held = v > 0
        if not held.any():
            return np.zeros_like(v)
        scale = float(np.max(v))
        found = principal_pivoting(held, lambda idx: self._on_support(v, idx, scale)) if self.use_active_set else None
        if found is None:
            self.handed_over += int(self.use_active_set)
            y = np.maximum(self._nnls(v), 0.0)
        else:
            idx, on = found
            y = np.zeros_like(v)
            y[idx] = np.maximum(on.y, 0.0)
        quad = float(y @ self.P @ y)
        if quad <= 0:
            return np.zeros_like(v)
        return np.sqrt(self.R / quad) * y

    def argmax(self, lam: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        lam = np.atleast_2d(np.asarray(lam, dtype=float))
        with one_blas_thread():  # many small factorisations: threads over instances, not inside one
            x = np.array([self.solve_one(v) for v in lam])
        return self.finish(lam, x, np.asarray((x > self.ub + 1e-9).any(axis=1)), out)
