"""Chunked, resumable runs: work split into ranges of instances, run here or over an executor, each
finished chunk saved atomically to a checkpoint folder and loaded from it on a rerun with the same
inputs (see `ldopt.runtime.parallel`)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from concurrent.futures import Executor, as_completed
from pathlib import Path
from typing import Any

import numpy as np

from ldopt import checks
from ldopt.errors import InputError
from ldopt.runtime import cache
from ldopt.runtime.progress import progress_bar


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
    """Delete the chunk files [`run_chunks()`][ldopt.runtime.parallel.run_chunks] wrote in ``folder``
    (and partial ones), then the folder if that left it empty; anything else in it is left alone.

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
        then = "the run goes on without checkpoints"  # only resuming is lost
        self.failed = not cache.save_or_warn(self._path(i), arrays, {**header, **(self._key(i) or {})}, then, 4)


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
