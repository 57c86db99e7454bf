"""The baselines' training set: features, costs and the full problem's true optima (and, for CaVE
and LAVA, the binding normals and adjacent vertices at them), cached as arrays and JSON."""

from __future__ import annotations

from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ldopt import Problem, checks
from ldopt.evaluate.regret import optima
from ldopt_torch.data.batches import InstanceSet, OptBatch
from ldopt_torch.data.structure import adjacent_steps, pad, tight_normals


class OptDataset(InstanceSet):
    """Features, costs and the true optima ``solution``/``objective`` of the full problem; with
    ``structure=True`` also the binding normals (``tight``, CaVE) and adjacent-vertex ``steps`` (LAVA).

    ``time_limit`` (seconds per instance) keeps each solver's incumbent where the optimum takes
    longer: large problems then train on near-optimal targets.

    Parameters
    ----------
    problem
        The problem.
    features
        Features ``(B, p)``.
    costs
        True costs ``(B, num_costs)``.
    solver
        The solver of the true optima.
    cache
        A folder or ``.npz`` path for the optima, or ``None``.
    executor
        A ``concurrent.futures.Executor`` for the solves, or ``None`` (threads).
    structure
        Also the binding constraint normals and adjacent vertices (CaVE, LAVA).
    time_limit
        Seconds per solve, or ``None``.
    """

    def __init__(
        self,
        problem: Problem,
        features: Any,
        costs: Any,
        solver: str = "auto",
        *,
        cache: str | Path | None = None,
        executor: Executor | None = None,
        structure: bool = False,
        time_limit: float | None = None,
    ) -> None:
        super().__init__(problem, features, costs)
        solver = checks.solver_name("solver", solver)
        time_limit = checks.positive_or_none("time_limit", time_limit, " (seconds)")
        opt = optima(problem, self.costs_np, solver, time_limit=time_limit, executor=executor, cache=cache)
        x, obj = opt.x, opt.value
        self.solution = torch.as_tensor(x, dtype=torch.float32)
        self.objective = torch.as_tensor(obj, dtype=torch.float32)
        self.optimum = np.asarray(obj, dtype=float)
        self.structure = bool(structure)
        if structure:  # the CaVE cone and LAVA's adjacent vertices at every optimum
            self.tight = torch.as_tensor(pad(tight_normals(problem, x)), dtype=torch.float32)
            self.steps = torch.as_tensor(adjacent_steps(problem, x), dtype=torch.float32)

    def _batch(self, idx: torch.Tensor) -> OptBatch:
        out = OptBatch(
            index=idx,
            features=self.features[idx],
            costs=self.costs[idx],
            solution=self.solution[idx],
            objective=self.objective[idx],
        )
        if self.structure:
            out["tight"], out["steps"] = self.tight[idx], self.steps[idx]
        return out
