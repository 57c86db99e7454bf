"""The structure of an optimum that the solver-free losses (CaVE, LAVA) train on: the normals of
the constraints binding there and the steps to its adjacent vertices, computed from the compiled
rows (PyEPO's own extraction needs a Gurobi model); `OptDataset(..., structure=True)` stores them."""

from __future__ import annotations

import numpy as np

from ldopt import Problem
from ldopt.errors import InputError

_TOL = 1e-6


def check_linear(problem: Problem, what: str) -> np.ndarray:
    """The rows' matrix of a linear problem whose objective coefficients are the costs (else an
    ``InputError`` naming ``what`` needs them)."""
    cm = problem.compiled
    if any(r.is_quadratic for r in cm.rows):
        raise InputError(f"{what} is defined for linear programs; this problem has a quadratic row")
    if not cm.identity_costs:
        raise InputError(f"{what} needs objective coefficients equal to the costs (q(c) = c)")
    return cm.linear_matrix().toarray()


def tight_normals(problem: Problem, x: np.ndarray, tol: float = _TOL) -> list[np.ndarray]:
    """Per instance, the outward normals of the constraints binding at ``x`` (``<=`` orientation):
    rows at their upper side ``a``, at their lower side ``-a`` (equalities both), variables at
    their upper bound ``e_j`` and at their lower bound ``-e_j``."""
    A = check_linear(problem, "CaVE")
    cm = problem.compiled
    lo = np.array([r.lo for r in cm.rows])
    hi = np.array([r.hi for r in cm.rows])
    n = cm.num_vars
    eye = np.eye(n)
    out = []
    for xi in np.atleast_2d(x):
        ax = A @ xi
        parts = [
            A[np.abs(ax - hi) <= tol],
            -A[np.abs(ax - lo) <= tol],
            eye[np.abs(xi - cm.var_ub) <= tol],
            -eye[np.abs(xi - cm.var_lb) <= tol],
        ]
        out.append(np.vstack(parts))
    return out


def pad(normals: list[np.ndarray]) -> np.ndarray:
    """Ragged ``(rows_i, n)`` matrices zero-padded into ``(N, max_rows, n)``."""
    rows = max((len(t) for t in normals), default=0)
    n = normals[0].shape[1] if normals else 0
    out = np.zeros((len(normals), max(rows, 1), n))
    for i, t in enumerate(normals):
        out[i, : len(t)] = t
    return out


def adjacent_steps(problem: Problem, x: np.ndarray, tol: float = _TOL) -> np.ndarray:
    """``(N, n)``: the signed step ``z_adj − z*`` along coordinate ``j`` of each adjacent vertex."""
    A = check_linear(problem, "LAVA")
    cm = problem.compiled
    lo = np.array([r.lo for r in cm.rows])
    hi = np.array([r.hi for r in cm.rows])
    X = np.atleast_2d(x)
    at_lb = np.abs(X - cm.var_lb) <= tol
    at_ub = np.abs(X - cm.var_ub) <= tol
    if not (at_lb | at_ub).all():
        i, j = np.argwhere(~(at_lb | at_ub))[0]
        raise InputError(
            f"LAVA: expected every variable at a bound at the optimum, got x[{j}] = {X[i, j]} "
            f"in instance {i}; LAVA's slack basis needs a vertex of the box"
        )
    direction = np.where(at_lb, 1.0, -1.0)
    room = np.where(at_lb, cm.var_ub - X, X - cm.var_lb)
    steps = np.empty_like(X)
    for i, xi in enumerate(X):
        ax = A @ xi
        up, down = np.maximum(hi - ax, 0.0), np.maximum(ax - lo, 0.0)  # slack to each side
        move = A * direction[i][None, :]  # (m, n): change of a·x per unit step of x_j
        with np.errstate(divide="ignore", invalid="ignore"):
            limit = np.where(move > tol, up[:, None] / move, np.where(move < -tol, down[:, None] / -move, np.inf))
        t = np.minimum(room[i], limit.min(axis=0, initial=np.inf))
        steps[i] = direction[i] * np.where(np.isfinite(t), t, 0.0)
    return steps
