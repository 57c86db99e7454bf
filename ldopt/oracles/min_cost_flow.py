"""Flows on a network: flow-conservation rows ``Σ_in x − Σ_out x = b_v`` with ``±1`` coefficients,
solved as a min-cost flow by successive shortest paths, batched over instances in one compiled
kernel (numba).

A block fits when it has at least two rows, every row is a linear equality with coefficients
``±1``, every variable of its rows lies in one or two of them, and the rows can be signed so that
each variable in two has ``+1`` in one (its head) and ``−1`` in the other (its tail). A variable in
one row only is an arc from or to the rest of the model, a node ``o`` whose balance the others
imply (``b_o = −Σ b_v``): a band of a grid's node rows (PyEPO's shortest path with
``shortest_path.regions``) is such a block. The arcs' bounds must be finite (declared, or implied by
the block's own rows: an arc into a node with no way out carries nothing); where a variable is
integer, its bounds and the sides must be integers (the flow found is then integral, as network
matrices are totally unimodular). Cycles and any number of sources and sinks are allowed.

Per instance: every arc of negative cost (``−λ``) starts saturated, so that every residual arc
costs at least 0; then, while a node has surplus, Dijkstra's shortest path (on reduced costs, from
every node with surplus) to the nearest node short of its balance carries as much as the path
allows. Each augmentation empties a surplus, fills a shortage or saturates an arc; an instance that
needs more than ``8 (arcs + nodes)`` of them (real-valued capacities can ask many), or leaves a
surplus no shortage can reach (an infeasible block), goes to the fallback solver. Variables outside
the rows take their best bound.
"""

from __future__ import annotations

import numpy as np

from ldopt.model.compiled import CompiledModel
from ldopt.model.propagation import propagate
from ldopt.oracles.base import Oracle
from ldopt.runtime.jit import nb


def _signs(block: CompiledModel) -> tuple[np.ndarray, dict[int, list[tuple[int, float]]]] | None:
    """A sign per row making each variable in two rows ``+1`` in one and ``−1`` in the other, and
    each variable's rows with their coefficients; ``None`` where none exists."""
    held: dict[int, list[tuple[int, float]]] = {}
    for k, r in enumerate(block.rows):
        for j, a in zip(r.index, r.coef, strict=True):
            held.setdefault(int(j), []).append((k, float(a)))
    if any(len(v) > 2 for v in held.values()):
        return None
    touching: dict[int, list[tuple[int, float, float]]] = {}  # row -> (other row, its coef, the other's)
    for pair in held.values():
        if len(pair) == 2:
            (r1, a1), (r2, a2) = pair
            touching.setdefault(r1, []).append((r2, a1, a2))
            touching.setdefault(r2, []).append((r1, a2, a1))
    sign = np.zeros(len(block.rows))
    for start in range(len(block.rows)):
        if sign[start]:
            continue
        sign[start], todo = 1.0, [start]
        while todo:
            row = todo.pop()
            for other, mine, theirs in touching.get(row, []):
                want = -sign[row] * mine / theirs  # sign[row]·mine = −sign[other]·theirs
                if not sign[other]:
                    sign[other] = want
                    todo.append(other)
                elif sign[other] != want:
                    return None
    return sign, held


