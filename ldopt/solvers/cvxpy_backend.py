"""CVXPY: convex quadratically constrained models, compiled once with the costs as a DPP Parameter.

Clarabel is the default conic solver; integer variables need a mixed-integer solver that CVXPY
finds installed (``options={"solver": "HIGHS"}`` or ``"GUROBI"``), which is chosen automatically.
"""

from __future__ import annotations

import numpy as np

from ldopt.errors import SolverUnavailableError
from ldopt.model.compiled import CompiledModel
from ldopt.solvers.base import (
    ERROR,
    FEASIBLE,
    INFEASIBLE,
    OPTIMAL,
    UNBOUNDED,
    Availability,
    Backend,
    InstanceResult,
    Session,
    SolverOptions,
)

_MIP_SOLVERS = ("HIGHS", "GUROBI", "SCIP")  # in order of preference, where installed
_MIQCP_SOLVERS = ("GUROBI", "SCIP")


def psd_factor(P: np.ndarray) -> np.ndarray:
    """A matrix ``F`` with ``F'F = P`` for a symmetric PSD ``P``: Cholesky's ``L'`` when ``P`` is
    definite, else from the eigendecomposition (rows of zero weight dropped)."""
    try:
        return np.linalg.cholesky(P).T
    except np.linalg.LinAlgError:
        pass
    w, V = np.linalg.eigh(P)
    keep = w > 1e-12 * max(1.0, float(np.abs(w).max()))
    return (V[:, keep] * np.sqrt(w[keep])).T


def _pick_solver(model: CompiledModel, requested: str | None) -> str:
    import cvxpy as cp  # noqa: PLC0415

    installed = set(cp.installed_solvers())
    if requested:
        name = requested.upper()
        if name not in installed:
            raise SolverUnavailableError(f"cvxpy solver '{requested}' is not installed; installed: {sorted(installed)}")
        return name
    if not (model.var_type != "C").any():
        if "CLARABEL" not in installed:
            raise SolverUnavailableError("cvxpy's Clarabel is not installed; pip install clarabel")
        return "CLARABEL"
    quad = any(r.is_quadratic for r in model.rows)
    for name in _MIQCP_SOLVERS if quad else _MIP_SOLVERS:
        if name in installed:
            return name
    raise SolverUnavailableError(
        "cvxpy has no installed mixed-integer solver for this model (Clarabel is continuous only); "
        "use solver='highs' or 'gurobi', or install one CVXPY supports"
    )


