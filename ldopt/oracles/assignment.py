"""Assignment blocks: rows ``Σ_{e∋v} x_e = 1`` or ``≤ 1`` over a bipartite graph, by SciPy's
``linear_sum_assignment`` (Jonker and Volgenant's shortest augmenting paths), one call per instance.

A block fits when every row is linear with unit coefficients and side ``= 1`` or ``≤ 1`` (a
lower side of at most 0), every variable of its rows lies in exactly two of them, the rows split
into two sides with each variable joining one row of each (the graph is bipartite), no two
variables join the same pair, and those variables have bounds ``[0, 1]`` (binary, integer or
continuous: the rows are totally unimodular, so a best point is a matching whatever the type).
``max λ·x`` over it is a maximum-weight matching that meets every ``= 1`` row:

* every row of one side ``= 1``, of the other ``≤ 1``: the rectangular assignment problem;
* every row ``≤ 1``: the weights' positive parts (missing pairs 0), edges of weight 0 left out;
* otherwise: a square problem in which every ``≤ 1`` row has a dummy partner of weight 0 and the
  dummies pair freely (Burkard, Dell'Amico and Martello, *Assignment Problems*, 2009, §5.1).

Variables outside the rows take their best bound. An instance without a matching that meets
every ``= 1`` row goes to the fallback solver, which proves it infeasible.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from scipy.optimize import linear_sum_assignment

from ldopt.model.compiled import CompiledModel
from ldopt.oracles.base import Oracle

Kind = Literal["rectangular", "matching", "square"]


def _structure(block: CompiledModel) -> tuple[np.ndarray, np.ndarray, dict[int, tuple[int, int]]] | None:
    """Each row's side (0 or 1), whether it is ``= 1``, and each variable's two rows; ``None``
    where the block is no bipartite assignment block."""
    rows = block.rows
    if len(rows) < 2 or not (np.isfinite(block.var_lb).all() and np.isfinite(block.var_ub).all()):
        return None
    exact = np.zeros(len(rows), dtype=bool)
    ends: dict[int, list[int]] = {}
    for k, r in enumerate(rows):
        if r.is_quadratic or not np.all(r.coef == 1.0) or r.hi != 1.0 or not (r.lo == 1.0 or r.lo <= 0.0):
            return None
        exact[k] = r.lo == 1.0
        for j in r.index:
            ends.setdefault(int(j), []).append(k)
    if any(len(e) != 2 for e in ends.values()):
        return None
    on = np.fromiter(ends, dtype=int)
    if np.any(block.var_lb[on] != 0.0) or np.any(block.var_ub[on] != 1.0):
        return None
    if len({tuple(sorted(e)) for e in ends.values()}) != len(ends):
        return None  # two variables join the same pair of rows
    neighbours: list[list[int]] = [[] for _ in rows]
    for a, b in ends.values():
        neighbours[a].append(b)
        neighbours[b].append(a)
    side = np.full(len(rows), -1)
    for start in range(len(rows)):  # two-colour every component of the rows' graph
        if side[start] >= 0:
            continue
        side[start], stack = 0, [start]
        while stack:
            k = stack.pop()
            for o in neighbours[k]:
                if side[o] < 0:
                    side[o] = 1 - side[k]
                    stack.append(o)
                elif side[o] == side[k]:
                    return None  # an odd cycle: not bipartite
    return side, exact, {j: (e[0], e[1]) for j, e in ends.items()}


class AssignmentOracle(Oracle):
    """A maximum-weight matching that meets every ``= 1`` row (see the module docstring).

    Parameters
    ----------
    var_of
        The variable joining left row ``i`` and right row ``j`` (``−1``: none), ``(L, R)``.
    exact_left
        Which left rows are ``= 1`` (the others ``≤ 1``).
    exact_right
        Which right rows are ``= 1``.
    lb
        The block's lower bounds.
    ub
        The block's upper bounds.
    """

    name = "assignment"
    fallback_solver = "highs"

    def __init__(
        self, var_of: np.ndarray, exact_left: np.ndarray, exact_right: np.ndarray, lb: np.ndarray, ub: np.ndarray
    ) -> None:
        if exact_right.all() and not exact_left.all():  # the = 1 side on the left
            var_of, exact_left, exact_right = var_of.T, exact_right, exact_left
        self.var_of, self.exact_left, self.exact_right, self.lb, self.ub = var_of, exact_left, exact_right, lb, ub
        self.edges = np.nonzero(var_of >= 0)
        self.on = np.sort(var_of[self.edges])
        L, R = var_of.shape
        self.kind: Kind
        if exact_left.all() and (not exact_right.any() or L == R) and L <= R:
            self.kind = "rectangular"
        elif not exact_left.any() and not exact_right.any():
            self.kind = "matching"
        else:
            self.kind = "square"
        if self.kind == "square":  # real rows × (real columns, left dummies); right dummies × the same
            fixed = np.full((L + R, R + L), np.inf)
            fixed[:L, R:][np.diag_indices(L)] = np.where(exact_left, np.inf, 0.0)  # a ≤ 1 row may stay out
            fixed[L:, :R][np.diag_indices(R)] = np.where(exact_right, np.inf, 0.0)
            fixed[L:, R:] = 0.0  # dummies pair with dummies
        else:
            fixed = np.full((L, R), 0.0 if self.kind == "matching" else np.inf)
        self.fixed = fixed

    @classmethod
    def fit(cls, block: CompiledModel) -> AssignmentOracle | None:
        """An oracle if ``block`` is an assignment block (see the module docstring), else ``None``.

        Parameters
        ----------
        block
            A block's compiled subproblem.
        """
        found = _structure(block)
        if found is None:
            return None
        side, exact, ends = found
        left, right = np.flatnonzero(side == 0), np.flatnonzero(side == 1)
        at = np.empty(len(side), dtype=int)
        at[left], at[right] = np.arange(len(left)), np.arange(len(right))
        var_of = np.full((len(left), len(right)), -1)
        for j, (a, b) in ends.items():
            i, k = (a, b) if side[a] == 0 else (b, a)
            var_of[at[i], at[k]] = j
        return cls(var_of, exact[left], exact[right], block.var_lb, block.var_ub)

    def describe(self) -> str:
        L, R = self.var_of.shape
        return f"assignment of {L} × {R} rows: linear_sum_assignment (Jonker–Volgenant), one call an instance"

    def argmax(self, lam: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        lam = np.asarray(lam, dtype=float)
        x = np.where(lam > 0, self.ub, self.lb)  # off-row variables: best bound (fit requires finite bounds)
        x[:, self.on] = 0.0
        L, R = self.var_of.shape
        ei, ej = self.edges
        var = self.var_of[ei, ej]
        cost = self.fixed.copy()
        bad = np.zeros(len(lam), dtype=bool)
        for b in range(len(lam)):
            w = lam[b, var]
            cost[ei, ej] = -np.maximum(w, 0.0) if self.kind == "matching" else -w  # minimised
            try:
                r, c = linear_sum_assignment(cost)
            except ValueError:  # no matching meets every = 1 row
                bad[b] = True
                continue
            keep = (r < L) & (c < R)
            chosen = self.var_of[r[keep], c[keep]]
            if self.kind == "matching":  # pairs of weight 0 and missing pairs stay out
                chosen = chosen[(chosen >= 0) & (lam[b, np.maximum(chosen, 0)] > 0)]
            x[b, chosen] = 1.0
        return self.finish(lam, x, bad, out)
