"""Training sets: :class:`LDDataset` (the paper's ``S^(d)`` from one dual solve) and
:class:`OptDataset` (true full-problem optima, for the baselines).

Items are dictionaries of tensors; ``index`` keeps every instance's identity under shuffling, and
every per-instance array (multipliers, main solutions) is looked up by it, never by position in
a batch. Both work with a ``torch.utils.data.DataLoader``; :meth:`batches` is the same without
the per-item overhead.

Caches are arrays (``.npz``) and JSON, never pickle, written atomically and keyed by the
problem's fingerprint, the costs and the settings (:mod:`ldopt.cache`).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ldopt import Decomposition, DualResult, Problem
from ldopt import cache as ldcache
from ldopt.errors import InputError
from ldopt.regret import solve_many


def _features(features: Any, n: int) -> torch.Tensor:
    f = features.detach().cpu() if isinstance(features, torch.Tensor) else torch.as_tensor(np.asarray(features))
    if f.ndim != 2 or f.shape[0] != n:
        raise InputError(f"features: expected shape ({n}, num_features) (one row per cost vector), "
                         f"got {tuple(f.shape)}")
    if not torch.isfinite(f).all():
        raise InputError("features: expected finite values, got NaN or inf")
    return f.to(torch.float32)


def _cache_path(cache_arg: str | Path, prefix: str, key: str) -> Path:
    path = Path(cache_arg)
    return path if path.suffix == ".npz" else path / f"{prefix}-{key[:20]}.npz"


class _Base(torch.utils.data.Dataset):
    _fields: tuple[str, ...] = ()

    def __init__(self, problem: Problem, features: Any, costs: Any) -> None:
        c, _ = problem.check_costs(costs)
        self.problem = problem
        self.costs_np = c
        self.features = _features(features, len(c))
        self.costs = torch.as_tensor(c, dtype=torch.float32)

    def __len__(self) -> int:
        return len(self.costs)

    @property
    def num_features(self) -> int:
        return self.features.shape[1]

    def _batch(self, idx: torch.Tensor) -> dict[str, Any]:
        raise NotImplementedError

    def __getitem__(self, i: int) -> dict[str, Any]:
        b = self._batch(torch.tensor([int(i)]))
        return {k: (v[0] if isinstance(v, torch.Tensor) and v.ndim else v) for k, v in b.items()}

    def batches(self, batch_size: int = 32, shuffle: bool = True,
                generator: torch.Generator | None = None) -> Iterator[dict[str, Any]]:
        """Batches as dictionaries (as a ``DataLoader`` would collate them), shuffled by ``generator``."""
        n = len(self)
        order = torch.randperm(n, generator=generator) if shuffle else torch.arange(n)
        for s in range(0, n, batch_size):
            yield self._batch(order[s : s + batch_size])


class LDDataset(_Base):
    """The training sets ``S^(d)``: features, costs, multipliers ``μ^(d)`` and main solutions.

    One ``dec.dual`` call (shared symmetric solve by default) gives the multipliers of every
    decomposition in ``decompositions``. Items carry ``index``, ``d``, ``features``, ``costs``,
    ``main_objective`` (``λ_d = q(c) + Σ_{k≠d} μ_k``), ``main_solution`` (``x_d*``) and
    ``multipliers`` (``μ^(d)``, ``(m-1, n)``). :meth:`view` selects the decomposition.

    ``cache``: a folder (file name from the key) or an ``.npz`` path; a second run with the same
    problem, costs and settings loads it instead of solving. While building, finished chunks of
    instances are saved beside it (``.chunks``), so an interrupted construction resumes.
    """

    def __init__(self, dec: Decomposition, features: Any, costs: Any, iterations: int = 300,
                 decompositions: str | Sequence[int] = "all", *, cache: str | Path | None = None,
                 solver: Any = "auto", step: str = "polyak", independent: bool = False,
                 executor: Executor | None = None, progress: bool = True, **dual_options: Any) -> None:
        super().__init__(dec.problem, features, costs)
        m = dec.num_blocks
        if isinstance(decompositions, str):
            if decompositions != "all":
                raise InputError(f"decompositions: expected 'all' or a list of block indices, got {decompositions!r}")
            ds = list(range(m))
        else:
            ds = [int(d) for d in decompositions]
            bad = [d for d in ds if not 0 <= d < m]
            if bad or not ds:
                raise InputError(f"decompositions: expected indices in [0, {m}), got {list(decompositions)}")
        self.dec = dec
        self.decompositions = ds
        settings = dict(iterations=int(iterations), solver=solver, step=step, independent=bool(independent),
                        **{k: v for k, v in dual_options.items() if k != "chunk_size"})  # answers do not depend on it
        self.settings = json.loads(json.dumps(settings, sort_keys=True, default=repr))  # as the header stores it
        expect = dict(problem=dec.problem.compiled.fingerprint(), blocks=ldcache.digest([b.rows for b in dec.blocks]),
                      costs=ldcache.digest(self.costs_np), settings=self.settings)
        key = ldcache.digest(expect)
        self.cache_path: Path | None = None
        self.loaded_from_cache = False
        self.chunks_computed = self.chunks_loaded = 0
        result = None
        if cache is not None:
            self.cache_path = _cache_path(cache, "lddata", key)
            hit = ldcache.load(self.cache_path, expect)
            if hit is not None:
                result = DualResult.from_arrays(*hit)
                self.loaded_from_cache = True
        if result is None:
            chunks = self.cache_path.with_suffix(".chunks") if self.cache_path is not None else None
            result = dec.dual(self.costs_np, iterations=iterations, solver=solver, step=step,
                              independent=independent, executor=executor, progress=progress,
                              checkpoint=chunks, **dual_options)
            self.chunks_computed, self.chunks_loaded = result.chunks_computed, result.chunks_loaded
            if self.cache_path is not None:
                arrays, header = result.to_arrays()
                ldcache.save(self.cache_path, arrays, {**header, **expect})
                shutil.rmtree(chunks, ignore_errors=True)  # the whole result is saved: chunks are spent
        self.result = result
        self.construction_seconds = result.seconds  # as measured when built, also when loaded
        f32 = lambda a: torch.as_tensor(np.ascontiguousarray(a), dtype=torch.float32)  # noqa: E731
        self._main_objective = {d: f32(result.main_objective(d)) for d in ds}
        self._main_solution = {d: f32(result.main_solution(d)) for d in ds}
        self._multipliers = {d: f32(result.multipliers(d)) for d in ds}
        self.d = ds[0]

    @property
    def bound(self) -> np.ndarray:
        return self.result.bound

    def view(self, d: int) -> LDDataset:
        """The same data with decomposition ``d`` (shares every array)."""
        if d not in self.decompositions:
            raise InputError(f"d: expected one of the dataset's decompositions {self.decompositions}, got {d!r}")
        out = object.__new__(LDDataset)
        out.__dict__.update(self.__dict__)
        out.d = int(d)
        return out

    def _batch(self, idx: torch.Tensor) -> dict[str, Any]:
        d = self.d
        return dict(index=idx, d=d, features=self.features[idx], costs=self.costs[idx],
                    main_objective=self._main_objective[d][idx], main_solution=self._main_solution[d][idx],
                    multipliers=self._multipliers[d][idx])


class OptDataset(_Base):
    """Features, costs and the true optima ``solution``/``objective`` of the full problem; with
    ``structure=True`` also the binding normals (``tight``, CaVE) and adjacent-vertex ``steps`` (LAVA)."""

    def __init__(self, problem: Problem, features: Any, costs: Any, solver: str = "auto", *,
                 cache: str | Path | None = None, executor: Executor | None = None,
                 structure: bool = False) -> None:
        super().__init__(problem, features, costs)
        expect = dict(problem=problem.compiled.fingerprint(), costs=ldcache.digest(self.costs_np))
        key = ldcache.digest(expect, "optdata")
        hit = None
        if cache is not None:
            path = _cache_path(cache, "optdata", key)
            hit = ldcache.load(path, expect)
        if hit is not None:
            x, obj = hit[0]["x"], hit[0]["objective"]
        else:
            s = solve_many(problem, self.costs_np, solver, executor=executor)
            if not s.ok.all():
                bad = int(np.flatnonzero(~s.ok)[0])
                raise InputError(f"costs: instance {bad} has no optimal solution ({s.status[bad]})")
            x, obj = s.x, s.objective
            if cache is not None:
                ldcache.save(path, {"x": x, "objective": obj}, {**expect, "solver": s.solver})
        self.solution = torch.as_tensor(x, dtype=torch.float32)
        self.objective = torch.as_tensor(obj, dtype=torch.float32)
        self.optimum = np.asarray(obj, dtype=float)
        self.structure = bool(structure)
        if structure:  # the CaVE cone and LAVA's adjacent vertices at every optimum
            from .baselines import adjacent_steps, pad, tight_normals  # noqa: PLC0415

            self.tight = torch.as_tensor(pad(tight_normals(problem, x)), dtype=torch.float32)
            self.steps = torch.as_tensor(adjacent_steps(problem, x), dtype=torch.float32)

    def _batch(self, idx: torch.Tensor) -> dict[str, Any]:
        out = dict(index=idx, features=self.features[idx], costs=self.costs[idx], solution=self.solution[idx],
                   objective=self.objective[idx])
        if self.structure:
            out.update(tight=self.tight[idx], steps=self.steps[idx])
        return out

