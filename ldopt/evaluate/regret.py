"""The relative regret of predicted costs, with a certified interval when optima are not proven.

``regret_i = |f(x*(c_i), c_i) − f(x̂_i, c_i)|`` signed so that it is ≥ 0 in either sense, where
``x̂_i`` is the decision taken for the predicted costs, and ``relative regret = Σ_i regret_i /
Σ_i |f(x*(c_i), c_i)|`` (the paper's metric).

Large instances need not be solved to optimality: [`optima()`][ldopt.evaluate.optima.optima] keeps the best
known objective and a certified bound per instance, and every decision evaluated later improves
the former; [`evaluate()`][ldopt.evaluate.regret.evaluate] reports the relative regret with a certified
interval — ``2.31% (≤ 2.36%)`` — whatever the unproven optima are. Solves use threads or any
``concurrent.futures.Executor`` ([`solve_many()`][ldopt.model.batch.solve_many], re-exported here).
"""

from __future__ import annotations

from concurrent.futures import Executor
from typing import Any

import numpy as np

from ldopt.arrays import vector
from ldopt.errors import InputError
from ldopt.evaluate.optima import Optima, integral_bounds, optima, optimal_objectives
from ldopt.evaluate.regret_report import RegretReport, report
from ldopt.model.batch import check_problem, checked, solve_many
from ldopt.model.implied_bounds import interval, into
from ldopt.model.problem import Problem

__all__ = [
    "Optima",
    "RegretReport",
    "checked",
    "decisions",
    "evaluate",
    "integral_bounds",
    "optima",
    "optimal_objectives",
    "regrets",
    "relative_regret",
    "report",
    "solve_many",
]


def decisions(
    problem: Problem,
    pred_costs: Any,
    solver: str = "auto",
    *,
    time_limit: float | None = None,
    gap: float = 0.0,
    start: Any = None,
    executor: Executor | None = None,
) -> np.ndarray:
    """The decisions ``x̂`` ``(B, num_vars)`` a solver takes for predicted costs (feasible points).

    Parameters
    ----------
    problem
        The problem.
    pred_costs
        Predicted costs ``(B, num_costs)`` (arrays or tensors).
    solver
        A solver name or ``"auto"``.
    time_limit
        Seconds per instance, or ``None``.
    gap
        Relative MIP gap (0: exact).
    start
        Feasible points to start from (e.g. the previous decisions), or ``None``.
    executor
        A ``concurrent.futures.Executor``, or ``None`` (threads).
    """
    check_problem(problem, solver)
    pred, _ = problem.check_costs(pred_costs, "pred_costs")
    sol = solve_many(problem, pred, solver, executor=executor, time_limit=time_limit, gap=gap, start=start)
    _outside_the_domain(problem, pred, sol.status == "unbounded")
    return checked(sol, "predicted costs").x


def _outside_the_domain(problem: Problem, pred: np.ndarray, unbounded: np.ndarray) -> None:
    """Refuse, naming the domain, predictions outside the cost Param's declared domain that left
    the problem unbounded (a pattern that pays to be cut, where the model declares costs ≥ 0)."""
    lo, hi = problem.compiled.cost_range
    outside = unbounded & ((pred < lo) | (pred > hi)).any(axis=1)
    if outside.any():
        b = int(np.flatnonzero(outside)[0])
        k = int(np.flatnonzero((pred[b] < lo) | (pred[b] > hi))[0])
        raise InputError(
            f"pred_costs: expected costs in {interval(lo, hi)}, the cost Param's domain, got {pred[b, k]:g} for "
            f"{problem.cost_names[k]} of instance {b}, where the problem is unbounded ({int(outside.sum())} of "
            f"{len(pred)} instances); map the predictions into the domain, e.g. {into(lo, hi)} of a model's output z"
        )


