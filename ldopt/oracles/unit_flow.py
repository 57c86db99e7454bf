"""Unit flows on an acyclic network: flow-conservation rows ``Σ_in x − Σ_out x = b_v`` with one
source (``b = −1``) and one sink (``b = +1``), solved as a longest path by dynamic programming in
topological order, batched over instances in numpy.

A block fits when every row is a linear equality with coefficients ``±1`` and side ``−1``, 0 or
``+1`` (exactly one of each nonzero), every variable of its rows lies in exactly two rows with
opposite coefficients (an arc from the row where it is ``−1`` to the row where it is ``+1``),
those variables have lower bound 0 and upper bound at least 1, and the arcs form no directed
cycle. On an acyclic network every unit flow is a convex combination of source–sink paths (a
flow decomposition has no cycles to hold), so ``max λ·x`` is the path of greatest weight ``λ``
— the PyEPO shortest path's whole model, or a block of all its node rows
(``blocks="component"``). Variables outside the rows take their best bound. An instance whose
sink the source cannot reach goes to the fallback solver, which proves it infeasible.
"""

from __future__ import annotations

import numpy as np

from ldopt.model.compiled import CompiledModel
from ldopt.oracles.base import Oracle


def _network(block: CompiledModel) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int] | None:
    """The arcs' variables, tails and heads (as row indices), and the source and sink rows; ``None``
    where the block is no unit flow on an acyclic network."""
    rows = block.rows
    if len(rows) < 2 or not (np.isfinite(block.var_lb).all() and np.isfinite(block.var_ub).all()):
        return None
    sides = np.array([r.lo for r in rows])
    if any(r.is_quadratic or r.lo != r.hi or not np.all(np.abs(r.coef) == 1.0) for r in rows):
        return None
    if not (np.isin(sides, (-1.0, 0.0, 1.0)).all() and (sides == -1).sum() == 1 and (sides == 1).sum() == 1):
        return None
    tail: dict[int, int] = {}
    head: dict[int, int] = {}
    for k, r in enumerate(rows):
        for j, a in zip(r.index, r.coef, strict=True):
            ends = head if a > 0 else tail
            if int(j) in ends:
                return None  # twice into (or out of) rows: no arc
            ends[int(j)] = k
    if set(tail) != set(head):
        return None  # a variable in one row only, or with one sign
    arcs = np.array(sorted(tail))
    if np.any(block.var_lb[arcs] != 0.0) or np.any(block.var_ub[arcs] < 1.0):
        return None
    return (
        arcs,
        np.array([tail[j] for j in arcs]),
        np.array([head[j] for j in arcs]),
        int(np.flatnonzero(sides == -1)[0]),
        int(np.flatnonzero(sides == 1)[0]),
    )


def _topological(n: int, tails: np.ndarray, heads: np.ndarray) -> np.ndarray | None:
    """The nodes in an order in which every arc goes forward (Kahn), or ``None`` on a cycle."""
    indegree = np.bincount(heads, minlength=n)
    out: list[list[int]] = [[] for _ in range(n)]
    for t, h in zip(tails, heads, strict=True):
        out[int(t)].append(int(h))
    ready = [v for v in range(n) if indegree[v] == 0]
    order = []
    while ready:
        v = ready.pop()
        order.append(v)
        for h in out[v]:
            indegree[h] -= 1
            if indegree[h] == 0:
                ready.append(h)
    return np.array(order) if len(order) == n else None


class UnitFlowOracle(Oracle):
    """The path of greatest weight from the source to the sink of an acyclic network (see the
    module docstring).

    Parameters
    ----------
    arcs
        The arcs' variables.
    tails
        Each arc's tail node.
    heads
        Each arc's head node.
    order
        The nodes in topological order.
    source
        The source node.
    sink
        The sink node.
    lb
        The block's lower bounds.
    ub
        The block's upper bounds.
    """

    name = "unit-flow"
    fallback_solver = "highs"

    def __init__(
        self,
        arcs: np.ndarray,
        tails: np.ndarray,
        heads: np.ndarray,
        order: np.ndarray,
        source: int,
        sink: int,
        lb: np.ndarray,
        ub: np.ndarray,
    ) -> None:
        self.arcs, self.tails, self.heads, self.order = arcs, tails, heads, order
        self.source, self.sink, self.lb, self.ub = source, sink, lb, ub
        n = len(order)
        by_head = np.argsort(heads, kind="stable")
        starts = np.searchsorted(heads[by_head], np.arange(n + 1))
        incoming = [by_head[starts[v] : starts[v + 1]] for v in range(n)]  # arc positions
        depth = np.zeros(n, dtype=int)  # the longest arc count from a node without incoming arcs
        for v in order:
            if len(incoming[v]):
                depth[v] = 1 + depth[tails[incoming[v]]].max()
        # the nodes of one depth depend only on shallower ones: one padded step per depth, the
        # padding an arc of weight −∞ (position len(arcs)) from the source
        self.levels = []
        for d in range(1, int(depth.max(initial=0)) + 1):
            nodes = np.array([v for v in np.flatnonzero(depth == d) if v != source], dtype=int)
            if not len(nodes):
                continue
            width = max(len(incoming[v]) for v in nodes)
            into = np.full((len(nodes), width), len(arcs))
            for i, v in enumerate(nodes):
                into[i, : len(incoming[v])] = incoming[v]
            self.levels.append((nodes, into, np.append(tails, source)[into]))

    @classmethod
    def fit(cls, block: CompiledModel) -> UnitFlowOracle | None:
        """An oracle if ``block`` is a unit flow on an acyclic network (see the module docstring),
        else ``None``.

        Parameters
        ----------
        block
            A block's compiled subproblem.
        """
        found = _network(block)
        if found is None:
            return None
        arcs, tails, heads, source, sink = found
        order = _topological(len(block.rows), tails, heads)
        if order is None:
            return None  # a directed cycle: a min-cost flow, not a path
        return cls(arcs, tails, heads, order, source, sink, block.var_lb, block.var_ub)

    def describe(self) -> str:
        return f"unit flow on an acyclic network of {len(self.order)} nodes, {len(self.arcs)} arcs: longest path"

    def argmax(self, lam: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        lam = np.asarray(lam, dtype=float)
        B = len(lam)
        x = np.where(lam > 0, self.ub, self.lb)  # off-row variables: best bound (fit requires finite bounds)
        x[:, self.arcs] = 0.0
        w = np.concatenate([lam[:, self.arcs], np.full((B, 1), -np.inf)], axis=1)  # (B, arcs + padding)
        value = np.full((B, len(self.order)), -np.inf)
        value[:, self.source] = 0.0
        best = np.full((B, len(self.order)), -1)  # the arc (position) into each node on its best path
        for nodes, into, tails in self.levels:
            cand = value[:, tails] + w[:, into]  # (B, nodes, in-degree)
            k = np.argmax(cand, axis=2)
            value[:, nodes] = np.take_along_axis(cand, k[:, :, None], axis=2)[:, :, 0]
            best[:, nodes] = into[np.arange(len(nodes))[None, :], k]
        bad = ~np.isfinite(value[:, self.sink])
        rows = np.flatnonzero(~bad)
        node = np.full(len(rows), self.sink)
        for _ in range(len(self.order)):  # walk every instance's path back to the source
            going = node != self.source
            if not going.any():
                break
            arc = best[rows[going], node[going]]
            x[rows[going], self.arcs[arc]] = 1.0
            node[going] = self.tails[arc]
        return self.finish(lam, x, bad, out)
