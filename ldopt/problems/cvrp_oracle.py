"""Relaxation oracles for the CVRP's routes block:
``ldopt.decompose(p, cvrp.blocks(n), oracles=cvrp_oracle.block_oracles(p, n, demand))``.

The routes block of [`ldopt.problems.cvrp`][ldopt.problems.cvrp] (every row but the customers'
degree rows) holds exactly the CVRP's solutions: ``k`` routes, ``⌈Σq/Q⌉ ≤ k ≤ V``, each of two
customers or more within capacity. Two supersets of them are solved exactly, batched over
instances; each is a relaxation (``relaxation = True``): its values bound the block's from above,
so Lagrangian bounds stay valid, and its points (edge counts) are the decisions LD trains through.

* [`KForest`][ldopt.problems.cvrp_oracle.KForest] (the default) ignores capacity: the customer edges of ``k``
  routes form a forest of ``n_c − k`` edges (``n_c`` customers, ``k`` paths) and the depot has
  ``2k`` edges. For every ``k`` it takes the best forest of ``n_c − k`` customer edges (the heaviest
  ``n_c − k`` edges of a maximum spanning tree: forests are a matroid, where the greedy choice is
  best at every size) and the depot's ``2k`` best edges, then the best ``k``, as Fisher's K-tree
  relaxation (1994) does; with ``k = 1`` it is Held and Karp's 1-tree.
* [`QRoutes`][ldopt.problems.cvrp_oracle.QRoutes] keeps capacity: the best ``k``
  *q-routes* whose loads add up to the customers' total demand (Christofides, Mingozzi and Toth,
  1981). A q-route is a walk from the depot back to it through two customer visits or more, of
  load at most ``Q``, that may visit a customer twice but never turns back on the edge it came by
  (2-cycle elimination). Every route is one, and the routes of a solution carry every demand once.
  Loads are integers: the demands rounded down to ``1/s`` (``s`` =
  [`RESOLUTION`][ldopt.problems.cvrp_oracle.RESOLUTION]), which keeps every route within the
  rounded capacity ([`rounded_loads()`][ldopt.problems.cvrp_oracle.rounded_loads]). A dynamic
  programme over (load, last customer) with the two best walks of different predecessors, then
  over the routes' loads: ``O(n_c² · R + V · D · R)`` per instance for ``R = ⌊Q s⌋`` and
  ``D = Σ⌊q s⌋``, compiled (numba).
  Its Lagrangian bounds are the tighter where capacity binds, but LD trains worse through its points
  (walks that revisit customers) than through the forests (docs/results.md, "CVRP: a capacity-aware
  relaxation"), so it is the choice for bounds, not the default.

The arcs and loads are the block's own variables and cost nothing; the shared multipliers on the
blocks' supports (``mode="shared"``) price them at zero. An objective that prices them goes to the
block's exact fallback solver (HiGHS, slow), as [`OneTree`][ldopt.problems.tsp_oracle.OneTree] does.
"""

from __future__ import annotations

import warnings
from abc import abstractmethod
from typing import Any, Literal, Self

import numpy as np

from ldopt import checks
from ldopt.errors import InputError
from ldopt.oracles.base import Oracle
from ldopt.problems import cvrp, tsp
from ldopt.problems.tsp_oracle import OneTree, edge_objectives
from ldopt.runtime.jit import nb

Relaxation = Literal["k-forest", "q-routes"]
"""The routes block's relaxations: [`KForest`][ldopt.problems.cvrp_oracle.KForest] (capacity
ignored) and [`QRoutes`][ldopt.problems.cvrp_oracle.QRoutes] (capacity kept)."""
RESOLUTION = 10.0
"""[`QRoutes`][ldopt.problems.cvrp_oracle.QRoutes]' load units per unit of demand."""


def rounded_loads(demand: np.ndarray, capacity: float, resolution: float) -> tuple[np.ndarray, int]:
    """Integer loads ``a`` ``(n − 1,)`` and a room ``R`` such that every route within capacity
    (``Σ_r q ≤ Q``) has ``Σ_r a ≤ R``: ``a = ⌊q·s⌋`` (``Σ⌊q s⌋ ≤ ⌊Σ q s⌋ ≤ ⌊Q s⌋``), lifted to 1
    where that is 0 (a load of zero would let a walk loop at no cost), with ``R = ⌊Q s⌋`` plus the
    number of lifted loads.

    Parameters
    ----------
    demand
        The customers' demands.
    capacity
        The vehicles' capacity.
    resolution
        Load units ``s`` per unit of demand.
    """
    a = np.floor(demand * resolution).astype(np.int64)
    lifted = int((a == 0).sum())
    return np.maximum(a, 1), int(np.floor(capacity * resolution * (1 + 1e-12))) + lifted


