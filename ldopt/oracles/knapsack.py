"""One knapsack row over bounded integer (or binary) variables, solved exactly at any capacity.

Fits ``max λ·x  s.t.  a·x <= b`` (or ``>=``) where every variable on the row is integer with
finite bounds and every other variable has finite bounds (it then sits at its best bound). The
row becomes a 0-1 knapsack over nonnegative weights:

* ``x_j = l_j + y_j`` with ``y_j ∈ [0, u_j − l_j]``; a negative coefficient is complemented
  (``y_j = (u_j − l_j) − y'_j``), so every weight is ``|a_j|``;
* a general integer ``y_j ∈ [0, r]`` is split into binary items of multiplicity ``1, 2, 4, …``
  and a remainder (every value ``0..r`` stays reachable, each exactly once as a sum);
* the knapsack is solved by the expanding core (`knapsack_core`, whose cost does not grow
  with the capacity) or, for small tables ``N·cap``, by dynamic programming (`knapsack_dp`).

Real coefficients are accepted (the core works with real weights, with a capacity slack of
``1e-9`` relative); integer ones are exact. An instance the core gives up on (more than
``MAX_STATES`` states, e.g. subset-sum rows with huge weights) is re-solved exactly with bounded
memory: by meet in the middle when at most 40 items are candidates, or by the DP when its table
fits in ``DP_BYTES`` (the cheaper of the two), else by HiGHS with zero gaps. With weights near
1e6 no MIP solver is exact: Gurobi certified a subset-sum solution 5e-8 short of the optimum as
optimal, and HiGHS's integrality tolerance (1e-6 per variable) lets its solutions exceed a row by
a unit of weight; the core, meet in the middle and the DP are exact in integer weights.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ldopt.model.compiled import CompiledModel
from ldopt.oracles.base import Oracle
from ldopt.oracles.knapsack_core import TOO_MANY_STATES, core_range
from ldopt.oracles.knapsack_dp import _dp_range
from ldopt.oracles.knapsack_mitm import MAX_ITEMS as MITM_ITEMS
from ldopt.oracles.knapsack_mitm import candidates, mitm_one
from ldopt.runtime.threads import parallel_ranges

DP_CELLS = 2_000  # N·cap up to which the DP beats the core (measured: benchmarks/bench_knapsack.py)
MAX_STATES = 1 << 20  # states of the core's list before it hands an instance to the fallback
DP_BYTES = 64 << 20  # largest DP table (N·(cap+1) bytes per thread) used as a fallback


def _expand(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Binary items of ``y_j ∈ [0, r_j]``: (variable position, multiplicity) per item."""
    var, mult = [], []
    for j, rj in enumerate(r.astype(np.int64)):
        k = 1
        left = int(rj)
        while left > 0:
            take = min(k, left)
            var.append(j)
            mult.append(take)
            left -= take
            k *= 2
    return np.asarray(var, dtype=np.int64), np.asarray(mult, dtype=float)


