"""How far solutions are from feasible: the largest bound, row or integrality violation of each."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ldopt.model.compiled import CompiledModel


@dataclass(frozen=True)
class RowArrays:
    """A model's rows as arrays for batched evaluation: the linear parts (dense when a quarter or
    more is nonzero, for BLAS), their sides and the quadratic parts.

    Parameters
    ----------
    model
        The compiled model.
    A
        The rows' linear parts ``(rows, n)``.
    lo
        Their lower sides.
    hi
        Their upper sides.
    quad
        ``(row, P)`` for every quadratic row.
    """

    model: CompiledModel
    A: Any
    lo: np.ndarray
    hi: np.ndarray
    quad: list[tuple[int, np.ndarray]]

    @classmethod
    def of(cls, cm: CompiledModel) -> RowArrays:
        """The arrays of ``cm``'s rows (build once, evaluate many batches).

        Parameters
        ----------
        cm
            The compiled model.
        """
        A = cm.linear_matrix()
        if A.nnz >= 0.25 * A.shape[0] * A.shape[1]:
            A = A.toarray()
        lo, hi = np.array([r.lo for r in cm.rows]), np.array([r.hi for r in cm.rows])
        return cls(cm, A, lo, hi, [(k, r.P) for k, r in enumerate(cm.rows) if r.P is not None])

    def violation(self, xb: np.ndarray) -> np.ndarray:
        """The largest violation of each solution ``(B,)`` (0 if feasible, ``inf`` with a NaN).

        Parameters
        ----------
        xb
            Solutions ``(B, n)``.
        """
        cm = self.model
        nan = np.isnan(xb).any(axis=1)
        if nan.any():
            xb = np.nan_to_num(xb)
        worst = np.maximum((cm.var_lb - xb).max(axis=1, initial=0.0), (xb - cm.var_ub).max(axis=1, initial=0.0))
        if cm.rows:
            val = np.asarray(self.A @ xb.T).T  # (B, rows): every linear part in one product
            for k, P in self.quad:
                val[:, k] += np.einsum("bi,ij,bj->b", xb, P, xb)
            worst = np.maximum(worst, np.maximum(self.lo - val, val - self.hi).max(axis=1))
        int_mask = cm.var_type != "C"
        if int_mask.any():
            frac = np.abs(xb[:, int_mask] - np.round(xb[:, int_mask])).max(axis=1)
            worst = np.maximum(worst, frac)
        return np.where(nan, np.inf, worst)
