"""The LP relaxation of a problem, solved warm per thread from one start basis: bounds, row
prices and good decisions without exact solves.

Where exact optima are out of reach (the MKP at 10,000 items × 50 rows: HiGHS is not optimal
after 30 s), [`lp_optima()`][ldopt.evaluate.lp_relaxation.lp_optima] gives every instance a certified
interval from one warm HiGHS LP solve: the LP's optimum bounds the optimum, and its point —
rounded, repaired by the primal heuristic (items ranked by value over their capacity shares, and
over their prices at the LP's row duals, Pirkul's surrogate ratio), then improved by adding or
swapping items among those of best reduced cost — is a feasible decision. The bound is the LP dual
objective of the row prices the solver returns, so it holds whatever the solver's tolerances, and
is rounded down to an integer where every feasible objective is one
([`integral_bounds()`][ldopt.evaluate.regret.integral_bounds]).
[`ldopt.evaluate.regret.report()`][ldopt.evaluate.regret.report] turns the interval into a certified regret; the
same call on predicted costs gives the decisions.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ldopt import checks
from ldopt.arrays import as_batch
from ldopt.errors import InputError, SolverError
from ldopt.evaluate.optima import Optima, integral_bounds
from ldopt.model.compiled import CompiledModel
from ldopt.model.primal import PrimalHeuristic
from ldopt.model.problem import Problem
from ldopt.runtime import cache as ldcache
from ldopt.runtime.threads import map_ranges, num_threads, split
from ldopt.solvers.base import OPTIMAL, InstanceResult, SolverOptions
from ldopt.solvers.highs import HighsSession

CANDIDATES = 1000
"""The items of best reduced cost that the local search after the repair may add."""

_local = threading.local()  # one LP session per thread and compiled model (HiGHS is not shared)


@dataclass(frozen=True)
class LPRelaxation:
    """The LP relaxation's optima of ``b`` instances in the max form (NaN rows where a solve was
    not optimal).

    Parameters
    ----------
    value
        The optima ``(b,)`` of ``max q·x``, as the dual objective of the row prices: bounds that
        hold whatever the solver's tolerances.
    x
        Optimal points ``(b, n)``.
    duals
        Row duals ``(b, rows)``.
    reduced
        The reduced costs ``q − Aᵀy`` ``(b, n)`` of those duals.
    optimal
        Whether each solve was optimal ``(b,)``.
    """

    value: np.ndarray
    x: np.ndarray
    duals: np.ndarray
    reduced: np.ndarray
    optimal: np.ndarray


def relaxed_problem(problem: Problem) -> Problem:
    """The LP relaxation of ``problem`` as a problem of its own: the same rows, bounds and cost
    map, every variable continuous (any solver; the LP protocol of PyEPO's MPAX examples, e.g.
    ``lt.FullLoss(relaxed_problem(p), "spo+")``).

    Parameters
    ----------
    problem
        The problem.
    """
    cm = problem.compiled
    return Problem(replace(cm, var_type=np.full(cm.num_vars, "C")))


@dataclass
class _Start:
    """A thread's HiGHS session of an LP relaxation and the basis every solve starts from."""

    session: HighsSession
    basis: Any  # the optimal basis of max 0·x (a feasible vertex), or None where there is none

    def solve(self, q: np.ndarray) -> InstanceResult:
        """Solve for ``q`` from the start basis (a cold start without one): the answer depends on
        ``q`` alone, not on what this thread solved before."""
        self.session.highs.clearSolver()  # no state of the last solve (its edge weights, factors) left
        if self.basis is not None:
            self.session.highs.setBasis(self.basis)
        return self.session.solve(q, q)


