"""Training sets: [`LDDataset`][ldopt_torch.data.dataset.LDDataset] (the paper's ``S^(d)`` from one dual solve);
the baselines' [`OptDataset`][ldopt_torch.data.optdataset.OptDataset] shares the base here.

Items are dictionaries of tensors; ``index`` keeps every instance's identity under shuffling, and
every per-instance array (multipliers, main solutions) is looked up by it, never by position in
a batch. Both work with a ``torch.utils.data.DataLoader``; `batches()` is the same without
the per-item overhead.

[`ldopt_torch.data.multipliers`][ldopt_torch.data.multipliers] builds the multipliers (cache
lookup, dual solve, chunks); the dataset stores and serves them.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ldopt import Decomposition, DualResult, checks
from ldopt.dual import TRAINING, DualSettings, resolve_settings
from ldopt.errors import InputError
from ldopt_torch.data.batches import InstanceSet, LDBatch
from ldopt_torch.data.dynamic import DynamicMultipliers, check_following
from ldopt_torch.data.multipliers import build


def main_blocks(decompositions: Any, m: int) -> list[int]:
    """``"all"`` or a list of block indices, as the block indices."""
    if isinstance(decompositions, str) and decompositions == "all":
        return list(range(m))
    what = f"'all' or a list of block indices in [0, {m})"
    if not isinstance(decompositions, (list, tuple, range, np.ndarray)) or not len(decompositions):
        raise InputError(f"decompositions: expected {what}, got {decompositions!r}")
    ds = [checks.nonnegative_int("decompositions", d) for d in decompositions]
    if any(d >= m for d in ds):
        raise InputError(f"decompositions: expected {what}, got {list(decompositions)}")
    return ds


def float32(a: np.ndarray) -> torch.Tensor:
    return torch.as_tensor(np.ascontiguousarray(a), dtype=torch.float32)


class LDDataset(InstanceSet):
    """The training sets ``S^(d)``: features, costs, multipliers ``μ^(d)`` and main solutions.

    One ``dec.dual`` call with the settings ``dual`` gives the multipliers of every decomposition
    in ``decompositions``. The default, [`lt.DEFAULTS.dual`][ldopt_torch.train.presets.DEFAULTS]
    ([`ldopt.dual.TRAINING`][ldopt.dual.settings.TRAINING]), is one joint μ-form run of 30
    Polyak steps from the start ``mu0="auto"`` picks: the symmetric start (every block's objective
    ``q(c)/m``), or on a linear model whose blocks all touch at least
    [`LP_WIDTH`][ldopt.dual.settings.LP_WIDTH] variables the LP relaxation's duals, priced once.
    ``lt.PAPER.dual`` is the paper's start (``μ = 1``) in the dense layout. What each costs and
    how it trains is measured in ``docs/results.md`` ("Which multipliers to train on", "The
    largest public DFL knapsack").
    Items carry ``index``, ``d``, ``features``, ``costs``, ``main_objective``
    (``λ_d = q(c) + Σ_{k≠d} μ_k``) and ``main_solution`` (``x_d*``), built per batch;
    `multipliers()` gives ``μ^(d)`` (``(m-1, n)`` an item). `view()` selects the decomposition.

    ``dynamic``: a [`DynamicMultipliers`][ldopt_torch.DynamicMultipliers] makes [`fit()`][ldopt_torch.fit] move the
    multipliers towards the model's predictions during training (μ-form modes; off by default, see
    ``docs/dynamic.md``); the cached multipliers are where every fit starts.

    ``cache``: a folder (file name from the key) or an ``.npz`` path; a second run with the same
    problem, costs and settings loads it instead of solving. While building, finished chunks of
    instances are saved beside it (``.chunks``), so an interrupted construction resumes; a cache
    left half written by a killed process is rebuilt from those chunks, and an unusable entry is
    computed again with a warning.

    Parameters
    ----------
    dec
        The decomposition whose multipliers the training sets carry.
    features
        ``(B, p)`` features, one row per cost vector.
    costs
        ``(B, num_costs)`` true costs.
    dual
        The dual's settings, a [`DualSettings`][ldopt.dual.DualSettings] (mode, step rule, start,
        solvers, layout, ...), passed to ``dec.dual`` and used as the cache key; ``None``:
        ``lt.DEFAULTS.dual``.
    iterations
        The dual's steps per run, merged into ``dual`` where given.
    decompositions
        ``"all"`` or the main blocks ``d`` to build ``S^(d)`` for.
    cache
        A folder (the file name comes from the key) or an ``.npz`` path, or ``None``.
    executor
        A ``concurrent.futures.Executor`` for the dual solve, or ``None``.
    progress
        Show a progress bar.
    dynamic
        A [`DynamicMultipliers`][ldopt_torch.DynamicMultipliers], or ``None`` (fixed multipliers).
    """

    def __init__(
        self,
        dec: Decomposition,
        features: Any,
        costs: Any,
        dual: DualSettings | None = None,
        *,
        iterations: int | None = None,
        decompositions: str | Sequence[int] = "all",
        cache: str | Path | None = None,
        executor: Executor | None = None,
        progress: bool = True,
        dynamic: DynamicMultipliers | None = None,
    ) -> None:
        checks.instance("dec", dec, Decomposition, "an ldopt.Decomposition (ldopt.decompose(problem))")
        super().__init__(dec.problem, features, costs)
        self.dec = dec
        self.decompositions = main_blocks(decompositions, dec.num_blocks)
        base = TRAINING if dual is None else dual  # lt.DEFAULTS.dual
        checks.instance("dual", base, DualSettings, "an ldopt.dual.DualSettings (e.g. lt.PAPER.dual) or None")
        settings = resolve_settings(dec, base.merged(iterations=iterations))
        self.dynamic = check_following(dynamic, settings.mode)
        self.dual_settings = settings
        self.settings = settings.key()
        progress = checks.boolean("progress", progress)
        cache = checks.path_or_none("cache", cache)
        checks.executor_or_none("executor", executor)
        built = build(dec, self.costs_np, settings, cache=cache, executor=executor, progress=progress)
        self.cache_path, self.loaded_from_cache = built.cache_path, built.loaded_from_cache
        self.chunks_computed, self.chunks_loaded = built.chunks_computed, built.chunks_loaded
        self._use(built.result)
        self.construction_seconds = self.result.seconds  # as measured when built, also when loaded
        self.d = self.decompositions[0]

    def _use(self, result: DualResult) -> None:
        """Serve ``result``'s main objectives and main solutions, built per batch from it (``O(n)``
        an item in either layout: no second copy of every decomposition's arrays)."""
        self.result = result

    def with_result(self, result: DualResult) -> LDDataset:
        """The same instances with other multipliers ``result`` (e.g. continued from these by
        ``dec.dual(costs, warm=data.result)``); this dataset is unchanged.

        Parameters
        ----------
        result
            A dual result of this dataset's decomposition, mode and instances.
        """
        checks.instance("result", result, DualResult, "an ldopt DualResult of this training set's decomposition")
        mine = (self.result.mode, self.result.num_instances, self.result.num_blocks, self.result.num_vars)
        got = (result.mode, result.num_instances, result.num_blocks, result.num_vars)
        if got != mine:
            raise InputError(f"result: expected (mode, instances, blocks, variables) = {mine}, got {got}")
        out = self._copy()
        out._use(result)
        return out

    def following(self, dynamic: DynamicMultipliers | None) -> LDDataset:
        """The same data with multipliers that follow the model during training (``None``: fixed).

        Parameters
        ----------
        dynamic
            A [`DynamicMultipliers`][ldopt_torch.DynamicMultipliers], or ``None``.
        """
        out = self._copy()
        out.dynamic = check_following(dynamic, self.result.mode)
        return out

    def _copy(self) -> LDDataset:
        out = object.__new__(LDDataset)
        out.__dict__.update(self.__dict__)
        return out

    @property
    def bound(self) -> np.ndarray:
        """The dual bound of every instance (user's sense)."""
        return self.result.bound

    def multipliers(self, d: int, index: Any = None) -> torch.Tensor:
        """``μ^(d)`` of the instances ``index`` (all by default): ``(B, m-1, n)``.

        Parameters
        ----------
        d
            A main block (decomposition).
        index
            The instances; ``None``: all.
        """
        idx = None if index is None else np.asarray(index)
        return torch.as_tensor(self.result.multipliers(d, idx), dtype=torch.float32)

    def view(self, d: int) -> LDDataset:
        """The same data with decomposition ``d`` (shares every array).

        Parameters
        ----------
        d
            One of the dataset's decompositions.
        """
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)) or d not in self.decompositions:
            raise InputError(f"d: expected one of the dataset's decompositions {self.decompositions}, got {d!r}")
        out = self._copy()
        out.d = int(d)
        return out

    def _batch(self, idx: torch.Tensor) -> LDBatch:
        d, rows = self.d, idx.numpy()
        main, sol = float32(self.result.main_objective(d, rows)), float32(self.result.main_solution(d, rows))
        features, costs = self.features[idx], self.costs[idx]
        # μ^(d) ((m−1)·n numbers an item) stays out of the batches: `multipliers(d, index)` gives it
        return LDBatch(index=idx, d=d, features=features, costs=costs, main_objective=main, main_solution=sol)
