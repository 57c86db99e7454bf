"""Where each block's copies live: its support, the variables its rows touch.

A copy of variable ``j`` in a block whose rows do not touch ``j`` is constrained by its bounds
only, and its multiplier can be zero with no loss: moving it to a block that touches ``j`` never
raises any bound, because the maximum over the box is subadditive (``max_X (a+b)·x ≤ max_X a·x +
max_box b·x`` for every ``X`` inside the box). So the multipliers and solutions of block ``k`` can
be stored on its support ``S_k`` alone: ``Σ_k |S_k|`` numbers per instance instead of ``m·n``.
[`Support`][ldopt.dual.support.Support] holds the supports as one flat (CSR) index; the
``"sparse"`` layout ([`DualSettings`][ldopt.dual.DualSettings]``(layout=...)``) runs the dual on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from ldopt.decomposition.blocks import Blocks
from ldopt.dual.settings import Layout
from ldopt.errors import InputError

SPARSE_SHARE = 0.5
"""``layout="auto"`` stores on the supports when they hold at most this share of ``m × n``."""


def supports(dec: Blocks) -> list[np.ndarray]:
    """The variables each block's rows touch (their linear and quadratic terms), sorted."""
    out = []
    for b in dec.blocks:
        idx = [r.index for r in b.compiled.rows]
        idx += [np.flatnonzero(np.abs(r.P).sum(axis=0) > 0) for r in b.compiled.rows if r.P is not None]
        out.append(np.unique(np.concatenate(idx)).astype(np.int64) if idx else np.zeros(0, dtype=np.int64))
    return out