def _session(cm: CompiledModel) -> _Start:
    """This thread's HiGHS session of ``cm``'s LP relaxation (max form) and its start basis."""
    sessions: dict[int, tuple[weakref.ref[CompiledModel], _Start]] | None = getattr(_local, "sessions", None)
    if sessions is None:
        sessions = _local.sessions = {}
    entry = sessions.get(id(cm))
    if entry is None or entry[0]() is not cm:
        for key in [k for k, (ref, _) in sessions.items() if ref() is None]:  # models gone: their sessions too
            del sessions[key]
        quadratic = [r.name for r in cm.rows if r.is_quadratic]
        if quadratic:
            raise InputError(
                f"the LP relaxation: expected linear rows, got the quadratic row '{quadratic[0]}' "
                "(mu0='lp' and lp_optima need a linear model; use mu0='symmetric' or an exact solver)"
            )
        relaxed = replace(cm, var_type=np.full(cm.num_vars, "C"), sense="max")  # q arrives in the max form
        session = HighsSession(relaxed, SolverOptions())
        zero = np.zeros(cm.num_vars)
        session.solve(zero, zero)  # any feasible vertex: one start for every instance, whatever the thread
        basis = session.highs.getBasis()
        entry = sessions[id(cm)] = (weakref.ref(cm), _Start(session, basis if basis.valid else None))
    return entry[1]


def solve_relaxation(problem: Problem, q: np.ndarray) -> LPRelaxation:
    """The LP relaxation of ``problem`` for objectives ``q`` ``(b, n)`` (max form), each instance
    solved by this thread's HiGHS session from one start basis (a feasible vertex, the optimum of
    ``max 0·x``): the same answer whatever thread, order or batch an instance is solved in (a
    chain of warm starts would save some time, at the price of points and prices that change with
    the thread count on degenerate LPs).

    Parameters
    ----------
    problem
        The problem (linear rows).
    q
        Objectives ``(b, n)`` in the max form.
    """
    cm = problem.compiled
    start = _session(cm)
    b, n = q.shape
    value, x, reduced = np.full(b, np.nan), np.full((b, n), np.nan), np.full((b, n), np.nan)
    y = np.full((b, problem.num_constraints), np.nan)
    ok = np.zeros(b, dtype=bool)
    for i in range(b):
        res = start.solve(q[i])
        if res.status is OPTIMAL and res.x is not None:
            ok[i] = True
            x[i] = res.x
            y[i] = np.asarray(start.session.highs.getSolution().row_dual, dtype=float)
    if ok.any():
        value[ok], y[ok], reduced[ok] = _dual_bound(cm, q[ok], y[ok])
    return LPRelaxation(value, x, y, reduced, ok)