class RoutesRelaxation(Oracle):
    """A relaxation of the CVRP's routes block on its edges (the arcs and loads cost nothing).

    Parameters
    ----------
    num_nodes
        Nodes, the depot included.
    demand
        The customers' demands ``(n − 1,)``.
    capacity
        The vehicles' capacity.
    vehicles
        The most routes.
    edge_vars
        The positions of ``x[e]`` among the problem's variables, in edge order.
    other_vars
        The positions of the block's other variables (arcs and loads).
    num_vars
        The problem's variables.
    """

    relaxation = True
    verified = True  # checked against exact routes by tests/test_cvrp.py: the first-use check would
    # solve routes exactly (minutes an instance at 20 customers)
    _warned = False  # said once that arcs or loads were priced (the slow path)

    def __init__(
        self, num_nodes: int, demand: Any, capacity: float, vehicles: int, edge_vars: Any, other_vars: Any,
        num_vars: int,
    ) -> None:  # fmt: skip
        self.n, self.demand, self.capacity = int(num_nodes), np.asarray(demand, dtype=float), float(capacity)
        self.fewest = cvrp.min_vehicles(self.demand, self.capacity)
        self.most = min(int(vehicles), (self.n - 1) // 2)
        self.edge_vars, self.other_vars, self.num_vars = np.asarray(edge_vars), np.asarray(other_vars), int(num_vars)

    @classmethod
    def for_problem(
        cls, problem: Any, num_nodes: int, demand: Any, capacity: float = cvrp.CAPACITY, vehicles: int = cvrp.VEHICLES
    ) -> Self:  # fmt: skip
        """The oracle for the model of ``cvrp.build_model(num_nodes, demand, capacity, vehicles)``
        compiled as ``problem``.

        Parameters
        ----------
        problem
            The compiled model.
        num_nodes
            Nodes, the depot included.
        demand
            The customers' demands.
        capacity
            The vehicles' capacity.
        vehicles
            The most vehicles.
        """
        n, q, Q, V = cvrp.check(num_nodes, demand, capacity, vehicles)
        cvrp.same_data(problem, n, q, Q, V)  # another problem's demands would bound nothing of this one
        ex, yx, ux = cvrp.variable_index(problem, n)
        return cls(n, q, Q, V, ex, np.concatenate((yx, ux)), problem.num_vars)

    def argmax(self, lam: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        lam = np.asarray(lam, dtype=float)
        w, priced = edge_objectives(lam, self.edge_vars, self.other_vars)
        x = np.zeros((len(lam), self.num_vars))
        x[:, self.edge_vars] = self.edges(w)
        if priced.any() and not self._warned:
            self._warned = True
            warnings.warn(
                f"{self.name} oracle: objectives that price the arcs or loads go to the block's HiGHS solver "
                "(exact, slow); expected zero objectives there: use mode='shared' with the sparse layout",
                stacklevel=2,
            )
        return self.finish(lam, x, priced, out)

    @abstractmethod
    def edges(self, w: np.ndarray) -> np.ndarray:
        """The relaxation's best edges ``(B, edges)`` (each edge's count) for edge objectives ``w``
        ``(B, edges)`` (maximised).

        Parameters
        ----------
        w
            Edge objectives ``(B, edges)``.
        """


class KForest(RoutesRelaxation):
    """Best forests of customer edges with the depot's edges, capacity ignored (see the module docstring)."""

    name = "k-forest"

    def __init__(
        self, num_nodes: int, demand: Any, capacity: float, vehicles: int, edge_vars: Any, other_vars: Any,
        num_vars: int,
    ) -> None:  # fmt: skip
        super().__init__(num_nodes, demand, capacity, vehicles, edge_vars, other_vars, num_vars)
        self.inner = np.array([i > 0 for (i, _) in tsp.edges(self.n)])
        self.tree = OneTree.on_edges(self.n)

    def describe(self) -> str:
        return (
            f"best forest of customer edges and the depot's edges, {self.fewest} to {self.most} routes, "
            "capacity ignored (a relaxation)"
        )

    def edges(self, w: np.ndarray) -> np.ndarray:
        """The best 0/1 edges ``(B, edges)`` of the relaxation for edge objectives ``w`` (maximised).

        Parameters
        ----------
        w
            Edge objectives ``(B, edges)``.
        """
        B, nc = len(w), self.n - 1
        rows = np.arange(B)[:, None]
        tree = (self.tree.one_trees(w)[0] > 0.5) & self.inner  # a maximum spanning tree of the customers
        tw = np.where(tree, w, -np.inf)
        t_order = np.argsort(-tw, axis=1, kind="stable")[:, : nc - 1]  # its edges, heaviest first
        d_order = np.argsort(-w[:, :nc], axis=1, kind="stable")  # the depot's edges (0, v) come first
        F = np.concatenate((np.zeros((B, 1)), np.cumsum(np.take_along_axis(w, t_order, axis=1), axis=1)), axis=1)
        D = np.concatenate((np.zeros((B, 1)), np.cumsum(np.take_along_axis(w, d_order, axis=1), axis=1)), axis=1)
        ks = np.arange(self.fewest, self.most + 1)
        value = F[:, nc - ks] + D[:, 2 * ks]  # (B, choices of k)
        k = ks[np.argmax(value, axis=1)]
        x = np.zeros(w.shape)
        x[rows, t_order] = (np.arange(nc - 1)[None, :] < (nc - k)[:, None]).astype(float)
        x[rows, d_order] = (np.arange(nc)[None, :] < (2 * k)[:, None]).astype(float)
        return x


class QRoutes(RoutesRelaxation):
    """The best ``k`` q-routes whose loads add up to the customers' demands, for ``k`` from
    ``⌈Σq/Q⌉`` to the most routes (see the module docstring). The parameters are
    [`RoutesRelaxation`][ldopt.problems.cvrp_oracle.RoutesRelaxation]'s and ``resolution``, the
    load units per unit of demand (the demands are rounded down to them).
    """

    name = "q-routes"

    def __init__(
        self, num_nodes: int, demand: Any, capacity: float, vehicles: int, edge_vars: Any, other_vars: Any,
        num_vars: int, resolution: float = RESOLUTION,
    ) -> None:  # fmt: skip
        super().__init__(num_nodes, demand, capacity, vehicles, edge_vars, other_vars, num_vars)
        self.resolution = checks.positive("resolution", resolution)
        self.loads, self.room = rounded_loads(self.demand, self.capacity, self.resolution)
        ids = np.zeros((self.n, self.n), dtype=np.int64)
        for e, (i, j) in enumerate(tsp.edges(self.n)):
            ids[i, j] = ids[j, i] = e
        self._ids = ids

    def describe(self) -> str:
        return (
            f"best {self.fewest} to {self.most} q-routes (walks from the depot without 2-cycles, "
            f"loads in steps of 1/{self.resolution:g}) carrying every demand, each customer's visits "
            "not enforced (a relaxation)"
        )

    def edges(self, w: np.ndarray) -> np.ndarray:
        """The best q-routes' edge counts ``(B, edges)`` for edge objectives ``w`` (maximised).

        Parameters
        ----------
        w
            Edge objectives ``(B, edges)``.
        """
        w = np.ascontiguousarray(w, dtype=float)
        x, values = np.zeros(w.shape), np.empty(len(w))
        _q_routes(w, self._ids, self.loads, self.room, int(self.loads.sum()), self.fewest, self.most, x, values)
        return x


RELAXATIONS: dict[str, type[RoutesRelaxation]] = {"k-forest": KForest, "q-routes": QRoutes}


def block_oracles(
    problem: Any, num_nodes: int, demand: Any, capacity: float = cvrp.CAPACITY, vehicles: int = cvrp.VEHICLES,
    relaxation: Relaxation = "k-forest",
) -> dict[int, Oracle]:  # fmt: skip
    """The oracles for ``ldopt.decompose(problem, cvrp.blocks(num_nodes), oracles=...)``: the routes'
    block (the last of ``cvrp.blocks``) gets the ``relaxation``'s oracle; each customer's degree row
    keeps its exact oracle (two best edges).

    Parameters
    ----------
    problem
        The compiled model of ``cvrp.build_model(num_nodes, demand, capacity, vehicles)``.
    num_nodes
        Nodes, the depot included.
    demand
        The customers' demands.
    capacity
        The vehicles' capacity.
    vehicles
        The most vehicles.
    relaxation
        ``"k-forest"`` ([`KForest`][ldopt.problems.cvrp_oracle.KForest]: LD trains best through it)
        or ``"q-routes"`` ([`QRoutes`][ldopt.problems.cvrp_oracle.QRoutes]: the tighter bounds where
        capacity binds).
    """
    if relaxation not in RELAXATIONS:
        raise InputError(f"relaxation: expected one of {sorted(RELAXATIONS)}, got {relaxation!r}")
    oracle = RELAXATIONS[relaxation].for_problem(problem, num_nodes, demand, capacity, vehicles)
    return {len(cvrp.blocks(num_nodes)) - 1: oracle}


@nb.njit(cache=True, nogil=True)
def _q_routes(
    w: np.ndarray, ids: np.ndarray, loads: np.ndarray, room: int, total: int, fewest: int, most: int,
    x: np.ndarray, values: np.ndarray,
) -> None:  # fmt: skip
    """Per instance ``b``, the best ``k`` q-routes (``fewest ≤ k ≤ most``) whose loads add up to
    ``total`` for edge objectives ``w[b]`` (maximised; edge ``ids[i, j]``, customer ``j`` is node
    ``j + 1``): their edge counts added into ``x[b]``, their value in ``values[b]`` (``−inf`` where
    no ``k`` routes carry ``total``). Each (load, customer) keeps its best walk and its best from
    another predecessor, so that no walk turns back on the edge it came by (Christofides, Mingozzi
    and Toth's 2-cycle elimination); a route has two customer visits or more."""
    B, nc = w.shape[0], loads.shape[0]
    neg = -np.inf
    val = np.empty((2, room + 1, nc))  # [label, load, customer]: label 1 has another predecessor than label 0
    pred = np.empty((2, room + 1, nc), np.int64)  # the predecessor customer (−1: the depot)
    via = np.empty((2, room + 1, nc), np.int64)  # the predecessor's label
    route = np.empty(room + 1)  # the best route of each load
    last = np.empty((2, room + 1), np.int64)  # its last customer and label
    best = np.empty((most + 1, total + 1))  # the best k routes of each total load
    first = np.empty((most + 1, total + 1), np.int64)  # the load of the k-th of them
    for b in range(B):
        val[:] = neg
        for j in range(nc):
            val[0, loads[j], j], pred[0, loads[j], j] = w[b, ids[0, j + 1]], -1
        for at in range(1, room + 1):  # loads are at least 1: every walk extends to a larger load
            for j in range(nc):
                for lab in range(2):
                    v = val[lab, at, j]
                    if v == neg:
                        continue
                    for k in range(nc):
                        # label 0 serves every k but its predecessor; label 1 serves that one
                        if k == j or (lab == 0) == (k == pred[0, at, j]):
                            continue
                        nxt = at + loads[k]
                        if nxt > room:
                            continue
                        c = v + w[b, ids[j + 1, k + 1]]
                        if pred[0, nxt, k] == j and val[0, nxt, k] != neg:
                            if c > val[0, nxt, k]:
                                val[0, nxt, k], via[0, nxt, k] = c, lab
                        elif c > val[0, nxt, k]:
                            val[1, nxt, k], pred[1, nxt, k], via[1, nxt, k] = (
                                val[0, nxt, k],
                                pred[0, nxt, k],
                                via[0, nxt, k],
                            )
                            val[0, nxt, k], pred[0, nxt, k], via[0, nxt, k] = c, j, lab
                        elif c > val[1, nxt, k]:
                            val[1, nxt, k], pred[1, nxt, k], via[1, nxt, k] = c, j, lab
        route[:] = neg
        for at in range(1, room + 1):
            for j in range(nc):
                for lab in range(2):
                    c = val[lab, at, j] + w[b, ids[j + 1, 0]]
                    if val[lab, at, j] != neg and pred[lab, at, j] >= 0 and c > route[at]:
                        route[at], last[0, at], last[1, at] = c, j, lab
        best[:] = neg
        best[0, 0] = 0.0
        top, k_top = neg, -1
        for k in range(1, most + 1):  # totals that k routes carry and the other most − k can complete
            for d in range(max(0, total - (most - k) * room), min(total, k * room) + 1):
                for at in range(1, min(room, d) + 1):
                    c = best[k - 1, d - at] + route[at]
                    if c > best[k, d]:
                        best[k, d], first[k, d] = c, at
            if k >= fewest and best[k, total] > top:
                top, k_top = best[k, total], k
        values[b] = top
        d = total
        for k in range(k_top, 0, -1):  # the routes back from the last
            at = first[k, d]
            d -= at
            j, lab = last[0, at], last[1, at]
            x[b, ids[j + 1, 0]] += 1.0
            while pred[lab, at, j] >= 0:
                i = pred[lab, at, j]
                x[b, ids[i + 1, j + 1]] += 1.0
                lab = via[lab, at, j]
                at -= loads[j]
                j = i
            x[b, ids[0, j + 1]] += 1.0
