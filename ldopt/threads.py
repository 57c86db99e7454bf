"""A small per-process thread pool for GIL-free (numba ``nogil``) kernels.

Numba's OpenMP threading layer aborts a forked child (``fork() called from a process already
using GNU OpenMP``), which breaks ``ProcessPoolExecutor`` and Dask workers; plain threads running
``nogil`` kernels do not, so batched oracles split their instances over this pool instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

_POOL: ThreadPoolExecutor | None = None
_PID = -1


def num_threads() -> int:
    """Threads used by batched kernels: ``LDOPT_THREADS`` or the cores this process may use."""
    env = os.environ.get("LDOPT_THREADS")
    if env:
        return max(1, int(env))
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _pool() -> ThreadPoolExecutor:
    global _POOL, _PID
    if _POOL is None or _PID != os.getpid():  # a forked child has no threads: make new ones
        _POOL = ThreadPoolExecutor(num_threads(), thread_name_prefix="ldopt")
        _PID = os.getpid()
    return _POOL


def parallel_ranges(fn: Callable[[int, int], None], total: int, min_chunk: int = 8) -> None:
    """Run ``fn(start, stop)`` over ``[0, total)`` split across the pool (inline if small)."""
    k = min(num_threads(), max(1, total // min_chunk))
    if k <= 1:
        fn(0, total)
        return
    bounds = [total * i // k for i in range(k + 1)]
    futures = [_pool().submit(fn, bounds[i], bounds[i + 1]) for i in range(k)]
    for f in futures:
        f.result()
