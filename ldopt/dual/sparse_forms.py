"""The shared and joint forms on the blocks' supports (the ``"sparse"`` layout, `support`).

Multipliers, objectives and copies are flat arrays ``(b, nnz)``: block ``k`` owns the positions of
its support ``S_k``. Off its support a block's copy meets only its bounds (the box of bounds every
block gives the variable) and its multiplier is zero, so:

* `SparseShared` — ``λ_k`` on ``S_k`` with ``Σ_{k∋j} λ_kj = q_j``; the cost of a variable no block
  touches stays in a box term. The same bound as the dense shared form at the same ``λ``.
* `SparseJoint` — penalties ``ν_k`` on ``S_k``. With ``T = Σ_k ν_k`` (a vector), decomposition
  ``d``'s main objective is ``q + T − ν_d``: ``q + T`` off ``S_d``, where its copy sits at the best
  bound. The off-support part of every main block is one box problem over ``q + T``, priced once
  per iteration, so an iteration costs ``O(nnz + n)`` per instance, not ``O(m·n)``.

The subgradients are the dense forms' restricted to the supports; the multipliers a run keeps, the
bounds and the main solutions equal the dense forms' at the same multipliers (tested).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ldopt.dual.forms import Form, Joint
from ldopt.dual.support import Support
from ldopt.errors import DecompositionError
from ldopt.model.primal import PrimalHeuristic
from ldopt.oracles.row_groups import RowGroup, row_groups

CANDIDATES = 3
"""Copies per instance that the primal heuristic checks each iteration, besides their mean."""


def box_argmax(obj: np.ndarray, lb: np.ndarray, ub: np.ndarray) -> np.ndarray:
    """The best point of the box ``[lb, ub]`` for ``max obj·x``: the upper bound where ``obj > 0``,
    the lower where ``< 0``; a tie takes a finite bound (the lower first), else 0."""
    tie = np.where(np.isfinite(lb), lb, np.where(np.isfinite(ub), ub, 0.0))
    return np.where(obj > 0, ub, np.where(obj < 0, lb, tie))


def offer_candidates(
    sup: Support, heuristic: PrimalHeuristic, q: np.ndarray, mean: np.ndarray, copies: np.ndarray,
    idx: np.ndarray, p_val: np.ndarray, p_x: np.ndarray,
) -> None:  # fmt: skip
    """Offer ``heuristic`` the copies' ``mean`` ``(b, n)`` and the ``CANDIDATES`` copies (flat
    ``(b, nnz)``) worth most laid on it, to improve ``p_val[idx]``/``p_x[idx]``."""
    b, m = q.shape[0], sup.num_blocks
    gain = sup.block_sums(sup.gather(q) * (copies - sup.gather(mean)))  # (b, m)
    K = min(CANDIDATES, m)
    top = np.argpartition(-gain, K - 1, axis=1)[:, :K]
    cand = np.repeat(mean[:, None, :], K + 1, axis=1)
    for i in range(b):
        for t, k in enumerate(top[i]):
            cand[i, t + 1, sup.variables(k)] = copies[i, sup.block(k)]
    heuristic.update(q, cand, p_val, p_x, idx)


class _OnSupports(Form):
    """What both sparse forms share: the support, the box and the block solves on the supports."""

    def __init__(self, support: Support, lb: np.ndarray, ub: np.ndarray) -> None:
        super().__init__(support.num_blocks)
        self.sup = support
        self.count = support.count
        self.share = np.maximum(self.count, 1)
        loose = (self.count < self.m) & ~(np.isfinite(lb) & np.isfinite(ub))
        if loose.any():  # a block that leaves such a copy unbounded was given implied bounds
            raise DecompositionError(
                f"layout='sparse': expected finite bounds for every variable some block does not touch, got "
                f"none for variables {np.flatnonzero(loose)[:5].tolist()}; use layout='dense'"
            )
        self.lb, self.ub = lb, ub
        self.nnz = support.nnz
        self._groups: tuple[list[RowGroup], list[int]] | None = None

    def solves(self) -> list[int]:
        return list(range(self.m))

    def width(self) -> int:
        """The flat columns of an objective or solution array."""
        raise NotImplementedError

    def buffer(self, b: int, n: int) -> np.ndarray:
        return np.empty((b, self.width()))

    def solve_blocks(self, solvers: list[Any], obj: np.ndarray, out: np.ndarray) -> np.ndarray:
        """Every block's copy on its support for the flat objectives ``obj``, into ``out``: the
        closed-form rows by groups of one shape (`ldopt.oracles.row_groups`), the others one by one.
        Returns each block's optimal value ``(b, m)`` (a solver's proven bound where it exceeds
        its point's value)."""
        if self._groups is None:  # the run's solvers do not change
            self._groups = row_groups(solvers, self.sup)
        groups, single = self._groups
        for group in groups:
            group.solve(obj, out)
        excess = np.zeros((obj.shape[0], self.m))
        for k in single:
            at = self.sup.block(k)
            out[:, at] = solvers[k].argmax_on(obj[:, at], self.sup.variables(k), excess=excess[:, k])
        return self.sup.block_sums(obj * out) + excess

    def box(self, base: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The box's best point for ``base`` ``(b, n)`` and each variable's value there."""
        x = box_argmax(base, self.lb, self.ub)
        return x, np.where(base == 0, 0.0, base * x)


class SparseShared(_OnSupports):
    """The symmetric ``λ`` on the supports (see the module docstring)."""

    def width(self) -> int:
        return self.nnz + self.sup.num_vars

    def start(self, q: np.ndarray, mu0: float | str) -> np.ndarray:
        return self.sup.gather(q / self.share)

    def resume(self, lam: np.ndarray, q: np.ndarray) -> np.ndarray:
        return self.project(np.array(lam, dtype=float), q)

    def objectives(self, theta: np.ndarray, q: np.ndarray) -> np.ndarray:
        return np.concatenate([theta, np.where(self.count == 0, q, 0.0)], axis=1)

    def evaluate(self, solvers: list[Any], obj: np.ndarray, X: np.ndarray) -> np.ndarray:
        nnz = self.nnz
        values = self.solve_blocks(solvers, obj[:, :nnz], X[:, :nnz])
        X[:, nnz:], h = self.box(obj[:, nnz:])
        return np.concatenate([values, h.sum(axis=1, keepdims=True)], axis=1)

    def bounds(self, values: np.ndarray) -> np.ndarray:
        return values.sum(axis=1, keepdims=True)

    def _mean(self, x: np.ndarray) -> np.ndarray:
        return self.sup.scatter_sum(x) / self.share

    def subgradient(self, X: np.ndarray) -> np.ndarray:
        x = X[:, : self.nnz]
        return x - self.sup.gather(self._mean(x))

    def project(self, theta: np.ndarray, q: np.ndarray) -> np.ndarray:
        return theta - self.sup.gather((self.sup.scatter_sum(theta) - q) / self.share)

    def keep(self, theta, q, obj, X):
        nnz = self.nnz
        return theta, obj[:, nnz:], X[:, :nnz], X[:, nnz:]

    def offer_primal(self, heuristic, q, X, p_val, p_x, idx) -> None:
        nnz = self.nnz
        mean = np.where(self.count == 0, X[:, nnz:], self._mean(X[:, :nnz]))
        offer_candidates(self.sup, heuristic, q, mean, X[:, :nnz], idx, p_val, p_x)


class SparseJoint(_OnSupports):
    """The joint μ-form's penalties ``ν_k`` on the supports (see the module docstring)."""

    def width(self) -> int:
        return 2 * self.nnz + self.sup.num_vars

    def start(self, q: np.ndarray, mu0: float | str) -> np.ndarray:
        if isinstance(mu0, str):  # "symmetric": every block's objective q_j / c_j on its support
            return -self.sup.gather(q / self.share)
        return np.full((q.shape[0], self.nnz), float(mu0))

    def resume(self, lam: np.ndarray, q: np.ndarray) -> np.ndarray:
        return -np.array(lam, dtype=float)  # the kept λ_k = −ν_k

    def objectives(self, theta: np.ndarray, q: np.ndarray) -> np.ndarray:
        base = q + self.sup.scatter_sum(theta)  # every main block's objective off its support
        return np.concatenate([self.sup.gather(base) - theta, -theta, base], axis=1)

    def evaluate(self, solvers: list[Any], obj: np.ndarray, X: np.ndarray) -> np.ndarray:
        nnz, sums = self.nnz, self.sup.block_sums
        main, light = slice(0, nnz), slice(nnz, 2 * nnz)
        main_values = self.solve_blocks(solvers, obj[:, main], X[:, main])
        light_values = self.solve_blocks(solvers, obj[:, light], X[:, light])
        X[:, 2 * nnz :], h = self.box(obj[:, 2 * nnz :])
        off = h.sum(axis=1, keepdims=True) - sums(self.sup.gather(h))  # main d's box part, off S_d
        return np.concatenate([main_values + off, light_values], axis=1)

    bounds = Joint.bounds

    def runs(self) -> int:
        return self.m

    def _main_total(self, X: np.ndarray) -> np.ndarray:
        """``Σ_d x_d^main`` per variable ``(b, n)``: on the supports, and at the box elsewhere."""
        nnz = self.nnz
        return self.sup.scatter_sum(X[:, :nnz]) + (self.m - self.count) * X[:, 2 * nnz :]

    def subgradient(self, X: np.ndarray) -> np.ndarray:
        nnz = self.nnz
        xm, xl = X[:, :nnz], X[:, nnz : 2 * nnz]
        return self.sup.gather(self._main_total(X)) - xm - (self.m - 1) * xl

    def keep(self, theta, q, obj, X):
        nnz = self.nnz
        return obj[:, nnz : 2 * nnz], obj[:, 2 * nnz :], X[:, :nnz], X[:, 2 * nnz :]

    def offer_primal(self, heuristic, q, X, p_val, p_x, idx) -> None:
        nnz = self.nnz
        xm, xl = X[:, :nnz], X[:, nnz : 2 * nnz]
        mean = (self.sup.scatter_sum(xm) + self.sup.scatter_sum(xl)) / (2 * self.share)
        mean = np.where(self.count == 0, X[:, 2 * nnz :], mean)
        offer_candidates(self.sup, heuristic, q, mean, xm, idx, p_val, p_x)
