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
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from .. import cache, checks, parallel
from ..decomposition import Blocks
from ..deprecation import renamed
from ..errors import InputError
from ..progress import counting_bar
from ..threads import map_ranges, num_threads, pool_executor, split
from .chunk import chunk_rows, solve_chunk
from .master import resolve_step
from .memory import check_memory
from .result import DualResult
from .settings import DualMode, DualSettings, Layout, Rule, Start, StepChoice, dual_mode, refuse_beside
from .support import Support, resolve_layout


def _in_worker(
    key: str, dec: Blocks, costs: np.ndarray, settings: DualSettings, warm: np.ndarray | None = None
) -> DualResult:
    """A chunk on a worker, with the worker's kept copy of ``dec`` (solvers built once per process)."""
    return solve_chunk(parallel.worker_copy(key, dec), costs, settings, warm=warm)


def _warm_start(dec: Blocks, warm: Any, mode: str, count: int, layout: str) -> np.ndarray | None:
    """``warm`` (a [`DualResult`][ldopt.DualResult] of ``mode`` for ``count`` instances, or ``None``) as the
    multipliers to start from, in the max form."""
    if warm is None:
        return None
    checks.instance("warm", warm, DualResult, f"a DualResult of this decomposition (dec.dual(..., mode={mode!r}))")
    m, n = dec.num_blocks, dec.problem.num_vars
    got = (warm.mode, warm.num_instances, warm.num_blocks, warm.num_vars, warm.sense, warm.layout)
    want = (mode, count, m, n, dec.problem.sense, layout)
    if got != want:
        raise InputError(
            "warm: expected a result of (mode, instances, blocks, variables, sense, layout) = "
            f"{want} (the costs' decomposition, mode and layout), got {got}"
        )
    if warm.support is not None and not warm.support.same(Support.of(dec)):
        raise InputError("warm: expected a result of this decomposition, got one whose blocks' supports differ")
    lam = np.asarray(warm.lam, dtype=float)
    if not np.isfinite(lam).all():
        raise InputError("warm: expected finite multipliers, got NaN or inf in warm.lam")
    return dec.problem.sign * lam


