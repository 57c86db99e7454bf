"""One linear row over bounded variables, in closed form: budget, simplex, cardinality, GUB,
flow-conservation (±1 coefficients), fractional-knapsack rows — and rows that mix continuous
variables with a few integer ones (a facility's capacity ``Σ_i d_i x_ij <= u_j y_j``).

``max λ·x  s.t.  lo <= a·x <= hi,  l <= x <= u``. In ``y_j = a_j x_j`` (bounds ``min``/``max`` of
``a_j l_j`` and ``a_j u_j``, whatever the sign of ``a_j``) it is a fractional knapsack: every ``y_j``
starts at its best bound for the ratio ``λ_j / a_j``; if the row is violated, the items with the
worst ratio move first (or the best, to reach ``lo``). At most one ``y_j`` ends between its bounds.

* [`LinearRowOracle`][ldopt.oracles.linear_row.LinearRowOracle] — continuous variables; or integer ones when every
  ``|a_j|`` on the row is one ``α`` and the sides and bounds are whole multiples: the one ``y_j``
  between bounds is then a multiple of ``α`` too, so the solution is integral (a totally unimodular row).
* [`MixedRowOracle`][ldopt.oracles.linear_row.MixedRowOracle] — continuous variables and integer ones with at most
  ``MAX_COMBOS`` combinations of values: each combination fixes the integers and leaves a continuous row, solved
  as above; the best combination wins, per instance.
"""

from __future__ import annotations

import itertools
from abc import abstractmethod
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from ldopt.errors import DecompositionError, InfeasibleModelError
from ldopt.model.compiled import CompiledModel
from ldopt.oracles.base import Oracle

T = TypeVar("T")

MAX_COMBOS = 64


def _move_sorted(y: np.ndarray, key: np.ndarray, floor: np.ndarray, need: np.ndarray) -> np.ndarray:
    """Per row, lower ``y`` towards ``floor`` in increasing ``key`` order until the total
    decrease is ``need`` (rows are instances; vectorised over them)."""
    order = np.argsort(key, axis=1, kind="stable")
    ys = np.take_along_axis(y, order, axis=1)
    fl = np.broadcast_to(floor, y.shape)
    fl = np.take_along_axis(fl, order, axis=1)
    cum = np.cumsum(ys - fl, axis=1)
    k = (cum < need[:, None] - 1e-15).sum(axis=1)  # the first item that covers the rest
    cols = np.arange(ys.shape[1])[None, :]
    out = np.where(cols < k[:, None], fl, ys)
    rows = np.flatnonzero(k < ys.shape[1])
    kk = k[rows]
    before = np.where(kk > 0, cum[rows, np.maximum(kk - 1, 0)], 0.0)
    out[rows, kk] -= need[rows] - before
    res = np.empty_like(out)
    np.put_along_axis(res, order, out, axis=1)
    return res


def row_greedy(
    lam: np.ndarray, a: np.ndarray, lo: np.ndarray, hi: np.ndarray, ylo: np.ndarray, yhi: np.ndarray
) -> np.ndarray:
    """The optimal ``y = a·x`` terms ``(..., k)`` of ``max Σ (λ_j/a_j) y_j  s.t.  lo <= Σ y <= hi``,
    ``ylo <= y <= yhi``, one row per leading index of ``lam`` (instances, or instances × blocks);
    ``a``, ``ylo``, ``yhi`` ``(..., k)`` and ``lo``, ``hi`` ``(...)`` broadcast against it; ``a`` has
    no zero."""
    ratio = lam / a
    y = np.where(ratio > 0, yhi, ylo)
    total = y.sum(axis=-1)
    over = total > hi + 1e-12  # lower the worst ratios first
    if over.any():
        floor = np.broadcast_to(ylo, y.shape)[over]
        y[over] = _move_sorted(y[over], ratio[over], floor, total[over] - np.broadcast_to(hi, total.shape)[over])
    under = total < lo - 1e-12  # raise the best ratios first (the mirror image)
    if under.any():
        ceil = np.broadcast_to(yhi, y.shape)[under]
        need = np.broadcast_to(lo, total.shape)[under] - total[under]
        y[under] = -_move_sorted(-y[under], -ratio[under], -ceil, need)
    return y


def _whole(v: np.ndarray, step: float = 1.0) -> bool:
    fin = v[np.isfinite(v)] / step
    return bool(np.all(np.abs(fin - np.round(fin)) < 1e-9))


