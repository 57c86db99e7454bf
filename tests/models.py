"""Small Pyomo models and brute-force references shared by the tests."""

from __future__ import annotations

import itertools

import numpy as np
import pyomo.environ as pyo
from scipy.optimize import linprog


def linear_model(
    A: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    lb: np.ndarray,
    ub: np.ndarray,
    domain=pyo.Binary,
    sense=pyo.maximize,
):
    """``max|min c·x  s.t. lo <= A x <= hi,  lb <= x <= ub`` with mutable cost ``c``."""
    m_rows, n = A.shape
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, n - 1)
    m.R = pyo.RangeSet(0, m_rows - 1)
    m.c = pyo.Param(m.I, mutable=True, initialize=0.0)
    m.x = pyo.Var(m.I, domain=domain, bounds=lambda _, j: (lb[j], ub[j]))
    m.obj = pyo.Objective(expr=sum(m.c[j] * m.x[j] for j in m.I), sense=sense)

    def rule(mdl, k):
        body = sum(float(A[k, j]) * mdl.x[j] for j in mdl.I)
        lo_k = None if not np.isfinite(lo[k]) else float(lo[k])
        hi_k = None if not np.isfinite(hi[k]) else float(hi[k])
        return pyo.inequality(lo_k, body, hi_k) if lo_k != hi_k else body == hi_k

    m.rows = pyo.Constraint(m.R, rule=rule)
    return m


def single_row_problem(a, lo, hi, domain=pyo.Binary, lb=0.0, ub=1.0, sense=pyo.maximize):
    """An ``ldopt.Problem`` of one row ``lo <= a·x <= hi`` over the box ``[lb, ub]^n``."""
    import ldopt  # noqa: PLC0415

    n = len(a)
    lb, ub = np.broadcast_to(np.asarray(lb, float), (n,)), np.broadcast_to(np.asarray(ub, float), (n,))
    model = linear_model(
        np.asarray(a, float)[None, :], np.array([lo], float), np.array([hi], float), lb, ub, domain=domain, sense=sense
    )
    return ldopt.Problem.from_pyomo(model, model.c)


def brute_force(A, lo, hi, lb, ub, costs, sense="max"):
    """Exact optimum over the integer box by enumeration: (objective, feasible-count)."""
    grids = [range(int(lb[j]), int(ub[j]) + 1) for j in range(A.shape[1])]
    pts = np.array(list(itertools.product(*grids)), dtype=float)
    Ax = pts @ A.T
    feas = ((Ax >= lo - 1e-9) & (Ax <= hi + 1e-9)).all(axis=1)
    vals = pts[feas] @ np.atleast_2d(costs).T  # (P, B)
    if not feas.any():
        return None
    return vals.max(axis=0) if sense == "max" else vals.min(axis=0)


def ball_model(n: int, radius2: float, P: np.ndarray | None = None):
    """``max c·x  s.t.  x'Px <= radius2`` (free x), a QCP with a closed form."""
    P = np.eye(n) if P is None else P
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, n - 1)
    m.c = pyo.Param(m.I, mutable=True, initialize=0.0)
    m.x = pyo.Var(m.I)
    m.obj = pyo.Objective(expr=sum(m.c[j] * m.x[j] for j in m.I), sense=pyo.maximize)
    m.ball = pyo.Constraint(
        expr=sum(float(P[i, j]) * m.x[i] * m.x[j] for i in m.I for j in m.I if P[i, j] != 0) <= radius2
    )
    return m


def ball_optimum(c: np.ndarray, P: np.ndarray, radius2: float) -> tuple[np.ndarray, np.ndarray]:
    """Closed form: ``x* = sqrt(R / c'P^-1 c) P^-1 c``, value ``sqrt(R c'P^-1 c)`` (per row)."""
    Pi_c = np.linalg.solve(P, np.atleast_2d(c).T).T
    quad = np.einsum("bi,bi->b", np.atleast_2d(c), Pi_c)
    x = np.sqrt(radius2 / quad)[:, None] * Pi_c
    return x, np.sqrt(radius2 * quad)


