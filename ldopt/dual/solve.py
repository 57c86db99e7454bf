"""Optimise the multipliers of a decomposition for a batch of cost vectors.

Instances are split into chunks. Without an executor the chunks run on this process's threads
(the oracles are GIL-free kernels), one chunk per core; with an ``executor`` they are spread over
its workers; with a ``checkpoint`` folder every finished chunk is saved and a rerun resumes. The
answer does not depend on any of this: every instance has its own steps.

Internally everything is a maximisation (a minimisation's ``q`` is negated); results are in the
user's sense.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import numpy as np

from .. import cache, checks, parallel
from ..decomposition import Decomposition
from ..errors import DecompositionError, InputError
from ..primal import PrimalHeuristic
from ..progress import counting_bar
from ..threads import map_ranges, num_threads, split
from .forms import Joint, MuForm, Shared
from .master import column_generation, resolve_step
from .result import DualResult, pad_rows
from .run import subgradient_run
from .settings import DualMode, DualSettings, Start, StepChoice


def solve_chunk(
    dec: Decomposition, costs: np.ndarray, settings: DualSettings, bar: Any = None, warm: np.ndarray | None = None
) -> DualResult:
    """The dual solve of one chunk of instances, on the calling thread (``bar``: a progress bar
    to advance by one per iteration, shared by the chunks of one solve; ``warm``: the chunk's kept
    multipliers ``lam`` in the max form, to start from)."""
    t0 = time.perf_counter()
    p = dec.problem
    sign = p.sign
    q = sign * p.objective_coefficients(costs)
    offset = p.compiled.k0 + costs @ p.compiled.r
    solvers = dec.block_solvers(settings.solver)
    m = dec.num_blocks
    B, n = q.shape
    heuristic = PrimalHeuristic(p)
    deadline = t0 + settings.time_limit if settings.time_limit else np.inf
    if settings.step == "master":
        return _master_chunk(dec, q, offset, settings, solvers, heuristic, deadline, bar, warm, t0)
    p_val = np.full(B, -np.inf)
    p_x = np.full((B, n), np.nan)
    forms = (
        [MuForm(m, d) for d in range(m)]
        if settings.mode == "independent"
        else [Joint(m) if settings.mode == "joint" else Shared(m)]
    )
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
        main = lam if settings.mode == "shared" else r.main
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
        step=settings.step,
        solvers=[s.name for s in solvers],
    )


def _master_chunk(
    dec: Decomposition,
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
    if warm is not None:  # the kept multipliers as shared ones, projected onto Σ_k λ_k = q
        lam0 = warm[:, 0] if settings.mode == "independent" else warm
        start = Shared(m).project(np.array(lam0, dtype=float), q)
    runs = m if settings.mode == "independent" else 1
    run = column_generation(
        dec, q, solvers, iterations=settings.iterations, tol=settings.tol, deadline=deadline,
        start=start, bar=bar, bar_step=runs,
    )  # fmt: skip
    p_val = np.full(B, -np.inf)
    p_x = np.full((B, n), np.nan)
    heuristic.update(q, run.X, p_val, p_x, np.arange(B))
    lam_u = p.sign * run.lam
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
        main=lam_u,
        main_x=run.X,
        run_bounds=p.sign * bounds + offset[:, None],
        history=p.sign * history + offset[None, :],
        primal_objective=np.where(np.isfinite(p_val), p.sign * p_val + offset, np.nan),
        primal_x=p_x,
        iterations=max(1, len(run.history)),
        seconds=time.perf_counter() - t0,
        step=settings.step,
        solvers=[s.name for s in solvers],
    )


def _in_worker(
    key: str, dec: Decomposition, costs: np.ndarray, settings: DualSettings, warm: np.ndarray | None = None
) -> DualResult:
    """A chunk on a worker, with the worker's kept copy of ``dec`` (solvers built once per process)."""
    return solve_chunk(parallel.worker_copy(key, dec), costs, settings, warm=warm)


