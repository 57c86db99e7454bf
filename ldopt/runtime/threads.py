"""A per-process thread pool for GIL-free work: numba ``nogil`` kernels and solver calls.

Numba's OpenMP threading layer aborts a forked child (``fork() called from a process already
using GNU OpenMP``), which breaks ``ProcessPoolExecutor`` and Dask workers; plain threads running
``nogil`` kernels do not, so batched work is split over this pool instead. A call made from one of
the pool's own threads runs inline (no nested submission), so chunk-level parallelism (a dual
solve split by instances) and kernel-level parallelism (an oracle split by instances) compose
without deadlock or oversubscription.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from ldopt import checks
from ldopt.errors import InputError

T = TypeVar("T")

_POOL: ThreadPoolExecutor | None = None
_PID = -1
_LOCAL = threading.local()
_CONFIGURED: int | None = None
_BLAS_LOCK = threading.Lock()
_BLAS_DEPTH = 0  # blocks inside one_blas_thread, over every thread
_BLAS_LIMIT: Any = None  # the threadpoolctl limit they share
_BLAS_CONTROLLER: Any = None  # threadpoolctl's view of the loaded BLAS libraries, scanned once


def configure(threads: int | None) -> None:
    """Use ``threads`` threads for batched work from now on (``None``: back to ``LDOPT_THREADS``
    or every core). The pool is rebuilt at its next use.

    Parameters
    ----------
    threads
        Threads, or ``None`` (``LDOPT_THREADS``, else every core).
    """
    global _CONFIGURED, _POOL
    _CONFIGURED = checks.positive_int_or_none("threads", threads)
    if _POOL is not None:
        _POOL.shutdown(wait=False)
        _POOL = None


def num_threads() -> int:
    """Threads used by batched work: [`configure()`][ldopt.runtime.threads.configure]'s,
    ``LDOPT_THREADS``, or the cores this process may use."""
    if _CONFIGURED is not None:
        return _CONFIGURED
    env = os.environ.get("LDOPT_THREADS")
    if env:
        try:
            value = int(env)
        except ValueError:
            raise InputError(f"LDOPT_THREADS: expected a positive integer, got {env!r}") from None
        if value < 1:
            raise InputError(f"LDOPT_THREADS: expected a positive integer, got {env!r}")
        return value
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _pool() -> ThreadPoolExecutor:
    global _POOL, _PID
    if _POOL is None or os.getpid() != _PID:  # a forked child has no threads: make new ones
        _POOL = ThreadPoolExecutor(num_threads(), thread_name_prefix="ldopt", initializer=_mark)
        _PID = os.getpid()
    return _POOL


def _mark() -> None:
    _LOCAL.inside = True


def inside_pool() -> bool:
    """Whether the caller is one of the pool's threads (its parallel calls then run inline)."""
    return getattr(_LOCAL, "inside", False)


def pool_executor() -> ThreadPoolExecutor | None:
    """The pool as an executor for chunks of work that keep their own order (checkpointed dual
    chunks), or ``None`` where they should run inline: inside the pool, or with one thread."""
    return None if inside_pool() or num_threads() == 1 else _pool()


def solver_threads() -> int:
    """Threads one solver call may use when none are asked for: 1 on one of the pool's threads (the
    pool already runs a call per thread), else [`num_threads()`][ldopt.runtime.threads.num_threads],
    so that ``LDOPT_THREADS`` bounds the whole process. A MIP solver left to its default takes every core in each of the
    pool's calls: on 2 cores, 4 threads (and 8 with two processes side by side)."""
    return 1 if inside_pool() else num_threads()


def split(total: int, parts: int) -> list[tuple[int, int]]:
    """``[start, stop)`` ranges cutting ``total`` items into ``parts`` nearly equal pieces.

    Parameters
    ----------
    total
        Items.
    parts
        Ranges.
    """
    parts = max(1, min(parts, total))
    bounds = [total * i // parts for i in range(parts + 1)]
    return [(bounds[i], bounds[i + 1]) for i in range(parts)]


def map_ranges(fn: Callable[[int, int], T], ranges: Sequence[tuple[int, int]]) -> list[T]:
    """``[fn(s, e) for (s, e) in ranges]``, on the pool (inline inside it, or for one range).

    Parameters
    ----------
    fn
        Called as ``fn(start, stop)``.
    ranges
        ``[start, stop)`` ranges.
    """
    if len(ranges) <= 1 or inside_pool():
        return [fn(s, e) for s, e in ranges]
    futures = [_pool().submit(fn, s, e) for s, e in ranges]
    return [f.result() for f in futures]


def parallel_ranges(fn: Callable[[int, int], None], total: int, min_chunk: int = 8) -> None:
    """Run ``fn(start, stop)`` over ``[0, total)`` split across the pool (inline if small).

    Parameters
    ----------
    fn
        Called as ``fn(start, stop)``.
    total
        Items.
    min_chunk
        The fewest items a thread gets.
    """
    map_ranges(fn, split(total, min(num_threads(), max(1, total // min_chunk))))


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """NumPy's BLAS (OpenBLAS, MKL) on one thread inside the block, for kernels of many small
    factorisations, whose parallelism is over instances (this module's pool), not inside one.

    OpenBLAS's threads spin while they wait: on a machine that other processes keep busy, one
    portfolio solve of n = 400 by `BudgetQuadraticOracle` took 355 ms with
    its default of 2 threads against 5.9 ms with one. Blocks may overlap across threads: the
    first in sets the limit and the last out restores the library's own.
    """
    global _BLAS_DEPTH, _BLAS_LIMIT, _BLAS_CONTROLLER
    with _BLAS_LOCK:
        if _BLAS_DEPTH == 0:
            if _BLAS_CONTROLLER is None:  # scanning the libraries takes about 2 ms: once
                from threadpoolctl import ThreadpoolController  # noqa: PLC0415 - needed by this only

                _BLAS_CONTROLLER = ThreadpoolController()
            _BLAS_LIMIT = _BLAS_CONTROLLER.limit(limits=1, user_api="blas")
        _BLAS_DEPTH += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _BLAS_DEPTH -= 1
            if _BLAS_DEPTH == 0 and _BLAS_LIMIT is not None:
                _BLAS_LIMIT.restore_original_limits()
                _BLAS_LIMIT = None
