"""The exact 1-tree oracle of the TSP's tree block, for the Held–Karp decomposition.

The tree block of [`ldopt.problems.tsp`][ldopt.problems.tsp] (``deg[0]``, ``count``, ``flow``,
``link``) holds exactly the 1-trees: a spanning tree of nodes ``1..n−1`` and two edges at node 0,
with the flows that node 1 sends along the tree. For edge objectives ``w`` (maximised) its best
point is the maximum spanning tree (Prim's algorithm, batched over instances in numpy) and node
0's two best edges — Held and Karp's 1-tree. It is a block oracle that users bring
(`ldopt.decomposition.user_oracles`), shipped as an example of one:
``ldopt.decompose(p, tsp.blocks(n), oracles=tsp_oracle.block_oracles(p, n))``.

The flows are the block's own variables (no other block touches them) and cost nothing, so the
shared multipliers on the blocks' supports (``mode="shared"``, in the sparse layout that
``layout="auto"`` picks here) price them at zero, SPO+ and the perturbations of I-MLE and
Fenchel–Young leave them so, and the oracle answers in closed form. An objective that prices a
flow has a best 1-tree that depends on the tree's shape (a flow carries a subtree's size), which no
spanning-tree algorithm finds: those instances go to the block's exact fallback solver (HiGHS),
so the oracle stays exact whatever it is given — but slow: the joint modes and the dense layout
move multipliers onto the flows.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ldopt.oracles.base import Oracle
from ldopt.problems import tsp

FLOW_TOL = 1e-12
"""Flow objectives up to this times the largest edge objective count as zero (their effect on a
1-tree's value is below ``n² ·`` this, far inside solver tolerances)."""


def edge_objectives(lam: np.ndarray, edge_vars: np.ndarray, others: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The edges' objectives ``(B, edges)`` and which instances price ``others`` (beyond
    [`FLOW_TOL`][ldopt.problems.tsp_oracle.FLOW_TOL] times the largest edge objective) ``(B,)``.

    Parameters
    ----------
    lam
        Objectives ``(B, n)``.
    edge_vars
        The edges' positions.
    others
        The positions of the block's variables that cost nothing (flows, arcs, loads).
    """
    w = lam[:, edge_vars]
    scale = np.maximum(1.0, np.abs(w).max(axis=1))
    return w, (np.abs(lam[:, others]) > FLOW_TOL * scale[:, None]).any(axis=1)


class OneTree(Oracle):
    """Maximum 1-trees for the TSP's tree block (see the module docstring).

    Parameters
    ----------
    num_nodes
        Nodes of the TSP.
    edge_vars
        The positions of ``x[e]`` among the problem's variables, in edge order.
    flow_vars
        The positions of ``f[i,j]`` among them, in ``m.f``'s order.
    num_vars
        The problem's variables.
    """

    name = "1-tree"
    _warned = False  # said once that flows were priced (the slow path)

    def __init__(self, num_nodes: int, edge_vars: Any, flow_vars: Any, num_vars: int) -> None:
        n = self.n = int(num_nodes)
        self.edge_vars, self.flow_vars, self.num_vars = np.asarray(edge_vars), np.asarray(flow_vars), int(num_vars)
        E = tsp.edges(n)
        k = n - 1  # tree nodes 1..n-1 as 0..n-2
        self.edge_of = np.full((k, k), -1)
        self.arc_of = np.full((k, k), -1)
        self.num_arcs = 2 * (len(E) - k)  # both directions of every edge among nodes 1..n-1
        t = 0
        for e, (i, j) in enumerate(E):
            if i > 0:
                self.edge_of[i - 1, j - 1] = self.edge_of[j - 1, i - 1] = e
                self.arc_of[i - 1, j - 1], self.arc_of[j - 1, i - 1] = 2 * t, 2 * t + 1
                t += 1
        self.at_zero = np.arange(n - 1)  # edges (0, v) come first in PyEPO's order

    @classmethod
    def for_problem(cls, problem: Any, num_nodes: int) -> OneTree:
        """The oracle for the model of ``tsp.build_model(num_nodes)`` compiled as ``problem``.

        Parameters
        ----------
        problem
            The compiled model.
        num_nodes
            Nodes.
        """
        ex, fx = tsp.variable_index(problem, num_nodes)
        return cls(num_nodes, ex, fx, problem.num_vars)

    @classmethod
    def on_edges(cls, num_nodes: int) -> OneTree:
        """The oracle over the edges and arcs alone (variables ``0..E−1``, then the arcs in ``m.f``'s
        order): [`one_trees()`][ldopt.problems.tsp_oracle.OneTree.one_trees] without a model.

        Parameters
        ----------
        num_nodes
            Nodes.
        """
        E, k = len(tsp.edges(num_nodes)), int(num_nodes) - 1
        arcs = 2 * (E - k)
        return cls(num_nodes, np.arange(E), np.arange(E, E + arcs), E + arcs)

    def describe(self) -> str:
        return f"maximum 1-tree on {self.n} nodes (Prim's tree of nodes 1..{self.n - 1}, node 0's two best edges)"

    def argmax(self, lam: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        lam = np.asarray(lam, dtype=float)
        w, priced = edge_objectives(lam, self.edge_vars, self.flow_vars)
        x = np.zeros((len(lam), self.num_vars))
        edges, flows = self.one_trees(w)
        x[:, self.edge_vars] = edges
        x[:, self.flow_vars] = flows
        if priced.any() and not self._warned:
            self._warned = True
            warnings.warn(
                "1-tree oracle: objectives that price the flows go to the block's HiGHS solver (exact, "
                "slow); expected zero flow objectives: use mode='shared' with the sparse layout "
                "(layout='auto') for the multipliers, and SPO+, I-MLE or Fenchel-Young for training",
                stacklevel=2,
            )
        return self.finish(lam, x, priced, out)

    def one_trees(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Maximum 1-trees ``(B, edges)`` for edge objectives ``w`` ``(B, edges)`` and their flows
        ``(B, arcs)``.

        Parameters
        ----------
        w
            Edge objectives (maximised).
        """
        B, k = len(w), self.n - 1
        rows = np.arange(B)
        W = np.where(self.edge_of >= 0, w[:, np.maximum(self.edge_of, 0)], -np.inf)  # (B, k, k)
        key, parent = W[:, 0, :].copy(), np.zeros((B, k), dtype=np.intp)
        inside = np.zeros((B, k), dtype=bool)
        inside[:, 0] = True
        order = np.zeros((B, k - 1), dtype=np.intp)
        for s in range(k - 1):
            u = np.argmax(np.where(inside, -np.inf, key), axis=1)
            order[:, s] = u
            inside[rows, u] = True
            better = (W[rows, u] > key) & ~inside
            key = np.where(better, W[rows, u], key)
            parent = np.where(better, u[:, None], parent)
        edges = np.zeros(w.shape)
        child = order  # every tree node but the root, in the order Prim added it
        up = np.take_along_axis(parent, child, axis=1)
        edges[rows[:, None], self.edge_of[up, child]] = 1.0
        two = np.argpartition(-w[:, self.at_zero], 1, axis=1)[:, :2]
        edges[rows[:, None], self.at_zero[two]] = 1.0
        size = np.ones((B, k))
        for s in range(k - 2, -1, -1):  # children before parents: subtree sizes
            np.add.at(size, (rows, up[:, s]), size[rows, child[:, s]])
        flows = np.zeros((B, self.num_arcs))
        flows[rows[:, None], self.arc_of[up, child]] = np.take_along_axis(size, child, axis=1)
        return edges, flows


def block_oracles(problem: Any, num_nodes: int) -> dict[int, Oracle]:
    """Held and Karp's oracles for ``ldopt.decompose(problem, tsp.blocks(num_nodes), oracles=...)``:
    the 1-tree block (the last of ``tsp.blocks``) gets [`OneTree`][ldopt.problems.tsp_oracle.OneTree];
    the degree rows of nodes ``1..n−1`` keep their exact oracle (two best edges).

    Parameters
    ----------
    problem
        The compiled model of ``tsp.build_model(num_nodes)``.
    num_nodes
        Nodes.
    """
    return {len(tsp.blocks(num_nodes)) - 1: OneTree.for_problem(problem, num_nodes)}