def _warm_start(dec: Decomposition, warm: Any, mode: str, count: int) -> np.ndarray | None:
    """``warm`` (a [`DualResult`][ldopt.DualResult] of ``mode`` for ``count`` instances, or ``None``) as the
    multipliers to start from, in the max form."""
    if warm is None:
        return None
    checks.instance("warm", warm, DualResult, f"a DualResult of this decomposition (dec.dual(..., mode={mode!r}))")
    m, n = dec.num_blocks, dec.problem.num_vars
    got = (warm.mode, warm.num_instances, warm.num_blocks, warm.main.shape[2], warm.sense)
    want = (mode, count, m, n, dec.problem.sense)
    if got != want:
        raise InputError(
            "warm: expected a result of (mode, instances, blocks, variables, sense) = "
            f"{want} (the costs' decomposition and mode), got {got}"
        )
    lam = np.asarray(warm.lam, dtype=float)
    if not np.isfinite(lam).all():
        raise InputError("warm: expected finite multipliers, got NaN or inf in warm.lam")
    return dec.problem.sign * lam


def solve_dual(
    dec: Decomposition,
    costs: Any,
    iterations: int = 300,
    *,
    mode: DualMode | None = None,
    independent: bool = False,
    step: StepChoice = "polyak",
    lr: float | None = None,
    mu0: float | Start = 1.0,
    tol: float = 1e-6,
    time_limit: float | None = None,
    solver: Any = "auto",
    executor: Executor | None = None,
    chunk_size: int | None = None,
    checkpoint: str | Path | None = None,
    progress: bool = True,
    warm: DualResult | None = None,
) -> DualResult:
    """Optimise the multipliers of ``dec`` for each cost vector of ``costs``.

    Every instance has its own steps and stops on its own, so the answer depends neither on how the
    instances are split (threads, ``executor``, ``chunk_size``) nor on a resumed ``checkpoint``.

    Parameters
    ----------
    dec
        The decomposition.
    costs
        One cost vector ``(num_costs,)`` or a batch ``(B, num_costs)``.
    iterations
        Subgradient steps at most per run (pricing rounds for ``step="master"``).
    mode
        ``"shared"`` (default: one symmetric solve, the tightest bounds for the least work),
        ``"independent"`` (the paper's ``m`` runs from ``μ = mu0``) or ``"joint"`` (one run from
        ``μ = mu0`` whose penalties serve every decomposition, ``2m`` block solves an iteration).
    independent
        ``True``: ``mode="independent"`` (the older spelling).
    step
        ``"polyak"``, ``"adam"`` (the reference's rule, ``lr`` 0.01), ``"master"`` (the exact dual
        optimum by column generation, `ldopt.dual.master`: it needs no primal value and converges
        where no feasible point is found — flow, fixed-charge and lot-sizing rows; every mode then
        stores the same optimum for every decomposition) or ``"auto"``: ``"master"`` where every block
        touches at most [`MASTER_WIDTH`][ldopt.dual.master.MASTER_WIDTH] variables, else ``"polyak"``
        ([`resolve_step()`][ldopt.dual.master.resolve_step]; the result's ``step`` names the rule used).
    lr
        The step scale: Polyak's initial ``α`` or Adam's learning rate (``None``: the rule's default).
    mu0
        The μ-form runs' start: a number (the paper's 1) or ``"symmetric"`` (where the shared solve
        starts, every block's objective ``q/m``, which on minimisations with many rows is far closer
        to a bound).
    tol
        An instance stops once its bound is within this (relative) of the best primal value, or its
        copies agree.
    time_limit
        Seconds per chunk of instances, or ``None``.
    solver
        The block solvers: one name for every block, a list with one per block, or
        ``{block: name}`` (``"auto"``: an exact oracle where one fits).
    executor
        Any ``concurrent.futures.Executor`` to spread chunks of ``chunk_size`` instances over;
        ``None``: this process's threads (``LDOPT_THREADS``, default every core).
    chunk_size
        Instances per chunk with an ``executor`` or a ``checkpoint`` (``None``: about eight chunks).
    checkpoint
        A folder where every finished chunk is saved atomically; a rerun resumes from it.
    progress
        Show a progress bar.
    warm
        A result of the same mode for as many instances to continue from, also on other costs
        (``mu0`` is then unused; a shared result is first projected onto ``Σ_k λ_k = q(costs)``); with
        ``iterations=1`` it prices those multipliers for ``costs``.

    Returns
    -------
    DualResult
        The multipliers, bounds (user's sense), main solutions, primal values and the history.
    """
    checks.instance("dec", dec, Decomposition, "an ldopt.Decomposition (ldopt.decompose(problem))")
    c, _ = dec.problem.check_costs(costs)
    dec.problem.check_parameters()
    checkpoint = checks.path_or_none("checkpoint", checkpoint)
    progress = checks.boolean("progress", progress)
    chunk_size = checks.positive_int_or_none("chunk_size", chunk_size)
    checks.executor_or_none("executor", executor)
    independent = checks.boolean("independent", independent)
    if mode is None:
        mode = "independent" if independent else "shared"
    elif independent and mode != "independent":
        raise InputError(f"independent=True and mode={mode!r}: expected one of them, not both")
    settings = DualSettings(
        iterations=iterations,
        mode=mode,
        step=resolve_step(dec, step),
        lr=lr,
        mu0=mu0,
        tol=tol,
        time_limit=time_limit,
        solver=solver,
    )
    if len(c) == 0:
        raise InputError("costs: expected at least one cost vector, got an empty batch")
    start = _warm_start(dec, warm, settings.mode, len(c))
    t0 = time.perf_counter()
    if executor is None and checkpoint is None:
        out = _on_threads(dec, c, settings, progress, start)
    else:
        out = _in_chunks(dec, c, settings, executor, chunk_size, checkpoint, progress, start)
    out.seconds = time.perf_counter() - t0
    return out