class CvxpySession(Session):
    """One CVXPY problem whose objective vector is a ``Parameter``; re-solves reuse the canon."""

    def __init__(self, model: CompiledModel, options: SolverOptions) -> None:
        super().__init__(model, options)
        import cvxpy as cp  # noqa: PLC0415

        self._cp = cp
        extra = options.extra_dict
        self.solver = _pick_solver(model, extra.pop("solver", None))
        self.solver_kwargs = extra
        n = model.num_vars
        ints = np.flatnonzero(model.var_type != "C")
        cons = []
        if len(ints) == n:
            x = cp.Variable(n, integer=True)
        else:
            x = cp.Variable(n)
            if len(ints):  # mixed: tie the integer entries to an integer variable
                cons.append(x[ints] == cp.Variable(len(ints), integer=True))
        lb, ub = model.var_lb, model.var_ub
        if np.isfinite(lb).any():
            k = np.flatnonzero(np.isfinite(lb))
            cons.append(x[k] >= lb[k])
        if np.isfinite(ub).any():
            k = np.flatnonzero(np.isfinite(ub))
            cons.append(x[k] <= ub[k])
        lin = [k for k, r in enumerate(model.rows) if not r.is_quadratic]
        if lin:
            A = model.linear_matrix(lin)
            lo = np.array([model.rows[k].lo for k in lin])
            hi = np.array([model.rows[k].hi for k in lin])
            eq = lo == hi
            for mask, op in ((eq, "eq"), (~eq & np.isfinite(hi), "le"), (~eq & np.isfinite(lo), "ge")):
                if mask.any():
                    Ax = A[mask] @ x
                    cons.append(Ax == hi[mask] if op == "eq" else (Ax <= hi[mask] if op == "le" else Ax >= lo[mask]))
        for r in model.rows:
            if r.is_quadratic:
                F = psd_factor(r.matrix)
                if len(r.index):
                    cons.append(cp.sum_squares(F @ x) + r.dense(n) @ x <= r.hi)
                else:  # ||F x|| <= sqrt(u): a second-order cone, ~6x faster in Clarabel than squares
                    cons.append(cp.SOC(cp.Constant(np.sqrt(max(r.hi, 0.0))), F @ x))
        self.boxed = bool(np.isfinite(model.var_lb).all() and np.isfinite(model.var_ub).all())
        self.q = cp.Parameter(n)
        objective = cp.Maximize(self.q @ x) if model.sense == "max" else cp.Minimize(self.q @ x)
        self.prob = cp.Problem(objective, cons)
        self.x = x
        if options.time_limit is not None and self.solver == "CLARABEL":
            self.solver_kwargs.setdefault("time_limit", options.time_limit)
        if self.solver in ("GUROBI", "HIGHS") and (model.var_type != "C").any():
            key = "MIPGap" if self.solver == "GUROBI" else "mip_rel_gap"
            self.solver_kwargs.setdefault(key, options.gap)
        self._status = {
            cp.OPTIMAL: OPTIMAL,
            cp.OPTIMAL_INACCURATE: FEASIBLE,
            cp.INFEASIBLE: INFEASIBLE,
            cp.INFEASIBLE_INACCURATE: INFEASIBLE,
            cp.UNBOUNDED: UNBOUNDED,
            cp.UNBOUNDED_INACCURATE: UNBOUNDED,
        }

    def solve(self, q: np.ndarray, cost: np.ndarray, start: np.ndarray | None = None) -> InstanceResult:
        cp = self._cp
        self.q.value = q
        try:
            self.prob.solve(solver=self.solver, verbose=self.options.verbose, **self.solver_kwargs)
        except cp.error.SolverError as exc:
            return InstanceResult(None, np.nan, ERROR, str(exc))
        except ValueError as exc:  # CVXPY cannot unpack the solver's answer (e.g. HiGHS's UNKNOWN)
            return InstanceResult(None, np.nan, ERROR, f"{self.solver} via CVXPY returned no usable answer: {exc}")
        status = self._status.get(self.prob.status, ERROR)
        if status == UNBOUNDED and self.boxed:  # impossible in exact arithmetic: numerical trouble
            return InstanceResult(
                None,
                np.nan,
                ERROR,
                f"{self.solver} reported a box-bounded model unbounded (numerical trouble, e.g. coefficients "
                "spanning many orders of magnitude); rescale the model or use solver='highs' or 'gurobi'",
            )
        if status not in (OPTIMAL, FEASIBLE) or self.x.value is None:
            return InstanceResult(None, np.nan, status, str(self.prob.status))
        return InstanceResult(np.asarray(self.x.value, dtype=float), float(self.prob.value), status)


class CvxpyBackend(Backend):
    name = "cvxpy"
    handles_integer = True
    handles_quadratic = True
    install_hint = "pip install cvxpy clarabel"

    def installed(self) -> Availability:
        try:
            import cvxpy  # noqa: F401, PLC0415
        except ImportError:
            return Availability(False, f"cvxpy is not installed; {self.install_hint}")
        return Availability(True)

    def availability(self, model: CompiledModel) -> Availability:
        base = super().availability(model)
        if not base:
            return base
        try:
            _pick_solver(model, None)
        except SolverUnavailableError as exc:
            return Availability(False, str(exc))
        return Availability(True)

    def build(self, model: CompiledModel, options: SolverOptions) -> Session:
        return CvxpySession(model, options)
