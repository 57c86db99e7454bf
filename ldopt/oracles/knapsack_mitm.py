"""Exact 0-1 knapsack by meet in the middle (Horowitz–Sahni) for rows of at most ``MAX_ITEMS``
candidate items: the fallback for rows the expanding core gives up on (subset-sum rows with huge
weights prune nothing until an exact fill appears) before a MIP solver is asked.

Both halves' subset sums are enumerated (``2^(N/2)`` each); the second half is sorted by weight
and kept only where its profit increases (a heavier subset must be more profitable to matter);
each subset of the first half is then matched with the heaviest one of the second that still fits.
Time and memory ``O(2^(N/2))`` whatever the capacity: at most 2^20 subsets, 24 MB, per half.
"""

from __future__ import annotations

import numpy as np

from ldopt.runtime.jit import nb

MAX_ITEMS = 40


@nb.njit(cache=True, nogil=True)
def _subsets(w: np.ndarray, v: np.ndarray, items: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weights, profits and bit masks (over positions in ``items``) of every subset of ``items``."""
    k = items.shape[0]
    size = 1 << k
    W = np.zeros(size)
    P = np.zeros(size)
    M = np.zeros(size, dtype=np.int64)
    cur = 1
    for i in range(k):
        j = items[i]
        for s in range(cur):
            W[cur + s] = W[s] + w[j]
            P[cur + s] = P[s] + v[j]
            M[cur + s] = M[s] | (np.int64(1) << i)
        cur *= 2
    return W, P, M


@nb.njit(cache=True, nogil=True)
def mitm_one(v: np.ndarray, w: np.ndarray, cap: float, out: np.ndarray) -> None:
    """``out`` (zeroed here) receives the optimal 0/1 solution of one instance with
    ``v``, ``w >= 0``; at most ``MAX_ITEMS`` items may have ``v > 0`` and ``0 < w <= cap``."""
    n = v.shape[0]
    cand = np.empty(n, dtype=np.int64)
    N = 0
    for j in range(n):
        out[j] = 0.0
        if v[j] > 0.0:
            if w[j] <= 0.0:
                out[j] = 1.0
            elif w[j] <= cap:
                cand[N] = j
                N += 1
    half = N // 2
    A = cand[:half]
    Bi = cand[half:N]
    WA, PA, MA = _subsets(w, v, A)
    WB, PB, MB = _subsets(w, v, Bi)
    order = np.argsort(WB, kind="mergesort")
    keep = np.empty(order.shape[0], dtype=np.int64)
    K = 0
    best = -np.inf
    for o in order:  # the second half, by weight, profit strictly increasing
        if PB[o] > best:
            best = PB[o]
            keep[K] = o
            K += 1
    fw = WB[keep[:K]]
    zbest = -1.0
    ia = 0
    ib = 0
    for a in range(WA.shape[0]):
        if WA[a] > cap:
            continue
        k = np.searchsorted(fw, cap - WA[a], side="right") - 1
        if k >= 0 and PA[a] + PB[keep[k]] > zbest:
            zbest = PA[a] + PB[keep[k]]
            ia = a
            ib = keep[k]
    for i in range(A.shape[0]):
        if (MA[ia] >> i) & 1:
            out[A[i]] = 1.0
    for i in range(Bi.shape[0]):
        if (MB[ib] >> i) & 1:
            out[Bi[i]] = 1.0


@nb.njit(cache=True, nogil=True)
def candidates(v: np.ndarray, w: np.ndarray, cap: float) -> int:
    """How many items have ``v > 0`` and ``0 < w <= cap`` (the meet in the middle's size)."""
    N = 0
    for j in range(v.shape[0]):
        if v[j] > 0.0 and 0.0 < w[j] <= cap:
            N += 1
    return N
