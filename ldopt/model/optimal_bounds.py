"""Bounds that an optimal solution meets, for variables the whole model leaves unbounded.

A penalised slack, an unmet demand, a backlog or a cutting pattern's count is bounded only at an
optimum: no row stops it from growing, but growing costs more. Two rules bound such a variable
``x_j``; both work in the maximisation form ``max w·x`` with ``w = ±(q0 + Q c)``, over every cost
vector ``c`` in the interval the cost Param's domain declares (``Param(..., within=
pyo.NonNegativeReals)``: every cost in ``[0, ∞)``; a fixed coefficient holds for all costs):

1. *Dual fixing.* Where ``w_j ≤ 0`` for every such cost (``≥ 0`` for a lower bound), ``x_j`` needs
   no more than its rows ask of it: moving it inward to ``U = max_r U_r`` keeps every row ``r``
   that holds it satisfied, whatever the other variables are (within the bounds the model implies
   for them, `ldopt.model.propagation.propagate`), and does not worsen the objective; so an
   optimum lies within ``U`` (every optimum, where ``w_j < 0``). A row that moving ``x_j`` inward
   only loosens asks nothing; a variable in no row sits at its inner bound.
2. *A feasible point's objective.* Where every variable's coefficient keeps one sign over the
   costs and has a finite bound ``r_i`` on the side it favours, each term ``|w_i| |x_i − r_i|`` of
   the objective's distance from its best is non-negative, and their sum at an optimum is at most
   ``G(c)``, its value at any feasible point ``x⁰``. So every optimum has ``|x_j − r_j| ≤
   max_c G(c) / min_c |w_j(c)|`` where ``w_j`` keeps away from 0. ``x⁰`` is solved for once (by
   the solver registry, minimising ``max_c G``, with variables whose cost the domain leaves
   unbounded held at ``r_i``), made exactly feasible (`ldopt.model.exact_point`: a solver's point
   meets the rows only to its tolerance), and ``G`` and the bound are computed in rational
   arithmetic, rounded outward; where no exactly feasible point is found, nothing is bounded.

Adding these bounds to every block keeps an optimum of the model for every cost in the interval,
so every Lagrangian bound of the bounded model is a bound on it there (and a block's point,
feasible for the bounded model, is feasible for the model). Where a bound depends on the costs,
``InferredBound.costs`` holds the interval, and the decomposition refuses costs outside it
(`ldopt.decomposition.blocks.Blocks.check_costs`). A variable in a quadratic row gets no bound here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from ldopt.model.compiled import CompiledModel
from ldopt.model.exact_point import exact_point
from ldopt.model.implied_bounds import InferredBound, interval
from ldopt.model.propagation import propagate
from ldopt.solvers.base import HAS_SOLUTION, SolverOptions
from ldopt.solvers.registry import open_session

_EPS = float(np.finfo(float).eps)
_TOL = 1e-9
_LOW = 0.01  # the positive lower end a refusal suggests for costs that may be 0
_SECONDS = 60.0  # the feasible point's solve: an incumbent found within this serves as well as an optimum

Side = tuple[int, str]


@dataclass(frozen=True)
class OptimalBounds:
    """What `optimal_bounds` found: the bounds, and for every side it could not bound, why."""

    found: list[InferredBound] = field(default_factory=list)
    why_not: dict[Side, str] = field(default_factory=dict)


def coefficient_range(cm: CompiledModel) -> tuple[np.ndarray, np.ndarray]:
    """The smallest and largest objective coefficient ``w_j`` (maximisation form) of each variable
    over the costs the cost Param's domain allows (``cm.cost_range``; infinite where unbounded).

    Parameters
    ----------
    cm
        The model.
    """
    lo, hi = cm.cost_range
    Q = (cm.sign * cm.Q).tocsr()
    pos, neg = Q.multiply(Q > 0).tocsr(), Q.multiply(Q < 0).tocsr()
    base = cm.sign * cm.q0
    k = cm.num_costs
    with np.errstate(invalid="ignore", over="ignore"):
        w_lo = base + _times(pos, lo, k) + _times(neg, hi, k)
        w_hi = base + _times(pos, hi, k) + _times(neg, lo, k)
    return w_lo, w_hi


def _times(A: sp.csr_matrix, value: float, k: int) -> np.ndarray:
    """``A @ (value, …, value)``: a sparse product multiplies stored entries only (no ``0 · ∞``)."""
    return np.asarray(A @ np.full(k, value)).ravel()


def optimal_bounds(cm: CompiledModel, needed: list[Side]) -> OptimalBounds:
    """Bounds an optimum meets (see the module docstring) for the variable sides ``needed``
    (``(j, "lower" | "upper")``), and why each side left out could not be bounded.

    Parameters
    ----------
    cm
        The whole model.
    needed
        The sides to bound.
    """
    if not needed:
        return OptimalBounds()
    prop = propagate(cm)
    if prop.conflict is not None:  # no feasible point: nothing to bound (`implied_bounds` says why)
        return OptimalBounds([], {s: "the model has no feasible point" for s in needed})
    lb, ub = prop.lb, prop.ub
    w_lo, w_hi = coefficient_range(cm)
    priced = np.diff(cm.Q.tocsr().indptr) > 0  # the costs move the coefficient
    quadratic = {int(j) for r in cm.rows if r.is_quadratic for j in np.flatnonzero(np.abs(r.matrix).sum(0))}
    holding: dict[int, list[tuple[int, float]]] = {}
    for k, r in enumerate(cm.rows):
        for j, a in zip(r.index, r.coef, strict=True):
            holding.setdefault(int(j), []).append((k, float(a)))
    found: list[InferredBound] = []
    why_not: dict[Side, str] = {}
    rest: list[Side] = []
    for j, side in needed:
        upper = side == "upper"
        if j in quadratic:
            why_not[(j, side)] = "it is in a quadratic row"
            continue
        if not (w_hi[j] <= 0 if upper else w_lo[j] >= 0):
            why_not[(j, side)] = _unpenalised(cm, j, upper, w_lo[j], w_hi[j], priced[j])
            continue
        value, blocking = _inward(cm, lb, ub, j, holding.get(j, []), upper)
        if value is None:
            why_not[(j, side)] = (
                f"row '{blocking}' holds it with variables that are unbounded themselves"
                if blocking
                else "no row and no bound on its other side bounds it"
            )
            rest.append((j, side))
            continue
        rows = [cm.rows[k].name for k, _ in holding.get(j, [])]
        asks = (
            f"rows {', '.join(repr(n) for n in rows[:3])}{', …' if len(rows) > 3 else ''} need no more"
            if rows
            else "no row needs it"
        )
        which = "every optimum" if (w_hi[j] < 0 if upper else w_lo[j] > 0) else "an optimum"
        cost = f"its cost {cm.q0[j]:g}" if not priced[j] else "its cost"
        source = f"{which}, {_scope(cm, priced[j])}: {cost} penalises it and {asks}"
        found.append(InferredBound(j, cm.var_names[j], side, value, source, cm.cost_range if priced[j] else None))
    if rest:  # rule 2 for the penalised sides whose rows ask anything of them
        more, why = _objective_bounds(cm, lb, ub, w_lo, w_hi, priced, rest)
        found += more
        for s in rest:
            if all((b.var, b.side) != s for b in more):
                why_not[s] += f", and {why[s]}"
            else:
                del why_not[s]
    return OptimalBounds(found, why_not)


def _scope(cm: CompiledModel, priced: bool) -> str:
    if not priced:
        return "for all costs"
    return f"for costs in {interval(*cm.cost_range)} (the cost Param's domain)"


def _unpenalised(cm: CompiledModel, j: int, upper: bool, lo: float, hi: float, priced: bool) -> str:
    """Why ``x_j``'s cost does not stop it from growing outward."""
    if not priced:
        return f"its fixed cost {cm.q0[j]:g} does not penalise moving it {'up' if upper else 'down'}"
    if not cm.declares_costs:
        return f"its cost depends on {_undeclared(cm)}"
    return (
        f"its coefficient ranges over {_users(cm, lo, hi)} for costs in the declared domain "
        f"{interval(*cm.cost_range)}, so it need not penalise moving it {'up' if upper else 'down'}"
    )


