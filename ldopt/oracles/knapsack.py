"""A single knapsack row over binary variables, solved exactly by dynamic programming.

Fits ``max λ·x  s.t.  a·x <= b`` (or ``>=``), ``x`` binary, integer ``a`` of any sign: negative
coefficients are complemented (``x = 1 - y``), so the DP always runs over nonnegative weights.
Items with ``λ_j <= 0`` are never worth taking and are skipped; the DP is O(n·b) per instance,
compiled with numba and run on threads over the instances of a batch.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..compile import CompiledModel
from ..threads import parallel_ranges
from .base import Oracle


@nb.njit(cache=True, nogil=True)
def _dp_one(val: np.ndarray, w: np.ndarray, cap: int, out: np.ndarray, take: np.ndarray, best: np.ndarray) -> None:
    n = val.shape[0]
    best[: cap + 1] = 0.0
    # suffix[j]: weight of the usable items j..n-1; the backtrack visits stage j only at
    # capacities r >= cap - suffix[j+1], so lower capacities need no update (nor a take bit)
    suffix = np.zeros(n + 1, dtype=np.int64)
    for j in range(n - 1, -1, -1):
        usable = val[j] > 0.0 and w[j] <= cap
        suffix[j] = suffix[j + 1] + (w[j] if usable else 0)
    for j in range(n):
        vj = val[j]
        wj = w[j]
        low = max(cap - suffix[j + 1], 0)
        if vj <= 0.0 or wj > cap:
            for r in range(low, cap + 1):
                take[j, r] = False
            continue
        for r in range(cap, max(wj, low) - 1, -1):
            cand = best[r - wj] + vj
            if cand > best[r]:
                best[r] = cand
                take[j, r] = True
            else:
                take[j, r] = False
        for r in range(min(wj, cap + 1) - 1, low - 1, -1):
            take[j, r] = False
    r = cap
    for j in range(n - 1, -1, -1):
        if take[j, r]:
            out[j] = 1.0
            r -= w[j]
        else:
            out[j] = 0.0


@nb.njit(cache=True, nogil=True)
def _dp_range(values: np.ndarray, weights: np.ndarray, cap: int, out: np.ndarray, start: int, stop: int) -> None:
    n = values.shape[1]
    take = np.empty((n, cap + 1), dtype=np.bool_)
    best = np.empty(cap + 1)
    for b in range(start, stop):
        _dp_one(values[b], weights, cap, out[b], take, best)


def knapsack_dp_batch(values: np.ndarray, weights: np.ndarray, cap: int) -> np.ndarray:
    """Exact 0/1 knapsack for each row of ``values`` (B, n) with shared ``weights`` >= 0, ``cap``.

    The GIL-free kernel runs on :mod:`ldopt.threads` (fork-safe, unlike numba's OpenMP layer).
    """
    values = np.ascontiguousarray(values, dtype=float)
    out = np.zeros(values.shape)
    parallel_ranges(lambda a, b: _dp_range(values, weights, cap, out, a, b), values.shape[0])
    return out


class KnapsackRowOracle(Oracle):
    """Exact DP for one integer knapsack row over binary variables (see the module docstring)."""

    name = "knapsack-dp"

    def __init__(self, coef: np.ndarray, cap: int, flip: np.ndarray) -> None:
        self.weights = np.abs(coef).astype(np.int64)
        self.cap = int(cap)
        self.flip = flip  # variables complemented: x = 1 - y

    @classmethod
    def fit(cls, block: CompiledModel) -> KnapsackRowOracle | None:
        if len(block.rows) != 1 or block.rows[0].is_quadratic or not (block.var_type == "B").all():
            return None
        if not ((block.var_lb == 0) & (block.var_ub == 1)).all():
            return None
        row = block.rows[0]
        a = row.dense(block.num_vars)
        if not np.all(a == np.round(a)) or (np.isfinite(row.lo) and np.isfinite(row.hi)):
            return None
        if np.isfinite(row.lo):  # a·x >= lo  <=>  -a·x <= -lo
            a, hi = -a, -row.lo
        else:
            hi = row.hi
        flip = a < 0
        cap = np.floor(hi + 1e-9) - a[flip].sum()  # complemented items free their weight
        if cap < 0 or cap > 5e7:
            return None  # infeasible row, or a table too large for a DP: leave it to a solver
        return cls(a, int(cap), flip)

    def solve(self, lam: np.ndarray) -> np.ndarray:
        lam = np.ascontiguousarray(lam, dtype=float)
        vals = np.where(self.flip, -lam, lam)
        y = knapsack_dp_batch(np.ascontiguousarray(vals), self.weights, self.cap)
        return np.where(self.flip, 1.0 - y, y)