def evaluate(
    problem: Problem,
    pred_costs: Any,
    costs: Any,
    solver: str = "auto",
    *,
    optima: Optima | np.ndarray | None = None,
    time_limit: float | None = None,
    gap: float = 0.0,
    start: Any = None,
    executor: Executor | None = None,
) -> RegretReport:
    """The relative regret of predicted costs with its certified interval (see the module docstring).

    ``optima``: an [`Optima`][ldopt.evaluate.regret.Optima] (or the exact optimal objectives) of
    ``costs`` from an earlier call; solved here otherwise, under the same ``time_limit`` and ``gap`` as the decisions.

    Parameters
    ----------
    problem
        The problem.
    pred_costs
        Predicted costs ``(B, num_costs)``.
    costs
        True costs ``(B, num_costs)``.
    solver
        A solver name or ``"auto"``.
    optima
        The true optima (an ``Optima`` or values), or ``None`` (solved here).
    time_limit
        Seconds per instance, or ``None``.
    gap
        Relative MIP gap (0: exact).
    start
        Feasible points to start the decisions from, or ``None``.
    executor
        A ``concurrent.futures.Executor``, or ``None`` (threads).
    """
    check_problem(problem, solver)
    pred, _ = problem.check_costs(pred_costs, "pred_costs")
    c, _ = problem.check_costs(costs)
    if pred.shape != c.shape:
        raise InputError(f"pred_costs: expected shape {c.shape} (as costs), got {pred.shape}")
    opt = _as_optima(problem, c, optima, solver, time_limit, gap, executor)
    x_hat = decisions(problem, pred, solver, time_limit=time_limit, gap=gap, start=start, executor=executor)
    return report(opt, problem.objective(x_hat, c))


def _as_optima(
    problem: Problem,
    c: np.ndarray,
    given: Optima | np.ndarray | None,
    solver: str,
    time_limit: float | None,
    gap: float,
    executor: Executor | None,
) -> Optima:
    if given is None:
        return optima(problem, c, solver, time_limit=time_limit, gap=gap, executor=executor)
    if isinstance(given, Optima):
        if given.value.shape != (len(c),):
            raise InputError(f"optima: expected {len(c)} instances, got {given.value.shape[0]}")
        return given
    value = vector(given, len(c), "optimum")
    return Optima(problem.sense, value, value, np.full((len(c), problem.num_vars), np.nan))


def regrets(
    problem: Problem,
    pred_costs: Any,
    costs: Any,
    solver: str = "auto",
    *,
    optima: Optima | np.ndarray | None = None,
    executor: Executor | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-instance regrets ``(B,)`` (≥ 0 up to solver tolerance) and the true optima ``(B,)``.

    ``optima`` (the true optimal objectives, or an [`Optima`][ldopt.evaluate.regret.Optima], e.g. from an earlier call)
    skips their solves.

    Parameters
    ----------
    problem
        The problem.
    pred_costs
        Predicted costs ``(B, num_costs)``.
    costs
        True costs ``(B, num_costs)``.
    solver
        A solver name or ``"auto"``.
    optima
        The true optima, or ``None`` (solved here).
    executor
        A ``concurrent.futures.Executor``, or ``None`` (threads).
    """
    check_problem(problem, solver)
    pred, _ = problem.check_costs(pred_costs, "pred_costs")
    c, _ = problem.check_costs(costs)
    if pred.shape != c.shape:
        raise InputError(f"pred_costs: expected shape {c.shape} (as costs), got {pred.shape}")
    opt = _as_optima(problem, c, optima, solver, None, 0.0, executor)
    achieved = problem.objective(decisions(problem, pred, solver, executor=executor), c)
    return opt.sign * (opt.value - achieved), opt.value


def relative_regret(
    problem: Problem,
    pred_costs: Any,
    costs: Any,
    solver: str = "auto",
    *,
    optima: Optima | np.ndarray | None = None,
    executor: Executor | None = None,
) -> float:
    """``Σ regret_i / Σ |f(x*(c_i), c_i)|`` — the paper's relative regret (a fraction, not %).

    Parameters
    ----------
    problem
        The problem.
    pred_costs
        Predicted costs ``(B, num_costs)`` (arrays or tensors).
    costs
        True costs ``(B, num_costs)``.
    solver
        A solver name or ``"auto"``.
    optima
        The true optima, or ``None`` (solved here).
    executor
        A ``concurrent.futures.Executor``, or ``None`` (threads).
    """
    check_problem(problem, solver)
    r, opt = regrets(problem, pred_costs, costs, solver, optima=optima, executor=executor)
    if len(r) == 0:
        raise InputError("relative_regret: expected at least one instance, got an empty batch")
    denom = float(np.abs(opt).sum())
    if denom == 0:
        raise InputError("relative_regret: every optimal objective is 0, so the ratio is undefined")
    return float(r.sum() / denom)
