"""A relaxation oracle for the CVRP's routes block:
``ldopt.decompose(p, cvrp.blocks(n), oracles=cvrp_oracle.block_oracles(p, n, demand))``.

The routes block of [`ldopt.problems.cvrp`][ldopt.problems.cvrp] (every row but the customers'
degree rows) holds exactly the CVRP's solutions: ``k`` routes, ``⌈Σq/Q⌉ ≤ k ≤ V``, each of two
customers or more. Their customer edges form a forest of ``n_c − k`` edges (``n_c`` customers,
``k`` paths) and the depot has ``2k`` edges. [`KForest`][ldopt.problems.cvrp_oracle.KForest]
solves that superset exactly — for every ``k``, the best forest of ``n_c − k`` customer edges
(the heaviest ``n_c − k`` edges of a maximum spanning tree: forests are a matroid, where the
greedy choice is best at every size) and the depot's ``2k`` best edges, then the best ``k`` —
ignoring capacity and the routes' shape, as Fisher's K-tree relaxation (1994) does; with
``k = 1`` it is Held and Karp's 1-tree. It is a relaxation (``relaxation = True``): its values
bound the block's from above, so Lagrangian bounds stay valid, and its points are the decisions
LD trains through.

The arcs and loads are the block's own variables and cost nothing; the shared multipliers on the
blocks' supports (``mode="shared"``) price them at zero. An objective that prices them goes to the
block's exact fallback solver (HiGHS, slow), as [`OneTree`][ldopt.problems.tsp_oracle.OneTree] does.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ldopt.oracles.base import Oracle
from ldopt.problems import cvrp
from ldopt.problems.tsp import edges
from ldopt.problems.tsp_oracle import OneTree, edge_objectives


class KForest(Oracle):
    """Best forests of customer edges with the depot's edges, capacity ignored (see the module docstring).

    Parameters
    ----------
    num_nodes
        Nodes, the depot included.
    fewest
        The fewest routes, ``⌈Σq/Q⌉``.
    vehicles
        The most routes.
    edge_vars
        The positions of ``x[e]`` among the problem's variables, in edge order.
    other_vars
        The positions of the block's other variables (arcs and loads).
    num_vars
        The problem's variables.
    """

    name = "k-forest"
    relaxation = True
    _warned = False  # said once that arcs or loads were priced (the slow path)

    def __init__(
        self, num_nodes: int, fewest: int, vehicles: int, edge_vars: Any, other_vars: Any, num_vars: int
    ) -> None:  # fmt: skip
        self.n, self.fewest, self.most = int(num_nodes), int(fewest), min(int(vehicles), (int(num_nodes) - 1) // 2)
        self.edge_vars, self.other_vars, self.num_vars = np.asarray(edge_vars), np.asarray(other_vars), int(num_vars)
        self.inner = np.array([i > 0 for (i, _) in edges(self.n)])
        self.tree = OneTree.on_edges(self.n)

    @classmethod
    def for_problem(
        cls, problem: Any, num_nodes: int, demand: Any, capacity: float = cvrp.CAPACITY, vehicles: int = cvrp.VEHICLES
    ) -> KForest:  # fmt: skip
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
        return cls(n, cvrp.min_vehicles(q, Q), V, ex, np.concatenate((yx, ux)), problem.num_vars)

    def describe(self) -> str:
        return (
            f"best forest of customer edges and the depot's edges, {self.fewest} to {self.most} routes, "
            "capacity ignored (a relaxation)"
        )

    def argmax(self, lam: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        lam = np.asarray(lam, dtype=float)
        w, priced = edge_objectives(lam, self.edge_vars, self.other_vars)
        x = np.zeros((len(lam), self.num_vars))
        x[:, self.edge_vars] = self.forests(w)
        if priced.any() and not self._warned:
            self._warned = True
            warnings.warn(
                "k-forest oracle: objectives that price the arcs or loads go to the block's HiGHS solver "
                "(exact, slow); expected zero objectives there: use mode='shared' with the sparse layout",
                stacklevel=2,
            )
        return self.finish(lam, x, priced, out)

    def forests(self, w: np.ndarray) -> np.ndarray:
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


def block_oracles(
    problem: Any, num_nodes: int, demand: Any, capacity: float = cvrp.CAPACITY, vehicles: int = cvrp.VEHICLES
) -> dict[int, Oracle]:  # fmt: skip
    """The oracles for ``ldopt.decompose(problem, cvrp.blocks(num_nodes), oracles=...)``: the routes'
    block (the last of ``cvrp.blocks``) gets [`KForest`][ldopt.problems.cvrp_oracle.KForest]; each
    customer's degree row keeps its exact oracle (two best edges).

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
    """
    oracle = KForest.for_problem(problem, num_nodes, demand, capacity, vehicles)
    return {len(cvrp.blocks(num_nodes)) - 1: oracle}