def _users(cm: CompiledModel, lo: float, hi: float) -> str:
    """The interval ``[lo, hi]`` of a coefficient in the maximisation form, in the user's sense."""
    return interval(lo, hi) if cm.sign > 0 else interval(-hi, -lo)


def _undeclared(cm: CompiledModel) -> str:
    return (
        "the costs, whose sign the cost Param does not declare (declare it, e.g. "
        f"model.{cm.cost_name} = Param(..., within=pyo.NonNegativeReals))"
    )


def _inward(
    cm: CompiledModel, lb: np.ndarray, ub: np.ndarray, j: int, rows: list[tuple[int, float]], upper: bool
) -> tuple[float | None, str | None]:
    """The point ``U`` (``upper``) or ``L`` to which ``x_j`` can move inward from any feasible
    point beyond it keeping every row, moved outward by the rounding error (an integer's rounded
    outward); ``None`` and the row that asks anything of it where none is finite."""
    inner = lb[j] if upper else ub[j]
    best = inner if np.isfinite(inner) else (-np.inf if upper else np.inf)
    for k, a in rows:
        r = cm.rows[k]
        others = np.flatnonzero(r.index != j)
        coef, idx = r.coef[others], r.index[others]
        with np.errstate(invalid="ignore", over="ignore"):
            terms_lo = np.minimum(coef * lb[idx], coef * ub[idx])
            terms_hi = np.maximum(coef * lb[idx], coef * ub[idx])
        terms_lo = np.where(np.isnan(terms_lo), -np.inf, terms_lo)
        terms_hi = np.where(np.isnan(terms_hi), np.inf, terms_hi)
        # moving x_j inward changes a·x_j towards −∞ (a > 0, upper) or +∞: the side it moves towards binds
        towards_lo = (a > 0) == upper
        side = r.lo if towards_lo else r.hi
        if not np.isfinite(side):
            continue  # moving inward only loosens this row
        rest = terms_lo.sum() if towards_lo else terms_hi.sum()
        if not np.isfinite(rest):
            return None, r.name  # the row's other variables are unbounded: it may ask anything of x_j
        value = (side - rest) / a
        # what rounding may have moved it by, relative to the magnitudes it cancelled (as propagation's)
        err = (len(r.index) + 4) * 4 * _EPS * (abs(side) + np.abs(terms_lo if towards_lo else terms_hi).sum()) / abs(a)
        value = value + err if upper else value - err  # outward: a looser bound is still one
        best = max(best, value) if upper else min(best, value)
    if not np.isfinite(best):
        return None, None
    if cm.var_type[j] != "C":  # within the integrality tolerance of an integer is that integer, as in propagation
        best = float(np.ceil(best - _TOL) if upper else np.floor(best + _TOL))
    return float(best), None


