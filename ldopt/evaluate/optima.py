"""The best known optimum of every instance with a certified bound on it (user's sense)."""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ldopt import checks
from ldopt.arrays import vector
from ldopt.errors import InputError
from ldopt.model.batch import check_problem, checked, solve_many
from ldopt.model.compiled import sense_sign
from ldopt.model.problem import Problem
from ldopt.runtime import cache as ldcache

_PROVEN = 1e-9  # relative gap under which an optimum counts as proven
_ROUNDING = 1e-6  # relative slack before a bound is rounded to an integer (float error in computing it)


@dataclass(frozen=True)
class Optima:
    """The best known optimum of every instance and a certified bound on it (user's sense).

    ``value`` is the objective of the best feasible solution known (``x``); ``bound`` bounds the
    true optimum from the other side (above for a maximisation). Where the two meet the optimum
    is proven.

    Parameters
    ----------
    sense
        The problem's sense.
    value
        The best known objective per instance.
    bound
        A certified bound on the optimum per instance (user's sense).
    x
        The best known solutions ``(B, n)``.
    """

    sense: str
    value: np.ndarray  # (B,)
    bound: np.ndarray  # (B,)
    x: np.ndarray  # (B, num_vars)

    @property
    def sign(self) -> float:
        """+1 for a maximisation, -1 for a minimisation."""
        return sense_sign(self.sense)

    @property
    def gap(self) -> np.ndarray:
        """``|bound − value| / max(1, |value|)`` per instance."""
        return np.abs(self.bound - self.value) / np.maximum(1.0, np.abs(self.value))

    @property
    def proven(self) -> np.ndarray:
        """Mask of the instances whose optimum is proven."""
        return self.gap <= _PROVEN

    def select(self, index: Any) -> Optima:
        """The optima of the instances ``index`` (a slice, mask or indices).

        Parameters
        ----------
        index
            The instances (a slice, mask or indices).
        """
        return Optima(self.sense, self.value[index], self.bound[index], self.x[index])

    def tighten(self, bound: Any) -> Optima:
        """The same with ``bound`` (e.g. ``dec.dual(costs).bound``) where it is tighter.

        Parameters
        ----------
        bound
            Valid bounds ``(B,)`` (user's sense).
        """
        b = vector(bound, len(self.value), "bound", allow_inf=True)
        tight = np.minimum(self.bound, b) if self.sense == "max" else np.maximum(self.bound, b)
        return replace(self, bound=tight)

    def improve(self, x: np.ndarray, value: np.ndarray) -> Optima:
        """The same with the feasible solutions ``x`` where their ``value`` is better.

        Parameters
        ----------
        x
            Feasible solutions ``(B, n)``.
        value
            Their objectives ``(B,)``.
        """
        better = self.sign * (value - self.value) > 0
        if not better.any():
            return self
        return replace(self, value=np.where(better, value, self.value), x=np.where(better[:, None], x, self.x))