def _network(
    block: CompiledModel,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """The arcs' variables, tails and heads (rows, and ``len(rows)`` for ``o``), every node's
    balance ``b`` (``in − out``) and the arcs' bounds (an infinite one replaced by what the block's
    own rows imply); ``None`` where the block is no such network."""
    rows = block.rows
    if len(rows) < 2 or any(r.is_quadratic or r.lo != r.hi or not np.all(np.abs(r.coef) == 1.0) for r in rows):
        return None
    found = _signs(block)
    if found is None:
        return None
    sign, held = found
    o = len(rows)
    arcs = np.array(sorted(held))
    tails, heads = np.full(len(arcs), o), np.full(len(arcs), o)
    for i, j in enumerate(arcs):
        for k, a in held[int(j)]:
            if sign[k] * a > 0:
                heads[i] = k
            else:
                tails[i] = k
    lb, ub = block.var_lb[arcs], block.var_ub[arcs]
    if not (np.isfinite(lb).all() and np.isfinite(ub).all()):  # the block's own rows may bound them
        implied = propagate(block)
        if implied.conflict is not None:
            return None
        lb, ub = np.maximum(lb, implied.lb[arcs]), np.minimum(ub, implied.ub[arcs])
        if not (np.isfinite(lb).all() and np.isfinite(ub).all()):
            return None
    b = np.append(sign * np.array([r.lo for r in rows]), 0.0)
    b[o] = -b[:o].sum()
    integer = block.var_type[arcs] != "C"
    if integer.any() and not (_whole(lb[integer]) and _whole(ub[integer]) and _whole(b)):
        return None  # integer arcs: only integral data gives integral flows
    return arcs, tails, heads, b, lb, ub


def _whole(a: np.ndarray) -> bool:
    return bool(np.all(a == np.round(a)))


class MinCostFlowOracle(Oracle):
    """A min-cost flow by successive shortest paths (see the module docstring).

    Parameters
    ----------
    arcs
        The arcs' variables.
    tails
        Each arc's tail node.
    heads
        Each arc's head node.
    balance
        Each node's balance ``in − out``.
    low
        The arcs' lower bounds.
    high
        The arcs' upper bounds (finite: declared, or implied by the block's rows).
    lb
        The block's lower bounds.
    ub
        The block's upper bounds.
    """

    name = "min-cost-flow"
    fallback_solver = "highs"

    def __init__(
        self,
        arcs: np.ndarray,
        tails: np.ndarray,
        heads: np.ndarray,
        balance: np.ndarray,
        low: np.ndarray,
        high: np.ndarray,
        lb: np.ndarray,
        ub: np.ndarray,
    ) -> None:
        self.arcs, self.tails, self.heads, self.lb, self.ub = arcs, tails, heads, lb, ub
        self.low = low
        self.cap = high - low  # the flow above each arc's lower bound
        shifted = balance.astype(float).copy()  # the balances the flow above the lower bounds must meet
        np.subtract.at(shifted, heads, low)
        np.add.at(shifted, tails, low)
        self.balance = shifted
        nodes = len(balance)
        self.out_start, self.out_arcs = _by(tails, nodes)
        self.in_start, self.in_arcs = _by(heads, nodes)
        self.tol = 1e-12 * max(1.0, float(np.abs(self.cap).max(initial=0.0)), float(np.abs(shifted).max()))

    @classmethod
    def fit(cls, block: CompiledModel) -> MinCostFlowOracle | None:
        """An oracle if ``block`` is a flow on a network (see the module docstring), else ``None``.

        Parameters
        ----------
        block
            A block's compiled subproblem.
        """
        found = _network(block)
        if found is None:
            return None
        arcs, tails, heads, balance, low, high = found
        return cls(arcs, tails, heads, balance, low, high, block.var_lb, block.var_ub)

    def describe(self) -> str:
        return (
            f"flow on a network of {len(self.balance)} nodes, {len(self.arcs)} arcs: min-cost flow by "
            "successive shortest paths"
        )

    def argmax(self, lam: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        lam = np.asarray(lam, dtype=float)
        x = np.where(lam > 0, self.ub, self.lb)  # off-row variables: best bound (fit requires finite bounds)
        flow = np.zeros((len(lam), len(self.arcs)))
        bad = _flows(
            -np.ascontiguousarray(lam[:, self.arcs]), self.tails, self.heads, self.cap, self.balance,
            self.out_start, self.out_arcs, self.in_start, self.in_arcs, self.tol, flow,
        )  # fmt: skip
        x[:, self.arcs] = self.low + flow
        return self.finish(lam, x, bad, out)


def _by(ends: np.ndarray, nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """The arcs grouped by node (``ends``: each arc's tail or head): ``start`` ``(nodes + 1,)`` and
    the arc positions, node ``v``'s at ``arcs[start[v]:start[v + 1]]``."""
    order = np.argsort(ends, kind="stable")
    return np.searchsorted(ends[order], np.arange(nodes + 1)).astype(np.int64), order.astype(np.int64)


@nb.njit(cache=True, nogil=True)
def _flows(
    cost: np.ndarray,
    tails: np.ndarray,
    heads: np.ndarray,
    cap: np.ndarray,
    balance: np.ndarray,
    out_start: np.ndarray,
    out_arcs: np.ndarray,
    in_start: np.ndarray,
    in_arcs: np.ndarray,
    tol: float,
    flow: np.ndarray,
) -> np.ndarray:
    """Per instance ``b``, a flow of least ``cost[b]`` within ``[0, cap]`` meeting every node's
    ``balance`` (in − out), written into ``flow[b]``; returns the instances not finished."""
    B, A = cost.shape
    N = len(balance)
    bad = np.zeros(B, dtype=np.bool_)
    excess = np.empty(N)  # in − out − balance: > 0 a surplus to send on, < 0 a shortage
    pi = np.empty(N)
    dist = np.empty(N)
    prev = np.empty(N, dtype=np.int64)  # the residual arc into a node: arc a forward (a), backward (A + a); -1: none
    done = np.empty(N, dtype=np.bool_)
    for b in range(B):
        y = flow[b]
        c = cost[b]
        for v in range(N):
            excess[v] = -balance[v]
            pi[v] = 0.0
        for a in range(A):
            y[a] = cap[a] if c[a] < 0 else 0.0  # every residual arc now costs at least 0
            excess[heads[a]] += y[a]
            excess[tails[a]] -= y[a]
        for _ in range(8 * (A + N)):
            left = False
            for v in range(N):
                if excess[v] > tol:
                    left = True
            if not left:
                break
            for v in range(N):
                done[v] = False
                prev[v] = -1
                dist[v] = 0.0 if excess[v] > tol else np.inf
            target = -1
            while True:  # Dijkstra from every surplus, on reduced costs (≥ 0)
                u, best = -1, np.inf
                for v in range(N):
                    if not done[v] and dist[v] < best:
                        u, best = v, dist[v]
                if u < 0:
                    break
                done[u] = True
                if excess[u] < -tol:
                    target = u
                    break
                for p in range(out_start[u], out_start[u + 1]):  # forward: room left on the arc
                    a = out_arcs[p]
                    if y[a] < cap[a] - tol:
                        v = heads[a]
                        d = best + max(c[a] + pi[u] - pi[v], 0.0)
                        if d < dist[v]:
                            dist[v], prev[v] = d, a
                for p in range(in_start[u], in_start[u + 1]):  # backward: flow to send back
                    a = in_arcs[p]
                    if y[a] > tol:
                        v = tails[a]
                        d = best + max(-c[a] + pi[u] - pi[v], 0.0)
                        if d < dist[v]:
                            dist[v], prev[v] = d, A + a
            if target < 0:
                break  # a surplus no shortage can reach: infeasible
            reach = dist[target]
            for v in range(N):
                pi[v] += min(dist[v], reach)
            amount = -excess[target]  # the path's bottleneck
            v = target
            while prev[v] != -1:
                e = prev[v]
                if e < A:
                    amount = min(amount, cap[e] - y[e])
                    v = tails[e]
                else:
                    amount = min(amount, y[e - A])
                    v = heads[e - A]
            amount = min(amount, excess[v])
            source = v
            v = target
            while v != source:
                e = prev[v]
                if e < A:
                    y[e] = min(y[e] + amount, cap[e])
                    v = tails[e]
                else:
                    y[e - A] = max(y[e - A] - amount, 0.0)
                    v = heads[e - A]
            excess[source] -= amount
            excess[target] += amount
        for v in range(N):
            if abs(excess[v]) > tol * N:
                bad[b] = True
    return bad
