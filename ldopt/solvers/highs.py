"""HiGHS through highspy: the embedded default for linear and mixed-integer linear models."""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

from ldopt.errors import InputError, SolverUnavailableError
from ldopt.model.compiled import CompiledModel
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


def _reset_highs_in_a_forked_child() -> None:
    """HiGHS keeps one global pool of worker threads; a forked child inherits the pool's state but not
    its threads, and its first parallel solve then waits for them forever (e.g. PyEPO's
    ``processes=2`` pools fork). Dropping the stale pool, without waiting, lets the child build its own."""
    highspy = sys.modules.get("highspy")
    reset = getattr(getattr(highspy, "Highs", None), "resetGlobalScheduler", None)
    if reset is not None:
        reset(False)


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=_reset_highs_in_a_forked_child)


def quiet_highs(verbose: bool = False) -> Any:
    """A new HiGHS instance with its console output set by ``verbose`` from the start.

    ``highspy.Highs()`` installs its Python callbacks in its constructor, which prints HiGHS's
    banner once per process before any option can be set; its core class, when this highspy has
    one, takes ``output_flag`` first and prints nothing unless asked."""
    import highspy  # noqa: PLC0415

    core = getattr(getattr(highspy, "_core", None), "_Highs", None)
    h = core() if core is not None and not verbose else highspy.Highs()
    h.setOptionValue("output_flag", bool(verbose))
    return h


def _refusal(model: CompiledModel, h: Any) -> str:
    """Why HiGHS refused ``model``'s arrays: the largest coefficient or bound against its limits."""

    def opt(key: str, default: float) -> float:
        value = h.getOptionValue(key)  # (status, value) in newer highspy, the value in older ones
        value = value[-1] if isinstance(value, tuple) else value
        return default if value is None else float(value)

    big, bound_big = opt("large_matrix_value", 1e15), opt("infinite_bound", 1e20)
    for row in model.rows:
        if len(row.coef) and np.abs(row.coef).max() >= big:
            j = int(np.argmax(np.abs(row.coef)))
            return (
                f"row '{row.name}' has the coefficient {row.coef[j]:g} on '{model.var_names[row.index[j]]}', at or "
                f"above HiGHS's large_matrix_value ({big:g}); rescale the model (or pass options="
                "{'large_matrix_value': ...})"
            )
    sides = np.array([v for r in model.rows for v in (r.lo, r.hi) if np.isfinite(v)] + [0.0])
    bounds = np.r_[model.var_lb[np.isfinite(model.var_lb)], model.var_ub[np.isfinite(model.var_ub)], 0.0]
    if max(np.abs(sides).max(), np.abs(bounds).max()) >= bound_big:
        return f"a row side or variable bound is at or above HiGHS's infinite_bound ({bound_big:g}); rescale the model"
    return "its arrays are invalid for HiGHS (set verbose=True to see HiGHS's log)"


class HighsSession(Session):
    """A persistent ``highspy.Highs`` instance; each solve changes only the column costs."""

    def __init__(self, model: CompiledModel, options: SolverOptions) -> None:
        super().__init__(model, options)
        import highspy  # noqa: PLC0415

        h = quiet_highs(bool(options.verbose))
        settings: list[tuple[str, Any]] = [("mip_rel_gap", float(options.gap))]
        if options.gap == 0:  # exact means exact: no absolute slack either (default 1e-6)
            settings.append(("mip_abs_gap", 0.0))
        if options.time_limit is not None:
            settings.append(("time_limit", float(options.time_limit)))
        if options.threads is not None:
            settings.append(("threads", int(options.threads)))
        for key, value in [*settings, *options.extra]:
            if h.setOptionValue(str(key), value) != highspy.HighsStatus.kOk:
                raise InputError(
                    f"options: HiGHS refused {key}={value!r} (an unknown option, or a value of the wrong type "
                    "or range); see https://ergo-code.github.io/HiGHS/dev/options/definitions/"
                )
        n = model.num_vars
        A = model.linear_matrix().tocsc()
        lp = highspy.HighsLp()
        lp.num_col_ = n
        lp.num_row_ = A.shape[0]
        lp.col_cost_ = np.zeros(n)
        lp.col_lower_ = model.var_lb
        lp.col_upper_ = model.var_ub
        lp.row_lower_ = np.array([r.lo for r in model.rows], dtype=float)
        lp.row_upper_ = np.array([r.hi for r in model.rows], dtype=float)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = A.indptr.astype(np.int32)
        lp.a_matrix_.index_ = A.indices.astype(np.int32)
        lp.a_matrix_.value_ = A.data
        self.is_mip = bool((model.var_type != "C").any())
        if self.is_mip:
            vt = highspy.HighsVarType
            lp.integrality_ = [vt.kContinuous if t == "C" else vt.kInteger for t in model.var_type]
        lp.sense_ = highspy.ObjSense.kMaximize if model.sense == "max" else highspy.ObjSense.kMinimize
        if h.passModel(lp) == highspy.HighsStatus.kError:
            raise SolverUnavailableError(f"HiGHS refused the model: {_refusal(model, h)}")
        self.highs = h
        self._idx = np.arange(n, dtype=np.int32)
        self._feasible = int(highspy.SolutionStatus.kSolutionStatusFeasible)
        ms = highspy.HighsModelStatus
        self._ambiguous = ms.kUnboundedOrInfeasible
        self._presolve = str(options.extra_dict.get("presolve", "choose"))
        self._status = {
            ms.kOptimal: OPTIMAL,
            ms.kInfeasible: INFEASIBLE,
            ms.kUnbounded: UNBOUNDED,
            ms.kUnboundedOrInfeasible: INFEASIBLE,
            ms.kTimeLimit: NO_SOLUTION,
            ms.kIterationLimit: NO_SOLUTION,
            ms.kSolutionLimit: NO_SOLUTION,
            ms.kInterrupt: NO_SOLUTION,
        }

    def solve(self, q: np.ndarray, cost: np.ndarray, start: np.ndarray | None = None) -> InstanceResult:
        h = self.highs
        h.changeColsCost(len(q), self._idx, q)
        if start is not None and self.is_mip:
            h.setSolution(len(self._idx), self._idx, np.asarray(start, dtype=float))
        h.run()
        raw = h.getModelStatus()
        if raw == self._ambiguous:  # ask once more, without presolve
            h.setOptionValue("presolve", "off")
            h.run()
            raw = h.getModelStatus()
            h.setOptionValue("presolve", self._presolve)
        status = self._status.get(raw, ERROR)
        info = h.getInfo()
        if status == NO_SOLUTION and info.primal_solution_status == self._feasible:
            status = FEASIBLE
        if status not in (OPTIMAL, FEASIBLE):
            return InstanceResult(None, np.nan, status, h.modelStatusToString(raw))
        x = np.asarray(h.getSolution().col_value, dtype=float)
        bound = info.mip_dual_bound if self.is_mip else info.objective_function_value
        return InstanceResult(x, float(bound), status)


class HighsBackend(Backend):
    name = "highs"
    handles_integer = True
    handles_quadratic = False
    install_hint = "pip install highspy"

    def installed(self) -> Availability:
        try:
            import highspy  # noqa: F401, PLC0415
        except ImportError:
            return Availability(False, f"highspy is not installed; {self.install_hint}")
        return Availability(True)

    def build(self, model: CompiledModel, options: SolverOptions) -> Session:
        return HighsSession(model, options)
