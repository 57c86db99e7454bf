"""Exact 0-1 knapsack by dynamic programming over capacities: O(N·cap) time, N·(cap+1) bytes.

The kernel for rows whose table is small (`ldopt.oracles.knapsack` picks it where it beats
the expanding core, and uses it as an exact fallback). Integer weights ``w >= 0`` only; items with
``v_j <= 0`` are never worth taking and are skipped.
"""

from __future__ import annotations

import numpy as np

from ldopt.runtime.jit import nb
from ldopt.runtime.threads import parallel_ranges


@nb.njit(cache=True, nogil=True)
def _dp_one(val: np.ndarray, w: np.ndarray, cap: int, out: np.ndarray, take: np.ndarray, best: np.ndarray) -> None:
    """0/1 knapsack by DP over capacities, visiting only the capacities that matter.

    ``best[r]`` is the best value of weight <= r over the usable items seen so far. Two bounds
    shrink stage j's range: above ``prefix[j]`` (the usable weight so far) every item fits, so
    ``best`` is the running total ``full`` there and item j is taken (implicitly, not stored);
    below ``cap - suffix[j+1]`` the backtrack never looks. Items with ``val <= 0`` or too heavy
    are skipped.
    """
    n = val.shape[0]
    suffix = np.zeros(n + 1, dtype=np.int64)
    for j in range(n - 1, -1, -1):
        usable = val[j] > 0.0 and w[j] <= cap
        suffix[j] = suffix[j + 1] + (w[j] if usable else 0)
    prefix = np.zeros(n, dtype=np.int64)
    best[0] = 0.0
    pre = 0  # usable weight of items 0..j-1: best[r] is stored for r <= pre, equals ``full`` above
    full = 0.0
    for j in range(n):
        vj = val[j]
        wj = w[j]
        if vj <= 0.0 or wj > cap:
            prefix[j] = -1  # not usable: never taken
            continue
        low = max(cap - suffix[j + 1], 0)
        new_pre = pre + wj
        hi = min(cap, new_pre)
        for r in range(hi, max(wj, low) - 1, -1):
            cur = best[r] if r <= pre else full
            cand = best[r - wj] + vj  # r - wj <= pre: stored
            if cand > cur:
                best[r] = cand
                take[j, r] = True
            else:
                best[r] = cur
                take[j, r] = False
        for r in range(min(wj, hi + 1) - 1, low - 1, -1):
            if r > pre:
                best[r] = full
            take[j, r] = False
        pre = new_pre
        full += vj
        prefix[j] = pre
    r = cap
    for j in range(n - 1, -1, -1):
        if prefix[j] < 0:
            out[j] = 0.0
        elif r > prefix[j] or take[j, r]:
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

    The GIL-free kernel runs on [`ldopt.runtime.threads`][ldopt.runtime.threads] (fork-safe, unlike
    numba's OpenMP layer).
    """
    values = np.ascontiguousarray(values, dtype=float)
    out = np.zeros(values.shape)
    parallel_ranges(lambda a, b: _dp_range(values, weights, cap, out, a, b), values.shape[0])
    return out
