"""Any Pyomo solver: ``solver="pyomo:<name>"`` (e.g. ``pyomo:appsi_highs``).

The user's model is cloned once (or rebuilt from the compiled arrays where it is not at hand: in a
worker process, for a block's subproblem); each solve sets the cost Param's values on it and calls
the solver. Slower than the array backends, and serialised within a process, but it runs whatever
Pyomo can run.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from ldopt.errors import SolverUnavailableError
from ldopt.model.compiled import CompiledModel
from ldopt.model.pyomo_build import linear_objective_model
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


def _solver(name: str) -> Any:
    import pyomo.environ as pyo  # noqa: PLC0415

    return pyo.SolverFactory(name)


_LOCK = threading.Lock()  # Pyomo's solver plugins capture output per process: one solve at a time


class PyomoSession(Session):
    """A Pyomo solver on a clone of the user's model, or — where that model is not at hand (a worker
    process, a block's subproblem) — on a model rebuilt from the compiled arrays. Solves of a process
    run one at a time (threads wait for each other): Pyomo's plugins redirect the process's output."""

    def __init__(self, model: CompiledModel, options: SolverOptions, solver_name: str) -> None:
        super().__init__(model, options)
        import pyomo.environ as pyo  # noqa: PLC0415
        from pyomo.opt import TerminationCondition as TC  # noqa: PLC0415

        self._pyo = pyo
        self.rebuilt = model.model is None
        if self.rebuilt:  # the objective is q·x over the same rows: set q, not the costs
            self.clone = linear_objective_model(model, model.sense, name="ldopt rebuilt model")
            self.vars = [self.clone.x[j] for j in range(model.num_vars)]
            self.params = [self.clone.c[j] for j in range(model.num_vars)]
        else:
            memo: dict[int, Any] = {}
            self.clone = model.model.clone(memo=memo)
            self.vars = [memo[id(v)] for v in model.var_data]
            self.params = [memo[id(p)] for p in model.cost_data]
        self.opt = _solver(solver_name)
        self.name = solver_name
        self.solver_options = options.extra_dict
        if options.time_limit is not None:
            self.solver_options.setdefault("time_limit", options.time_limit)
        try:  # a trial solve: solvers reject what they cannot handle (e.g. quadratic rows) here
            for p in self.params:
                p.set_value(0.0)
            with _LOCK:
                self.opt.solve(self.clone, load_solutions=False, options=self.solver_options)
        except Exception as exc:
            raise SolverUnavailableError(f"pyomo solver '{solver_name}' cannot solve this model: {exc}") from None
        self._status = {
            TC.optimal: OPTIMAL,
            TC.locallyOptimal: OPTIMAL,
            TC.globallyOptimal: OPTIMAL,
            TC.infeasible: INFEASIBLE,
            TC.unbounded: UNBOUNDED,
            TC.infeasibleOrUnbounded: INFEASIBLE,
            TC.maxTimeLimit: NO_SOLUTION,
            TC.feasible: FEASIBLE,
        }

    def solve(self, q: np.ndarray, cost: np.ndarray, start: np.ndarray | None = None) -> InstanceResult:
        with _LOCK:
            for p, value in zip(self.params, q if self.rebuilt else cost, strict=True):
                p.set_value(float(value))
            try:
                res = self.opt.solve(
                    self.clone, tee=self.options.verbose, load_solutions=False, options=self.solver_options
                )
            except Exception as exc:
                return InstanceResult(None, np.nan, ERROR, f"pyomo:{self.name}: {exc}")
            status = self._status.get(res.solver.termination_condition, ERROR)
            if status not in (OPTIMAL, FEASIBLE):
                return InstanceResult(None, np.nan, status, str(res.solver.termination_condition))
            self.clone.solutions.load_from(res)
            x = np.array([self._pyo.value(v) for v in self.vars], dtype=float)
        linear = float(q @ x)
        side = res.problem.upper_bound if self.model.sense == "max" else res.problem.lower_bound
        constant = 0.0 if self.rebuilt else self.model.k0 + float(self.model.r @ cost)
        try:
            bound = float(side) - constant
        except (TypeError, ValueError):
            bound = linear
        if not np.isfinite(bound):
            bound = linear
        return InstanceResult(x, bound, status)


class PyomoBackend(Backend):
    """``pyomo:<name>``: the Pyomo solver ``name`` on a clone of the user's model."""

    handles_integer = True
    handles_quadratic = True

    def __init__(self, solver_name: str) -> None:
        self.solver_name = solver_name
        self.name = f"pyomo:{solver_name}"

    def installed(self) -> Availability:
        try:
            opt = _solver(self.solver_name)
            ok = bool(opt.available(exception_flag=False))
        except Exception as exc:
            return Availability(False, f"pyomo solver '{self.solver_name}' failed to load: {exc}")
        if not ok:
            return Availability(
                False,
                f"pyomo solver '{self.solver_name}' is not available (not installed or not on "
                "PATH); e.g. solver='pyomo:appsi_highs' needs highspy",
            )
        return Availability(True)

    def build(self, model: CompiledModel, options: SolverOptions) -> Session:
        return PyomoSession(model, options, self.solver_name)
