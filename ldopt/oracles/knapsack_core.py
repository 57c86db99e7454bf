"""Exact 0-1 knapsack by an expanding core around the Dantzig break item (minknap-style).

``max v·y  s.t.  w·y <= cap,  y ∈ {0, 1}^N`` with ``w >= 0`` (real or integer weights). The cost
does not depend on the capacity:

1. Items are ranked by efficiency ``v_j / w_j`` only where needed: a weighted quickselect
   (three-way partitions) finds the *break item* ``b`` — the first one the greedy cannot take —
   in expected O(N), leaving intervals of unsorted items on both sides, ordered between them.
2. Dynamic programming decides the items around ``b`` outward, alternately the next item after
   the core (may be added) and the next one before it (may be removed); every other item keeps
   its greedy value. An interval is sorted only when the core reaches it.
3. The states ``(weight, profit)`` are kept free of dominated ones (a lighter state at least as
   profitable), and a state is dropped when its LP bound cannot beat the best feasible profit
   ``z`` (Pisinger's bounds): ``p + (cap − w)·e_next_add`` when it fits, ``p − (w − cap)·
   e_next_remove`` when it does not. When every profit is a multiple of a quantum ``g`` (integer
   profits, ``g = 1``; or costs divided by ``m``, as a shared dual solve starts) the bounds are
   rounded down to multiples of ``g``, which ends long runs of tied efficiencies. The core grows
   until no state is left — usually after a few dozen items.

The solution is rebuilt from a parent-pointer arena: a state that flips an item (relative to the
greedy break solution) records its parent and that item; unflipped states share their parent's
record. Lists and arena grow by doubling up to ``max_states``; an instance that needs more is
reported (``status = TOO_MANY_STATES``, with the best solution found so far) and left to a
fallback, so memory stays bounded whatever the capacity.

References: D. Pisinger, "A minimal algorithm for the 0-1 knapsack problem", Operations Research
45(5), 1997; H. Kellerer, U. Pferschy, D. Pisinger, *Knapsack Problems*, Springer 2004, ch. 5.

Length: `core_range()` is one numba kernel of about 250 lines on purpose — its state (eight
growable buffers, two interval stacks, the incumbent) lives in locals that a split would pass back
and forth for every instance.
"""

from __future__ import annotations

import numpy as np

from ldopt.oracles.knapsack_quantum import floor_to, grow, quantum
from ldopt.oracles.knapsack_sort import SMALL, extend_left, extend_right, insertion_sort, partition
from ldopt.runtime.jit import nb

OK = 0
TOO_MANY_STATES = 1