def _objective_bounds(
    cm: CompiledModel,
    lb: np.ndarray,
    ub: np.ndarray,
    w_lo: np.ndarray,
    w_hi: np.ndarray,
    priced: np.ndarray,
    sides: list[Side],
) -> tuple[list[InferredBound], dict[Side, str]]:
    """Rule 2 of the module docstring for ``sides``: the bounds found, and why the others were not."""

    def fail(why: str) -> tuple[list[InferredBound], dict[Side, str]]:
        return [], dict.fromkeys(sides, why)

    if any(r.is_quadratic for r in cm.rows):
        return fail("a feasible point's objective bounds nothing in a model with quadratic rows here")
    down = w_hi <= 0  # penalised upward: its best is its lower bound
    up = (w_lo >= 0) & ~down  # rewarded upward
    zero = down & (w_lo >= 0)  # no cost at all
    mixed = np.flatnonzero(~down & ~up)
    if len(mixed):
        i = int(mixed[0])
        sign = (
            f"has a cost that depends on {_undeclared(cm)}"
            if priced[i] and not cm.declares_costs
            else f"has a coefficient of either sign ({_users(cm, w_lo[i], w_hi[i])}) {_scope(cm, bool(priced[i]))}"
        )
        return fail(f"no feasible point's objective bounds it, since '{cm.var_names[i]}' {sign}")
    ref = np.where(up, ub, lb)
    loose = np.flatnonzero(~zero & ~np.isfinite(ref))
    if len(loose):
        i = int(loose[0])
        name = cm.var_names[i]
        return fail(
            f"no feasible point's objective bounds it, since '{name}' is unbounded on the side its cost favours"
        )
    weight = np.where(zero, 0.0, np.maximum(np.abs(w_lo), np.abs(w_hi)))
    held = ~np.isfinite(weight)  # the domain leaves its cost unbounded: the point keeps it at its best
    Q = (cm.sign * cm.Q).tocsr()  # the costs' part of w, a row per variable
    least = {(j, side): _least(cm, Q, j, side == "upper") for j, side in sides}  # the smallest |w_j|, exactly
    free = any(priced[j] and not least[(j, side)] > 0 for j, side in sides)  # a cost that may be 0
    x0 = _feasible_point(cm, lb, ub, ref, np.where(held, 0.0, np.where(up, weight, -weight)), held)
    if x0 is None:
        away = free and cm.cost_range[0] <= 0  # the bound needs a positive lower end as well
        return fail(
            "no feasible point was found with every variable whose cost the domain leaves unbounded at its best "
            f"(declare an upper end{' and a positive lower end' if away else ''} for the costs, e.g. "
            f"within=pyo.RangeSet({_LOW if away else max(cm.cost_range[0], 0):g}, 1000, 0))"
        )
    x0[held] = ref[held]
    point = exact_point(cm, x0, held)
    if point.x is None:
        return fail(f"the solver's feasible point could not be made exactly feasible ({point.why_not})")
    top = _gap(cm, Q, point.x, ref, np.flatnonzero(~zero & ~held))
    if top is None:
        return fail("a feasible point's objective is unbounded over the declared costs")
    dependent = bool(priced[~zero].any())  # every priced coefficient's sign came from the declared domain
    out, why = [], {}
    for j, side in sides:
        upper, smallest = side == "upper", least[(j, side)]
        if not smallest > 0:
            why[(j, side)] = (
                f"its cost can be 0 {_scope(cm, bool(priced[j]))}, so a feasible point's objective allows any"
                + (_away_from_zero(cm) if priced[j] and cm.cost_range[0] >= 0 else "")
            )
            continue
        exact = Fraction(ref[j]) + top / smallest if upper else Fraction(ref[j]) - top / smallest
        value = (math.floor(exact) if upper else math.ceil(exact)) if cm.var_type[j] != "C" else _outward(exact, upper)
        source = (
            f"every optimum, {_scope(cm, dependent)}: a feasible point's objective (checked exactly) leaves at "
            f"most {float(top):.6g} to spend on it, at a cost of at least {float(smallest):g} per unit"
        )
        out.append(InferredBound(j, cm.var_names[j], side, float(value), source, cm.cost_range if dependent else None))
    return out, why


