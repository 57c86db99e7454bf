"""One chunk of instances, solved in this process: the subgradient runs of the mode, or column
generation for the master rule (``solve_dual`` splits the instances into chunks)."""

from __future__ import annotations

import time
from typing import Any, cast

import numpy as np

from ldopt.decomposition.blocks import Blocks
from ldopt.dual.forms import Form, Joint, MuForm, Shared
from ldopt.dual.lp_start import lp_multipliers
from ldopt.dual.master import column_generation
from ldopt.dual.result import DualResult, pad_rows
from ldopt.dual.run import subgradient_run
from ldopt.dual.settings import DualSettings, Master
from ldopt.dual.sparse_forms import SparseJoint, SparseShared
from ldopt.dual.support import Support, box_of
from ldopt.errors import DecompositionError
from ldopt.evaluate.lp_relaxation import offer_lp_point, solve_relaxation
from ldopt.model.primal import PrimalHeuristic

CHUNK_BYTES = 2**27
"""The size of one instance-by-copies array of a chunk that `solve_dual`'s threads aim at: a
chunk of ``b`` instances holds about ten such arrays while it runs."""


def chunk_rows(dec: Blocks, settings: DualSettings) -> int:
    """Instances per chunk so that one of its arrays of copies stays near
    [`CHUNK_BYTES`][ldopt.dual.chunk.CHUNK_BYTES] (the threads run several chunks each where
    more are needed; the answer does not depend on it).

    Parameters
    ----------
    dec
        The decomposition.
    settings
        The dual's settings (a resolved layout).
    """
    n = dec.num_vars
    width = 2 * Support.of(dec).nnz + n if settings.layout == "sparse" else 2 * dec.num_blocks * n
    return max(1, CHUNK_BYTES // (8 * width))


def solve_chunk(
    dec: Blocks, costs: np.ndarray, settings: DualSettings, bar: Any = None, warm: np.ndarray | None = None
) -> DualResult:
    """The dual solve of one chunk of instances, on the calling thread (``bar``: a progress bar
    to advance by one per iteration, shared by the chunks of one solve; ``warm``: the chunk's kept
    multipliers ``lam`` in the max form, to start from).

    Parameters
    ----------
    dec
        The decomposition.
    costs
        The chunk's cost vectors ``(b, num_costs)``.
    settings
        The dual's settings (a resolved step rule).
    bar
        A progress bar to advance, or ``None``.
    warm
        Multipliers to start from (max form), or ``None``.
    """
    t0 = time.perf_counter()
    p = dec.problem
    sign = p.sign
    q = sign * p.objective_coefficients(costs)
    offset = p.compiled.k0 + costs @ p.compiled.r
    solvers = dec.block_solvers(settings.solver)
    m = dec.num_blocks
    B, n = q.shape
    heuristic = PrimalHeuristic(p)
    deadline = t0 + settings.time_limit * B if settings.time_limit else np.inf  # seconds per instance
    p_val = np.full(B, -np.inf)
    p_x = np.full((B, n), np.nan)
    if warm is None and settings.mu0 == "lp":  # the LP relaxation's multipliers, as a shared λ
        lp = solve_relaxation(p, q)
        lam_lp = lp_multipliers(dec, q, settings.layout == "sparse", lp)
        offer_lp_point(heuristic, q, lp, p_val, p_x)
        warm = np.repeat(lam_lp[:, None], m, axis=1) if settings.mode == "independent" else lam_lp
    if isinstance(settings.rule, Master):
        return _master_chunk(dec, q, offset, settings, solvers, heuristic, deadline, bar, warm, t0)
    support = Support.of(dec) if settings.layout == "sparse" else None
    forms: list[Form]
    if settings.mode == "independent":
        forms = [MuForm(m, d) for d in range(m)]
    elif support is not None:
        lb, ub = box_of(dec)
        forms = [SparseJoint(support, lb, ub) if settings.mode == "joint" else SparseShared(support, lb, ub)]
    else:
        forms = [Joint(m) if settings.mode == "joint" else Shared(m)]
    independent = settings.mode == "independent"
    starts = [None if warm is None else warm[:, d] if independent else warm for d in range(len(forms))]
    runs = [
        subgradient_run(f, solvers, q, settings, deadline, heuristic, p_val, p_x, bar, w)
        for f, w in zip(forms, starts, strict=True)
    ]
    if any(r.done == 0 for r in runs):
        raise DecompositionError("the dual solve did not run a single iteration (time_limit too small?)")
    if settings.mode == "independent":  # run d keeps λ (b, m, n); stack the runs
        lam = np.stack([r.lam for r in runs], axis=1)
        main = np.stack([r.main for r in runs], axis=1)
        main_x = np.stack([r.main_x for r in runs], axis=1)
        bounds = np.concatenate([r.bounds for r in runs], axis=1)
    else:
        (r,) = runs
        lam, main_x, bounds = r.lam, r.main_x, r.bounds
        main = lam if settings.mode == "shared" and support is None else r.main
    used = max(r.done for r in runs)
    hist = np.full((used, B), np.inf)
    for r in runs:  # the best bound over all runs, per iteration
        hist = np.minimum(hist, pad_rows(r.history, used))
    lam_u = sign * lam
    return DualResult(
        sense=p.sense,
        mode=settings.mode,
        lam=lam_u,
        main=lam_u if main is lam else sign * main,
        main_x=main_x,
        run_bounds=sign * bounds + offset[:, None],
        history=sign * hist + offset[None, :],
        primal_objective=np.where(np.isfinite(p_val), sign * p_val + offset, np.nan),
        primal_x=p_x,
        iterations=used,
        seconds=time.perf_counter() - t0,
        step=settings.step_name,
        start=settings.start,
        solvers=[s.name for s in solvers],
        support=support,
        box_x=runs[0].box_x if support is not None else None,
    )


def _master_chunk(
    dec: Blocks,
    q: np.ndarray,
    offset: np.ndarray,
    settings: DualSettings,
    solvers: list[Any],
    heuristic: PrimalHeuristic,
    deadline: float,
    bar: Any,
    warm: np.ndarray | None,
    t0: float,
) -> DualResult:
    """``step="master"``: the dual optimum by column generation (`master`). Every run of every
    mode has that optimum, so it is computed once and stored in the mode's layout: decomposition
    ``d`` gets ``λ_k = λ*_k`` for every block (independent: ``μ_k = −λ*_k``; joint: ``ν_k = −λ*_k``)."""
    p = dec.problem
    m = dec.num_blocks
    B, n = q.shape
    start = None
    if warm is not None:  # the kept multipliers as shared ones (projected onto Σ_k λ_k = q there)
        start = warm[:, 0] if settings.mode == "independent" else warm
    runs = m if settings.mode == "independent" else 1
    smoothing = cast(Master, settings.rule).smoothing  # solve_chunk sends only the master's settings here
    run = column_generation(
        dec, q, solvers, iterations=settings.iterations, tol=settings.tol, smoothing=smoothing,
        deadline=deadline, start=start, bar=bar, bar_step=runs,
    )  # fmt: skip
    p_val = np.full(B, -np.inf)
    p_x = np.full((B, n), np.nan)
    sup = run.support  # the copies on the supports, as the shared form lays them out, offer points
    X = np.concatenate([run.X, run.box_x], axis=1)
    SparseShared(sup, *box_of(dec)).offer_primal(heuristic, q, X, p_val, p_x, np.arange(B))
    sparse = settings.layout == "sparse"
    lam_u = p.sign * (run.lam if sparse else run.dense_lam())
    if settings.mode == "shared":
        lam, bounds = lam_u, run.best[:, None]
    elif settings.mode == "joint":
        lam, bounds = lam_u, np.repeat(run.best[:, None], m, axis=1)
    else:
        lam, bounds = np.repeat(lam_u[:, None], m, axis=1), np.repeat(run.best[:, None], m, axis=1)
    history = run.history if len(run.history) else run.best[None, :]
    return DualResult(
        sense=p.sense,
        mode=settings.mode,
        lam=lam,
        main=p.sign * run.residual if sparse else lam_u,
        main_x=run.X if sparse else run.dense_X(),
        run_bounds=p.sign * bounds + offset[:, None],
        history=p.sign * history + offset[None, :],
        primal_objective=np.where(np.isfinite(p_val), p.sign * p_val + offset, np.nan),
        primal_x=p_x,
        iterations=max(1, len(run.history)),
        seconds=time.perf_counter() - t0,
        step=settings.step_name,
        start=settings.start,
        solvers=[s.name for s in solvers],
        support=sup if sparse else None,
        box_x=run.box_x if sparse else None,
    )
