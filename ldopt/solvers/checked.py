"""Every solver's answer checked against the compiled rows and bounds before anyone sees it.

A solver may return ``optimal`` with a point that violates the model it was given: HiGHS drops a
row coefficient below its ``small_matrix_value`` (1e-9) and answers for the row without it; a
backend may lose a row in translation. [`checked()`][ldopt.solvers.checked.checked] wraps every session the registry
opens, so such an answer is reported as `VIOLATED` (with the row and the
amount), never as a solution.

Tolerances sit above the solvers' own, so that no answer they call feasible is refused: a row
holds to ``ROW_TOL`` relative to the magnitude of its terms (``Σ|a_j x_j|``, its side, 1) — ten
times Gurobi's default ``FeasibilityTol`` and HiGHS's ``mip_feasibility_tolerance`` (1e-6, both
absolute on the scaled model) — a bound to ``ROW_TOL`` relative to the bound, integrality to
``INT_TOL`` (Gurobi's ``IntFeasTol``; HiGHS's is tighter).

A linear MIP's feasible answer is also checked against its LP relaxation's rays
(`ldopt.solvers.rays`): a solver that calls an unbounded model optimal is answered `UNBOUNDED`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ldopt.model.compiled import CompiledModel
from ldopt.solvers.base import HAS_SOLUTION, UNBOUNDED, VIOLATED, InstanceResult, Session
from ldopt.solvers.rays import RayCheck

ROW_TOL = 1e-5
INT_TOL = 1e-5


class FeasibilityCheck:
    """The compiled rows and bounds of a model as arrays, to check one point quickly."""

    def __init__(self, model: CompiledModel) -> None:
        self.model = model
        A = model.linear_matrix()
        self.A, self.absA = A, abs(A)
        self.lo = np.array([r.lo for r in model.rows], dtype=float)
        self.hi = np.array([r.hi for r in model.rows], dtype=float)
        self.quad = [(k, r.matrix, np.abs(r.matrix)) for k, r in enumerate(model.rows) if r.is_quadratic]
        self.integer = np.flatnonzero(model.var_type != "C")
        # the tolerances' scales, fixed by the model: the bounds', and each row's finite sides
        self.lb_tol = ROW_TOL * np.maximum(1.0, np.abs(model.var_lb))
        self.ub_tol = ROW_TOL * np.maximum(1.0, np.abs(model.var_ub))
        self.sides = np.where(np.isfinite(self.hi), np.abs(self.hi), 0.0) + np.where(
            np.isfinite(self.lo), np.abs(self.lo), 0.0
        )

    def worst(self, x: np.ndarray) -> tuple[float, str]:
        """The largest violation of ``x`` relative to its tolerance (≤ 1 holds), and what it is."""
        cm = self.model
        if not np.isfinite(x).all():
            return np.inf, "the solution has NaN or infinite entries"
        worst, what = 0.0, ""
        with np.errstate(invalid="ignore"):  # an infinite bound: inf / inf, never violated
            below = np.nan_to_num((cm.var_lb - x) / self.lb_tol, nan=-np.inf)
            above = np.nan_to_num((x - cm.var_ub) / self.ub_tol, nan=-np.inf)
        for ratio, side in ((below, "lower"), (above, "upper")):
            j = int(np.argmax(ratio)) if len(ratio) else 0
            if len(ratio) and ratio[j] > worst:
                worst, what = float(ratio[j]), f"the {side} bound of '{cm.var_names[j]}' by {ratio[j] * ROW_TOL:.3g}"
        if len(self.lo):
            act = self.A @ x
            mag = self.absA @ np.abs(x)
            for k, P, absP in self.quad:
                act[k] += x @ P @ x
                mag[k] += np.abs(x) @ absP @ np.abs(x)
            viol = np.maximum(self.lo - act, act - self.hi)
            ratio = viol / (ROW_TOL * np.maximum(1.0, np.maximum(mag, self.sides)))
            k = int(np.argmax(ratio))
            if ratio[k] > worst:
                worst, what = float(ratio[k]), f"row '{cm.rows[k].name}' by {viol[k]:.3g}"
        if len(self.integer):
            frac = np.abs(x[self.integer] - np.round(x[self.integer])) / INT_TOL
            t = int(np.argmax(frac))
            if frac[t] > worst:
                j = int(self.integer[t])
                worst, what = float(frac[t]), f"the integrality of '{cm.var_names[j]}' (value {x[j]:.9g})"
        return worst, what


@dataclass
class CheckedSession(Session):
    """A session whose every answer with a point is checked (see the module docstring); a linear
    MIP's answer also against the rays of its LP relaxation (`ldopt.solvers.rays`)."""

    inner: Session

    def __post_init__(self) -> None:
        self._check = FeasibilityCheck(self.model)
        cm = self.model
        self._mip_rays = bool((cm.var_type != "C").any()) and not any(r.is_quadratic for r in cm.rows)
        self._rays: RayCheck | None = None  # built at the first answer that needs it

    def solve(self, q: np.ndarray, cost: np.ndarray, start: np.ndarray | None = None) -> InstanceResult:
        res = self.inner.solve(q, cost, start)
        if res.status not in HAS_SOLUTION or res.x is None:
            return res
        worst, what = self._check.worst(np.asarray(res.x, dtype=float))
        if worst <= 1.0:
            if self._mip_rays:
                self._rays = self._rays or RayCheck(self.model)
                if self._rays.improving(np.asarray(q, dtype=float)):
                    return InstanceResult(
                        None, np.nan, UNBOUNDED,
                        f"the solver answered {res.status!s}, but the LP relaxation has a direction that improves "
                        "this cost without end from its feasible point: the model is unbounded",
                    )  # fmt: skip
            return res
        return InstanceResult(
            None,
            np.nan,
            VIOLATED,
            f"the solver answered {res.status!s} with a point that violates {what}; "
            "rescale the model's coefficients (e.g. none below 1e-9 next to large ones) or try another solver",
        )

    def close(self) -> None:
        self.inner.close()


def checked(session: Session) -> Session:
    """``session`` with its answers checked against its model's rows and bounds."""
    if isinstance(session, CheckedSession):
        return session
    return CheckedSession(session.model, session.options, session)
