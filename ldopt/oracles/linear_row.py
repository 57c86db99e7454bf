"""One linear row over bounded variables (a budget, simplex or cardinality row), in closed form.

Fits ``max λ·x  s.t.  lo <= a·x <= hi,  l <= x <= u`` with finite bounds and the nonzero ``a_j``
all of one sign; integer or binary variables too when the row is a cardinality row (equal
coefficients, integral right-hand sides and bounds, e.g. an assignment row ``Σ_i x_ij = 1``).
In ``y_j = a_j x_j`` it is a fractional knapsack: every ``y_j`` starts at its
best bound; if the row is violated, the items with the worst ratio ``λ_j / a_j`` move first.
"""

from __future__ import annotations

import numpy as np

from ..compile import CompiledModel
from ..errors import DecompositionError
from .base import Oracle


class LinearRowOracle(Oracle):
    name = "linear-row"

    def __init__(self, a: np.ndarray, lo: float, hi: float, lb: np.ndarray, ub: np.ndarray) -> None:
        self.a, self.lo, self.hi, self.lb, self.ub = a, lo, hi, lb, ub
        self.on = a != 0
        ya, yb = a * lb, a * ub  # y-bounds (a > 0 on the row after normalisation)
        self.ylo = np.where(self.on, ya, 0.0)
        self.yhi = np.where(self.on, yb, 0.0)
        if self.ylo.sum() > hi + 1e-9 or self.yhi.sum() < lo - 1e-9:
            raise DecompositionError("a linear budget row is infeasible over the variable bounds")

    @classmethod
    def fit(cls, block: CompiledModel) -> LinearRowOracle | None:
        if len(block.rows) != 1 or block.rows[0].is_quadratic:
            return None
        if not (np.isfinite(block.var_lb).all() and np.isfinite(block.var_ub).all()):
            return None
        row = block.rows[0]
        a = row.dense(block.num_vars)
        nz = a[a != 0]
        if not len(nz):
            return None
        lo, hi = row.lo, row.hi
        if (nz < 0).all():
            a, lo, hi = -a, -hi, -lo
        elif not (nz > 0).all():
            return None
        if (block.var_type != "C").any() and not _integral(a, lo, hi, block):
            return None
        return cls(a, lo, hi, block.var_lb.copy(), block.var_ub.copy())

    def solve(self, lam: np.ndarray) -> np.ndarray:
        lam = np.atleast_2d(np.asarray(lam, dtype=float))
        B, n = lam.shape
        x = np.where(lam > 0, self.ub, self.lb) * np.ones((B, 1))  # off-row variables: best bound
        on = np.flatnonzero(self.on)
        ratio = lam[:, on] / self.a[on]
        ylo, yhi = self.ylo[on], self.yhi[on]
        y = np.where(ratio > 0, yhi, ylo)
        total = y.sum(axis=1)
        over = total > self.hi + 1e-12  # lower the worst ratios first
        if over.any():
            y[over] = _move_sorted(y[over], ratio[over], ylo, total[over] - self.hi)
        under = total < self.lo - 1e-12  # raise the best ratios first (the mirror image)
        if under.any():
            y[under] = -_move_sorted(-y[under], -ratio[under], -yhi, self.lo - total[under])
        x[:, on] = y / self.a[on]
        return x


def _move_sorted(y: np.ndarray, key: np.ndarray, floor: np.ndarray, need: np.ndarray) -> np.ndarray:
    """Per row, lower ``y`` towards ``floor`` in increasing ``key`` order until the total
    decrease is ``need`` (rows are instances; vectorised over them)."""
    order = np.argsort(key, axis=1, kind="stable")
    ys = np.take_along_axis(y, order, axis=1)
    fl = floor[order]
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


def _integral(a: np.ndarray, lo: float, hi: float, block: CompiledModel) -> bool:
    """Integer variables keep the greedy exact when the row is a cardinality row: equal
    coefficients ``α`` on the row, ``lo/α`` and ``hi/α`` integral, integral variable bounds.
    The moves are then whole units, so the LP optimum the greedy finds is integral."""
    alpha = a[a != 0]
    if not np.allclose(alpha, alpha[0]):
        return False

    def ints(v: np.ndarray) -> bool:
        fin = v[np.isfinite(v)]
        return bool(np.all(np.abs(fin - np.round(fin)) < 1e-9))

    return ints(np.array([lo, hi]) / alpha[0]) and ints(block.var_lb) and ints(block.var_ub)
