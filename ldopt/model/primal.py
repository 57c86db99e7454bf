"""Primal heuristics that give the dual solve a feasible value (a target and a gap).

* every subproblem copy ``x_k`` that satisfies all blocks is a feasible solution;
* for binary problems whose linear rows have nonnegative coefficients — packing (``<=``) and
  covering (``>=``) rows in any mix, as in knapsacks, set covering and rosters — a greedy repair of
  the rounded mean copy: drop the least efficient items until no ``<=`` row is over, add the most
  efficient ones that keep every ``<=`` row until no ``>=`` row is short, then drop items of negative
  value that no ``>=`` row needs and add items of positive value that fit. A repair that cannot
  cover a row gives nothing.
"""

from __future__ import annotations

import numpy as np

from ldopt.model.problem import Problem
from ldopt.runtime.jit import nb


@nb.njit(cache=True, nogil=True)
def _fits(load: np.ndarray, A: np.ndarray, j: int, lo: np.ndarray, hi: np.ndarray, sign: float) -> bool:
    """Whether adding (``sign = 1``) or removing (``-1``) item ``j`` keeps every row within its bounds
    that it was within: ``<=`` rows when adding, ``>=`` rows when removing."""
    for k in range(A.shape[0]):
        v = load[k] + sign * A[k, j]
        if sign > 0 and v > hi[k] + 1e-9:
            return False
        if sign < 0 and v < lo[k] - 1e-9:
            return False
    return True


@nb.njit(cache=True, nogil=True)
def _move(x: np.ndarray, load: np.ndarray, A: np.ndarray, j: int, value: float) -> None:
    """Set item ``j`` to ``value`` (0 or 1) and update the row loads."""
    step = value - x[j]
    x[j] = value
    for k in range(A.shape[0]):
        load[k] += step * A[k, j]


@nb.njit(cache=True, nogil=True)
def _first_bad(load: np.ndarray, lo: np.ndarray, hi: np.ndarray, over: bool) -> int:
    """The first row over its ``hi`` (``over``) or short of its ``lo``; -1 if none."""
    for k in range(load.shape[0]):
        if (over and load[k] > hi[k] + 1e-9) or (not over and load[k] < lo[k] - 1e-9):
            return k
    return -1


@nb.njit(cache=True, nogil=True)
def _repair_one(x: np.ndarray, q: np.ndarray, A: np.ndarray, lo: np.ndarray, hi: np.ndarray, order: np.ndarray) -> bool:
    """Repair ``x`` in place (items ranked by ``order``, least efficient first); whether it is feasible."""
    n = x.shape[0]
    load = A @ x
    for j in order:  # drop the least efficient until no <= row is over
        if _first_bad(load, lo, hi, True) < 0:
            break
        if x[j] > 0.5:
            _move(x, load, A, j, 0.0)
    for t in range(n - 1, -1, -1):  # cover short >= rows with the most efficient that fit
        if _first_bad(load, lo, hi, False) < 0:
            break
        j = order[t]
        helps = False
        for k in range(A.shape[0]):
            helps = helps or (load[k] < lo[k] - 1e-9 and A[k, j] > 0)
        if x[j] < 0.5 and helps and _fits(load, A, j, lo, hi, 1.0):
            _move(x, load, A, j, 1.0)
    if _first_bad(load, lo, hi, True) >= 0 or _first_bad(load, lo, hi, False) >= 0:
        return False
    for j in order:  # drop what costs and is not needed
        if x[j] > 0.5 and q[j] < 0.0 and _fits(load, A, j, lo, hi, -1.0):
            _move(x, load, A, j, 0.0)
    for t in range(n - 1, -1, -1):  # add the most efficient of positive value that fit
        j = order[t]
        if x[j] < 0.5 and q[j] > 0.0 and _fits(load, A, j, lo, hi, 1.0):
            _move(x, load, A, j, 1.0)
    return True


@nb.njit(cache=True, nogil=True)
def _within(load: np.ndarray, A: np.ndarray, out: int, into: int, lo: np.ndarray, hi: np.ndarray) -> bool:
    """Whether the loads stay within every row after removing item ``out`` (-1: none) and adding ``into``."""
    for k in range(A.shape[0]):
        v = load[k] + A[k, into] - (A[k, out] if out >= 0 else 0.0)
        if v > hi[k] + 1e-9 or v < lo[k] - 1e-9:
            return False
    return True


@nb.njit(cache=True, nogil=True)
def _swaps(x: np.ndarray, q: np.ndarray, A: np.ndarray, lo: np.ndarray, hi: np.ndarray, cand: np.ndarray) -> None:
    """Best-improvement local search on a feasible 0/1 point ``x`` (in place): add a candidate item,
    or swap one chosen item for a candidate, while the value grows."""
    load = A @ x
    for _ in range(x.shape[0]):
        best, out, into = 1e-12, -1, -1
        inside: np.ndarray = np.flatnonzero(x > 0.5)
        for j in cand:
            if x[j] > 0.5:
                continue
            if q[j] > best and _within(load, A, -1, j, lo, hi):
                best, out, into = q[j], -1, j
            for i in inside:
                if q[j] - q[i] > best and _within(load, A, i, j, lo, hi):
                    best, out, into = q[j] - q[i], i, j
        if into < 0:
            return
        if out >= 0:
            _move(x, load, A, out, 0.0)
        _move(x, load, A, into, 1.0)


