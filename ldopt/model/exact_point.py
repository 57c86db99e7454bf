"""A solver's point made exactly feasible, in rational arithmetic.

A solver's point meets the rows to its feasibility tolerance (HiGHS's is 1e-7), and an argument that
needs a feasible point (`ldopt.model.optimal_bounds`, rule 2) needs one that meets them exactly.
`exact_point` rounds the integers, puts every variable within a tolerance of a declared bound on it,
and checks every row in rational arithmetic (a float is a rational, so `fractions.Fraction` holds
it exactly). Where a row misses, it solves exactly, by Gauss–Jordan elimination over the
rationals, for the change of the continuous variables strictly inside their bounds that puts every
equality row and every missed row on its side; a row or bound that this change pushes past its side
is put on it too, and the change solved for again. A point that then meets every row and bound
exactly is feasible; one that does not is refused (a degenerate vertex of decimal data may have no
exact point near it with the same integers).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ldopt.model.compiled import CompiledModel, Row

_EPS = float(np.finfo(float).eps)
_SNAP = 1e-9  # a variable this close to a bound (relative to its magnitude) is put on it
_ROUNDS = 4  # mending puts the rows it pushes past their sides on them, this many times at most
_FILL = 20  # the elimination gives up where its rows hold this many times the system's entries (and 10⁵)


@dataclass(frozen=True)
class ExactPoint:
    """A point that meets every row and bound exactly (``x``, rationals), or why none was found."""

    x: list[Fraction] | None
    why_not: str = ""


def exact_point(cm: CompiledModel, x: np.ndarray, fixed: np.ndarray) -> ExactPoint:
    """``x`` (a solver's point of ``cm``) made exactly feasible, moving no variable that ``fixed``
    marks; see the module docstring.

    Parameters
    ----------
    cm
        The model (its linear rows; a quadratic row is refused).
    x
        The solver's point.
    fixed
        Boolean mask of the variables that must keep their value.
    """
    if any(r.is_quadratic for r in cm.rows):
        return ExactPoint(None, "the model has quadratic rows")
    lb, ub = cm.var_lb, cm.var_ub
    v = np.asarray(x, dtype=float).copy()
    whole = cm.var_type != "C"
    v = np.clip(v, lb, ub)
    v[whole] = np.clip(np.round(v[whole]), np.ceil(lb[whole]), np.floor(ub[whole]))  # integral within its bounds
    scale = np.maximum(1.0, np.abs(v))
    v = np.where(np.abs(v - lb) <= _SNAP * scale, lb, v)
    v = np.where(np.abs(v - ub) <= _SNAP * scale, ub, v)
    point = [Fraction(float(t)) for t in v]
    missed = _missed(cm, point)
    if not missed:
        return ExactPoint(point)
    first = cm.rows[missed[0]].name
    free = ~whole & ~fixed & (v > lb) & (v < ub)
    on_side = {k for k, r in enumerate(cm.rows) if r.is_equality} | set(missed)
    for _ in range(_ROUNDS):
        mended = _mend(cm, point, free, on_side)
        if mended is None:
            return ExactPoint(
                None,
                f"no change of the continuous variables inside their bounds puts row '{first}' on its side "
                "(or solving for one exactly filled in too densely)",
            )
        past = [j for j, t in enumerate(mended) if not lb[j] <= t <= ub[j]]
        for j in past:  # held at the bound it would pass
            point[j], free[j] = Fraction(float(lb[j] if mended[j] < lb[j] else ub[j])), False
        if past:
            continue
        still = _missed(cm, mended)
        if not still:
            return ExactPoint(mended)
        on_side |= set(still)  # an inequality the change pushed past its side: put it on it
    return ExactPoint(None, f"putting row '{first}' on its side moves others past theirs, {_ROUNDS} times over")


def _activity(r: Row, point: list[Fraction]) -> Fraction:
    return sum((Fraction(float(a)) * point[int(j)] for j, a in zip(r.index, r.coef, strict=True)), Fraction(0))


def _missed(cm: CompiledModel, point: list[Fraction]) -> list[int]:
    """The rows ``point`` misses in exact arithmetic (a row that the float activity clears by more
    than its rounding error is not recomputed)."""
    approx = np.array([float(t) for t in point])
    A = cm.linear_matrix()
    act = A @ approx
    err = 4 * (np.diff(A.indptr) + 4) * _EPS * (abs(A) @ np.abs(approx))  # the sum's and the floats' rounding
    lo, hi = np.array([r.lo for r in cm.rows]), np.array([r.hi for r in cm.rows])
    near = np.flatnonzero(~((act - err >= lo) & (act + err <= hi)))
    out = []
    for k in near:
        r = cm.rows[k]
        exact = _activity(r, point)
        if (np.isfinite(r.lo) and exact < Fraction(r.lo)) or (np.isfinite(r.hi) and exact > Fraction(r.hi)):
            out.append(int(k))
    return out


def _mend(cm: CompiledModel, point: list[Fraction], free: np.ndarray, on_side: set[int]) -> list[Fraction] | None:
    """``point`` with its ``free`` variables changed so that the rows ``on_side`` lie exactly on
    their sides (an inequality on the side nearer it); ``None`` where no change does."""
    system: list[tuple[dict[int, Fraction], Fraction]] = []
    for k in sorted(on_side):
        r = cm.rows[k]
        act = _activity(r, point)
        lower = np.isfinite(r.lo) and (not np.isfinite(r.hi) or abs(act - Fraction(r.lo)) <= abs(act - Fraction(r.hi)))
        row = {int(j): Fraction(float(a)) for j, a in zip(r.index, r.coef, strict=True) if free[j]}
        system.append((row, Fraction(r.lo if lower else r.hi) - act))
    change = _solve(system)
    if change is None:
        return None
    return [t + change.get(j, Fraction(0)) for j, t in enumerate(point)]


def _solve(system: list[tuple[dict[int, Fraction], Fraction]]) -> dict[int, Fraction] | None:
    """A solution of the sparse system ``Σ_j a_j d_j = b`` (one dict per row), the variables
    without a pivot at 0, by Gauss–Jordan elimination over the rationals; ``None`` if inconsistent
    or if the elimination fills in past ``_FILL`` times the system's entries."""
    pivots: list[tuple[int, dict[int, Fraction], Fraction]] = []  # (column, row with 1 there, right side)
    held, most = 0, _FILL * sum(len(row) for row, _ in system) + 10**5  # the pivot rows' entries, and their cap
    for given, rhs in system:
        row = dict(given)
        for col, prow, prhs in pivots:  # eliminate the earlier pivots' columns
            if col in row:
                times = row[col]
                _subtract(row, times, prow)
                rhs -= times * prhs
        if not row:
            if rhs:
                return None
            continue
        new = min(row, key=lambda j: (row[j].denominator, abs(row[j].numerator), j))  # the simplest coefficient
        head = row[new]
        row = {j: a / head for j, a in row.items()}
        rhs /= head
        for i, (col, prow, prhs) in enumerate(pivots):  # and this column from the earlier pivot rows
            if new in prow:
                times, before = prow[new], len(prow)
                _subtract(prow, times, row)
                held += len(prow) - before
                pivots[i] = (col, prow, prhs - times * rhs)
        pivots.append((new, row, rhs))
        held += len(row)
        if held > most:  # filling in: too dense to solve exactly here
            return None
    return {col: rhs for col, _, rhs in pivots}


def _subtract(row: dict[int, Fraction], times: Fraction, other: dict[int, Fraction]) -> None:
    """``row −= times · other`` in place, dropping the entries that become 0."""
    for j, a in other.items():
        t = row.get(j, Fraction(0)) - times * a
        if t:
            row[j] = t
        else:
            del row[j]