@nb.njit(cache=True, nogil=True)
def core_range(
    values: np.ndarray,
    weights: np.ndarray,
    cap: float,
    tol: float,
    out: np.ndarray,
    status: np.ndarray,
    start: int,
    stop: int,
    max_states: int,
    stats: np.ndarray,
) -> None:
    """Solve instances ``start..stop-1``: ``values`` (B, N), shared ``weights`` (N,) >= 0.

    ``out[b]`` receives the 0/1 solution and ``status[b]`` OK, or TOO_MANY_STATES when the core
    needed more than ``max_states`` states (``out[b]`` then holds the best solution found,
    feasible but not proven optimal). ``tol`` is the slack allowed on the capacity (0 for
    integer weights). ``stats[b]`` receives (items decided by the core, largest state list).
    """
    n = weights.shape[0]
    limit = cap + tol
    size = 1024
    SW = np.empty(size)
    SP = np.empty(size)
    SA = np.empty(size, dtype=np.int64)
    NW = np.empty(size)
    NP = np.empty(size)
    NA = np.empty(size, dtype=np.int64)
    asize = 4096
    parent = np.empty(asize, dtype=np.int64)
    flip = np.empty(asize, dtype=np.int64)
    item = np.empty(n, dtype=np.int64)
    eff = np.empty(n)
    greedy = np.empty(n, dtype=np.bool_)
    lstack = np.empty(64, dtype=np.int64)  # start of each unsorted interval left of the core
    rstack = np.empty(64, dtype=np.int64)  # end of each unsorted interval right of the core
    for b in range(start, stop):
        v = values[b]
        x = out[b]
        status[b] = OK
        stats[b, 0] = 0
        stats[b, 1] = 0
        # 1. items worth considering: positive value, weight that fits; weightless ones are free
        N = 0
        total = 0.0
        vmin = np.inf
        for j in range(n):
            x[j] = 0.0
            if v[j] > 0.0:
                if weights[j] <= 0.0:
                    x[j] = 1.0
                elif weights[j] <= limit:
                    item[N] = j
                    eff[N] = v[j] / weights[j]
                    N += 1
                    total += weights[j]
                    vmin = min(vmin, v[j])
        if total <= limit:
            for k in range(N):
                x[item[k]] = 1.0
            continue
        g = quantum(v, item, N, vmin)  # profits are multiples of g: bounds round down to them
        # 2. weighted quickselect for the break item; unsorted intervals go on the stacks
        lo = 0
        hi = N
        W = 0.0  # weight of positions < lo (all in the greedy solution)
        P = 0.0
        lt = 0
        rt = 0
        while hi - lo > SMALL:
            a, bb = partition(item, eff, lo, hi)
            wa = 0.0
            for k in range(lo, a):
                wa += weights[item[k]]
            if W + wa > limit:  # the break lies above the pivot
                if a < hi:
                    rstack[rt] = hi
                    rt += 1
                hi = a
                continue
            weq = 0.0
            for k in range(a, bb):
                weq += weights[item[k]]
            if W + wa + weq > limit:  # the break lies in the equal block (already in order)
                if a > lo:
                    lstack[lt] = lo
                    lt += 1
                if bb < hi:
                    rstack[rt] = hi
                    rt += 1
                for k in range(lo, a):
                    P += v[item[k]]
                W += wa
                lo = a
                hi = bb
                break
            for k in range(lo, bb):
                P += v[item[k]]
            W += wa + weq
            if bb > lo:
                lstack[lt] = lo
                lt += 1
            lo = bb
        insertion_sort(item, eff, lo, hi)
        br = lo
        while W + weights[item[br]] <= limit:
            W += weights[item[br]]
            P += v[item[br]]
            br += 1
        S0 = lo  # positions S0..S1-1 are sorted
        S1 = hi
        # 3. the greedy fill (positions after the break in their current, nearly sorted order)
        z = P
        gw = W
        for k in range(N):
            greedy[k] = k < br
        for k in range(br + 1, N):
            if gw + weights[item[k]] <= limit:
                gw += weights[item[k]]
                z += v[item[k]]
                greedy[k] = True
        inc = -2  # -2: the greedy fill; -1: the break solution; >= 0: an arena record
        ub0 = floor_to(P + (cap - W) * eff[br], g)
        if z < ub0 - 0.5 * g:
            greedy_item = np.empty(N, dtype=np.int64)  # the greedy's items, before sorting moves them
            ng = 0
            for k in range(N):
                if greedy[k]:
                    greedy_item[ng] = item[k]
                    ng += 1
            # 4. the expanding core
            L = 1
            SW[0] = W
            SP[0] = P
            SA[0] = -1
            na = 0
            s = br  # positions < s are in (greedy), positions > t are out, s..t are the states'
            t = br - 1
            add_turn = True
            while L > 0:
                can_add = t + 1 < N
                can_rem = s >= 1
                if not can_add and not can_rem:
                    break
                if can_add and (add_turn or not can_rem):
                    t += 1
                    if t >= S1:
                        rt, S1 = extend_right(item, eff, rstack, rt, S1)
                    j = t
                    dw = weights[item[j]]
                    dp = v[item[j]]
                else:
                    s -= 1
                    if s < S0:
                        lt, S0 = extend_left(item, eff, lstack, lt, S0)
                    j = s
                    dw = -weights[item[j]]
                    dp = -v[item[j]]
                add_turn = not add_turn
                if t + 1 < N and t + 1 >= S1:
                    rt, S1 = extend_right(item, eff, rstack, rt, S1)
                if s >= 1 and s - 1 < S0:
                    lt, S0 = extend_left(item, eff, lstack, lt, S0)
                e_add = eff[t + 1] if t + 1 < N else 0.0
                e_rem = eff[s - 1] if s >= 1 else np.inf
                if max_states < 2 * L or na + L > 4 * max_states:
                    status[b] = TOO_MANY_STATES
                    break
                if NW.shape[0] < 2 * L:
                    new = max(2 * NW.shape[0], 2 * L)
                    NW = grow(NW, new)
                    NP = grow(NP, new)
                    NA = grow(NA, new)
                    SW = grow(SW, new)
                    SP = grow(SP, new)
                    SA = grow(SA, new)
                if na + L > parent.shape[0]:
                    new = max(2 * parent.shape[0], na + L)
                    parent = grow(parent, new)
                    flip = grow(flip, new)
                # merge the list with its shifted copy, in increasing weight
                i1 = 0
                i2 = 0
                K = 0
                bestp = -np.inf
                while i1 < L or i2 < L:
                    if i2 >= L:
                        use2 = False
                    elif i1 >= L:
                        use2 = True
                    else:
                        w1 = SW[i1]
                        w2 = SW[i2] + dw
                        use2 = w2 < w1 or (w2 == w1 and SP[i2] + dp > SP[i1])
                    if use2:
                        cw = SW[i2] + dw
                        cp = SP[i2] + dp
                        pa = SA[i2]
                        i2 += 1
                    else:
                        cw = SW[i1]
                        cp = SP[i1]
                        pa = SA[i1]
                        i1 += 1
                    if cp <= bestp:  # dominated by a lighter (or equal) state
                        continue
                    bestp = cp
                    feasible = cw <= limit
                    better = feasible and cp > z
                    if better:
                        z = cp
                    ub = cp + (cap - cw) * e_add if feasible else cp - (cw - cap) * e_rem
                    keep = floor_to(ub, g) > z + 0.5 * g
                    if not (better or keep):
                        continue
                    a = pa
                    if use2:
                        a = na
                        parent[na] = pa
                        flip[na] = item[j]
                        na += 1
                    if better:
                        inc = a
                    if keep:
                        NW[K] = cw
                        NP[K] = cp
                        NA[K] = a
                        K += 1
                stats[b, 0] += 1
                stats[b, 1] = max(stats[b, 1], K)
                SW, NW = NW, SW
                SP, NP = NP, SP
                SA, NA = NA, SA
                L = K
            if inc == -2:
                for k in range(ng):
                    x[greedy_item[k]] = 1.0
                continue
            # 5. the incumbent: the break solution with its flips (arena records hold item ids)
            for k in range(br):  # items left of the break never leave the left side
                x[item[k]] = 1.0
            a = inc
            while a >= 0:
                x[flip[a]] = 1.0 - x[flip[a]]
                a = parent[a]
            continue
        for k in range(N):
            if greedy[k]:
                x[item[k]] = 1.0
