"""Gurobi through gurobipy: linear, mixed-integer and convex quadratically constrained models."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ldopt.errors import SolverUnavailableError
from ldopt.model.compiled import CompiledModel
from ldopt.runtime.threads import solver_threads
from ldopt.solvers.base import (
    ERROR,
    FEASIBLE,
    INFEASIBLE,
    NO_SOLUTION,
    OPTIMAL,
    UNBOUNDED,
    Availability,
    Backend,
    InstanceResult,
    Session,
    SolverOptions,
)

SIZE_LIMIT_ERRNO = 10010  # "Model too large for size-limited license"


def _size_message(model: CompiledModel) -> str:
    nq = sum(r.is_quadratic for r in model.rows)
    return (
        f"gurobi is license-limited: the model has {model.num_vars} variables and "
        f"{len(model.rows)} constraints ({nq} quadratic), more than the size-limited pip license "
        "allows (about 2000 variables/constraints, less for quadratic models); install a full "
        "Gurobi license or use solver='highs' (linear) or solver='cvxpy' (quadratic)"
    )


class GurobiSession(Session):
    """A persistent gurobipy model; each solve sets only the objective coefficients."""

    def __init__(self, model: CompiledModel, options: SolverOptions) -> None:
        super().__init__(model, options)
        import gurobipy as gp  # noqa: PLC0415

        self._gp = gp
        try:
            env = gp.Env(empty=True)
            env.setParam("OutputFlag", int(options.verbose))
            env.start()
            m = gp.Model(env=env)
            self._build(m, model, options)
            m.optimize()  # a size-limited license fails here, not later mid-batch
        except gp.GurobiError as exc:
            if exc.errno == SIZE_LIMIT_ERRNO:
                raise SolverUnavailableError(_size_message(model)) from None
            raise SolverUnavailableError(f"gurobi failed to build the model: {exc}") from None
        self.env, self.m = env, m
        GRB = gp.GRB
        self._status = {
            GRB.OPTIMAL: OPTIMAL,
            GRB.INFEASIBLE: INFEASIBLE,
            GRB.UNBOUNDED: UNBOUNDED,
            GRB.INF_OR_UNBD: INFEASIBLE,
            GRB.TIME_LIMIT: NO_SOLUTION,
            GRB.SUBOPTIMAL: FEASIBLE,
            GRB.INTERRUPTED: NO_SOLUTION,
        }

    def _build(self, m, model: CompiledModel, options: SolverOptions) -> None:
        gp = self._gp
        vt = {"C": gp.GRB.CONTINUOUS, "I": gp.GRB.INTEGER, "B": gp.GRB.BINARY}
        self.is_mip = bool((model.var_type != "C").any())
        x = m.addMVar(
            model.num_vars,
            lb=np.where(np.isfinite(model.var_lb), model.var_lb, -gp.GRB.INFINITY),
            ub=np.where(np.isfinite(model.var_ub), model.var_ub, gp.GRB.INFINITY),
            vtype=[vt[t] for t in model.var_type],
        )
        lin = [k for k, r in enumerate(model.rows) if not r.is_quadratic]
        if lin:
            A = model.linear_matrix(lin)
            # each row scaled by a power of two (exact) to a largest coefficient near 1: Gurobi's
            # feasibility tolerance is absolute, so a row of 1e-3 coefficients would hold to 0.1%
            top = np.asarray(abs(A).max(axis=1).todense()).ravel()
            scale = np.exp2(-np.round(np.log2(np.where(top > 0, top, 1.0))))
            A = sp.diags(scale) @ A
            lo = np.array([model.rows[k].lo for k in lin]) * scale
            hi = np.array([model.rows[k].hi for k in lin]) * scale
            eq = lo == hi
            up = ~eq & np.isfinite(hi)
            dn = ~eq & np.isfinite(lo)
            for mask, sense, rhs in ((eq, "=", hi), (up, "<", hi), (dn, ">", lo)):
                if mask.any():
                    m.addMConstr(A[mask], x, sense, rhs[mask])
        for r in model.rows:
            if r.is_quadratic:
                m.addMQConstr(r.P, r.dense(model.num_vars), "<", r.hi, x, x, x)
        m.ModelSense = gp.GRB.MAXIMIZE if model.sense == "max" else gp.GRB.MINIMIZE
        m.Params.MIPGap = options.gap
        if options.gap == 0:  # exact means exact: no absolute gap, and the tightest tolerances
            m.Params.MIPGapAbs = 0.0
            m.Params.IntFeasTol = 1e-9
            m.Params.FeasibilityTol = 1e-9
            m.Params.OptimalityTol = 1e-9
        if options.time_limit is not None:
            m.Params.TimeLimit = options.time_limit
        # Gurobi's default is every core per solve, however many solves run at once
        m.Params.Threads = options.threads if options.threads is not None else solver_threads()
        for key, value in options.extra:
            m.setParam(key, value)
        self.x = x

    def solve(self, q: np.ndarray, cost: np.ndarray, start: np.ndarray | None = None) -> InstanceResult:
        m = self.m
        self.x.Obj = q
        if self.is_mip:
            self.x.Start = np.full(len(q), self._gp.GRB.UNDEFINED) if start is None else start
        m.optimize()
        if m.Status == self._gp.GRB.INF_OR_UNBD:  # ask once more, without dual reductions
            m.Params.DualReductions = 0
            m.optimize()
            m.Params.DualReductions = 1
        status = self._status.get(m.Status, ERROR)
        if status == NO_SOLUTION and m.SolCount > 0:
            status = FEASIBLE
        if status not in (OPTIMAL, FEASIBLE):
            return InstanceResult(None, np.nan, status, f"gurobi status {m.Status}")
        bound = m.ObjBound if self.is_mip else m.ObjVal
        return InstanceResult(np.asarray(self.x.X, dtype=float), float(bound), status)

    def close(self) -> None:
        self.m.dispose()
        self.env.dispose()


class GurobiBackend(Backend):
    name = "gurobi"
    handles_integer = True
    handles_quadratic = True
    install_hint = "pip install gurobipy (a size-limited license comes with it)"

    def installed(self) -> Availability:
        try:
            import gurobipy as gp  # noqa: PLC0415
        except ImportError:
            return Availability(False, f"gurobipy is not installed; {self.install_hint}")
        try:
            env = gp.Env(empty=True)
            env.setParam("OutputFlag", 0)
            env.start()
            env.dispose()
        except gp.GurobiError as exc:
            return Availability(False, f"gurobi has no usable license: {exc}")
        return Availability(True)

    def build(self, model: CompiledModel, options: SolverOptions) -> Session:
        return GurobiSession(model, options)
