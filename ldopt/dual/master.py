"""The exact Lagrangian dual bound by column generation (Dantzig–Wolfe), without any primal.

For a decomposition into blocks ``X_k``, the best Lagrangian bound (max form) is

    LD* = min_{Σλ_k = q} Σ_k max_{x∈X_k} λ_k·x = max { q·x : x ∈ ∩_k conv(X_k) },

the "LP relaxation of the decomposition". The master LP keeps, per block, the points ``x_kj``
its oracle returned and asks for one ``x`` that is a convex combination of each block's points:

    max q·x − M·Σ(s⁺ + s⁻)  s.t.  x_i − Σ_j α_kj x_kj,i + s⁺_ki − s⁻_ki = 0  (i in block k's support)
                                  Σ_j α_kj = 1,  α ≥ 0,  lb ≤ x ≤ ub where no block touches x_i.

Its row duals are multipliers ``λ_k`` on the block's support (flat, `ldopt.dual.support`; the
cost of a variable no block touches stays in a box term). Pricing solves every block at them,
batched over instances, and adds each block's point to the master. Two bounds close in
on ``LD*``: every priced ``λ`` gives a valid upper bound, and a master optimum without slack
(``s = 0``) is a point of ``∩_k conv(X_k)`` whose value is a lower bound. Their difference
certifies the bound with no feasible primal at all. The slack penalty ``M`` (a box ``|λ| ≤ M`` in
the dual) grows tenfold whenever the master ends with slack. Pricing at a point between the best
multipliers and the master's (Wentges smoothing) damps the master duals' oscillation.

The master is a HiGHS LP per instance, solved warm after each round of columns: exact, but heavier
per iteration than a subgradient step, and slow on dense rows (the MKP's ``m·n`` link rows).
``dec.dual(..., step="master")`` runs it; [`lagrangian_bound()`][ldopt.dual.bound.lagrangian_bound]
returns the bound with its certificate (``benchmarks/bench_dual_gap.py`` measures the rules by it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, cast, get_args

import highspy
import numpy as np

from ldopt import checks
from ldopt.decomposition.blocks import Blocks
from ldopt.dual.settings import Adam, Master, Polyak, Rule, StepChoice, StepRule
from ldopt.dual.sparse_forms import SparseShared
from ldopt.dual.support import Support, box_of
from ldopt.errors import SolverError
from ldopt.solvers.highs import quiet_highs

MASTER_WIDTH = 32
"""``step="auto"`` runs column generation where no block touches more variables than this."""


def resolve_step(dec: Blocks, step: Rule | StepChoice) -> Rule | StepRule:
    """The step rule that ``step`` names for ``dec``: itself (a rule object or a name), or for
    ``"auto"`` column generation (``"master"``) when every block touches at most
    [`MASTER_WIDTH`][ldopt.dual.master.MASTER_WIDTH] variables, else Polyak.

    Column generation needs about as many pricing rounds as the widest block has variables
    (measured: 26 rounds at width 4, 35 at 11, 102 at 21, over 200 at the MKP's 100), and it needs no
    primal value: narrow rows — flows, assignments, fixed charges, rosters — are where the
    subgradient rules stall for want of a feasible point. Wide dense rows (knapsacks) have a repair
    heuristic that gives Polyak its target.

    Parameters
    ----------
    dec
        The decomposition.
    step
        A step rule, its name, or ``"auto"``.
    """
    if isinstance(step, (Polyak, Adam, Master)):
        return step
    step = checks.choice("step", step, get_args(StepChoice))
    if step != "auto":
        return cast(StepRule, step)
    widest = int(np.diff(Support.of(dec).indptr).max(initial=0))
    return "master" if widest <= MASTER_WIDTH else "polyak"


class _Master:
    """One instance's master LP in HiGHS (max form), grown a column at a time."""

    def __init__(self, q: np.ndarray, lb: np.ndarray, ub: np.ndarray, supports: list[np.ndarray], penalty: float):
        self.h = h = quiet_highs()
        h.setOptionValue("presolve", "off")  # a warm primal simplex after each round of columns:
        h.setOptionValue("simplex_strategy", 4)  # new columns leave the basis primal feasible
        inf = highspy.kHighsInf
        n, m = len(q), len(supports)
        self.supports = supports
        self.first = np.cumsum([0] + [len(s) for s in supports])  # each block's first link row
        links = int(self.first[-1])
        self.links = links
        h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        h.addRows(links + m, np.r_[np.zeros(links), np.ones(m)], np.r_[np.zeros(links), np.ones(m)], 0, [], [], [])
        touched = np.zeros(n, dtype=bool)
        for s in supports:
            touched[s] = True
        # x is free where a block's convex hull bounds it; the box holds only untouched variables
        lo = np.where(touched | ~np.isfinite(lb), -inf, lb)
        hi = np.where(touched | ~np.isfinite(ub), inf, ub)
        rows_of: list[list[int]] = [[] for _ in range(n)]
        for k, s in enumerate(supports):
            for t, i in enumerate(s):
                rows_of[i].append(self.first[k] + t)
        starts: list[int] = []
        index: list[int] = []
        for i in range(n):  # x_i: +1 in every link row of i
            starts.append(len(index))
            index.extend(rows_of[i])
        h.addCols(n, q, lo, hi, len(index), np.array(starts), np.array(index, dtype=np.int32), np.ones(len(index)))
        r = np.arange(links, dtype=np.int32)  # slacks s⁺ (+1) and s⁻ (−1) per link row
        self.slack0 = n
        h.addCols(
            2 * links, np.full(2 * links, -penalty), np.zeros(2 * links), np.full(2 * links, inf), 2 * links,
            np.arange(2 * links, dtype=np.int32), np.r_[r, r], np.r_[np.ones(links), -np.ones(links)],
        )  # fmt: skip
        self.columns = 0
        self.scale = 1.0  # the largest magnitude of a column's entry: the slacks' scale
        # a round's columns, one per block: its link rows, then its convexity row, column by column
        owner = np.r_[np.repeat(np.arange(m), np.diff(self.first)), np.arange(m)]
        self.order = np.argsort(owner, kind="stable")
        self.owner, self.rows = owner[self.order], np.r_[r, links + np.arange(m)].astype(np.int32)[self.order]

    def add(self, x: np.ndarray) -> None:
        """Every block's point on its support (``x`` flat, ``(nnz,)``), one column each (one call):
        −x on the block's link rows, 1 on its convexity row."""
        m = len(self.supports)
        vals = np.r_[-x, np.ones(m)][self.order]
        keep = vals != 0
        self.scale = max(self.scale, float(np.abs(vals).max()))
        starts = np.searchsorted(self.owner[keep], np.arange(m)).astype(np.int32)
        inf = highspy.kHighsInf
        self.h.addCols(
            m, np.zeros(m), np.zeros(m), np.full(m, inf), int(keep.sum()), starts, self.rows[keep], vals[keep]
        )
        self.columns += m

    def penalise(self, penalty: float) -> None:
        """Set the slacks' cost to ``−penalty``."""
        cols = np.arange(self.slack0, self.slack0 + 2 * self.links, dtype=np.int32)
        self.h.changeColsCost(len(cols), cols, np.full(len(cols), -penalty))

    def solve(self) -> tuple[float, float, np.ndarray]:
        """The master's value, its total slack and the link rows' duals."""
        h = self.h
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:  # once more, from no basis
            h.clearSolver()
            h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            status = h.modelStatusToString(h.getModelStatus())
            raise SolverError(f"the master LP of the Lagrangian bound: expected an optimum, got {status}")
        sol = h.getSolution()
        col = np.asarray(sol.col_value)
        slack = float(col[self.slack0 : self.slack0 + 2 * self.links].sum())
        dual = np.asarray(sol.row_dual)
        return h.getInfo().objective_function_value, slack, dual[: self.links]


@dataclass
class MasterRun:
    """What column generation keeps per instance (max form): the best multipliers (flat, on the
    supports) and the blocks' solutions there, their bound, the master's certificate, the best bound
    per round; ``residual``: the cost no block touches (``Σ_k λ_k + residual = q``)."""

    best: np.ndarray  # (B,)
    lam: np.ndarray  # (B, nnz)
    X: np.ndarray  # (B, nnz): every block's solution at lam, on its support
    certificate: np.ndarray  # (B,), -inf where no slack-free master optimum was reached
    iterations: np.ndarray  # (B,)
    columns: np.ndarray  # (B,)
    history: np.ndarray  # (rounds, B)
    support: Support
    residual: np.ndarray  # (B, n)
    box_x: np.ndarray  # (B, n)

    def dense_lam(self) -> np.ndarray:
        """The multipliers ``(B, m, n)`` summing to ``q``: the residual spread evenly over the blocks."""
        return self.support.spread(self.lam, self.residual)

    def dense_X(self) -> np.ndarray:
        """The blocks' solutions ``(B, m, n)``, off their supports at the best bound of the box."""
        return self.support.to_dense(self.X, self.box_x)


def column_generation(
    dec: Blocks,
    q: np.ndarray,
    solvers: list[Any],
    *,
    iterations: int,
    tol: float,
    smoothing: float = 0.5,
    deadline: float = np.inf,
    start: np.ndarray | None = None,
    bar: Any = None,
    bar_step: int = 1,
    farkas: bool = False,
) -> MasterRun:
    """Column generation for objectives ``q`` ``(B, n)`` (max form) with the block ``solvers``;
    ``start``: multipliers on the supports ``(B, nnz)`` (or dense ``(B, m, n)``) to price first,
    projected onto ``Σ_k λ_k = q`` (default: ``q_j`` shared by the blocks that touch ``j``).
    ``farkas``: ``q`` is 0 and an instance stops as soon as its bound is negative (a proof that
    ``∩_k conv(X_k)`` is empty, see `prove_infeasible()`)."""
    B = q.shape[0]
    cm = dec.problem.compiled
    sup = Support.of(dec)
    price = _Pricing(dec, solvers, q)
    supports = [sup.variables(k) for k in range(sup.num_blocks)]
    penalty = np.maximum(np.abs(q).sum(axis=1), 1.0)
    penalty0 = penalty.copy()
    masters = [_Master(q[b], cm.var_lb, cm.var_ub, supports, penalty[b]) for b in range(B)]
    best_lam = price.project(np.zeros((B, sup.nnz)), np.arange(B))
    best_X = np.zeros((B, sup.nnz))
    best = price(best_lam, best_X, masters, np.arange(B))
    if start is not None:
        first = start[:, sup.owner, sup.indices] if start.ndim == 3 else start
        first = price.project(np.array(first, dtype=float), np.arange(B))
        X = np.zeros((B, sup.nnz))
        warm = price(first, X, masters, np.arange(B))
        use = warm < best
        best[use], best_lam[use], best_X[use] = warm[use], first[use], X[use]
    cert = np.full(B, -np.inf)
    its = np.zeros(B, dtype=int)
    active = np.ones(B, dtype=bool)
    history: list[np.ndarray] = []  # grown per round: a large cap under a time limit allocates nothing
    done = 0
    for it in range(iterations):
        idx = np.flatnonzero(active)
        if not len(idx) or time.perf_counter() > deadline:
            break
        lam = np.zeros((len(idx), sup.nnz))
        for t, b in enumerate(idx):
            value, slack, link = masters[b].solve()
            if slack <= _SLACK_TOL * masters[b].scale:  # no slack on the points' scale (not on M·slack's)
                cert[b] = max(cert[b], value)
            elif value >= best[b] - tol * max(1.0, abs(best[b])):  # the box |λ| ≤ M binds: widen it
                if penalty[b] >= _PENALTY_GROWTH * penalty0[b]:  # duals this large: no point (infeasible?)
                    active[b] = False
                penalty[b] *= 10.0
                masters[b].penalise(penalty[b])
            lam[t] = link  # the link rows' duals (HiGHS's sign, ∂value/∂rhs): λ_k on block k's support
        its[idx] += 1
        # the master's duals meet Σ_k λ_k = q only to the LP's tolerance, and a bound needs it exactly
        lam = price.project(lam, idx)
        point = lam if smoothing == 0 else price.project(smoothing * best_lam[idx] + (1 - smoothing) * lam, idx)
        X = np.zeros((len(idx), sup.nnz))
        bounds = price(point, X, masters, idx)
        if smoothing:  # where the smoothed point does not improve, price the master's own duals too
            stuck = np.flatnonzero(bounds >= best[idx])
            if len(stuck):
                Xs = np.zeros((len(stuck), sup.nnz))
                direct = price(lam[stuck], Xs, masters, idx[stuck])
                imp = direct < bounds[stuck]
                bounds[stuck[imp]], point[stuck[imp]], X[stuck[imp]] = direct[imp], lam[stuck[imp]], Xs[imp]
        better = bounds < best[idx]
        bi = idx[better]
        best[bi], best_lam[bi], best_X[bi] = bounds[better], point[better], X[better]
        history.append(best.copy())
        done = it + 1
        gap = best[idx] - cert[idx]
        active[idx[gap <= tol * np.maximum(1.0, np.abs(best[idx]))]] = False
        if farkas:
            active[idx[best[idx] < -_FARKAS_TOL * np.array([masters[b].scale for b in idx])]] = False
        if bar is not None:
            bar.update(bar_step)
    cols, hist = np.array([mm.columns for mm in masters]), np.array(history).reshape(done, B)
    return MasterRun(best, best_lam, best_X, cert, its, cols, hist, sup, price.residual, price.box_x)


_SLACK_TOL = 1e-7  # a master optimum with less total slack than this × the points' scale has none
_FARKAS_TOL = 1e-7  # a bound of multipliers summing to 0 below -this × the points' scale proves infeasibility
_PENALTY_GROWTH = 1e8  # the slack penalty grows at most this much: beyond, the instance stops


class _Pricing:
    """How a round prices every block at multipliers on the supports (flat ``(b, nnz)``): the
    shared form on the supports (`SparseShared`) solves the blocks and prices the cost of the
    variables no block touches (``residual``) at the best bound of the box."""

    def __init__(self, dec: Blocks, solvers: list[Any], q: np.ndarray) -> None:
        self.solvers, self.sup, self.q = solvers, Support.of(dec), q
        self.form = SparseShared(self.sup, *box_of(dec))
        self.residual = np.where(self.sup.count == 0, q, 0.0)
        self.box_x, h = self.form.box(self.residual)
        self.box_value = h.sum(axis=1)

    def project(self, lam: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """``lam`` ``(b, nnz)`` moved onto ``Σ_k λ_k = q`` (on the variables the blocks touch)."""
        return self.form.project(lam, self.q[idx])

    def __call__(self, lam: np.ndarray, X: np.ndarray, masters: list[_Master], idx: np.ndarray) -> np.ndarray:
        """Solve every block at ``lam`` for instances ``idx`` into ``X`` (both ``(b, nnz)``), add
        each block's point to its master, and return the Lagrangian bounds ``Σ_k max λ_k·x``."""
        values = self.form.solve_blocks(self.solvers, lam, X)
        for t, b in enumerate(idx):
            masters[b].add(X[t])
        return values.sum(axis=1) + self.box_value[idx]
