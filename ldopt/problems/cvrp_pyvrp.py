"""PyVRP's routes for the CVRP's edge model: a start for the exact solves.

[`tours()`][ldopt.problems.cvrp_pyvrp.tours] runs PyVRP's hybrid genetic search (the ``routing``
extra) on edge costs; its routes are an upper bound that the capacity cut loop of
[`cvrp_routes`][ldopt.problems.cvrp_routes] and VRPSolver's branch, cut and price
([`cvrp_vrpsolver`][ldopt.problems.cvrp_vrpsolver]) start from.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from ldopt.problems.tsp import edges

_SEARCH = 1000  # iterations without improvement before the search stops
_SCALE = 10**6  # integer distances and demands: the largest distance, and a unit of demand


def edges_of(tours: list[list[int]], num_nodes: int) -> np.ndarray:
    """0/1 edges (PyEPO's order) of ``tours`` (customers in order, each from and back to the depot).

    Parameters
    ----------
    tours
        Routes, customers ``1..n−1`` in order.
    num_nodes
        Nodes, the depot included.
    """
    index = edge_index(num_nodes)
    x = np.zeros(num_nodes * (num_nodes - 1) // 2)
    for t in tours:
        walk = np.array([0, *t, 0])
        x[index[walk[:-1], walk[1:]]] = 1.0
    return x


def edge_index(num_nodes: int) -> np.ndarray:
    """The edge (PyEPO's order) of each pair of nodes ``(n, n)``; the diagonal: 0.

    Parameters
    ----------
    num_nodes
        Nodes, the depot included.
    """
    E = np.array(edges(num_nodes))
    index = np.zeros((num_nodes, num_nodes), dtype=int)
    index[E[:, 0], E[:, 1]] = index[E[:, 1], E[:, 0]] = np.arange(len(E))
    return index


def potentials(c: np.ndarray, num_nodes: int) -> np.ndarray:
    """A potential per node ``(n,)``: minus the most negative cost of an edge at each customer (0
    where none is negative, and at the depot). Every customer meets two edges in every solution, so
    adding ``π_i + π_j`` to each edge ``ij`` makes every cost ≥ 0 and adds the same ``2 Σ π`` to
    every solution's cost: the order of solutions is kept.

    Parameters
    ----------
    c
        Edge costs ``(n(n−1)/2,)``.
    num_nodes
        Nodes, the depot included.
    """
    E = np.array(edges(num_nodes))
    lowest = np.full(num_nodes, np.inf)
    np.minimum.at(lowest, E[:, 0], c)
    np.minimum.at(lowest, E[:, 1], c)
    pi = np.maximum(0.0, -lowest)
    pi[0] = 0.0
    return pi


def tours(c: np.ndarray, num_nodes: int, q: np.ndarray, Q: float, V: int, fewest: int) -> list[list[int]] | None:
    """Good routes (customers in order) for the edge costs ``c`` by PyVRP's hybrid genetic search;
    ``None`` where ``pyvrp`` is not installed or its best routes do not fit the edge model (fewer
    than ``fewest`` routes, or a route of one customer that no move of
    [`join_lone()`][ldopt.problems.cvrp_pyvrp.join_lone] mends).

    PyVRP takes integers: the costs plus the
    [`potentials()`][ldopt.problems.cvrp_pyvrp.potentials] (the order of solutions kept), scaled
    to ``_SCALE``; the demands rounded up and the capacity down (its routes are within the true
    capacity).

    Parameters
    ----------
    c
        Edge costs ``(n(n−1)/2,)``.
    num_nodes
        Nodes, the depot included.
    q
        The customers' demands ``(n − 1,)``.
    Q
        The vehicles' capacity.
    V
        The most routes.
    fewest
        The fewest routes.
    """
    try:
        import pyvrp  # noqa: PLC0415
        from pyvrp.stop import NoImprovement  # noqa: PLC0415
    except ImportError:
        return None
    n = num_nodes
    pi = potentials(c, n)
    d = c[edge_index(n)] + pi[:, None] + pi[None, :]
    np.fill_diagonal(d, 0.0)
    dist = np.round(d * (_SCALE / max(float(d.max()), 1e-300))).astype(np.int64)
    data = pyvrp.ProblemData(
        locations=[pyvrp.Location(0, 0) for _ in range(n)],
        clients=[pyvrp.Client(location=v, delivery=[int(np.ceil(q[v - 1] * _SCALE))]) for v in range(1, n)],
        depots=[pyvrp.Depot(location=0)],
        vehicle_types=[pyvrp.VehicleType(num_available=V, capacity=[int(np.floor(Q * _SCALE))])],
        distance_matrices=[dist],
        duration_matrices=[np.zeros_like(dist)],
    )
    best = pyvrp.solve(data, stop=NoImprovement(_SEARCH), seed=0, collect_stats=False).best
    if not best.is_feasible():
        return None
    found = join_lone([[a.idx + 1 for a in r.schedule() if a.is_client()] for r in best.routes()], d, q, Q)
    if found is None or not fewest <= len(found) <= V:
        return None
    return found


def join_lone(tours: list[list[int]], d: np.ndarray, q: np.ndarray, Q: float) -> list[list[int]] | None:
    """``tours`` (customers in order) without routes of one customer, which the edge model lacks (such
    a route uses the depot's edge twice): each such customer ``v`` makes the cheapest of the moves
    that keep every route within ``Q``: ``v`` put between two stops of another route, or ``v`` paired
    in a new route with a customer taken from a route of three or more; ``None`` where none can."""
    tours = [list(t) for t in tours]
    while (lone := next((t for t in tours if len(t) == 1), None)) is not None:
        tours.remove(lone)
        v = lone[0]
        best: tuple[float, list[int], int, int | None] | None = None  # (added cost, route, position, partner)
        for t in tours:
            stops = [0, *t, 0]
            moves: list[tuple[float, int, int | None]] = []
            if q[np.array(t) - 1].sum() + q[v - 1] <= Q:
                moves += [(d[a, v] + d[v, b] - d[a, b], i, None) for i, (a, b) in enumerate(pairwise(stops))]
            if len(t) >= 3:
                moves += [
                    (d[0, v] + d[v, w] + d[w, 0] - d[a, w] - d[w, b] + d[a, b], i, w)
                    for i, (a, w, b) in enumerate(zip(stops, stops[1:], stops[2:], strict=False))
                    if q[w - 1] + q[v - 1] <= Q
                ]
            for cost, i, w in moves:
                if best is None or cost < best[0]:
                    best = (float(cost), t, i, w)
        if best is None:
            return None
        _, t, i, w = best
        if w is None:
            t.insert(i, v)
        else:
            del t[i]
            tours.append([v, w])
    return tours
