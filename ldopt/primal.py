"""Primal heuristics that give the dual solve a feasible value (a target and a gap).

* every subproblem copy ``x_k`` that satisfies all blocks is a feasible solution;
* for packing problems (binary variables, ``<=`` rows with nonnegative coefficients) a greedy
  repair of the rounded mean copy: drop the least efficient items until feasible, then add the
  most efficient ones that still fit.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .problem import Problem


@nb.njit(cache=True, nogil=True)
def _repair(x0: np.ndarray, q: np.ndarray, A: np.ndarray, cap: np.ndarray) -> np.ndarray:
    B, n = x0.shape
    r = A.shape[0]
    out = x0.copy()
    scale = np.empty(n)
    for j in range(n):
        s = 0.0
        for k in range(r):
            s += A[k, j] / max(cap[k], 1e-9)
        scale[j] = s + 1e-12
    load = np.empty(r)
    for b in range(B):
        x = out[b]
        eff = q[b] / scale
        order = np.argsort(eff)
        for k in range(r):
            load[k] = 0.0
            for j in range(n):
                load[k] += A[k, j] * x[j]
        for j in order:  # drop the least efficient until feasible
            over = False
            for k in range(r):
                if load[k] > cap[k] + 1e-9:
                    over = True
                    break
            if not over:
                break
            if x[j] > 0.5:
                x[j] = 0.0
                for k in range(r):
                    load[k] -= A[k, j]
        for t in range(n - 1, -1, -1):  # add the most efficient that fit
            j = order[t]
            if x[j] > 0.5 or q[b, j] <= 0.0:
                continue
            fits = True
            for k in range(r):
                if load[k] + A[k, j] > cap[k] + 1e-9:
                    fits = False
                    break
            if fits:
                x[j] = 1.0
                for k in range(r):
                    load[k] += A[k, j]
    return out


class PrimalHeuristic:
    """Keeps the best feasible value per instance (max form: objective ``q·x``)."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        cm = problem.compiled
        self.packing = bool(
            (cm.var_type == "B").all()
            and all(not r.is_quadratic and r.lo == -np.inf and (r.coef >= 0).all() and r.hi >= 0 for r in cm.rows)
        )
        if self.packing:
            self.A = np.ascontiguousarray(cm.linear_matrix().toarray())
            self.cap = np.array([r.hi for r in cm.rows], dtype=float)

    def update(self, q: np.ndarray, X: np.ndarray, p_val: np.ndarray, p_x: np.ndarray, idx: np.ndarray) -> None:
        """Improve ``p_val[idx]``/``p_x[idx]`` from the copies ``X`` ``(b, S, n)`` of those instances.

        Only copies worth more than the incumbent are checked for feasibility (most are not)."""
        b, S, _ = X.shape
        vals = np.einsum("bkn,bn->bk", X, q)
        worth = vals > p_val[idx][:, None]
        if worth.any():
            bi, ki = np.nonzero(worth)
            feasible = self.problem.violation(X[bi, ki]) <= 1e-6
            vals = np.full((b, S), -np.inf)
            vals[bi[feasible], ki[feasible]] = np.einsum("kn,kn->k", X[bi[feasible], ki[feasible]], q[bi[feasible]])
        else:
            vals = np.full((b, S), -np.inf)
        k = vals.argmax(axis=1)
        cand_val = vals[np.arange(b), k]
        cand_x = X[np.arange(b), k]
        if self.packing:
            rep = _repair(np.round(X.mean(axis=1)), np.ascontiguousarray(q), self.A, self.cap)
            rv = np.einsum("bn,bn->b", rep, q)
            use = rv > cand_val
            cand_val = np.where(use, rv, cand_val)
            cand_x = np.where(use[:, None], rep, cand_x)
        better = cand_val > p_val[idx]
        p_val[idx[better]] = cand_val[better]
        p_x[idx[better]] = cand_x[better]