def _rows(warm: np.ndarray | None, start: int, stop: int) -> np.ndarray | None:
    """The warm start of instances ``start:stop`` (``None`` without one)."""
    return None if warm is None else warm[start:stop]


def _on_threads(
    dec: Decomposition, c: np.ndarray, settings: DualSettings, progress: bool, warm: np.ndarray | None
) -> DualResult:
    """The instances split over this process's threads, one chunk per thread, one progress bar."""
    ranges = split(len(c), num_threads())
    runs = dec.num_blocks if settings.mode == "independent" else 1
    desc = f"dual ({len(c)} instances, {dec.num_blocks} blocks, {len(ranges)} threads)"
    bar = counting_bar(settings.iterations * runs * len(ranges), desc, progress)
    try:
        return DualResult.concat(
            map_ranges(lambda s, e: solve_chunk(dec, c[s:e], settings, bar, _rows(warm, s, e)), ranges)
        )
    finally:
        if bar is not None:
            bar.close()


def _in_chunks(
    dec: Decomposition,
    c: np.ndarray,
    settings: DualSettings,
    executor: Executor | None,
    chunk_size: int | None,
    checkpoint: Path | None,
    progress: bool,
    warm: np.ndarray | None,
) -> DualResult:
    """Chunks of ``chunk_size`` instances over ``executor``'s workers (or here, one after the
    other), each saved to ``checkpoint`` as it completes and loaded from it when already there."""
    key = dec.key

    def expect(s: int, e: int) -> dict[str, Any]:
        out = dict(decomposition=key, costs=cache.digest(c[s:e]), settings=settings.key())
        return out if warm is None else {**out, "warm": cache.digest(warm[s:e])}

    fn: Callable[..., DualResult]
    args: Callable[[int, int], tuple[Any, ...]]
    if executor is None:
        fn, args = solve_chunk, lambda s, e: (dec, c[s:e], settings, None, _rows(warm, s, e))
    else:
        fn, args = _in_worker, lambda s, e: (key, dec, c[s:e], settings, _rows(warm, s, e))
    parts, counts = parallel.run_chunks(
        fn,
        parallel.chunks(len(c), chunk_size),
        args,
        executor=executor,
        checkpoint=checkpoint,
        expect=expect,
        to_arrays=DualResult.to_arrays,
        from_arrays=DualResult.from_arrays,
        progress=progress,
        desc="dual chunks",
    )
    out = DualResult.concat(parts)
    out.chunks_computed, out.chunks_loaded = counts["computed"], counts["loaded"]
    return out
