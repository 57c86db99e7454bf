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

from ldopt import checks
from ldopt.decomposition.blocks import Blocks
from ldopt.dual.chunk import chunk_rows, solve_chunk
from ldopt.dual.master import resolve_step
from ldopt.dual.memory import check_memory
from ldopt.dual.result import DualResult
from ldopt.dual.settings import LP_WIDTH, DualMode, DualSettings, Master, Rule, Start, StartChoice, StepChoice
from ldopt.dual.support import Support, resolve_layout
from ldopt.errors import InputError
from ldopt.runtime import cache, parallel
from ldopt.runtime.progress import counting_bar
from ldopt.runtime.threads import map_ranges, num_threads, pool_executor, split


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


def resolve_start(
    dec: Blocks, mu0: float | StartChoice, iterations: int, step: Rule | StepChoice
) -> tuple[float | Start, int]:
    """The start ``mu0`` names for ``dec`` and the iterations from it: ``"auto"`` is ``("lp", 1)``
    (the LP relaxation's duals, priced once) where ``dec``'s model is linear and every block touches
    at least [`LP_WIDTH`][ldopt.dual.settings.LP_WIDTH] variables, else ``("symmetric", iterations)``;
    any other start, and column generation (``step`` the master, which runs to the exact optimum
    from any start), keeps ``iterations``.

    On blocks that wide one evaluation of the blocks costs about one LP solve, and the LP's duals
    give a bound at most the LP's: subgradient steps from there cost tens of LP solves for a worse
    bound (measured in ``docs/results.md``, "The largest public DFL knapsack").

    Parameters
    ----------
    dec
        The decomposition.
    mu0
        The start, or ``"auto"``.
    iterations
        The iterations asked for.
    step
        The step rule.
    """
    if mu0 != "auto":
        return mu0, iterations
    if not lp_start_fits(dec)[0]:
        return "symmetric", iterations
    return "lp", iterations if step in ("master", Master()) else 1


def lp_start_fits(dec: Blocks) -> tuple[bool, str]:
    """Whether ``mu0="auto"`` starts ``dec``'s dual from the LP's duals, and why (a phrase).

    Parameters
    ----------
    dec
        The decomposition.
    """
    quadratic = [r.name for r in dec.problem.compiled.rows if r.is_quadratic]
    if quadratic:
        return False, f"the quadratic row '{quadratic[0]}' has no LP relaxation"
    widths = np.diff(Support.of(dec).indptr)
    narrowest = int(widths.min()) if len(widths) else 0
    if narrowest < LP_WIDTH:
        return False, f"the narrowest block touches {narrowest} variables (< LP_WIDTH = {LP_WIDTH})"
    return True, f"a linear model whose blocks all touch at least LP_WIDTH = {LP_WIDTH} variables"


def resolve_settings(dec: Blocks, settings: DualSettings, warm: DualResult | None = None) -> DualSettings:
    """``settings`` with every ``"auto"`` resolved for ``dec``: the step rule
    ([`resolve_step()`][ldopt.dual.master.resolve_step]; Polyak with ``warm``, whose multipliers are
    continued step by step), the start ([`resolve_start()`][ldopt.dual.solve.resolve_start]; with
    ``warm`` the start is unused) and the layout
    ([`resolve_layout()`][ldopt.dual.support.resolve_layout]; with ``warm``, the warm result's).
    What a result records and a cache is keyed by.

    Parameters
    ----------
    dec
        The decomposition.
    settings
        The dual's settings.
    warm
        A result to continue from, or ``None``.
    """
    step = settings.step
    if step == "auto":
        step = "polyak" if warm is not None else resolve_step(dec, "auto")
    mu0, iterations = (
        ("symmetric", settings.iterations)
        if warm is not None and settings.mu0 == "auto"
        else resolve_start(dec, settings.mu0, settings.iterations, step)
    )
    layout = settings.layout
    if layout == "auto" and isinstance(warm, DualResult):  # a warm start continues in its own layout
        layout = warm.layout
    layout = resolve_layout(dec, layout, settings.mode)
    return replace(settings, step=step, mu0=mu0, iterations=iterations, layout=layout)


def solve_dual(
    dec: Blocks,
    costs: Any,
    settings: DualSettings | None = None,
    *,
    iterations: int | None = None,
    mode: DualMode | None = None,
    step: Rule | StepChoice | None = None,
    solver: Any = None,
    warm: DualResult | None = None,
    executor: Executor | None = None,
    chunk_size: int | None = None,
    checkpoint: str | Path | None = None,
    progress: bool = True,
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
    settings
        The algorithm's settings, a [`DualSettings`][ldopt.dual.DualSettings] (``None``: its
        defaults); the start ``mu0``, ``tol``, ``time_limit`` and ``layout`` are set there.
    iterations, mode, step, solver
        The everyday settings, merged into ``settings`` where given (see
        [`DualSettings`][ldopt.dual.DualSettings]).
    warm
        A result of the same mode for as many instances to continue from, also on other costs
        (the start ``mu0`` is then unused; a shared result is first projected onto
        ``Σ_k λ_k = q(costs)``); with ``iterations=1`` it prices those multipliers for ``costs``.
    executor
        Any ``concurrent.futures.Executor`` to spread chunks of ``chunk_size`` instances over;
        ``None``: this process's threads (``LDOPT_THREADS``, default every core).
    chunk_size
        Instances per chunk with an ``executor`` or a ``checkpoint`` (``None``: about eight chunks).
    checkpoint
        A folder where every finished chunk is saved atomically; a rerun resumes from it.
    progress
        Show a progress bar.

    Returns
    -------
    DualResult
        The multipliers, bounds (user's sense), main solutions, primal values, the history, and
        the step rule and start used (``result.step``, ``result.start``: ``"auto"`` resolved).
    """
    checks.instance("dec", dec, Blocks, "an ldopt.Decomposition (ldopt.decompose(problem))")
    c = dec.check_costs(costs)
    dec.problem.check_parameters()
    checkpoint = checks.path_or_none("checkpoint", checkpoint)
    progress = checks.boolean("progress", progress)
    chunk_size = checks.positive_int_or_none("chunk_size", chunk_size)
    checks.executor_or_none("executor", executor)
    base = DualSettings() if settings is None else settings
    checks.instance("settings", base, DualSettings, "an ldopt.dual.DualSettings or None")
    settings = base.merged(iterations=iterations, mode=mode, step=step, solver=solver)
    if len(c) == 0:
        raise InputError("costs: expected at least one cost vector, got an empty batch")
    settings = resolve_settings(dec, settings, warm)
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