def _away_from_zero(cm: CompiledModel) -> str:
    """The fix where a non-negative cost that prices the variable may be 0: a positive lower end."""
    hi = cm.cost_range[1]
    return (
        f" (declare a positive lower end for the costs, their smallest plausible value, e.g. model.{cm.cost_name} = "
        f"Param(..., within=pyo.RangeSet({_LOW:g}, {f'{hi:g}' if np.isfinite(hi) else None}, 0)): the bound then "
        f"grows as 1/{_LOW:g})"
    )


def _gap(
    cm: CompiledModel, Q: sp.csr_matrix, x: list[Fraction], ref: np.ndarray, counted: np.ndarray
) -> Fraction | None:
    """``max_c G(c)`` exactly: ``G(c) = Σ_i w_i(c) (r_i − x_i)`` over the ``counted`` variables,
    ``None`` where the costs leave it unbounded (``Q``: ``sign · Q`` as CSR)."""
    lo, hi = cm.cost_range
    g0, g = Fraction(0), dict[int, Fraction]()
    for i in counted:
        t = Fraction(ref[i]) - x[i]  # G's term is w_i (r_i − x_i) ≥ 0
        if not t:
            continue
        g0 += t * Fraction(float(cm.sign * cm.q0[i]))
        for k, a in zip(Q.indices[Q.indptr[i] : Q.indptr[i + 1]], Q.data[Q.indptr[i] : Q.indptr[i + 1]], strict=True):
            g[int(k)] = g.get(int(k), Fraction(0)) + t * Fraction(float(a))
    top = g0
    for coef in g.values():
        end = hi if coef > 0 else lo
        if coef and not np.isfinite(end):
            return None
        top += coef * Fraction(end) if coef else 0
    return top


def _least(cm: CompiledModel, Q: sp.csr_matrix, j: int, upper: bool) -> Fraction:
    """The smallest ``|w_j|`` over the declared costs, exactly: ``−max w_j`` for an upper side,
    ``min w_j`` for a lower one (``0`` where that end is not finite; ``Q``: ``sign · Q`` as CSR)."""
    lo, hi = cm.cost_range
    out = Fraction(float(cm.sign * cm.q0[j]))
    for a in Q.data[Q.indptr[j] : Q.indptr[j + 1]]:
        end = hi if (a > 0) == upper else lo  # the end that brings w_j closest to 0
        if not np.isfinite(end):
            return Fraction(0)
        out += Fraction(float(a)) * Fraction(end)
    return -out if upper else out


def _outward(value: Fraction, upper: bool) -> float:
    """``value`` as the nearest float on its outer side (a looser bound is still one)."""
    f = float(value)
    if upper and Fraction(f) < value:
        return math.nextafter(f, math.inf)
    if not upper and Fraction(f) > value:
        return math.nextafter(f, -math.inf)
    return f


def _feasible_point(
    cm: CompiledModel, lb: np.ndarray, ub: np.ndarray, ref: np.ndarray, objective: np.ndarray, held: np.ndarray
) -> np.ndarray | None:
    """A point of the model (integers integral) maximising ``objective`` with the ``held``
    variables at ``ref``, by the registry's solver; ``None`` where none is found."""
    n = cm.num_vars
    lo, hi = lb.copy(), ub.copy()
    lo[held], hi[held] = ref[held], ref[held]
    model = replace(
        cm, var_lb=lo, var_ub=hi, sense="max", q0=np.zeros(n), Q=sp.identity(n, format="csr"), k0=0.0,
        r=np.zeros(n), cost_keys=list(range(n)), cost_range=(-np.inf, np.inf),
    )  # fmt: skip
    session = open_session(model, "auto", SolverOptions(time_limit=_SECONDS))[1]
    res = session.solve(objective, objective)
    if str(res.status) not in HAS_SOLUTION or res.x is None:
        return None
    return np.asarray(res.x, dtype=float)
