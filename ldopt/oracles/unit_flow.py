"""Unit flows on an acyclic network: flow-conservation rows ``Σ_in x − Σ_out x = b_v`` with one
source (``b = −1``) and one sink (``b = +1``), solved as a longest path by dynamic programming in
topological order, batched over instances in one compiled kernel (numba).

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
from ldopt.runtime.jit import nb


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
        by_head = np.argsort(heads, kind="stable")
        self.starts = np.searchsorted(heads[by_head], np.arange(len(order) + 1))  # node v's arcs in:
        self.incoming = by_head  # incoming[starts[v]:starts[v + 1]] (arc positions)

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
        paths = np.zeros((B, len(self.arcs)))
        bad = _longest_paths(
            np.ascontiguousarray(lam[:, self.arcs]), self.order, self.starts, self.incoming, self.tails,
            self.source, self.sink, paths,
        )  # fmt: skip
        x[:, self.arcs] = paths
        return self.finish(lam, x, bad, out)


@nb.njit(cache=True, nogil=True)
def _longest_paths(
    w: np.ndarray,
    order: np.ndarray,
    starts: np.ndarray,
    incoming: np.ndarray,
    tails: np.ndarray,
    source: int,
    sink: int,
    paths: np.ndarray,
) -> np.ndarray:
    """Per instance ``b``, the source–sink path of greatest weight ``w[b]`` (arcs ``(B, A)``),
    written as ones into ``paths[b]``: each node's best incoming arc in topological ``order`` (the
    first of equal ones), then the walk back from the sink. Returns where the sink is unreachable."""
    B, n = w.shape[0], len(order)
    value = np.empty(n)
    best = np.empty(n, dtype=np.int64)
    bad = np.zeros(B, dtype=np.bool_)
    for b in range(B):
        value[:] = -np.inf
        best[:] = -1
        value[source] = 0.0
        for v in order:
            if v == source:
                continue
            for p in range(starts[v], starts[v + 1]):
                a = incoming[p]
                c = value[tails[a]] + w[b, a]
                if c > value[v]:
                    value[v], best[v] = c, a
        if not np.isfinite(value[sink]):
            bad[b] = True
            continue
        v = sink
        while v != source:
            a = best[v]
            paths[b, a] = 1.0
            v = tails[a]
    return bad