class KnapsackRowOracle(Oracle):
    """Exact oracle for one knapsack row over bounded integers (see the module docstring).

    Parameters
    ----------
    a
        The row's coefficients.
    hi
        The row's capacity.
    lb
        The variables' lower bounds.
    ub
        The variables' upper bounds.
    """

    name = "knapsack"
    fallback_solver = "highs"

    def __init__(self, a: np.ndarray, hi: float, lb: np.ndarray, ub: np.ndarray) -> None:
        self.lb, self.ub = lb, ub
        self.on = np.flatnonzero(a != 0)
        coef = a[self.on]
        self.flip = coef < 0  # complemented: y = (u − l) − y'
        r = ub[self.on] - lb[self.on]
        self.binary = bool(np.all(r == 1))
        if self.binary:
            self.item_var, self.item_mult = np.arange(len(self.on)), np.ones(len(self.on))
        else:
            self.item_var, self.item_mult = _expand(r)
        # y_var = Σ_items mult · y_item: a sparse (variables × items) map (a fixed variable has no item)
        self.gather = sp.csr_matrix(
            (self.item_mult, (self.item_var, np.arange(len(self.item_var)))), shape=(len(self.on), len(self.item_var))
        )
        # the common case (every variable a binary on the row, positive coefficients) needs no copies
        self.plain = self.binary and not self.flip.any() and len(self.on) == len(a) and not lb.any()
        self.weights = np.abs(coef)[self.item_var] * self.item_mult
        # a·x = a·l + Σ_{a>0} a y + Σ_{a<0} a (r − y') = a·l + a_-·r + Σ |a| y
        self.cap = float(hi - coef @ lb[self.on] - coef[self.flip] @ r[self.flip])
        # integral weights run as int64 in the dynamic program: only those a float holds exactly
        self.integral = bool(np.all(self.weights == np.round(self.weights)) and self.weights.max(initial=0) < 2**53)
        self.tol = 0.0 if self.integral else 1e-9 * max(1.0, abs(self.cap))
        if self.integral:
            self.cap = float(np.floor(self.cap + 1e-9))
        cells = len(self.weights) * (self.cap + 1)
        self.kernel = "dp" if self.integral and cells <= DP_CELLS else "core"
        self.dp_fallback = self.integral and cells <= DP_BYTES
        self.fallback_count = 0  # instances given to the MIP solver
        self.exact_fallbacks = {"dp": 0, "mitm": 0}  # instances the core gave up on, solved here

    @classmethod
    def fit(cls, block: CompiledModel) -> KnapsackRowOracle | None:
        """An oracle if ``block`` is one knapsack row over bounded integers, else ``None``.

        Parameters
        ----------
        block
            A block's compiled subproblem.
        """
        if len(block.rows) != 1 or block.rows[0].is_quadratic:
            return None
        if not (np.isfinite(block.var_lb).all() and np.isfinite(block.var_ub).all()):
            return None
        row = block.rows[0]
        if np.isfinite(row.lo) == np.isfinite(row.hi):  # an equality, a range, or no side
            return None
        a = row.dense(block.num_vars)
        on = a != 0
        if not on.any() or (block.var_type[on] == "C").any():
            return None
        hi = row.hi
        if np.isfinite(row.lo):  # a·x >= lo  <=>  -a·x <= -lo
            a, hi = -a, -row.lo
        lb, ub = block.var_lb.copy(), block.var_ub.copy()
        if np.sum(np.minimum(a * lb, a * ub)) > hi + 1e-9 * max(1.0, abs(hi)):
            return None  # infeasible row: a solver reports it per instance
        return cls(a, hi, lb, ub)

    def describe(self) -> str:
        kind = "binary" if self.binary else f"integer ({len(self.weights)} binary items)"
        kernel = "dynamic programming" if self.kernel == "dp" else "expanding core"
        return f"knapsack row over {len(self.on)} {kind} variables, capacity {self.cap:g}: {kernel}"

    def _items(self, lam: np.ndarray) -> np.ndarray:
        if self.plain:
            return lam  # the kernels take any strides
        vals = lam[:, self.on]
        vals = np.where(self.flip, -vals, vals)
        if not self.binary:
            vals = vals[:, self.item_var] * self.item_mult
        return vals

    def _knapsack(self, vals: np.ndarray, out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """0/1 items per instance (into ``out`` if given), and the instances left to the fallback."""
        B = vals.shape[0]
        out = np.empty(vals.shape) if out is None else out
        if self.kernel == "dp":
            w, cap = self.weights.astype(np.int64), int(self.cap)
            parallel_ranges(lambda s, e: _dp_range(vals, w, cap, out, s, e), B)
            return out, np.zeros(0, dtype=np.int64)
        status = np.zeros(B, dtype=np.int64)
        stats = np.zeros((B, 2), dtype=np.int64)
        parallel_ranges(
            lambda s, e: core_range(vals, self.weights, self.cap, self.tol, out, status, s, e, MAX_STATES, stats), B
        )
        bad = np.flatnonzero(status == TOO_MANY_STATES)
        left = []
        for b in bad:  # exact fallbacks of bounded memory, the cheaper first; then a MIP solver
            N = candidates(vals[b], self.weights, self.cap + self.tol)
            mitm = N <= MITM_ITEMS
            dp = self.dp_fallback and (not mitm or N * (self.cap + 1) < 2.0 ** (N / 2) * N)
            if dp:
                res = np.zeros((1, vals.shape[1]))
                _dp_range(vals[b : b + 1], self.weights.astype(np.int64), int(self.cap), res, 0, 1)
                out[b] = res[0]
                self.exact_fallbacks["dp"] += 1
            elif mitm:
                mitm_one(vals[b], self.weights, self.cap + self.tol, out[b])
                self.exact_fallbacks["mitm"] += 1
            else:
                left.append(b)
        bad = np.asarray(left, dtype=np.int64)
        return out, bad

    def argmax(self, lam: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        lam = np.atleast_2d(np.asarray(lam, dtype=float))
        y, unsolved = self._knapsack(self._items(lam), out if self.plain else None)
        if self.plain:
            x = y
        else:
            x = np.where(lam > 0, self.ub, self.lb) if out is None else out  # off-row: best bound
            if out is not None:
                np.copyto(x, np.where(lam > 0, self.ub, self.lb))
            if not self.binary:
                y = np.asarray(self.gather @ y.T).T
            lo, hi = self.lb[self.on], self.ub[self.on]
            x[:, self.on] = np.where(self.flip, hi - y, lo + y)
        if len(unsolved):
            self.fallback_count += len(unsolved)
            x[unsolved] = self.run_fallback(lam[unsolved])
        return x