def _named(block: CompiledModel, build: Callable[[], T]) -> T:
    """``build()``, whose refusal of a row that cannot hold over its variables' bounds becomes an
    `InfeasibleModelError` naming the row (the model has no point at all)."""
    try:
        return build()
    except DecompositionError as exc:
        raise InfeasibleModelError(
            f"the model is infeasible: row '{block.rows[0].name}' cannot hold within its variables' bounds ({exc})"
        ) from None


class _Row:
    """One linear row over finite bounds, split into its integer and continuous variables."""

    def __init__(self, block: CompiledModel) -> None:
        row = block.rows[0]
        self.a = row.dense(block.num_vars)
        self.lo, self.hi = row.lo, row.hi
        self.lb, self.ub = block.var_lb, block.var_ub  # read only: shared with the other blocks
        self.on = np.flatnonzero(self.a != 0)
        integer = block.var_type != "C"
        self.ints = self.on[integer[self.on]]
        self.conts = self.on[~integer[self.on]]
        self.integral_bounds = _whole(self.lb[integer]) and _whole(self.ub[integer])

    @staticmethod
    def fits(block: CompiledModel) -> bool:
        return (
            len(block.rows) == 1
            and not block.rows[0].is_quadratic
            and bool(np.isfinite(block.var_lb).all() and np.isfinite(block.var_ub).all())
            and bool(np.any(block.rows[0].coef != 0))
        )


class _OneRow(Oracle):
    """An oracle of one linear row that also solves objectives given on the row's variables."""

    on: np.ndarray  # the row's variables (nonzero coefficients), sorted

    @abstractmethod
    def _on_support(self, lam: np.ndarray) -> np.ndarray:
        """Optimal ``x`` on ``on`` for objectives there ``(B, len(on))``."""

    def argmax_on(self, lam: np.ndarray, support: np.ndarray) -> np.ndarray | None:
        """Optimal ``x`` on the row's variables for objectives given there (see `Oracle.argmax_on`).

        Parameters
        ----------
        lam
            Objectives on the support ``(B, s)`` (max form).
        support
            The variables the row touches.
        """
        return self._on_support(lam) if np.array_equal(support, self.on) else None


