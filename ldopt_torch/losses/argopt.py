"""Argopt maps in the user's sense, as torch-facing callables: a block's subproblem or the full
problem, solved by the block solver (oracle or registry solver) chosen by name."""

from __future__ import annotations

import numpy as np
import torch

from ldopt import Decomposition, Problem
from ldopt.evaluate.regret import checked, solve_many


class BlockArgopt:
    """``x*(w) = argmax/argmin {w·x : x ∈ D, C_d(x)}`` in the parent problem's sense.

    Sign handling lives here and only here: a minimisation's objective is negated into the
    block solvers' maximisation form.

    Parameters
    ----------
    dec
        The decomposition.
    d
        The main block.
    solver
        The block's solver: ``"auto"`` (its exact oracle where one fits) or a name.
    """

    def __init__(self, dec: Decomposition, d: int, solver: str = "auto") -> None:
        self.block = dec.block(d)
        self.d = int(d)
        self.sign = dec.problem.sign
        self.minimize = dec.problem.sense == "min"
        self.solver = self.block.solver(solver)
        moved = np.diff(dec.problem.compiled.Q.tocsr().indptr) > 0
        # the variables whose objective the costs move; perturbations (I-MLE, Fenchel–Young) act on
        # those alone, as a cost-space perturbation would (None: every variable)
        self.priced: np.ndarray | None = None if moved.all() else moved

    def mask(self, noise: torch.Tensor) -> torch.Tensor:
        """``noise`` ``(..., n)`` zeroed on the variables no cost moves (a flow, a slack).

        Parameters
        ----------
        noise
            A perturbation of objectives ``(..., n)``.
        """
        if self.priced is None:
            return noise
        return noise * torch.as_tensor(self.priced, dtype=noise.dtype, device=noise.device)

    def __call__(self, w: torch.Tensor) -> torch.Tensor:
        """Solutions ``(..., n)`` for objectives ``w`` ``(..., n)`` (no gradient)."""
        arr = w.detach().cpu().numpy().astype(float, copy=False)
        flat = arr.reshape(-1, arr.shape[-1])
        x = self.solver.argmax(self.sign * flat)
        return torch.as_tensor(np.asarray(x).reshape(arr.shape), dtype=w.dtype, device=w.device)


class ProblemArgopt:
    """``x*(c)`` of the full problem for cost vectors ``c`` (costs, not objective coefficients).

    Parameters
    ----------
    problem
        The problem.
    solver
        A solver name or ``"auto"``.
    """

    def __init__(self, problem: Problem, solver: str = "auto") -> None:
        self.problem = problem
        self.solver = solver
        self.minimize = problem.sense == "min"

    def __call__(self, c: torch.Tensor) -> torch.Tensor:
        arr = c.detach().cpu().numpy().astype(float, copy=False)
        flat = arr.reshape(-1, arr.shape[-1])
        s = checked(solve_many(self.problem, flat, self.solver), "full problem")
        shape = (*arr.shape[:-1], self.problem.num_vars)
        return torch.as_tensor(s.x.reshape(shape), dtype=c.dtype, device=c.device)
