"""The CVRP's fewest-routes solutions by enumeration, for demands that pack tightly.

Where ``k = ⌈q(V)/Q⌉`` routes carry the demands only just (CaVE's seed 47: 89.78 of 90), the
capacity cuts of [`cvrp_routes`][ldopt.problems.cvrp_routes] bound the branch and cut poorly
(tens of seconds per instance). There the ways to split the customers into ``k`` routes within
capacity are few (19,804 for seed 47, over 3,482 customer sets), so the best solution with
exactly ``k`` routes is the cheapest of these partitions, each set's cost its shortest tour from
the depot (Held and Karp's dynamic program, over a batch of cost vectors at once); the best with
``k + 1`` routes or more is the cut loop's with the depot's degree at least ``2(k + 1)``, whose
packing is loose. The optimum is the better of the two (exact).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

_MOST = 50_000  # the most partitions enumerated before the cut loop takes the instance alone
LARGEST = 13
"""The most customers in a route that the enumeration takes (Held and Karp's states: ``2^13 · 13``)."""


def packings(q: np.ndarray, Q: float, k: int, most: int | None = None) -> list[tuple[tuple[int, ...], ...]] | None:
    """Every partition of the customers ``1..len(q)`` into ``k`` sets of two or more within
    ``Q``, or ``None`` where there are more than ``most``.

    Parameters
    ----------
    q
        Demands ``(n − 1,)``.
    Q
        Capacity.
    k
        Sets (routes).
    most
        The most partitions to return (``None``: 50,000).
    """
    return _packings(tuple(float(v) for v in q), float(Q), int(k), _MOST if most is None else int(most))


@lru_cache(maxsize=16)
def _packings(q: tuple[float, ...], Q: float, k: int, most: int) -> list[tuple[tuple[int, ...], ...]] | None:
    order = sorted(range(len(q)), key=lambda i: -q[i])
    w = [q[i] for i in order]
    slack = k * Q - sum(w)
    if slack < -1e-9:
        return []
    rest_min = [min(w[i:]) for i in range(len(w))] + [np.inf]
    load, members = [0.0] * k, [[] for _ in range(k)]  # type: list[float], list[list[int]]
    out: list[tuple[tuple[int, ...], ...]] = []

    def grow(i: int) -> bool:  # False: too many
        if i == len(w):
            if all(len(m) >= 2 for m in members):
                out.append(tuple(tuple(sorted(order[j] + 1 for j in m)) for m in members))
            return len(out) <= most
        for b in range(k):
            if load[b] + w[i] > Q + 1e-9 or (not members[b] and any(not m for m in members[:b])):
                continue  # over capacity, or an empty set that an earlier empty one mirrors
            before = load[b]
            load[b] += w[i]
            members[b].append(i)
            room = sum(Q - v for v in load if Q - v < rest_min[i + 1] - 1e-12)  # space no item fits in
            ok = room > slack + 1e-9 or grow(i + 1)
            load[b] = before
            members[b].pop()
            if not ok:
                return False
        return True

    return out if grow(0) else None


@lru_cache(maxsize=16)
def _steps(m: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Held and Karp's moves over ``m`` customers, level by level: for each (set, last) pair of
    the level, the set without its last customer and that set's possible previous customers."""
    levels = []
    for size in range(2, m + 1):
        sets, last, before, prev = [], [], [], []
        for mask in range(1 << m):
            if bin(mask).count("1") != size:
                continue
            inside = [j for j in range(m) if mask >> j & 1]
            for j in inside:
                sets.append(mask)
                last.append(j)
                before.append(mask ^ (1 << j))
                prev.append([i for i in inside if i != j])
        levels.append((np.array(sets), np.array(last), np.array(before), np.array(prev)))
    return levels


def tours(D: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The shortest tours from node 0 through nodes ``1..m``: their lengths ``(B,)`` and their
    visiting orders ``(B, m)`` (Held and Karp's dynamic program, batched).

    Parameters
    ----------
    D
        Distances ``(B, m + 1, m + 1)``, symmetric or not (``D[b, i, j]``: from ``i`` to ``j``).
    """
    B, m = D.shape[0], D.shape[1] - 1
    dp = np.full((B, 1 << m, m), np.inf)
    came = np.zeros((B, 1 << m, m), dtype=np.int8)
    single = 1 << np.arange(m)
    dp[:, single, np.arange(m)] = D[:, 0, 1:]
    for sets, last, before, prev in _steps(m):
        via = dp[:, before[:, None], prev] + D[:, prev + 1, last[:, None] + 1]  # (B, T, size − 1)
        pick = via.argmin(2)
        dp[:, sets, last] = np.take_along_axis(via, pick[..., None], 2)[..., 0]
        came[:, sets, last] = prev[np.arange(len(sets))[None, :], pick]
    full = (1 << m) - 1
    total = dp[:, full, :] + D[:, 1:, 0]
    end = total.argmin(1)
    order = np.zeros((B, m), dtype=int)
    mask, j = np.full(B, full), end
    for pos in range(m - 1, -1, -1):
        order[:, pos] = j
        prev = came[np.arange(B), mask, j]
        mask, j = mask ^ (1 << j), prev.astype(int)
    return total[np.arange(B), end], order + 1


def fewest_routes(c: np.ndarray, n: int, E: np.ndarray, partitions: list[tuple[tuple[int, ...], ...]]) -> np.ndarray:
    """The best solutions ``(B, len(E))`` among ``partitions``, one shortest route per set.

    Parameters
    ----------
    c
        Edge costs ``(B, len(E))`` (minimised).
    n
        Nodes, the depot (node 0) included.
    E
        The edges ``(i, j)``, ``i < j``, in the costs' order.
    partitions
        Partitions of the customers ``1..n−1`` (from [`packings`][ldopt.problems.cvrp_packings.packings]).
    """
    index = np.zeros((n, n), dtype=int)
    index[E[:, 0], E[:, 1]] = index[E[:, 1], E[:, 0]] = np.arange(len(E))
    sets = sorted({s for p in partitions for s in p})
    where = {s: i for i, s in enumerate(sets)}
    cost = np.zeros((len(c), len(sets)))
    orders = []
    for i, s in enumerate(sets):
        nodes = np.array((0, *s))
        D = c[:, index[nodes[:, None], nodes[None, :]]]
        cost[:, i], order = tours(D)
        orders.append(nodes[order])
    table = np.array([[where[s] for s in p] for p in partitions])  # (P, k)
    best = cost[:, table].sum(2).argmin(1)
    x = np.zeros(c.shape)
    for b, chosen in enumerate(table[best]):
        for i in chosen:
            walk = np.concatenate(([0], orders[i][b], [0]))
            x[b, index[walk[:-1], walk[1:]]] = 1.0
    return x
