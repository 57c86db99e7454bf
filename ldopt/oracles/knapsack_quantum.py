"""The expanding core's small kernels: its buffers' growth, and the profit quantum ``g`` to which
its LP bounds are rounded down (`ldopt.oracles.knapsack_core`)."""

from __future__ import annotations

import numpy as np

from ldopt.runtime.jit import nb


@nb.njit(cache=True, nogil=True)
def grow(a: np.ndarray, size: int) -> np.ndarray:
    """``a`` copied into a new buffer of ``size`` entries (the core's lists grow by doubling)."""
    out = np.empty(size, dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@nb.njit(cache=True, nogil=True)
def quantum(v: np.ndarray, item: np.ndarray, N: int, vmin: float) -> float:
    """A ``g > 0`` of which every candidate's value is a whole multiple (``vmin / k``, ``k ≤ 4``,
    checked on every value), or 0 when there is none."""
    for k in range(1, 5):
        g = vmin / k
        ok = True
        for i in range(N):
            r = v[item[i]] / g
            if abs(r - np.floor(r + 0.5)) > 1e-9 * max(1.0, r):
                ok = False
                break
        if ok:
            return g
    return 0.0


@nb.njit(cache=True, nogil=True)
def floor_to(ub: float, g: float) -> float:
    """``ub`` rounded down to a multiple of ``g`` (``g = 0``: unchanged)."""
    if g == 0.0:
        return ub
    return g * np.floor(ub / g + 1e-7)