def solve_dual(
    dec: Blocks,
    costs: Any,
    iterations: int = 300,
    *,
    mode: DualMode | None = None,
    independent: bool = False,
    step: Rule | StepChoice = "auto",
    lr: float | None = None,
    mu0: float | Start = "symmetric",
    tol: float = 1e-6,
    time_limit: float | None = None,
    solver: Any = "auto",
    executor: Executor | None = None,
    chunk_size: int | None = None,
    checkpoint: str | Path | None = None,
    progress: bool = True,
    warm: DualResult | None = None,
    settings: DualSettings | None = None,
    layout: Layout = "auto",
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
        A step rule with its parameters — [`Polyak`][ldopt.dual.settings.Polyak]``(alpha=2)``,
        [`Adam`][ldopt.dual.settings.Adam]``(lr=0.01)`` (the reference's rule),
        [`Master`][ldopt.dual.settings.Master]``()`` — or a name: ``"polyak"``, ``"adam"``,
        ``"master"`` (the exact dual optimum by column generation, `ldopt.dual.master`: it needs no
        primal value and converges where no feasible point is found — flow, fixed-charge and
        lot-sizing rows; every mode then stores the same optimum for every decomposition) or
        ``"auto"`` (the default): ``"master"`` where every block touches at most
        [`MASTER_WIDTH`][ldopt.dual.master.MASTER_WIDTH] variables, else ``"polyak"``
        ([`resolve_step()`][ldopt.dual.master.resolve_step]; the result's ``step`` names the rule
        used; with ``warm``, ``"auto"`` is Polyak: the given multipliers are continued step by step,
        and ``iterations=1`` prices them). Chosen by measurement: on seventeen models ``"auto"``
        reached the exact bound and Polyak stopped up to 15% from it (``benchmarks/bench_zoo.py``).
    lr
        Deprecated: a named rule's step scale (Polyak's ``α`` or Adam's learning rate); give the
        rule's own parameter instead (``step=Polyak(alpha=1)``).
    mu0
        The start: ``"symmetric"`` (the default: where the shared solve starts, every block's
        objective ``q/m``, which follows the costs' scale and on minimisations with many rows is
        far closer to a bound), ``"lp"`` (every mode: the LP relaxation's row duals split over the
        blocks, whose bound is at most the LP's, for one warm HiGHS LP solve per instance; its
        point, repaired, is a first primal value; linear models,
        [`lp_multipliers()`][ldopt.dual.lp_start.lp_multipliers]) or a number (the μ-forms' start,
        the paper's 1).
    tol
        An instance stops once its bound is within this (relative) of the best primal value, or its
        copies agree.
    time_limit
        Seconds per instance, or ``None``: a chunk of ``b`` instances (solved together) stops after
        ``time_limit × b`` seconds (as everywhere in ldopt, a time limit is per instance).
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
    settings
        All the algorithm's settings as one [`DualSettings`][ldopt.dual.DualSettings] (as
        [`LDDataset`][ldopt_torch.LDDataset] passes them); then ``iterations``, ``mode``,
        ``independent``, ``step``, ``lr``, ``mu0``, ``tol``, ``time_limit``, ``solver`` and
        ``layout`` stay unset.
    layout
        Where multipliers and copies are stored: ``"auto"`` (the default: on the blocks' supports
        where they hold at most half of ``m × n``, the variables each block's rows touch; with
        ``warm``, the warm result's layout), ``"sparse"`` or ``"dense"`` (`ldopt.dual.support`).
        Both give the same bounds at the same multipliers; the result's methods return the same
        dense arrays.

    Returns
    -------
    DualResult
        The multipliers, bounds (user's sense), main solutions, primal values and the history.
    """
    checks.instance("dec", dec, Blocks, "an ldopt.Decomposition (ldopt.decompose(problem))")
    c, _ = dec.problem.check_costs(costs)
    dec.problem.check_parameters()
    checkpoint = checks.path_or_none("checkpoint", checkpoint)
    progress = checks.boolean("progress", progress)
    chunk_size = checks.positive_int_or_none("chunk_size", chunk_size)
    checks.executor_or_none("executor", executor)
    if settings is not None:
        checks.instance("settings", settings, DualSettings, "an ldopt.dual.DualSettings or None")
        refuse_beside(
            "settings=",
            dict(
                iterations=(iterations, 300),
                mode=(mode, None),
                independent=(independent, False),
                step=(step, "auto"),
                lr=(lr, None),
                mu0=(mu0, "symmetric"),
                tol=(tol, 1e-6),
                time_limit=(time_limit, None),
                solver=(solver, "auto"),
                layout=(layout, "auto"),
            ),
        )
    else:
        if lr is not None:
            renamed("dec.dual(..., lr=)", "step=ldopt.dual.Polyak(alpha=...) or Adam(lr=...)")
        settings = DualSettings(
            iterations=iterations,
            mode=dual_mode(mode, independent, default="shared"),
            step=step,
            lr=lr,
            mu0=mu0,
            tol=tol,
            time_limit=time_limit,
            solver=solver,
            layout=layout,
        )
    if settings.step == "auto":  # a warm start continues its multipliers step by step (and prices them)
        settings = replace(settings, step="polyak" if warm is not None else resolve_step(dec, "auto"))
    if len(c) == 0:
        raise InputError("costs: expected at least one cost vector, got an empty batch")
    layout = settings.layout
    if layout == "auto" and isinstance(warm, DualResult):  # a warm start continues in its own layout
        layout = warm.layout
    settings = replace(settings, layout=resolve_layout(dec, layout, settings.mode))
    check_memory(dec, len(c), settings)  # before any block is solved
    start = _warm_start(dec, warm, settings.mode, len(c), settings.layout)
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
    dec: Blocks, c: np.ndarray, settings: DualSettings, progress: bool, warm: np.ndarray | None
) -> DualResult:
    """The instances split over this process's threads (one chunk per thread, or more where a
    chunk would outgrow `chunk_rows`), one progress bar."""
    threads = num_threads()
    ranges = split(len(c), threads * -(-len(c) // (threads * chunk_rows(dec, settings))))
    runs = dec.num_blocks if settings.mode == "independent" else 1
    chunks = f", {len(ranges)} chunks" if len(ranges) > threads else ""
    desc = f"dual ({len(c)} instances, {dec.num_blocks} blocks, {min(threads, len(ranges))} threads{chunks})"
    bar = counting_bar(settings.iterations * runs * len(ranges), desc, progress)
    try:
        return DualResult.concat(
            map_ranges(lambda s, e: solve_chunk(dec, c[s:e], settings, bar, _rows(warm, s, e)), ranges), consume=True
        )
    finally:
        if bar is not None:
            bar.close()


def _in_chunks(
    dec: Blocks,
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
    if executor is None:  # this process's threads, one chunk each, of bounded memory
        executor = pool_executor()
        chunk_size = chunk_size or min(-(-len(c) // 8), chunk_rows(dec, settings))
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
    out = DualResult.concat(parts, consume=True)
    out.chunks_computed, out.chunks_loaded = counts["computed"], counts["loaded"]
    return out