def row_model(a, lo, hi, lb, ub, kinds, sense=pyo.maximize):
    """An ``ldopt.Problem``: one row over variables of the given kinds ("B", "I", "C") with bounds
    (``a_j = 0`` off the row); ``lo`` or ``hi`` is None for a one-sided row, equal for an equality."""
    import ldopt  # noqa: PLC0415

    n = len(a)
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, n - 1)
    m.c = pyo.Param(m.I, mutable=True, initialize=0.0)
    dom = {"B": pyo.Binary, "I": pyo.Integers, "C": pyo.Reals}
    m.x = pyo.Var(m.I, domain=lambda _, j: dom[kinds[j]], bounds=lambda _, j: (lb[j], ub[j]))
    m.obj = pyo.Objective(expr=sum(m.c[j] * m.x[j] for j in m.I), sense=sense)
    body = sum(float(a[j]) * m.x[j] for j in range(n))
    if lo is None:
        m.row = pyo.Constraint(expr=body <= hi)
    elif hi is None:
        m.row = pyo.Constraint(expr=body >= lo)
    elif lo == hi:
        m.row = pyo.Constraint(expr=body == hi)
    else:
        m.row = pyo.Constraint(expr=pyo.inequality(lo, body, hi))
    return ldopt.Problem.from_pyomo(m, m.c)


def ld_dual_value(problem, dec, costs, sense="max"):
    """The LD dual optimum: opt of q·x over the intersection of the blocks' convex hulls (an LP)."""
    cm = problem.compiled
    n = cm.num_vars
    grids = [range(int(cm.var_lb[j]), int(cm.var_ub[j]) + 1) for j in range(n)]
    pts = np.array(list(itertools.product(*grids)), float)
    hulls = []
    for b in dec.blocks:
        feas = b.problem.violation(pts) <= 1e-9
        hulls.append(pts[feas])
    sizes = [len(h) for h in hulls]
    nv = n + sum(sizes)
    out = []
    for c in np.atleast_2d(costs):
        obj = np.zeros(nv)
        obj[:n] = -c if sense == "max" else c
        A_eq, b_eq = [], []
        off = n
        for h in hulls:  # x = H' w, Σw = 1
            for j in range(n):
                row = np.zeros(nv)
                row[j] = 1.0
                row[off : off + len(h)] = -h[:, j]
                A_eq.append(row)
                b_eq.append(0.0)
            row = np.zeros(nv)
            row[off : off + len(h)] = 1.0
            A_eq.append(row)
            b_eq.append(1.0)
            off += len(h)
        bounds = [(cm.var_lb[j], cm.var_ub[j]) for j in range(n)] + [(0, None)] * sum(sizes)
        res = linprog(obj, A_eq=np.array(A_eq), b_eq=np.array(b_eq), bounds=bounds, method="highs")
        out.append(-res.fun if sense == "max" else res.fun)
    return np.array(out)


def bound_from_multipliers(dec, r, d, sense):
    """B_d recomputed from μ^(d) alone: main block at q + Σμ, block k at −μ_k (HiGHS solves)."""
    mu = r.multipliers(d)
    others = [k for k in range(dec.num_blocks) if k != d]
    sign = 1.0 if sense == "max" else -1.0
    total = 0.0
    main = r.main_objective(d)
    total = sign * dec.block(d).problem.solve(sign * main, solver="highs").objective
    for j, k in enumerate(others):
        total = total + sign * dec.block(k).problem.solve(sign * -mu[:, j], solver="highs").objective
    return total


def portfolio_instances(num: int, assets: int, seed: int = 3):
    """A small portfolio problem, its decomposition, returns and CVXPY's exact optima."""
    import ldopt  # noqa: PLC0415
    from ldopt.problems import portfolio  # noqa: PLC0415

    cov, _, ret = portfolio.gen_data(num, 5, assets, deg=4, seed=seed)
    model = portfolio.build_model(cov)
    p = ldopt.Problem.from_pyomo(model, model.c)
    return p, ldopt.decompose(p), ret, p.solve(ret, solver="cvxpy").objective