@dataclass(frozen=True, eq=False)
class Support:
    """The blocks' supports as one flat index: block ``k`` owns positions
    ``indptr[k]:indptr[k+1]`` of a flat array, which hold variables ``indices[indptr[k]:indptr[k+1]]``.

    Parameters
    ----------
    indptr
        ``(m+1,)`` offsets of each block's positions.
    indices
        ``(nnz,)`` the variable of each position.
    num_vars
        ``n``: the problem's variables.
    """

    indptr: np.ndarray
    indices: np.ndarray
    num_vars: int

    @classmethod
    def of(cls, dec: Blocks) -> Support:
        """The supports of ``dec``'s blocks.

        Parameters
        ----------
        dec
            The decomposition.
        """
        if "_support" in dec.__dict__:  # computed once per decomposition
            return dec.__dict__["_support"]
        sup = supports(dec)
        indptr = np.concatenate([[0], np.cumsum([len(s) for s in sup])]).astype(np.int64)
        indices = np.concatenate(sup) if sup else np.zeros(0, dtype=np.int64)
        out = dec.__dict__["_support"] = cls(indptr, indices.astype(np.int64), dec.num_vars)
        return out

    @property
    def num_blocks(self) -> int:
        """``m``: the blocks."""
        return len(self.indptr) - 1

    @property
    def nnz(self) -> int:
        """``Σ_k |S_k|``: the positions of the flat arrays."""
        return int(self.indptr[-1])

    @property
    def share(self) -> float:
        """``nnz / (m·n)``: the part of the dense layout the supports hold."""
        return self.nnz / max(1, self.num_blocks * self.num_vars)

    def block(self, k: int) -> slice:
        """Block ``k``'s positions in a flat array."""
        return slice(int(self.indptr[k]), int(self.indptr[k + 1]))

    def variables(self, k: int) -> np.ndarray:
        """The variables of block ``k``'s support."""
        return self.indices[self.block(k)]

    @property
    def owner(self) -> np.ndarray:
        """``(nnz,)`` the block of each position."""
        return np.repeat(np.arange(self.num_blocks), np.diff(self.indptr))

    @property
    def count(self) -> np.ndarray:
        """``(n,)`` how many blocks touch each variable (``c_j``)."""
        return np.bincount(self.indices, minlength=self.num_vars)

    def scatter_sum(self, flat: np.ndarray) -> np.ndarray:
        """``(b, n)``: per variable, the sum of its positions in ``flat`` ``(b, nnz)``."""
        out = np.zeros((flat.shape[0], self.num_vars))
        for row, src in zip(out, flat, strict=True):  # bincount per instance: no (b, nnz) index array
            row += np.bincount(self.indices, weights=src, minlength=self.num_vars)
        return out

    def gather(self, dense: np.ndarray) -> np.ndarray:
        """``(b, nnz)``: each position's variable from ``dense`` ``(b, n)``."""
        return dense[:, self.indices]

    def block_sums(self, flat: np.ndarray) -> np.ndarray:
        """``(b, m)``: per block, the sum of its positions in ``flat`` ``(b, nnz)``."""
        if self.nnz == 0:
            return np.zeros((flat.shape[0], self.num_blocks))
        out = np.add.reduceat(flat, np.minimum(self.indptr[:-1], self.nnz - 1), axis=1)
        out[:, np.diff(self.indptr) == 0] = 0.0  # reduceat gives an empty block one position
        return out

    def to_dense(self, flat: np.ndarray, fill: np.ndarray | None = None) -> np.ndarray:
        """``(b, m, n)``: the flat arrays as dense ones, ``fill`` ``(b, n)`` (else 0) off the supports."""
        b, m = flat.shape[0], self.num_blocks
        out = np.zeros((b, m, self.num_vars)) if fill is None else np.repeat(fill[:, None, :], m, axis=1)
        out[:, self.owner, self.indices] = flat
        return out

    def spread(self, flat: np.ndarray, rest: np.ndarray) -> np.ndarray:
        """Shared multipliers ``(b, m, n)`` from ``flat`` on the supports and ``rest`` ``(b, n)``, the
        cost no block touches, spread evenly over the blocks (so they sum to the costs)."""
        return self.to_dense(flat, rest / self.num_blocks)

    def with_block(self, base: np.ndarray, flat: np.ndarray, k: int, add: bool = False) -> np.ndarray:
        """``base`` ``(b, n)`` with block ``k``'s support taken from ``flat`` ``(b, nnz)`` (or, with
        ``add``, increased by it): a copy."""
        out = np.array(base, dtype=float)
        if add:
            out[:, self.variables(k)] += flat[:, self.block(k)]
        else:
            out[:, self.variables(k)] = flat[:, self.block(k)]
        return out

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The support as arrays (for caches)."""
        return {"support_indptr": self.indptr, "support_indices": self.indices}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], num_vars: int) -> Support:
        """The support `to_arrays()` saved.

        Parameters
        ----------
        arrays
            The saved arrays.
        num_vars
            ``n``.
        """
        return cls(np.asarray(arrays["support_indptr"]), np.asarray(arrays["support_indices"]), int(num_vars))

    def same(self, other: Support | None) -> bool:
        """Whether ``other`` is the same support."""
        return (
            other is not None
            and self.num_vars == other.num_vars
            and np.array_equal(self.indptr, other.indptr)
            and np.array_equal(self.indices, other.indices)
        )


def box_of(dec: Blocks) -> tuple[np.ndarray, np.ndarray]:
    """The bounds every block gives each variable (its own, or implied by the whole model, so
    valid for every block): the box where a copy off its block's support lies (computed once per
    decomposition; read only)."""
    if "_box" not in dec.__dict__:
        lb, ub = dec.problem.compiled.var_lb.copy(), dec.problem.compiled.var_ub.copy()
        for b in dec.blocks:
            np.maximum(lb, b.compiled.var_lb, out=lb)
            np.minimum(ub, b.compiled.var_ub, out=ub)
        lb.setflags(write=False)
        ub.setflags(write=False)
        dec.__dict__["_box"] = (lb, ub)
    return dec.__dict__["_box"]


def resolve_layout(dec: Blocks, layout: Layout, mode: str) -> Literal["dense", "sparse"]:
    """The layout ``layout`` names for ``dec``: ``"sparse"`` needs the shared or joint mode (any
    step rule) and blocks that each touch a variable; ``"auto"`` is sparse where, besides, the
    supports hold at most [`SPARSE_SHARE`][ldopt.dual.support.SPARSE_SHARE] of ``m × n`` (a dense
    row, as the MKP's, keeps the dense path and its speed).

    Parameters
    ----------
    dec
        The decomposition.
    layout
        ``"auto"``, ``"dense"`` or ``"sparse"``.
    mode
        The dual's mode.
    """
    if layout == "dense":
        return "dense"
    sup = Support.of(dec)
    why = None
    if mode == "independent":
        why = "the independent mode (one dense run per decomposition)"
    elif np.any(np.diff(sup.indptr) == 0):
        why = "a block that touches no variable"
    if layout == "sparse":
        if why is not None:
            raise InputError(f"layout='sparse': expected the shared or joint mode, got {why}")
        return "sparse"
    return "sparse" if why is None and sup.share <= SPARSE_SHARE else "dense"
