"""A linear objective over one positive linear row, one convex quadratic row and ``x >= 0``.

Fits ``max v·x  s.t.  lo <= a·x <= hi,  x'Px <= R,  0 <= x (<= u)`` with ``a > 0`` on every
variable and ``P`` positive definite: the paper's portfolio (budget ``1·x = 1`` and risk) solved
whole. Relaxing the linear row with a multiplier ``ν`` leaves the quadratic row's problem
``max (v − νa)·x  s.t.  x'Px <= R, x >= 0``, solved exactly by
[`QuadraticRowOracle`][ldopt.oracles.quadratic.QuadraticRowOracle]. Its maximiser ``x(ν)`` is unique and ``a·x(ν)``
does not increase with ``ν``, so the optimal ``ν`` is the root of ``a·x(ν) = lo`` or ``hi``
(Brent's method on a bracket), or ``ν = 0`` when ``x(0)`` already meets the row. Where ``a·x(ν)``
jumps over the side (at ``ν = max v_j/a_j`` the maximiser leaves 0 for the ellipsoid's surface) the
optimum is the vertex ``(side/a_j) e_j`` with the risk row slack. Instances the method cannot finish
(a finite upper bound ``u`` that binds, an empty feasible set) go to the fallback solver.

When the row binds, an active-set method is tried before Brent's: on a support ``S`` (the assets
held), ``x_S ∝ y_S = P_SS⁻¹(v_S − ν a_S)`` is affine in ``ν``, and both rows binding (``a·x = side``,
``x'Px = R``) fix ``ν`` in closed form: with ``y0 = P_SS⁻¹ v_S``, ``y1 = P_SS⁻¹ a_S``, ``p = a·y0``,
``q = a·y1`` and ``B = v·y0 − p²/q``, ``a·y = u = side·sqrt(B / (R − side²/q))``, ``ν = (p − u)/q`` and
``x_S = (side/u) y_S``. The support is then corrected by block principal pivoting
(`ldopt.oracles.pivoting`): held assets with ``y_j < 0`` leave, others whose reduced return
``(Py − v + νa)_j`` is negative enter, until the KKT conditions hold — about three
more supports from that of the unrestricted solution (``S`` = every asset, with ``P``'s own factor),
each missing few assets and so solved through ``P⁻¹`` (`SupportSolver`), tens of times faster
than Brent's ten NNLS solves (``docs/results.md``, "Oracle speed"). A support that does not settle, or
a solution with the risk row slack, goes on to Brent's method.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.optimize import brentq

from ldopt.model.compiled import CompiledModel
from ldopt.oracles.base import Oracle
from ldopt.oracles.pivoting import KKT_TOL, OnSupport, principal_pivoting
from ldopt.oracles.quadratic import QuadraticRowOracle
from ldopt.runtime.threads import one_blas_thread

_EXPAND = 80  # doublings of the bracket's width towards ν → −∞ before the row is called out of reach
_XTOL = 1e-13  # Brent's tolerance on ν, relative to the bracket's width
_FTOL = 1e-11  # how close a·x(ν) must come to the row's side (relative) before x is scaled onto it


@dataclass(frozen=True)
class _BothRows(OnSupport):
    """The closed form on a support with both rows binding, and the linear row's multiplier."""

    nu: float = 0.0


class _Close(Exception):
    """Stops Brent's method: ``x(ν)`` meets the row's side within ``_FTOL``."""

    def __init__(self, x: np.ndarray, s: float) -> None:
        super().__init__()
        self.x, self.s = x, s