def optima(
    problem: Problem,
    costs: Any,
    solver: str = "auto",
    *,
    time_limit: float | None = None,
    gap: float = 0.0,
    bound: Any = None,
    executor: Executor | None = None,
    cache: str | Path | None = None,
) -> Optima:
    """Solve every instance (in parallel) for its best known optimum and a certified bound.

    Exact by default; with ``time_limit`` or ``gap`` an instance may stop at its incumbent, and
    the solver's bound certifies how far it can be from the optimum. ``bound`` (``(B,)``, e.g. an
    LD dual bound) tightens that certificate. ``cache`` (a folder, or an ``.npz`` path): the
    solves are saved there atomically, keyed by the problem, the costs, ``time_limit`` and
    ``gap``, and a later call with the same key loads them instead of solving (a resumed
    experiment does not solve its validation and test sets again).

    Parameters
    ----------
    problem
        The problem.
    costs
        True costs ``(B, num_costs)``.
    solver
        A solver name or ``"auto"``.
    time_limit
        Seconds per instance, or ``None``.
    gap
        Relative MIP gap (0: exact).
    bound
        Further valid bounds (e.g. an LD bound) to tighten the certified ones, or ``None``.
    executor
        A ``concurrent.futures.Executor``, or ``None`` (threads).
    cache
        A folder or ``.npz`` path to keep them in, or ``None``.
    """
    check_problem(problem, solver)
    c, _ = problem.check_costs(costs)
    time_limit = checks.positive_or_none("time_limit", time_limit, " (seconds)")
    gap = checks.unit_interval("gap", gap)
    expect: dict[str, Any] = dict(problem=problem.compiled.fingerprint(), costs=ldcache.digest(c))
    if time_limit is not None:
        expect["time_limit"] = float(time_limit)
    if gap:
        expect["gap"] = float(gap)
    path = ldcache.entry_path(cache, "optima", ldcache.digest(expect, "optima")) if cache is not None else None
    hit = ldcache.load_or_recompute(path, expect, _decode) if path is not None else None
    if hit is not None:
        value, sol_bound, x = hit
    else:
        s = checked(solve_many(problem, c, solver, executor=executor, time_limit=time_limit, gap=gap), "true costs")
        value, x = s.objective, s.x
        sol_bound = np.where(np.isfinite(s.bound), s.bound, np.inf if problem.sense == "max" else -np.inf)
        if path is not None:  # the solves are done: a failed write keeps them, unsaved
            arrays, header = {"value": value, "bound": sol_bound, "x": x}, {**expect, "solver": s.solver}
            ldcache.save_or_warn(path, arrays, header, "the optima are used without being cached", stacklevel=2)
    out = Optima(problem.sense, value, sol_bound, x)
    return integral_bounds(problem, c, out if bound is None else out.tighten(bound))


def integral_bounds(problem: Problem, costs: np.ndarray, opt: Optima) -> Optima:
    """``opt`` with every bound rounded to an integer, towards the best known value, on the
    instances whose every feasible objective is an integer (integer variables under integral
    coefficients, an integral constant; e.g. PyEPO's knapsacks, whose values are rounded up): the
    optimum is then an integer, so ``⌊bound⌋`` still bounds it (``⌈bound⌉`` for a minimisation).
    A slack of 1e-6 relative absorbs the float error of computing a bound; a rounding that would
    cross the best known value is not made.

    Parameters
    ----------
    problem
        The problem.
    costs
        The instances' costs ``(B, num_costs)``.
    opt
        Their optima.
    """
    costs, _ = problem.check_costs(costs)
    if not isinstance(opt, Optima):
        raise InputError(f"opt: expected an ldopt.regret.Optima (e.g. from optima()), got {type(opt).__name__}")
    if len(opt.value) != len(costs) or len(opt.bound) != len(costs):
        raise InputError(f"opt: expected the optima of the {len(costs)} cost vectors given, got {len(opt.value)}")
    cm = problem.compiled
    integer = np.isin(cm.var_type, ("I", "B"))
    open_ = np.flatnonzero(np.isfinite(opt.bound) & (opt.bound != np.round(opt.bound)))  # bounds to round
    if not integer.any() or not len(open_):
        return opt
    q = problem.objective_coefficients(costs[open_])  # (only those instances: B × n can be large)
    offset = cm.k0 + costs[open_] @ cm.r
    whole = (
        np.all(q[:, ~integer] == 0, axis=1)
        & np.all(q[:, integer] == np.round(q[:, integer]), axis=1)
        & (offset == np.round(offset))
    )
    s = opt.sign
    bound, value = opt.bound[open_], opt.value[open_]
    rounded = s * np.floor(s * bound + _ROUNDING * (1.0 + np.abs(bound)))
    with np.errstate(invalid="ignore"):  # no best known value (NaN): nothing to cross
        keep = ~whole | (s * (rounded - value) < 0)
    out = opt.bound.copy()
    out[open_] = np.where(keep, bound, rounded)
    return replace(opt, bound=out)


def _decode(arrays: dict[str, np.ndarray], header: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return arrays["value"], arrays["bound"], arrays["x"]


def optimal_objectives(
    problem: Problem, costs: Any, solver: str = "auto", executor: Executor | None = None
) -> np.ndarray:
    """``f(x*(c_i), c_i)`` for every instance: ``(B,)``.

    Parameters
    ----------
    problem
        The problem.
    costs
        True costs ``(B, num_costs)``.
    solver
        A solver name or ``"auto"``.
    executor
        A ``concurrent.futures.Executor``, or ``None`` (threads).
    """
    check_problem(problem, solver)
    return checked(solve_many(problem, costs, solver, executor=executor), "true costs").objective
