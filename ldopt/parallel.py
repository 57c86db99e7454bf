"""Executors for ``executor=`` arguments, per-worker reuse of solvers, and chunked, resumable runs.

* [`local_pool()`][ldopt.parallel.local_pool] — a process pool on this machine (spawn start; one kernel thread per
  worker by default, so workers do not oversubscribe the cores). Every worker watches the process that
  owns the pool and exits within a second of its death, even a ``kill -9``.
* [`dask_executor()`][ldopt.parallel.dask_executor] — a Dask executor for a scheduler ``address`` (``dask scheduler`` /
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
import re
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import numpy as np

from . import cache, checks
from .errors import CacheError, InputError
from .progress import progress_bar

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

    The caller owns it (``with ldopt.parallel.local_pool(2) as ex: ...``).

    Parameters
    ----------
    workers
        Processes (default: the cores).
    threads_per_worker
        Kernel threads per process (BLAS, numba, solvers); ``None``: leave them.
    """
    from .threads import num_threads  # noqa: PLC0415

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

    ``with ldopt.parallel.dask_executor("tcp://host:8786") as ex: dec.dual(costs, executor=ex)``.
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

    from .threads import num_threads  # noqa: PLC0415

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


def chunks(total: int, chunk_size: int | None, parts: int = 8) -> list[tuple[int, int]]:
    """``[start, stop)`` ranges covering ``total`` items: ``chunk_size`` each, or ``parts`` chunks.

    Parameters
    ----------
    total
        Items to cover.
    chunk_size
        Items per chunk, or ``None``.
    parts
        Chunks when ``chunk_size`` is ``None``.
    """
    total = checks.nonnegative_int("total", total)
    chunk = checks.positive_int_or_none("chunk_size", chunk_size)
    size = chunk if chunk is not None else max(1, -(-total // checks.positive_int("parts", parts)))
    return [(s, min(s + size, total)) for s in range(0, total, size)]


_CHUNK = re.compile(r"^\.?chunk-\d{8}-\d{8}\.npz(\.json)?(\..*\.tmp)?$")


def clear_checkpoint(folder: str | Path) -> None:
    """Delete the chunk files [`run_chunks()`][ldopt.parallel.run_chunks] wrote in ``folder`` (and partial ones), then
    the folder if that left it empty; anything else in it is left alone.

    Parameters
    ----------
    folder
        The checkpoint folder.
    """
    folder = Path(folder)
    if not folder.is_dir():
        return
    for f in folder.iterdir():
        if f.is_file() and _CHUNK.match(f.name):
            f.unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        folder.rmdir()  # only if empty


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

    Parameters
    ----------
    fn
        The work of one chunk (picklable with an executor).
    ranges
        The chunks' ``[start, stop)`` ranges.
    args
        ``fn``'s arguments for a range.
    executor
        A ``concurrent.futures.Executor``, or ``None`` (here, in order).
    checkpoint
        A folder where every finished chunk is saved atomically, or ``None``.
    expect
        A chunk's key fields (a saved chunk is used only if they match).
    to_arrays
        How a chunk's result is saved (arrays and a header).
    from_arrays
        How a saved chunk is read back.
    progress
        Show a progress bar.
    desc
        The bar's label.
    """
    store = None
    if checkpoint is not None:
        if to_arrays is None or from_arrays is None:
            raise InputError("run_chunks: a checkpoint needs to_arrays and from_arrays")
        store = _ChunkStore(Path(checkpoint), ranges, expect, to_arrays, from_arrays)
    results = store.load() if store is not None else {}
    loaded = len(results)
    todo = [i for i in range(len(ranges)) if i not in results]

    def keep(i: int, value: Any) -> None:
        results[i] = value
        if store is not None:
            store.save(i, value)

    if executor is None:
        for i in progress_bar(todo, enable=progress and len(todo) > 1, desc=desc):
            keep(i, fn(*args(*ranges[i])))
    else:
        _gather(executor, fn, args, ranges, todo, keep, progress, desc)
    return [results[i] for i in range(len(ranges))], {"computed": len(todo), "loaded": loaded}


class _ChunkStore:
    """Finished chunks on disk: one ``.npz`` + JSON pair each, keyed by ``expect(start, stop)``."""

    def __init__(
        self,
        folder: Path,
        ranges: list[tuple[int, int]],
        expect: Callable[[int, int], dict[str, Any]] | None,
        to_arrays: Callable[[Any], tuple[dict[str, np.ndarray], dict[str, Any]]],
        from_arrays: Callable[[dict[str, np.ndarray], dict[str, Any]], Any],
    ) -> None:
        self.folder, self.ranges, self.expect = folder, ranges, expect
        self.to_arrays, self.from_arrays = to_arrays, from_arrays
        self.failed = False  # after a failed write (a full disk) the run goes on without saving

    def _path(self, i: int) -> Path:
        s, e = self.ranges[i]
        return self.folder / f"chunk-{s:08d}-{e:08d}.npz"

    def _key(self, i: int) -> dict[str, Any] | None:
        return self.expect(*self.ranges[i]) if self.expect else None

    def load(self) -> dict[int, Any]:
        """The chunks already on disk, by position."""
        out = {}
        for i in range(len(self.ranges)):
            hit = cache.load_or_recompute(self._path(i), self._key(i), self.from_arrays)
            if hit is not None:
                out[i] = hit
        return out

    def save(self, i: int, value: Any) -> None:
        """Save chunk ``i`` atomically; a failed write warns once and stops further saves."""
        if self.failed:
            return
        arrays, header = self.to_arrays(value)
        try:
            cache.save(self._path(i), arrays, {**header, **(self._key(i) or {})})
        except CacheError as exc:  # the computation goes on; only resuming is lost
            self.failed = True
            warnings.warn(f"{exc}; the run goes on without checkpoints", stacklevel=4)


def _gather(
    executor: Executor,
    fn: Callable[..., Any],
    args: Callable[[int, int], tuple],
    ranges: list[tuple[int, int]],
    todo: list[int],
    keep: Callable[[int, Any], None],
    progress: bool,
    desc: str,
) -> None:
    """Submit every chunk, keep each result as it completes; the first error is raised once every
    other chunk has finished (and been kept); Ctrl-C cancels what has not started."""
    futures = {executor.submit(fn, *args(*ranges[i])): i for i in todo}
    error: BaseException | None = None
    try:
        for f in progress_bar(as_completed(futures), enable=progress, desc=desc, total=len(futures)):
            try:
                keep(futures[f], f.result())
            except Exception as exc:
                error = error or exc
    except BaseException:  # Ctrl-C: what finished is already saved; stop the rest
        for f in futures:
            f.cancel()
        raise
    if error is not None:
        raise error
