"""Executors for ``executor=`` arguments, per-worker reuse of solvers, and chunked, resumable runs.

* [`local_pool()`][ldopt.runtime.parallel.local_pool] — a process pool on this machine (spawn start;
  one kernel thread per worker by default, so workers do not oversubscribe the cores). Every worker
  watches the process that owns the pool and exits within a second of its death, even a ``kill -9``.
* [`dask_executor()`][ldopt.runtime.parallel.dask_executor] — a Dask executor for a scheduler
  ``address`` (``dask scheduler`` / ``dask worker``), or for a ``LocalCluster`` of processes when
  none is given; tasks lost with a worker are re-run (Dask's ``retries``; the scheduler also
  reschedules them by itself).
* Any other ``concurrent.futures.Executor`` works as is (``mpi4py.futures.MPIPoolExecutor``, ...).

Work is split into chunks of instances. A worker process keeps the first copy of a decomposition
(or problem) it receives, keyed by content, so its block solvers and solver sessions are built
once and reused for every later chunk. With a ``checkpoint`` folder every finished chunk is
written atomically as it completes; a run started again with the same inputs loads those chunks
and computes only the missing ones ([`run_chunks()`][ldopt.runtime.parallel.run_chunks], in `ldopt.runtime.checkpoint`).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

from ldopt import checks
from ldopt.errors import InputError
from ldopt.runtime.checkpoint import chunks, clear_checkpoint, run_chunks
from ldopt.runtime.progress import progress_bar

__all__ = ["chunks", "clear_checkpoint", "dask_executor", "local_pool", "progress_bar", "run_chunks", "worker_copy"]

_WORKER_OBJECTS: dict[str, Any] = {}
_WATCH_SECONDS = 0.5  # how often a pool worker checks that its owner is alive


def worker_copy(key: str, obj: Any) -> Any:
    """This process's kept copy of ``obj`` (the first one received under ``key``).

    Parameters
    ----------
    key
        The object's key (e.g. a decomposition's ``key``).
    obj
        The object as received.
    """
    return _WORKER_OBJECTS.setdefault(key, obj)


def _init_worker(threads: int | None, owner: int) -> None:
    if threads is not None:
        os.environ["LDOPT_THREADS"] = str(int(threads))
    threading.Thread(target=_watch_owner, args=(owner,), name="ldopt-owner-watch", daemon=True).start()


def _watch_owner(owner: int) -> None:
    """End this worker once the process that started it is gone (its parent pid changes)."""
    while os.getppid() == owner:
        time.sleep(_WATCH_SECONDS)
    os._exit(70)  # the owner died without closing the pool: nobody waits for our results


def local_pool(workers: int | None = None, threads_per_worker: int | None = 1) -> ProcessPoolExecutor:
    """A process pool of ``workers`` (default: the cores) with ``threads_per_worker`` kernel threads.

    The caller owns it (``with ldopt.runtime.parallel.local_pool(2) as ex: ...``).

    Parameters
    ----------
    workers
        Processes (default: the cores).
    threads_per_worker
        Kernel threads per process (BLAS, numba, solvers); ``None``: leave them.
    """
    from ldopt.runtime.threads import num_threads  # noqa: PLC0415

    workers = checks.positive_int_or_none("workers", workers)
    threads_per_worker = checks.positive_int_or_none("threads_per_worker", threads_per_worker)
    n = workers or num_threads()
    return ProcessPoolExecutor(
        n,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_init_worker,
        initargs=(threads_per_worker, os.getpid()),
    )


@contextlib.contextmanager
def dask_executor(
    address: str | None = None,
    workers: int | None = None,
    threads_per_worker: int | None = 1,
    retries: int = 2,
    profile: bool = False,
) -> Iterator[Executor]:
    """A Dask ``Client.get_executor()`` for ``address``, or for a new local cluster of processes.

    ``with ldopt.runtime.parallel.dask_executor("tcp://host:8786") as ex: dec.dual(costs, executor=ex)``.
    The client (and a cluster it started) is closed on exit. A local cluster listens on
    127.0.0.1 only (its scheduler, workers and dashboard) and runs without Dask's worker profiler
    unless ``profile=True``; for your own workers set
    ``DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False`` in their environment. ``workers`` and
    ``threads_per_worker`` (``None``: every core, and no limit) are positive whole numbers;
    ``retries`` (re-runs of a chunk whose worker died) is ≥ 0.

    Parameters
    ----------
    address
        A scheduler's address (``"tcp://host:8786"``), or ``None`` for a local cluster.
    workers
        The local cluster's processes (default: the cores).
    threads_per_worker
        Threads per local worker.
    retries
        How often a failed chunk (e.g. a dead worker) is run again.
    profile
        Keep Dask's statistical profiler on (off: it costs time on short tasks).
    """
    if address is not None and (not isinstance(address, str) or not address):
        raise InputError(f"address: expected a scheduler address such as 'tcp://host:8786' or None, got {address!r}")
    workers = checks.positive_int_or_none("workers", workers)
    threads_per_worker = checks.positive_int_or_none("threads_per_worker", threads_per_worker)
    retries = checks.nonnegative_int("retries", retries)
    profile = checks.boolean("profile", profile)
    try:
        from dask.distributed import Client, LocalCluster  # noqa: PLC0415
    except ImportError as exc:
        raise InputError("dask_executor needs Dask: pip install 'ldopt[dask]'") from exc
    import dask  # noqa: PLC0415

    from ldopt.runtime.threads import num_threads  # noqa: PLC0415

    cluster = None
    if address is None:
        env = {} if threads_per_worker is None else {"LDOPT_THREADS": str(int(threads_per_worker))}
        # Dask's stack-sampling profiler (every 10 ms), GIL monitor (every 1 ms) and event-loop tick
        # (every 20 ms) all take the GIL from the solving thread: 10-30% of a dual solve's time
        quiet = {
            "distributed.worker.profile.enabled": bool(profile),
            "distributed.admin.tick.interval": "1s",
            "distributed.admin.system-monitor.interval": "5s",
            "distributed.admin.system-monitor.gil.enabled": bool(profile),
        }
        with dask.config.set(quiet):
            cluster = LocalCluster(
                n_workers=workers or num_threads(),
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address="127.0.0.1:0",
                env=env,
            )
        client = Client(cluster)
    else:
        client = Client(address)
    try:
        yield client.get_executor(retries=int(retries), pure=False)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
