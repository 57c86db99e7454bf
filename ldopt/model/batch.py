"""Full-problem solves of many instances: spread over this process's threads (each with its own
solver session) or over any ``concurrent.futures.Executor``, under a time limit or gap, with MIP
starts, retrying instances that found no incumbent in time."""

from __future__ import annotations

from concurrent.futures import Executor
from typing import Any

import numpy as np

from ldopt import checks
from ldopt.arrays import as_batch
from ldopt.errors import InputError, SolverError
from ldopt.model.problem import Problem
from ldopt.model.solution import Solution
from ldopt.runtime.parallel import chunks, worker_copy
from ldopt.runtime.threads import map_ranges, num_threads, split
from ldopt.solvers.base import NO_SOLUTION

_RETRIES = 3  # re-solves, with 4× the time limit each, of instances with no incumbent in time


def check_problem(problem: Any, solver: Any) -> None:
    checks.instance("problem", problem, Problem, "an ldopt.Problem (ldopt.Problem.from_pyomo(model, cost))")
    checks.solver_name("solver", solver)


def _solve_part_in_worker(
    key: str, problem: Problem, costs: np.ndarray, solver: str, options: dict[str, Any], start: np.ndarray | None
) -> Solution:
    """A chunk on a worker, with the worker's kept copy of ``problem`` (sessions built once)."""
    return worker_copy(key, problem).solve(costs, solver=solver, start=start, **options)


def _merge(parts: list[Solution]) -> Solution:
    if len(parts) == 1:
        return parts[0]
    cat = lambda name: np.concatenate([getattr(s, name) for s in parts])  # noqa: E731
    return Solution(
        cat("x"),
        cat("objective"),
        cat("bound"),
        cat("status"),
        cat("time"),
        parts[0].solver,
        [m for s in parts for m in s.messages],
    )


def solve_many(
    problem: Problem,
    costs: Any,
    solver: str = "auto",
    *,
    executor: Executor | None = None,
    chunk_size: int | None = None,
    time_limit: float | None = None,
    gap: float = 0.0,
    start: Any = None,
) -> Solution:
    """Solve every cost vector (exactly, by default), on this process's threads or over ``executor``.

    ``time_limit`` (seconds per instance) and ``gap`` (relative) let large instances stop early
    with their incumbent and bound (status ``"feasible"``); an instance that has no incumbent yet
    when its time runs out is solved again with four times the limit (up to three times).
    ``start`` gives MIP solvers a point per instance to begin from.

    Parameters
    ----------
    problem
        The problem.
    costs
        Cost vectors ``(B, num_costs)``.
    solver
        A solver name or ``"auto"``.
    executor
        A ``concurrent.futures.Executor``, or ``None`` (threads).
    chunk_size
        Instances per task with an executor (``None``: about eight tasks).
    time_limit
        Seconds per instance, or ``None``.
    gap
        Relative MIP gap (0: exact).
    start
        Feasible points to start from, or ``None``.
    """
    check_problem(problem, solver)
    checks.executor_or_none("executor", executor)
    c, _ = problem.check_costs(costs)
    B = len(c)
    starts = None if start is None else as_batch(start, problem.num_vars, "start", allow_nan=True)[0]
    if starts is not None and len(starts) != B:
        raise InputError(f"start: expected {B} rows (one per instance), got {len(starts)}")
    sol = _solve_spread(problem, c, solver, executor, chunk_size, dict(time_limit=time_limit, gap=gap), starts)
    limit = time_limit or 0.0
    for _ in range(_RETRIES if time_limit is not None else 0):  # no incumbent in time: try longer
        late = np.flatnonzero(sol.status == NO_SOLUTION)
        if not len(late):
            break
        limit *= 4
        again = _solve_spread(
            problem,
            c[late],
            solver,
            executor,
            chunk_size,
            dict(time_limit=limit, gap=gap),
            None if starts is None else starts[late],
        )
        for name in ("x", "objective", "bound", "status", "time"):
            getattr(sol, name)[late] = getattr(again, name)
        for i, k in enumerate(late):
            sol.messages[k] = again.messages[i]
    return sol


def _solve_spread(
    problem: Problem,
    c: np.ndarray,
    solver: str,
    executor: Executor | None,
    chunk_size: int | None,
    options: dict[str, Any],
    starts: np.ndarray | None,
) -> Solution:
    part = lambda s, e: None if starts is None else starts[s:e]  # noqa: E731
    if executor is not None:
        key = problem.compiled.fingerprint()
        futures = [
            executor.submit(_solve_part_in_worker, key, problem, c[s:e], solver, options, part(s, e))
            for s, e in chunks(len(c), chunk_size)
        ]
        return _merge([f.result() for f in futures])
    return _merge(
        map_ranges(
            lambda s, e: problem.solve(c[s:e], solver=solver, start=part(s, e), **options), split(len(c), num_threads())
        )
    )


def checked(sol: Solution, what: str) -> Solution:
    """``sol``, or a [`SolverError`][ldopt.SolverError] naming the first instance without a solution.

    Parameters
    ----------
    sol
        A batch of solutions.
    what
        What was solved (for the message).
    """
    if not sol.ok.all():
        bad = int(np.flatnonzero(~sol.ok)[0])
        raise SolverError(
            f"{what}: instance {bad} has no solution ({sol.status[bad]}: {sol.messages[bad] or 'no message'})"
        )
    return sol