class BudgetQuadraticOracle(Oracle):
    """One positive linear row and one positive definite quadratic row over ``x >= 0``.

    Parameters
    ----------
    a
        The linear row's (positive) coefficients.
    lo
        The linear row's lower side.
    hi
        The linear row's upper side.
    risk
        The oracle of the quadratic row alone.
    ub
        The variables' upper bounds.
    """

    name = "budget-quadratic"

    def __init__(self, a: np.ndarray, lo: float, hi: float, risk: QuadraticRowOracle, ub: np.ndarray) -> None:
        self.a, self.lo, self.hi = a, lo, hi
        self.risk = risk
        self.ub = ub
        self.fallback_count = 0
        self.P = risk.P
        self.use_active_set = True  # False: Brent's method alone (the baseline of bench_oracles)
        self.pivots = 0  # supports solved that leave some asset out (a diagnostic)
        self.handed_over = 0  # instances it handed to Brent's method

    @classmethod
    def fit(cls, block: CompiledModel) -> BudgetQuadraticOracle | None:
        """An oracle if ``block`` has exactly one linear row with positive coefficients on every
        variable and one quadratic row that [`QuadraticRowOracle`][ldopt.oracles.QuadraticRowOracle] fits, else
        ``None``.

        Parameters
        ----------
        block
            A block's compiled subproblem.
        """
        if len(block.rows) != 2 or (block.var_type != "C").any():
            return None
        quad = [r for r in block.rows if r.is_quadratic]
        lin = [r for r in block.rows if not r.is_quadratic]
        if len(quad) != 1:
            return None
        a = lin[0].dense(block.num_vars)
        if not (a > 0).all() or not lin[0].hi >= 0:
            return None
        risk = QuadraticRowOracle.fit(replace(block, rows=quad))
        if risk is None:
            return None
        return cls(a, float(lin[0].lo), float(lin[0].hi), risk, block.var_ub.copy())

    def describe(self) -> str:
        return (
            f"a positive linear row and a convex quadratic row over {len(self.a)} variables: "
            "the row's multiplier in closed form on an active set of assets (block principal pivoting), "
            "else by Brent's method over the quadratic row's oracle"
        )

    def _on_support(self, v: np.ndarray, side: float, idx: np.ndarray, scale: float) -> _BothRows | None:
        """Both rows binding on the support ``idx`` (``ν`` in closed form), or ``None`` if no such point."""
        if len(idx) < len(v):
            self.pivots += 1
        solved = self.risk.supports.solve(idx, np.column_stack([v[idx], self.a[idx]]))
        if solved is None:
            return None
        (y0, y1), (Py0, Py1) = solved[0].T, solved[1].T
        p, q = float(self.a[idx] @ y0), float(self.a[idx] @ y1)
        spread = float(v[idx] @ y0) - p * p / q  # v's part that a cannot explain, in P's norm
        room = self.R - side * side / q  # the risk left above the support's least-variance point
        if not (q > 0 and spread > 0 and room > 0):
            return None
        u = side * np.sqrt(spread / room)
        nu = (p - u) / q
        return _BothRows(y0 - nu * y1, Py0 - nu * Py1 - (v - nu * self.a), KKT_TOL * scale * (1.0 + abs(nu)), nu)

    def _active_set(self, v: np.ndarray, side: float) -> np.ndarray | None:
        """The optimum with the row binding at ``side`` and the risk row binding, by block principal
        pivoting over the support from every asset (module docstring), or ``None`` where it does not
        settle."""
        if not self.use_active_set:
            return None
        n = len(v)
        scale = max(float(np.max(np.abs(v))), float(np.max(self.a)))
        found = principal_pivoting(np.ones(n, dtype=bool), lambda idx: self._on_support(v, side, idx, scale))
        if found is None:
            return None
        idx, on = found
        if (side == self.hi and side != self.lo and on.nu < 0) or (side == self.lo and side != self.hi and on.nu > 0):
            return None  # the row would not bind at this side
        x = np.zeros(n)
        x[idx] = np.maximum(on.y, 0.0)
        return x * (side / float(self.a @ x))

    @property
    def R(self) -> float:
        """The risk row's right-hand side."""
        return self.risk.R

    def _usage(self, v: np.ndarray, nu: float) -> tuple[np.ndarray, float]:
        x = self.risk.solve_one(v - nu * self.a)
        return x, float(self.a @ x)

    def _vertex(self, v: np.ndarray, side: float) -> np.ndarray | None:
        """The best vertex ``(side/a_j) e_j`` if it meets the quadratic row, else ``None``."""
        j = int(np.argmax(v / self.a))
        x = np.zeros_like(v)
        x[j] = side / self.a[j]
        return x if float(np.sum((self.risk.L.T @ x) ** 2)) <= self.R * (1 + 1e-12) else None

    def _root(self, v: np.ndarray, side: float, lo_nu: float, hi_nu: float) -> np.ndarray | None:
        """``x(ν)`` with ``a·x(ν) = side`` for ``ν`` in ``[lo_nu, hi_nu]``, where ``a·x`` falls
        through ``side``: Brent's method until ``a·x`` is within ``_FTOL`` of the side, then ``x``
        scaled onto it."""
        ftol = _FTOL * max(1.0, abs(side))

        def excess(t: float) -> float:
            x, s = self._usage(v, t)
            if abs(s - side) <= ftol:
                raise _Close(x, s)
            return s - side

        try:
            nu = brentq(excess, lo_nu, hi_nu, xtol=_XTOL * (hi_nu - lo_nu), maxiter=300)
            x, s = self._usage(v, nu)
        except _Close as close:
            x, s = close.x, close.s
        if abs(s - side) > 1e-6 * max(1.0, abs(side)):  # a jump over the side: the vertex, risk slack
            return self._vertex(v, side)
        return x * (side / s) if s > 0 else x

    def solve_one(self, v: np.ndarray) -> np.ndarray | None:
        """The optimum for one objective ``v`` (upper bounds ignored), or ``None`` if the rows
        leave no feasible point.

        Parameters
        ----------
        v
            One objective ``(n,)``.
        """
        if self.lo == self.hi > 0:  # an equality row (the portfolio's budget) binds: no x(0) needed
            x_active = self._active_set(v, self.hi)
            if x_active is not None:
                return x_active
        x, s = self._usage(v, 0.0)
        if self.lo <= s <= self.hi:
            return x
        side = self.hi if s > self.hi else self.lo
        if side > 0:
            if self.lo != self.hi:  # an equality row was tried above
                x_active = self._active_set(v, side)
                if x_active is not None:
                    return x_active
            self.handed_over += 1
        if s > self.hi:  # the row binds at its upper side: ν > 0, and x = 0 beyond max v_j/a_j
            if self.hi == 0.0:
                return np.zeros_like(v)
            nu_max = max(float(np.max(v / self.a)), 0.0)
            if self._usage(v, nu_max)[1] >= self.hi:  # a·x(ν) stays above the side until it drops to 0
                return self._vertex(v, self.hi)
            return self._root(v, self.hi, 0.0, nu_max)
        # the row binds at its lower side: ν < 0, found by doubling the bracket's width
        nu_b, width = 0.0, 1.0 + float(np.max(np.abs(v / self.a)))
        for _ in range(_EXPAND):
            nu_a = nu_b - width
            if self._usage(v, nu_a)[1] >= self.lo:
                return self._root(v, self.lo, nu_a, nu_b)
            nu_b, width = nu_a, 2 * width
        return None

    def argmax(self, lam: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        lam = np.atleast_2d(np.asarray(lam, dtype=float))
        x = np.full(lam.shape, np.nan)
        with one_blas_thread():  # many small factorisations: threads over instances, not inside one
            for i, v in enumerate(lam):
                xi = self.solve_one(v)
                if xi is not None:
                    x[i] = xi
        return self.finish(lam, x, np.isnan(x).any(axis=1) | (x > self.ub + 1e-9).any(axis=1), out)
