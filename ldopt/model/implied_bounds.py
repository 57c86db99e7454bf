"""Bounds that the whole model implies for variables it declares unbounded.

A block's subproblem keeps only its own rows, so a variable that the model bounds through another
row (``x ≥ 0`` with ``Σ x ≤ cap`` elsewhere) is unbounded in it, and the block cannot be solved.
Any bound valid on the whole model's feasible set may be added to every block without breaking weak
duality (each block still contains the feasible set), so the decomposer adds, where a block needs
them, the bounds the model implies:

1. *bound propagation* on the linear rows (FBBT): from ``lo ≤ a·x ≤ hi`` and the other variables'
   bounds, ``a_j x_j ≤ hi − min Σ_{i≠j} a_i x_i`` (and the other side), repeated until nothing
   tightens; integer variables round inward. Each bound found names the row it came from.
2. where propagation finds none, the LP relaxation of the whole model: ``max ±x_j`` over every
   row (a valid bound on every feasible point, integer or not).

A variable that the LP relaxation leaves unbounded is unbounded in the model itself; the
decomposer then looks for a bound every optimum meets (`ldopt.model.optimal_bounds`), else
refuses it, naming it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import scipy.sparse as sp

from ldopt.errors import InfeasibleModelError
from ldopt.model.compiled import CompiledModel
from ldopt.model.propagation import propagate
from ldopt.solvers.base import INFEASIBLE, OPTIMAL, Session, SolverOptions
from ldopt.solvers.registry import open_session

_LP_TOL = 1e-6  # an LP solver's feasibility tolerance: its x_j may be short of the true optimum by this


@dataclass(frozen=True)
class InferredBound:
    """A bound added for a variable the model declares unbounded: ``side`` is ``"lower"`` or
    ``"upper"``; ``source`` the row it was propagated from, the LP relaxation, or (for a bound
    every optimum meets, `ldopt.model.optimal_bounds`) why no optimum lies beyond it; ``costs``,
    where the bound holds only for some costs, the interval every cost must lie in (the cost
    Param's declared domain), else ``None`` (it holds whatever the costs)."""

    var: int
    name: str
    side: str
    value: float
    source: str
    costs: tuple[float, float] | None = None

    def __str__(self) -> str:
        op = "≥" if self.side == "lower" else "≤"
        return f"{self.name} {op} {self.value:g} (from {self.source})"


def interval(lo: float, hi: float) -> str:
    """``"[0, inf)"``: an interval of costs as messages show it (open at an infinite end)."""
    return f"{'(' if np.isneginf(lo) else '['}{lo:g}, {hi:g}{')' if np.isposinf(hi) else ']'}"


def into(lo: float, hi: float) -> str:
    """A map of a model's output ``z`` onto the costs' interval ``[lo, hi]``, as refusals suggest it."""
    if np.isfinite(lo) and np.isfinite(hi):
        return f"{lo:g} + {hi - lo:g}·sigmoid(z)"
    if np.isfinite(lo):
        return "softplus(z)" if lo == 0 else f"{lo:g} + softplus(z)"
    return "-softplus(z)" if hi == 0 else f"{hi:g} - softplus(z)"


def held_for(bounds: Iterable[InferredBound]) -> tuple[float, float] | None:
    """The costs' interval the first of ``bounds`` that depends on the costs holds for, else ``None``."""
    return next((ib.costs for ib in bounds if ib.costs is not None), None)


def domain_note(bounds: Iterable[InferredBound]) -> list[str]:
    """The report line saying for which costs ``bounds`` hold, where some depend on them."""
    held = held_for(bounds)
    if held is None:
        return []
    return [
        f"  for costs in {interval(*held)} only (the cost Param's domain): some bounds added to the blocks "
        "hold there, costs outside are refused"
    ]


def listing(bounds: list[InferredBound]) -> str:
    """``"bounds added to the block: …"``, the first three and a count, as reports show them (each
    with where it comes from: a row, the LP relaxation, or an optimum), those that hold only for
    some costs first."""
    shown = sorted(bounds, key=lambda ib: ib.costs is None)
    more = f", … ({len(bounds)} bounds)" if len(bounds) > 3 else ""
    return f"bounds added to the block: {', '.join(map(str, shown[:3]))}{more}"


def _lp_relaxation(cm: CompiledModel, lb: np.ndarray, ub: np.ndarray) -> Session:
    """A solver session of the LP relaxation of every row within ``lb ≤ x ≤ ub``, built once for
    the objectives ``±x_j`` that `_lp_bound()` asks of it."""
    n = cm.num_vars
    relaxed = replace(
        cm, var_lb=lb.copy(), var_ub=ub.copy(), var_type=np.full(n, "C"), sense="max",
        q0=np.zeros(n), Q=sp.identity(n, format="csr"), k0=0.0, r=np.zeros(n), cost_keys=list(range(n)),
    )  # fmt: skip
    return open_session(relaxed, "auto", SolverOptions())[1]


def _lp_bound(session: Session, j: int, upper: bool) -> float:
    """``max x_j`` (``upper``) or ``min x_j`` over the relaxation ``session``, moved outward by the
    solver's feasibility tolerance; ±inf if unbounded. Raises `InfeasibleModelError` where the
    relaxation has no point."""
    direction = np.zeros(session.model.num_vars)
    direction[j] = 1.0 if upper else -1.0
    res = session.solve(direction, direction)
    if res.status == INFEASIBLE:
        raise InfeasibleModelError(
            "the model is infeasible: its LP relaxation has no point (bound propagation named no conflicting "
            "rows); check the constraints' data"
        )
    if res.status != OPTIMAL or res.x is None:
        return np.inf if upper else -np.inf
    value = float(res.x[j])
    return value + (_LP_TOL if upper else -_LP_TOL) * max(1.0, abs(value))


def implied_bounds(cm: CompiledModel, needed: list[tuple[int, str]]) -> list[InferredBound]:
    """The bounds the model implies for the variable sides ``needed`` (``(j, "lower" | "upper")``,
    each declared infinite): by propagation where it finds one, else by the LP relaxation; sides
    the model leaves unbounded are left out (the caller refuses them). Raises
    [`InfeasibleModelError`][ldopt.errors.InfeasibleModelError] where the model has no point."""
    found = propagate(cm)
    if found.conflict is not None:
        raise InfeasibleModelError(found.conflict_message(cm))
    lb, ub, src_lb, src_ub = found.lb, found.ub, found.src_lb, found.src_ub
    session: Session | None = None  # the LP relaxation, built on the first side propagation leaves open
    out: list[InferredBound] = []
    for j, side in needed:
        upper = side == "upper"
        value, src = (ub[j], src_ub[j]) if upper else (lb[j], src_lb[j])
        source = f"row '{cm.rows[src].name}'" if src >= 0 else ""
        if not np.isfinite(value):
            session = session or _lp_relaxation(cm, lb, ub)
            value = _lp_bound(session, j, upper)
            source = "the LP relaxation of the whole model"
            if np.isfinite(value) and cm.var_type[j] != "C":
                value = np.floor(value) if upper else np.ceil(value)
        if np.isfinite(value):
            out.append(InferredBound(j, cm.var_names[j], side, float(value), source))
    return out


def with_bounds(cm: CompiledModel, bounds: Iterable[InferredBound], **changes: Any) -> CompiledModel:
    """``cm`` with the inferred ``bounds`` written into its variable bounds (and ``changes``)."""
    lb, ub = cm.var_lb.copy(), cm.var_ub.copy()
    for ib in bounds:
        (ub if ib.side == "upper" else lb)[ib.var] = ib.value
    return replace(cm, var_lb=lb, var_ub=ub, **changes)


def bound_integers(cm: CompiledModel) -> CompiledModel:
    """``cm`` with every infinite bound of an integer variable replaced by the one its rows imply
    (`implied_bounds()`; recorded in ``cm.implied``). A side that the whole model leaves unbounded
    stays infinite: the solvers do not need it (HiGHS and Gurobi solve the model as written), and a
    decomposition or an oracle that does asks for it where it needs it."""
    needed = [
        (int(j), side)
        for j in np.flatnonzero(cm.var_type != "C")
        for side, value in (("lower", cm.var_lb[j]), ("upper", cm.var_ub[j]))
        if not np.isfinite(value)
    ]
    if not needed:
        return cm
    found = {(ib.var, ib.side): ib for ib in implied_bounds(cm, needed)}
    return with_bounds(cm, found.values(), implied=tuple(found.values()))
