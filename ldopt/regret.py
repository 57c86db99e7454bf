"""Full-problem solves over many instances, and the relative regret of predicted costs.

``regret_i = |f(x*(c_i), c_i) − f(x*(ĉ_i), c_i)|`` signed so that it is ≥ 0 in either sense, and
``relative regret = Σ_i regret_i / Σ_i |f(x*(c_i), c_i)|`` (the paper's metric).

Solves are spread over threads by default (HiGHS and Gurobi release the GIL while solving; each
thread owns its own persistent session), or over any ``concurrent.futures.Executor``.
"""

from __future__ import annotations

import threading
from concurrent.futures import Executor
from typing import Any

import numpy as np

from .errors import InputError, SolverError
from .parallel import chunks, worker_copy
from .problem import Problem
from .solution import Solution
from .threads import _pool, num_threads

_LOCAL = threading.local()


def _thread_problem(problem: Problem) -> Problem:
    """This thread's own :class:`Problem` over the same compiled arrays (own solver sessions)."""
    clones = getattr(_LOCAL, "clones", None)
    if clones is None:
        clones = _LOCAL.clones = {}
    key = id(problem.compiled)
    entry = clones.get(key)
    if entry is None or entry[0] is not problem.compiled:
        entry = clones[key] = (problem.compiled, Problem(problem.compiled))
    return entry[1]


def _solve_part(problem: Problem, costs: np.ndarray, solver: str, local: bool) -> Solution:
    return (_thread_problem(problem) if local else problem).solve(costs, solver=solver)


def _solve_part_in_worker(key: str, problem: Problem, costs: np.ndarray, solver: str) -> Solution:
    """A chunk on a worker, with the worker's kept copy of ``problem`` (sessions built once)."""
    return worker_copy(key, problem).solve(costs, solver=solver)


def _merge(parts: list[Solution]) -> Solution:
    if len(parts) == 1:
        return parts[0]
    cat = lambda name: np.concatenate([getattr(s, name) for s in parts])  # noqa: E731
    return Solution(cat("x"), cat("objective"), cat("bound"), cat("status"), cat("time"),
                    parts[0].solver, [m for s in parts for m in s.messages])


def solve_many(
    problem: Problem,
    costs: Any,
    solver: str = "auto",
    *,
    executor: Executor | None = None,
    chunk_size: int | None = None,
) -> Solution:
    """Solve every cost vector exactly, on this process's threads or over ``executor``."""
    c, _ = problem.check_costs(costs)
    B = len(c)
    if executor is not None:
        key = problem.compiled.fingerprint()
        futures = [executor.submit(_solve_part_in_worker, key, problem, c[s:e], solver)
                   for s, e in chunks(B, chunk_size)]
        return _merge([f.result() for f in futures])
    k = min(num_threads(), B)
    if k <= 1:
        return problem.solve(c, solver=solver)
    bounds = [B * i // k for i in range(k + 1)]
    futures = [_pool().submit(_solve_part, problem, c[bounds[i] : bounds[i + 1]], solver, True)
               for i in range(k)]
    return _merge([f.result() for f in futures])


def checked(sol: Solution, what: str) -> Solution:
    """``sol``, or a :class:`SolverError` naming the first instance without a solution."""
    if not sol.ok.all():
        bad = int(np.flatnonzero(~sol.ok)[0])
        raise SolverError(f"{what}: instance {bad} has no solution ({sol.status[bad]}: "
                          f"{sol.messages[bad] or 'no message'})")
    return sol


def optimal_objectives(problem: Problem, costs: Any, solver: str = "auto",
                       executor: Executor | None = None) -> np.ndarray:
    """``f(x*(c_i), c_i)`` for every instance: ``(B,)``."""
    return checked(solve_many(problem, costs, solver, executor=executor), "true costs").objective


def regrets(
    problem: Problem,
    pred_costs: Any,
    costs: Any,
    solver: str = "auto",
    *,
    optimum: np.ndarray | None = None,
    executor: Executor | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-instance regrets ``(B,)`` (≥ 0 up to solver tolerance) and the true optima ``(B,)``.

    ``optimum`` (the true optimal objectives, e.g. from an earlier call) skips their solves.
    """
    pred, _ = problem.check_costs(pred_costs, "pred_costs")
    c, _ = problem.check_costs(costs)
    if pred.shape != c.shape:
        raise InputError(f"pred_costs: expected shape {c.shape} (as costs), got {pred.shape}")
    if optimum is None:
        optimum = optimal_objectives(problem, c, solver, executor)
    optimum = np.asarray(optimum, dtype=float).reshape(-1)
    if optimum.shape != (len(c),):
        raise InputError(f"optimum: expected shape ({len(c)},), got {optimum.shape}")
    x_hat = checked(solve_many(problem, pred, solver, executor=executor), "predicted costs").x
    achieved = problem.objective(x_hat, c)
    sign = 1.0 if problem.sense == "max" else -1.0
    return sign * (optimum - achieved), optimum


def relative_regret(
    problem: Problem,
    pred_costs: Any,
    costs: Any,
    solver: str = "auto",
    *,
    optimum: np.ndarray | None = None,
    executor: Executor | None = None,
) -> float:
    """``Σ regret_i / Σ |f(x*(c_i), c_i)|`` — the paper's relative regret (a fraction, not %)."""
    r, opt = regrets(problem, pred_costs, costs, solver, optimum=optimum, executor=executor)
    denom = float(np.abs(opt).sum())
    if denom == 0:
        raise InputError("relative_regret: every optimal objective is 0, so the ratio is undefined")
    return float(r.sum() / denom)