@nb.njit(cache=True, nogil=True)
def _repair(
    x0: np.ndarray, q: np.ndarray, A: np.ndarray, lo: np.ndarray, hi: np.ndarray, scale: np.ndarray
) -> np.ndarray:
    """Repaired 0/1 points ``(B, n)`` of ``x0`` for max ``q·x``, items ranked by ``q / scale``
    (``scale`` ``(B, n)``: each instance's item sizes); a row of NaN where the repair failed."""
    out = x0.copy()
    for b in range(x0.shape[0]):
        if not _repair_one(out[b], q[b], A, lo, hi, np.argsort(q[b] / scale[b])):
            out[b, :] = np.nan
    return out


class PrimalHeuristic:
    """Keeps the best feasible value per instance (max form: objective ``q·x``)."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        cm = problem.compiled
        self.repairs = bool(
            (cm.var_type == "B").all()
            and all(not r.is_quadratic and (r.coef >= 0).all() and r.hi >= 0 for r in cm.rows)
        )
        if self.repairs:
            self.A = np.ascontiguousarray(cm.linear_matrix().toarray())
            self.lo = np.array([r.lo for r in cm.rows], dtype=float)
            self.hi = np.array([r.hi for r in cm.rows], dtype=float)
            # an item's size: its share of every finite capacity (covering rows consume none)
            caps = np.where(np.isfinite(self.hi), np.maximum(self.hi, 1e-9), np.inf)
            self.scale = (self.A / caps[:, None]).sum(0) + 1e-12

    def update(
        self, q: np.ndarray, X: np.ndarray, p_val: np.ndarray, p_x: np.ndarray, idx: np.ndarray,
        prices: np.ndarray | None = None,
    ) -> None:  # fmt: skip
        """Improve ``p_val[idx]``/``p_x[idx]`` from the copies ``X`` ``(b, S, n)`` of those instances.

        Only copies worth more than the incumbent are checked for feasibility (most are not).
        ``prices`` ``(b, rows)``: row prices (e.g. the LP's duals) that size the items for the
        repair, ``max(prices·A, 0)`` (Pirkul's surrogate ratio), instead of their shares of the
        capacities."""
        b, S, _ = X.shape
        vals = np.einsum("bkn,bn->bk", X, q)
        worth = vals > p_val[idx][:, None]
        if worth.any():
            bi, ki = np.nonzero(worth)
            feasible = self.problem.violation(X[bi, ki]) <= 1e-6
            vals = np.full((b, S), -np.inf)
            vals[bi[feasible], ki[feasible]] = np.einsum("kn,kn->k", X[bi[feasible], ki[feasible]], q[bi[feasible]])
        else:
            vals = np.full((b, S), -np.inf)
        k = vals.argmax(axis=1)
        cand_val = vals[np.arange(b), k]
        cand_x = X[np.arange(b), k]
        if self.repairs:
            scale = np.broadcast_to(self.scale, q.shape)
            if prices is not None:
                scale = np.maximum(np.nan_to_num(prices) @ self.A, 0.0) + 1e-9 * self.scale
            rep = _repair(np.round(X.mean(axis=1)), np.ascontiguousarray(q), self.A, self.lo, self.hi, scale)
            rv = np.einsum("bn,bn->b", rep, q)
            use = np.isfinite(rv) & (rv > cand_val)
            cand_val = np.where(use, rv, cand_val)
            cand_x = np.where(use[:, None], rep, cand_x)
        better = cand_val > p_val[idx]
        p_val[idx[better]] = cand_val[better]
        p_x[idx[better]] = cand_x[better]

    def polish(self, q: np.ndarray, p_val: np.ndarray, p_x: np.ndarray, idx: np.ndarray, cand: np.ndarray) -> None:
        """Improve the incumbents ``p_x[idx]`` by a local search (add an item, or swap one for
        another) over the candidate items ``cand`` ``(b, K)`` (e.g. the LP's best reduced costs);
        for the problems the repair serves, else nothing.

        Parameters
        ----------
        q
            Objectives ``(b, n)`` (max form) of the instances ``idx``.
        p_val, p_x
            The best values ``(B,)`` and points ``(B, n)``, improved in place.
        idx
            The instances ``(b,)``.
        cand
            Candidate items per instance ``(b, K)``.
        """
        if not self.repairs:
            return
        for t, i in enumerate(idx):
            if np.isfinite(p_val[i]):
                x = p_x[i].copy()
                _swaps(x, q[t], self.A, self.lo, self.hi, cand[t])
                if x @ q[t] > p_val[i]:
                    p_val[i], p_x[i] = x @ q[t], x
