"""Our problems and LD blocks as PyEPO ``optModel`` s, so every ``pyepo.func`` loss runs on them.

``PyEPOModel(problem)`` solves the full problem by the named solver (with ``time_limit`` or
``gap``, its incumbent stands for the optimum) and shows PyEPO the variables that carry the costs
(all of them where ``Q = I``; a TSP's edges beside its flows); ``PyEPOModel(dec, block=d)`` solves block ``d``'s
subproblem (its objective is the block's own coefficient vector). Both honour
PyEPO's ``ModelSpec``/``rebuild`` contract: the constructor arguments (a picklable
[`Problem`][ldopt.Problem] or [`Decomposition`][ldopt.Decomposition], a solver name, a block index) rebuild an
equivalent model in a worker process.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ldopt import Decomposition, Problem
from ldopt.errors import InputError, SolverError
from ldopt.evaluate.regret import solve_many

try:
    from pyepo import EPO
    from pyepo.model.opt import optModel
except ImportError as exc:  # pragma: no cover - pyepo is in the torch extra
    raise ImportError("the PyEPO adapter needs PyEPO: pip install 'ldopt[torch]'") from exc


class PyEPOModel(optModel):
    """A PyEPO ``optModel`` over a [`Problem`][ldopt.Problem] (``block=None``) or one LD block.

    Parameters
    ----------
    target
        A [`Problem`][ldopt.Problem], or a decomposition with ``block``.
    solver
        A solver name or ``"auto"``.
    block
        The block of a decomposition to model, or ``None``.
    time_limit
        Seconds per solve, or ``None``.
    gap
        Relative MIP gap (0: exact).
    """

    def __init__(
        self,
        target: Problem | Decomposition,
        solver: str = "auto",
        block: int | None = None,
        *,
        time_limit: float | None = None,
        gap: float = 0.0,
    ) -> None:
        if block is None and not isinstance(target, Problem):
            raise InputError(
                f"target: expected an ldopt.Problem (or a Decomposition with block=d), got {type(target).__name__}"
            )
        if block is not None and not isinstance(target, Decomposition):
            raise InputError(f"block={block}: expected an ldopt.Decomposition as target, got {type(target).__name__}")
        self.target, self.solver, self.block = target, solver, block
        self.time_limit, self.gap = time_limit, gap  # per full-problem solve; the incumbent is used
        self._problem = target if isinstance(target, Problem) else target.problem
        self._dec = target if isinstance(target, Decomposition) else None
        self._cost: np.ndarray | None = None
        super().__init__()

    def _getModel(self) -> tuple[Any, list[int]]:
        p = self._problem
        if self.block is None or self._dec is None:
            selected = p.compiled.cost_selection()
            if selected is None:
                raise InputError(
                    "PyEPOModel: PyEPO losses assume the objective is c·x (each cost on a variable "
                    "of its own, other variables at no cost); this problem's objective is q0 + Qc with "
                    "another Q or a constant term; train it with LDLoss or reformulate it"
                )
            self.modelSense = EPO.MAXIMIZE if p.sense == "max" else EPO.MINIMIZE
            self.selected = selected  # PyEPO sees the costed variables alone
            return p, selected.tolist()
        blk = self._dec.block(self.block)
        self.modelSense = EPO.MAXIMIZE if p.sense == "max" else EPO.MINIMIZE
        self._sign = p.sign
        return blk.solver(self.solver), list(range(p.num_vars))

    def setObj(self, c: Any) -> None:
        """Set the cost vector of the next ``solve()``.

        Parameters
        ----------
        c
            One cost vector ``(num_costs,)`` (the block's objective for a block).
        """
        c = np.asarray(c.detach().cpu().numpy() if hasattr(c, "detach") else c, dtype=float).reshape(-1)
        if c.shape != (self.num_cost,):
            raise InputError(f"setObj: expected {self.num_cost} costs, got shape {c.shape}")
        self._cost = c

    def solve(self) -> tuple[np.ndarray, float]:
        if self._cost is None:
            raise InputError("solve: call setObj(c) first")
        c = self._cost
        if self.block is None:
            s = solve_many(self._problem, c[None, :], self.solver, time_limit=self.time_limit, gap=self.gap)
            if not s.ok[0]:
                raise SolverError(f"PyEPOModel: the full problem has no solution ({s.status[0]}: {s.messages[0]})")
            x = s.x[0][self.selected]
        else:
            x = self._model.argmax(self._sign * c[None, :])[0]
        return x, float(c @ x)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        if self.block is not None:
            state["_model"] = None  # block solvers stay in their process; rebuilt on unpickling
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self.block is not None and self._dec is not None and self._model is None:
            self._model = self._dec.block(self.block).solver(self.solver)