def _dual_bound(cm: CompiledModel, q: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The LP dual objective of the row prices ``y`` (``(b, rows)``, max form; a price of the wrong
    sign for a one-sided row, within the solver's tolerance, set to 0), those prices and their
    reduced costs: a bound
    on the LP's optimum that holds whatever the solver's tolerances, by weak duality,
    ``q·x = yᵀAx + rᵀx ≤ Σ_k (y_k⁺ hi_k − y_k⁻ lo_k) + Σ_j (r_j⁺ ub_j − r_j⁻ lb_j)``, ``r = q − Aᵀy``."""
    lo = np.array([r.lo for r in cm.rows], dtype=float)
    hi = np.array([r.hi for r in cm.rows], dtype=float)
    y = np.where(np.isfinite(hi), y, np.minimum(y, 0.0))
    y = np.where(np.isfinite(lo), y, np.maximum(y, 0.0))
    r = q - np.asarray(cm.linear_matrix().T @ y.T).T

    def side(v: np.ndarray, up: np.ndarray, down: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):  # 0 × inf: a zero price on an open side costs nothing
            return np.where(v > 0, v * up, 0.0) + np.where(v < 0, v * down, 0.0)

    return side(y, hi, lo).sum(axis=1) + side(r, cm.var_ub, cm.var_lb).sum(axis=1), y, r


def offer_lp_point(
    heuristic: PrimalHeuristic, q: np.ndarray, lp: LPRelaxation, p_val: np.ndarray, p_x: np.ndarray
) -> None:
    """Offer the LP's points to the primal ``heuristic`` (see the module docstring): a point
    feasible as it stands, else its rounding repaired twice (capacity shares, then the row duals)
    and the better one improved among the [`CANDIDATES`][ldopt.evaluate.lp_relaxation.CANDIDATES]."""
    ok = np.flatnonzero(lp.optimal)
    if not len(ok):
        return
    X = lp.x[ok][:, None, :]
    heuristic.update(q[ok], X, p_val, p_x, ok)
    heuristic.update(q[ok], X, p_val, p_x, ok, prices=lp.duals[ok])
    size = min(CANDIDATES, q.shape[1])
    best = np.argpartition(-lp.reduced[ok], size - 1, axis=1)[:, :size]
    heuristic.polish(q[ok], p_val, p_x, ok, best)


def _chunk(problem: Problem, heuristic: PrimalHeuristic, q: np.ndarray) -> tuple[np.ndarray, ...]:
    lp = solve_relaxation(problem, q)
    p_val, p_x = np.full(len(q), -np.inf), np.full(q.shape, np.nan)
    offer_lp_point(heuristic, q, lp, p_val, p_x)
    return lp.value, p_val, p_x, lp.x


def lp_optima(problem: Problem, costs: Any, *, cache: str | Path | None = None) -> tuple[Optima, np.ndarray]:
    """Every instance's LP bound and the best decision the LP's point gives (see the module
    docstring), on this process's threads: an [`Optima`][ldopt.evaluate.regret.Optima] (user's sense; NaN
    where the LP is not optimal or no rounding was feasible) and the LP's points ``(B, n)``.

    ``regret.report(lp_optima(p, C)[0].improve(x̂, f), f)`` certifies the regret of decisions
    ``x̂`` worth ``f``; ``lp_optima(p, predicted)[0].x`` are the decisions for predicted costs; the
    LP's points give the LP-relaxation protocol (decisions and optima of the relaxation).
    ``cache`` keeps them as [`optima()`][ldopt.evaluate.optima.optima]'s does, keyed by the problem
    and the costs, so that a resumed run does not solve the same instances again.

    Parameters
    ----------
    problem
        The problem (linear rows; the repair needs binary variables and nonnegative rows).
    costs
        Cost vectors ``(B, num_costs)``.
    cache
        A folder or ``.npz`` path to keep them in, or ``None``.
    """
    c, _ = as_batch(costs, problem.num_costs, "costs")
    cache = checks.path_or_none("cache", cache)
    expect: dict[str, Any] = dict(problem=problem.compiled.fingerprint(), costs=ldcache.digest(c))
    path = ldcache.entry_path(cache, "lp_optima", ldcache.digest(expect, "lp_optima")) if cache is not None else None
    hit = ldcache.load_or_recompute(path, expect, _decode) if path is not None else None
    if hit is not None:
        value, bound, x, lp_x = hit
        return integral_bounds(problem, c, Optima(problem.sense, value, bound, x)), lp_x
    q = problem.sign * problem.objective_coefficients(c)
    offset = problem.compiled.k0 + c @ problem.compiled.r
    heuristic = PrimalHeuristic(problem)
    parts = map_ranges(lambda s, e: _chunk(problem, heuristic, q[s:e]), split(len(q), 4 * num_threads()))
    bound, val, x, lp_x = (np.concatenate(a) for a in zip(*parts, strict=True))
    bad = np.flatnonzero(~np.isfinite(bound))
    if len(bad):
        raise SolverError(
            f"lp_optima: the LP relaxation has no optimum (infeasible, or unbounded for these costs) for instances "
            f"{bad[:10].tolist()}{' …' if len(bad) > 10 else ''} ({len(bad)} of {len(q)}); expected a feasible model "
            "bounded for every cost vector"
        )
    sign = problem.sign
    value, bound = np.where(np.isfinite(val), sign * val + offset, np.nan), sign * bound + offset
    if path is not None:  # the solves are done: a failed write keeps them, unsaved
        arrays = {"value": value, "bound": bound, "x": x, "lp_x": lp_x}
        ldcache.save_or_warn(path, arrays, expect, "the LP optima are used without being cached", stacklevel=2)
    return integral_bounds(problem, c, Optima(problem.sense, value, bound, x)), lp_x


def _decode(arrays: dict[str, np.ndarray], header: dict[str, Any]) -> tuple[np.ndarray, ...]:
    return arrays["value"], arrays["bound"], arrays["x"], arrays["lp_x"]
