"""Executors for ``executor=`` arguments, per-worker reuse of solvers, and chunked, resumable runs.

* :func:`local_pool` — a process pool on this machine (forkserver start; one kernel thread per
  worker by default, so workers do not oversubscribe the cores).
* :func:`dask_executor` — a Dask executor for a scheduler ``address`` (``dask scheduler`` /
  ``dask worker``), or for a ``LocalCluster`` of processes when none is given; tasks lost with a
  worker are re-run (Dask's ``retries``; the scheduler also reschedules them by itself).
* Any other ``concurrent.futures.Executor`` works as is (``mpi4py.futures.MPIPoolExecutor``, ...).

Work is split into chunks of instances. A worker process keeps the first copy of a decomposition
(or problem) it receives, keyed by content, so its block solvers and solver sessions are built
once and reused for every later chunk. With a ``checkpoint`` folder every finished chunk is
written atomically as it completes; a run started again with the same inputs loads those chunks
and computes only the missing ones.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import numpy as np

from . import cache
from .errors import InputError
from .progress import progress_bar

_WORKER_OBJECTS: dict[str, Any] = {}


def worker_copy(key: str, obj: Any) -> Any:
    """This process's kept copy of ``obj`` (the first one received under ``key``)."""
    return _WORKER_OBJECTS.setdefault(key, obj)


def _init_worker(threads: int | None) -> None:
    if threads is not None:
        os.environ["LDOPT_THREADS"] = str(int(threads))


def local_pool(workers: int | None = None, threads_per_worker: int | None = 1) -> ProcessPoolExecutor:
    """A process pool of ``workers`` (default: the cores) with ``threads_per_worker`` kernel threads.

    The caller owns it (``with ldopt.parallel.local_pool(2) as ex: ...``).
    """
    from .threads import num_threads  # noqa: PLC0415

    n = workers or num_threads()
    if n < 1:
        raise InputError(f"workers: expected a positive integer, got {workers!r}")
    return ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("forkserver"),
                               initializer=_init_worker, initargs=(threads_per_worker,))


@contextlib.contextmanager
def dask_executor(address: str | None = None, workers: int | None = None, threads_per_worker: int | None = 1,
                  retries: int = 2, profile: bool = False) -> Iterator[Executor]:
    """A Dask ``Client.get_executor()`` for ``address``, or for a new local cluster of processes.

    ``with ldopt.parallel.dask_executor("tcp://host:8786") as ex: dec.dual(costs, executor=ex)``.
    The client (and a cluster it started) is closed on exit. A local cluster runs without Dask's
    worker profiler unless ``profile=True``; for your own workers set
    ``DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False`` in their environment.
    """
    try:
        from dask.distributed import Client, LocalCluster  # noqa: PLC0415
    except ImportError as exc:
        raise InputError("dask_executor needs Dask: pip install 'ldopt[dask]'") from exc
    from .threads import num_threads  # noqa: PLC0415

    import dask  # noqa: PLC0415

    cluster = None
    if address is None:
        env = {} if threads_per_worker is None else {"LDOPT_THREADS": str(int(threads_per_worker))}
        # Dask's stack-sampling profiler (every 10 ms), GIL monitor (every 1 ms) and event-loop tick
        # (every 20 ms) all take the GIL from the solving thread: 10-30% of a dual solve's time
        quiet = {"distributed.worker.profile.enabled": bool(profile), "distributed.admin.tick.interval": "1s",
                 "distributed.admin.system-monitor.interval": "5s",
                 "distributed.admin.system-monitor.gil.enabled": bool(profile)}
        with dask.config.set(quiet):
            cluster = LocalCluster(n_workers=workers or num_threads(), threads_per_worker=1, processes=True,
                                   dashboard_address=":0", env=env)
        client = Client(cluster)
    else:
        client = Client(address)
    try:
        yield client.get_executor(retries=int(retries), pure=False)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def chunks(total: int, chunk_size: int | None, parts: int = 8) -> list[tuple[int, int]]:
    """``[start, stop)`` ranges covering ``total`` items: ``chunk_size`` each, or ``parts`` chunks."""
    size = int(chunk_size) if chunk_size else max(1, -(-total // parts))
    if size < 1:
        raise InputError(f"chunk_size: expected a positive integer, got {chunk_size!r}")
    return [(s, min(s + size, total)) for s in range(0, total, size)]


def run_chunks(
    fn: Callable[..., Any],
    ranges: list[tuple[int, int]],
    args: Callable[[int, int], tuple],
    *,
    executor: Executor | None = None,
    checkpoint: str | Path | None = None,
    expect: Callable[[int, int], dict[str, Any]] | None = None,
    to_arrays: Callable[[Any], tuple[dict[str, np.ndarray], dict[str, Any]]] | None = None,
    from_arrays: Callable[[dict[str, np.ndarray], dict[str, Any]], Any] | None = None,
    progress: bool = True,
    desc: str = "chunks",
) -> tuple[list[Any], dict[str, int]]:
    """``fn(*args(start, stop))`` for every range, in order; with ``checkpoint``, chunks found there
    (matching ``expect(start, stop)``) are loaded and each new one is saved as it completes.

    A chunk that fails does not lose the others: every finished chunk is saved before the first
    error is raised. Returns the results and counts ``{"computed": k, "loaded": l}``.
    """
    results: dict[int, Any] = {}
    folder = Path(checkpoint) if checkpoint is not None else None

    def path(i: int) -> Path:
        s, e = ranges[i]
        return folder / f"chunk-{s:08d}-{e:08d}.npz"

    if folder is not None:
        for i, (s, e) in enumerate(ranges):
            hit = cache.load(path(i), expect(s, e) if expect else None)
            if hit is not None:
                results[i] = from_arrays(*hit)
    loaded = len(results)
    todo = [i for i in range(len(ranges)) if i not in results]

    def keep(i: int, value: Any) -> None:
        results[i] = value
        if folder is not None:
            arrays, header = to_arrays(value)
            s, e = ranges[i]
            cache.save(path(i), arrays, {**header, **(expect(s, e) if expect else {})})

    if executor is None:
        for i in progress_bar(todo, enable=progress and len(todo) > 1, desc=desc):
            keep(i, fn(*args(*ranges[i])))
    else:
        futures = {executor.submit(fn, *args(*ranges[i])): i for i in todo}
        error: BaseException | None = None
        try:
            for f in progress_bar(as_completed(futures), enable=progress, desc=desc, total=len(futures)):
                try:
                    keep(futures[f], f.result())
                except Exception as exc:  # noqa: BLE001 - keep saving the others, raise the first
                    error = error or exc
        except BaseException:  # Ctrl-C: what finished is already saved; stop the rest
            for f in futures:
                f.cancel()
            raise
        if error is not None:
            raise error
    return [results[i] for i in range(len(ranges))], {"computed": len(todo), "loaded": loaded}
