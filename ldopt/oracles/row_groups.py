"""Many one-row blocks solved in one vectorised call (the sparse layout's flat arrays).

A model written row by row decomposes into thousands of one-row blocks of a few shapes (a
facility's ``x_ij <= y_i``, an assignment's ``Σ_i x_ij = 1``). Solved one block at a time, each
call costs tens of microseconds of Python whatever its size; grouped by shape — the closed-form
rows ([`LinearRowOracle`][ldopt.oracles.linear_row.LinearRowOracle]) by support size, the mixed
rows ([`MixedRowOracle`][ldopt.oracles.linear_row.MixedRowOracle]) by support size, integer
positions and combinations — every instance's every block of a group is one row of one
``row_greedy`` call. The answers are the blocks' own oracles' (tested).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np

from ldopt.oracles.linear_row import LinearRowOracle, MixedRowOracle, row_greedy


class RowGroup(ABC):
    """Blocks of one shape: ``positions`` ``(G, s)`` are their supports' places in a flat array."""

    def __init__(self, blocks: list[int], positions: np.ndarray) -> None:
        self.blocks, self.positions = blocks, positions

    @abstractmethod
    def solve(self, obj: np.ndarray, out: np.ndarray) -> None:
        """The blocks' optimal copies for the flat objectives ``obj`` ``(b, nnz)``, into ``out``."""


class LinearRows(RowGroup):
    """Closed-form linear rows with ``s`` variables each."""

    def __init__(self, blocks: list[int], positions: np.ndarray, oracles: Sequence[LinearRowOracle]) -> None:
        super().__init__(blocks, positions)
        self.a = np.array([o.a[o.on] for o in oracles])
        self.lo, self.hi = np.array([o.lo for o in oracles]), np.array([o.hi for o in oracles])
        self.ylo, self.yhi = np.array([o.ylo for o in oracles]), np.array([o.yhi for o in oracles])

    def solve(self, obj: np.ndarray, out: np.ndarray) -> None:
        lam = obj[:, self.positions]  # (b, G, s): one row per instance and block
        out[:, self.positions] = row_greedy(lam, self.a, self.lo, self.hi, self.ylo, self.yhi) / self.a


class MixedRows(RowGroup):
    """Mixed rows with the same support size, integer positions and number of combinations (all
    feasible); each block has its own coefficients, sides and combinations."""

    def __init__(self, blocks: list[int], positions: np.ndarray, oracles: Sequence[MixedRowOracle]) -> None:
        super().__init__(blocks, positions)
        r0 = oracles[0].r
        self.ints, self.conts = np.searchsorted(r0.on, r0.ints), np.searchsorted(r0.on, r0.conts)
        self.a = np.array([o.r.a[o.r.conts] for o in oracles])
        self.lo, self.hi = np.array([o.r.lo for o in oracles]), np.array([o.r.hi for o in oracles])
        self.ylo, self.yhi = np.array([o.ylo for o in oracles]), np.array([o.yhi for o in oracles])
        self.combos = np.array([o.combos for o in oracles])  # (G, K, ints)
        self.shift = np.array([o.shift for o in oracles])  # (G, K)

    def solve(self, obj: np.ndarray, out: np.ndarray) -> None:
        b, G = obj.shape[0], len(self.blocks)
        lam = obj[:, self.positions]  # (b, G, s)
        lam_i, lam_c = lam[:, :, self.ints], lam[:, :, self.conts]
        xcs, values = [], []
        for k in range(self.combos.shape[1]):
            lo, hi = self.lo - self.shift[:, k], self.hi - self.shift[:, k]
            xc = row_greedy(lam_c, self.a, lo, hi, self.ylo, self.yhi) / self.a
            xcs.append(xc)
            values.append((lam_i * self.combos[None, :, k]).sum(axis=2) + (lam_c * xc).sum(axis=2))
        win = np.argmax(values, axis=0)  # (b, G): the first best combination
        pos = self.positions
        out[:, pos[:, self.ints]] = self.combos[np.arange(G)[None, :], win]
        out[:, pos[:, self.conts]] = np.asarray(xcs)[win, np.arange(b)[:, None], np.arange(G)[None, :]]


def row_groups(solvers: Sequence[Any], support: Any) -> tuple[list[RowGroup], list[int]]:
    """The blocks whose oracle solves their support in closed form, grouped by shape, and the
    others (block indices), to be solved one by one.

    Parameters
    ----------
    solvers
        Each block's solver (`dec.block_solvers()`).
    support
        The blocks' [`Support`][ldopt.dual.support.Support].
    """
    shapes: dict[tuple, list[int]] = {}
    single = []
    for k, s in enumerate(solvers):
        o, at = s.oracle, support.variables(k)
        if isinstance(o, LinearRowOracle) and np.array_equal(o.on, at):
            shapes.setdefault(("linear", len(at)), []).append(k)
        elif isinstance(o, MixedRowOracle) and np.array_equal(o.on, at) and o.feasible.all():
            ints = tuple(np.searchsorted(o.r.on, o.r.ints))
            shapes.setdefault(("mixed", len(at), ints, len(o.combos)), []).append(k)
        else:
            single.append(k)
    groups: list[RowGroup] = []
    for key, blocks in shapes.items():
        positions = np.array([np.arange(support.indptr[k], support.indptr[k + 1]) for k in blocks])
        oracles = [solvers[k].oracle for k in blocks]
        groups.append(
            LinearRows(blocks, positions, oracles) if key[0] == "linear" else MixedRows(blocks, positions, oracles)
        )
    return groups, single