class LinearRowOracle(_OneRow):
    """A linear row over continuous variables, or over integers with equal ``|a_j|`` (see the module docstring).

    Parameters
    ----------
    a
        The row's coefficients.
    lo
        The row's lower side.
    hi
        The row's upper side.
    lb
        The variables' lower bounds.
    ub
        The variables' upper bounds.
    """

    name = "linear-row"

    def __init__(self, a: np.ndarray, lo: float, hi: float, lb: np.ndarray, ub: np.ndarray) -> None:
        self.a, self.lo, self.hi, self.lb, self.ub = a, lo, hi, lb, ub
        self.on = np.flatnonzero(a != 0)
        ya, yb = a[self.on] * lb[self.on], a[self.on] * ub[self.on]
        self.ylo, self.yhi = np.minimum(ya, yb), np.maximum(ya, yb)
        if self.ylo.sum() > hi + 1e-9 or self.yhi.sum() < lo - 1e-9:
            raise DecompositionError("a linear row is infeasible over the variable bounds")

    @classmethod
    def fit(cls, block: CompiledModel) -> LinearRowOracle | None:
        """An oracle if ``block`` is one linear row whose closed form is exact, else ``None``.

        Parameters
        ----------
        block
            A block's compiled subproblem.
        """
        if not _Row.fits(block):
            return None
        r = _Row(block)
        if not r.integral_bounds:
            return None
        if len(r.ints):  # integers on the row: a totally unimodular row (equal |a|, whole sides)
            alpha = np.abs(r.a[r.on])
            if len(r.conts) or not np.allclose(alpha, alpha[0]) or not _whole(np.array([r.lo, r.hi]), alpha[0]):
                return None
        return _named(block, lambda: cls(r.a, r.lo, r.hi, r.lb, r.ub))

    def describe(self) -> str:
        return f"linear row over {len(self.on)} variables: closed form (fractional knapsack)"

    def argmax(self, lam: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        lam = np.atleast_2d(np.asarray(lam, dtype=float))
        B = lam.shape[0]
        x = np.where(lam > 0, self.ub, self.lb) * np.ones((B, 1))  # off-row variables: best bound
        y = row_greedy(lam[:, self.on], self.a[self.on], np.full(B, self.lo), np.full(B, self.hi), self.ylo, self.yhi)
        x[:, self.on] = y / self.a[self.on]
        if out is not None:
            out[...] = x
            return out
        return x

    def _on_support(self, lam: np.ndarray) -> np.ndarray:
        B = lam.shape[0]
        a = self.a[self.on]
        return row_greedy(lam, a, np.full(B, self.lo), np.full(B, self.hi), self.ylo, self.yhi) / a


class MixedRowOracle(_OneRow):
    """A linear row over continuous variables and a few integer ones (see the module docstring).

    Parameters
    ----------
    r
        The row over the continuous variables.
    combos
        The integer variables' value combinations to enumerate ``(K, k)``.
    """

    name = "mixed-row"

    def __init__(self, r: _Row, combos: np.ndarray) -> None:
        self.r = r
        self.on = r.on
        a = r.a
        self.combos = combos  # (K, len(ints)) values of the integer variables
        self.shift = combos @ a[r.ints]  # a_I·v per combination
        ya, yb = a[r.conts] * r.lb[r.conts], a[r.conts] * r.ub[r.conts]
        self.ylo, self.yhi = np.minimum(ya, yb), np.maximum(ya, yb)
        room_lo, room_hi = r.lo - self.shift, r.hi - self.shift
        self.feasible = (self.ylo.sum() <= room_hi + 1e-9) & (self.yhi.sum() >= room_lo - 1e-9)
        if not self.feasible.any():
            raise DecompositionError("a mixed linear row is infeasible over the variable bounds")

    @classmethod
    def fit(cls, block: CompiledModel) -> MixedRowOracle | None:
        """An oracle if ``block`` is one linear row over continuous variables and at most
        ``MAX_COMBOS`` combinations of integer values, else ``None``.

        Parameters
        ----------
        block
            A block's compiled subproblem.
        """
        if not _Row.fits(block):
            return None
        r = _Row(block)
        if not (len(r.ints) and len(r.conts) and r.integral_bounds):
            return None
        sizes = r.ub[r.ints] - r.lb[r.ints] + 1
        if float(np.prod(sizes)) > MAX_COMBOS:
            return None
        values = [np.arange(r.lb[j], r.ub[j] + 0.5) for j in r.ints]
        return _named(block, lambda: cls(r, np.array(list(itertools.product(*values)), dtype=float)))

    def _combine(self, lam: np.ndarray, x: np.ndarray, ints: np.ndarray, conts: np.ndarray) -> None:
        """The best combination per instance, written into ``x`` at columns ``ints`` and ``conts``
        (``lam``'s columns too)."""
        r, B = self.r, lam.shape[0]
        lam_c, a_c = lam[:, conts], r.a[r.conts]
        feasible = np.flatnonzero(self.feasible)
        xcs, values = [], []
        for k in feasible:
            lo, hi = np.full(B, r.lo - self.shift[k]), np.full(B, r.hi - self.shift[k])
            xc = row_greedy(lam_c, a_c, lo, hi, self.ylo, self.yhi) / a_c
            xcs.append(xc)
            values.append(lam[:, ints] @ self.combos[k] + (lam_c * xc).sum(axis=1))
        win = np.argmax(values, axis=0)  # the first best combination, per instance
        x[:, ints] = self.combos[feasible[win]]
        x[:, conts] = np.asarray(xcs)[win, np.arange(B)]

    def _on_support(self, lam: np.ndarray) -> np.ndarray:
        r = self.r
        x = np.empty(lam.shape)
        self._combine(lam, x, np.searchsorted(r.on, r.ints), np.searchsorted(r.on, r.conts))
        return x

    def describe(self) -> str:
        return (
            f"linear row over {len(self.r.conts)} continuous and {len(self.r.ints)} integer variables: "
            f"{len(self.combos)} combinations of the integers, each in closed form"
        )

    def argmax(self, lam: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        lam = np.atleast_2d(np.asarray(lam, dtype=float))
        r, B = self.r, lam.shape[0]
        x = np.where(lam > 0, r.ub, r.lb) * np.ones((B, 1))  # off-row variables: best bound
        self._combine(lam, x, r.ints, r.conts)
        if out is not None:
            out[...] = x
            return out
        return x
