"""Partial sorting for the expanding core (`knapsack_core`): items ranked by decreasing
efficiency only where the core needs them. Three-way partitions (quickselect) leave unsorted
intervals, ordered between them, on a stack; an interval is sorted when the core reaches it."""

from __future__ import annotations

import numpy as np

from ldopt.runtime.jit import nb

SMALL = 16  # intervals up to this length are sorted by insertion


@nb.njit(cache=True, nogil=True)
def insertion_sort(item: np.ndarray, eff: np.ndarray, lo: int, hi: int) -> None:
    """Sort positions ``lo..hi-1`` by decreasing efficiency (``item`` follows ``eff``)."""
    for i in range(lo + 1, hi):
        e = eff[i]
        it = item[i]
        k = i - 1
        while k >= lo and eff[k] < e:
            eff[k + 1] = eff[k]
            item[k + 1] = item[k]
            k -= 1
        eff[k + 1] = e
        item[k + 1] = it


@nb.njit(cache=True, nogil=True)
def partition(item: np.ndarray, eff: np.ndarray, lo: int, hi: int) -> tuple[int, int]:
    """Three-way partition of ``lo..hi-1`` around a median-of-three pivot efficiency ``p``:
    afterwards ``lo..a-1`` > p, ``a..b-1`` == p, ``b..hi-1`` < p. Returns ``(a, b)``."""
    x, y, z = eff[lo], eff[(lo + hi) // 2], eff[hi - 1]
    if x > y:
        x, y = y, x
    if y > z:
        y = z
    p = max(x, y)
    a = lo
    i = lo
    b = hi
    while i < b:
        e = eff[i]
        if e > p:
            eff[i], eff[a] = eff[a], eff[i]
            item[i], item[a] = item[a], item[i]
            a += 1
            i += 1
        elif e < p:
            b -= 1
            eff[i], eff[b] = eff[b], eff[i]
            item[i], item[b] = item[b], item[i]
        else:
            i += 1
    return a, b


@nb.njit(cache=True, nogil=True)
def extend_right(item: np.ndarray, eff: np.ndarray, stack: np.ndarray, top: int, S1: int) -> tuple[int, int]:
    """Sort the unsorted interval at ``S1`` (top of the right stack) far enough to extend the
    sorted region by at least one position. Returns the new ``(top, S1)``."""
    lo = S1
    hi = stack[top - 1]
    top -= 1
    while hi - lo > SMALL:
        a, b = partition(item, eff, lo, hi)
        if b < hi:
            stack[top] = hi
            top += 1
        if a == lo:  # nothing above the pivot: the equal block is next, and already in order
            return top, b
        if b > a:
            stack[top] = b
            top += 1
        hi = a
    insertion_sort(item, eff, lo, hi)
    return top, hi


@nb.njit(cache=True, nogil=True)
def extend_left(item: np.ndarray, eff: np.ndarray, stack: np.ndarray, top: int, S0: int) -> tuple[int, int]:
    """Mirror image of `extend_right()` for the interval ending at ``S0``."""
    hi = S0
    lo = stack[top - 1]
    top -= 1
    while hi - lo > SMALL:
        a, b = partition(item, eff, lo, hi)
        if a > lo:
            stack[top] = lo
            top += 1
        if b == hi:  # nothing below the pivot: the equal block is next, and already in order
            return top, a
        if b > a:
            stack[top] = a
            top += 1
        lo = b
    insertion_sort(item, eff, lo, hi)
    return top, lo
