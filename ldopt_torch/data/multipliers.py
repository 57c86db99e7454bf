"""The multipliers a training set carries, built once: a cache lookup, else one ``dec.dual`` solve
(finished chunks saved beside the cache entry while it runs, so an interrupted build resumes),
saved atomically. [`LDDataset`][ldopt_torch.LDDataset] stores and serves what
[`build()`][ldopt_torch.data.multipliers.build] returns.

Caches are arrays (``.npz``) and JSON, never pickle, keyed by the problem's fingerprint, the
blocks, the costs and the resolved settings ([`ldopt.runtime.cache`][ldopt.runtime.cache]).
"""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ldopt import Decomposition, DualResult
from ldopt.dual import DualSettings
from ldopt.runtime import cache as ldcache
from ldopt.runtime.parallel import clear_checkpoint


@dataclass(frozen=True)
class Built:
    """What [`build()`][ldopt_torch.data.multipliers.build] made.

    Parameters
    ----------
    result
        The dual result (multipliers, bounds, main solutions).
    cache_path
        The cache entry, or ``None`` without a cache.
    loaded_from_cache
        Whether ``result`` was read from ``cache_path`` (no solve).
    chunks_computed
        Chunks of instances solved by this build.
    chunks_loaded
        Chunks of instances read from an interrupted build's checkpoint.
    """

    result: DualResult
    cache_path: Path | None = None
    loaded_from_cache: bool = False
    chunks_computed: int = 0
    chunks_loaded: int = 0


def build(
    dec: Decomposition,
    costs: np.ndarray,
    settings: DualSettings,
    *,
    cache: Path | None,
    executor: Executor | None,
    progress: bool,
) -> Built:
    """The multipliers of ``dec`` for ``costs`` under the resolved ``settings``: the cache entry for
    them where ``cache`` holds one, else ``dec.dual``'s (saved to ``cache``; an entry that cannot be
    written is warned about and the result kept unsaved).

    Parameters
    ----------
    dec
        The decomposition.
    costs
        ``(B, num_costs)`` costs.
    settings
        Resolved dual settings (``ldopt.dual.resolve_settings``); their key is part of the cache's.
    cache, executor, progress
        As [`LDDataset`][ldopt_torch.LDDataset]'s.
    """

    def solve(checkpoint: Path | None) -> DualResult:
        return dec.dual(costs, settings, executor=executor, checkpoint=checkpoint, progress=progress)

    if cache is None:
        result = solve(None)
        return Built(result, None, False, result.chunks_computed, result.chunks_loaded)
    expect = dict(
        problem=dec.problem.compiled.fingerprint(),
        blocks=ldcache.digest([b.rows for b in dec.blocks]),
        costs=ldcache.digest(costs),
        settings=settings.key(),
    )
    path = ldcache.entry_path(cache, "lddata", ldcache.digest(expect))
    chunks = path.with_suffix(".chunks")
    # a torn entry (e.g. killed while writing the final pair) is computed again, from the chunks
    # kept beside it where they are on disk
    hit = ldcache.load_or_recompute(path, expect, DualResult.from_arrays)
    if hit is not None:
        return Built(hit, path, True)
    result = solve(chunks)
    arrays, header = result.to_arrays()
    then = "the training set is used without being cached"  # the multipliers are computed: keep them, unsaved
    if ldcache.save_or_warn(path, arrays, {**header, **expect}, then, stacklevel=3):
        clear_checkpoint(chunks)  # the whole result is saved: the chunks are spent
    return Built(result, path, False, result.chunks_computed, result.chunks_loaded)
