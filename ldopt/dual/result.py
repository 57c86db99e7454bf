"""The result of a dual solve: multipliers, bounds and main solutions, in the user's sense."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InputError
from .settings import DualMode


@dataclass
class DualResult:
    """Multipliers, bounds and main solutions for ``B`` instances of an ``m``-block decomposition.

    What is stored depends on the mode (memory grows as ``B·m·n`` except for ``"independent"``):

    * ``lam``: shared — the symmetric ``λ`` ``(B, m, n)``; joint — each block's ``λ_k`` when it is
      not the main block ``(B, m, n)``; independent — every run's ``λ`` ``(B, m, m, n)`` (run ``d``,
      block ``k``), ``B·m²·n`` floats;
    * ``main``: the main objective ``λ_d = q(c) + Σ_{k≠d} μ_k^(d)`` of every decomposition
      ``(B, m, n)`` (for shared it is ``lam`` itself);
    * ``main_x``: the main solution ``x_d*`` of every decomposition ``(B, m, n)``;
    * ``run_bounds``: ``(B, 1)`` for shared (every decomposition has the same bound), else ``(B, m)``.

    Parameters
    ----------
    sense
        The problem's sense, ``"max"`` or ``"min"``.
    mode
        ``"shared"``, ``"independent"`` or ``"joint"``.
    lam
        The multipliers: shared ``(B, m, n)``, independent ``(B, m, m, n)`` (one set per run), joint ``(B, m, n)``
        penalties.
    main
        The main objectives ``λ_d`` (user's sense).
    main_x
        The main solutions ``x_d*``.
    run_bounds
        Each run's bound ``(B, R)`` (user's sense).
    history
        The best bound so far per iteration ``(iterations, B)``.
    primal_objective
        The best feasible value found per instance (``nan`` where none).
    primal_x
        That feasible point ``(B, n)``.
    iterations
        Iterations run (the most of any instance).
    seconds
        Wall-clock seconds of the solve.
    step
        The step rule used (``"polyak"``, ``"adam"`` or ``"master"``).
    solvers
        Each block's solver name.
    chunks_computed
        Chunks solved by this call (with an executor or a checkpoint).
    chunks_loaded
        Chunks loaded from the checkpoint.
    """

    sense: str
    mode: DualMode
    lam: np.ndarray
    main: np.ndarray
    main_x: np.ndarray
    run_bounds: np.ndarray
    history: np.ndarray  # (iterations, B): per iteration, the best bound so far (joint: the mean over d)
    primal_objective: np.ndarray  # (B,) best feasible objective found (NaN if none)
    primal_x: np.ndarray  # (B, n)
    iterations: int
    seconds: float
    step: str
    solvers: list[str] = field(default_factory=list)
    chunks_computed: int = 1
    chunks_loaded: int = 0

    @property
    def independent(self) -> bool:
        """Whether the multipliers come from the paper's independent runs."""
        return self.mode == "independent"

    @property
    def num_instances(self) -> int:
        """``B``: the instances solved."""
        return self.main.shape[0]

    @property
    def num_blocks(self) -> int:
        """``m``: the blocks of the decomposition."""
        return self.main.shape[1]

    def _d(self, d: Any) -> int:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or not 0 <= d < self.num_blocks:
            raise InputError(f"d: expected a decomposition index in [0, {self.num_blocks}), got {d!r}")
        return int(d)

    @property
    def bound(self) -> np.ndarray:
        """The best valid bound per instance: ``(B,)``, upper for max, lower for min."""
        return self.run_bounds.min(axis=1) if self.sense == "max" else self.run_bounds.max(axis=1)

    def bound_of(self, d: int) -> np.ndarray:
        """The bound of decomposition ``d``'s multipliers: ``(B,)``.

        Parameters
        ----------
        d
            A main block (decomposition) index.
        """
        d = self._d(d)
        return self.run_bounds[:, 0 if self.run_bounds.shape[1] == 1 else d]

    @property
    def lambdas(self) -> np.ndarray:
        """Symmetric multipliers ``(B, m, n)`` of the shared solve (they sum to ``q(c)``)."""
        if self.mode != "shared":
            raise InputError(f"lambdas: {self.mode} runs have one λ per decomposition; use lambdas_of(d)")
        return self.lam

    def _index(self, index: Any) -> Any:
        """``index`` checked as instances of this result: ``None`` (all), a slice, indices or a mask."""
        if index is None:
            return slice(None)
        if isinstance(index, slice):
            return index
        what = f"instances of [0, {self.num_instances}) (a slice, indices or a mask)"
        try:
            arr = None if isinstance(index, (bool, np.bool_)) else np.asarray(index)
        except ValueError:  # a ragged list
            arr = None
        if arr is None or arr.dtype.kind not in "biu" or arr.ndim != 1:
            raise InputError(f"index: expected {what}, got {index!r}")
        try:
            np.arange(self.num_instances)[arr]
        except IndexError:
            raise InputError(f"index: expected {what}, got {index!r}") from None
        return arr

    def lambdas_of(self, d: int, index: Any = None) -> np.ndarray:
        """Decomposition ``d``'s symmetric multipliers ``(B, m, n)`` (they sum to ``q(c)``);
        ``index`` selects instances.

        Parameters
        ----------
        d
            A main block (decomposition) index.
        index
            The instances (a slice, mask or indices); ``None``: all.
        """
        d = self._d(d)
        sel = self._index(index)
        if self.mode == "independent":
            return self.lam[sel, d]
        lam = self.lam[sel]
        if self.mode == "joint":
            lam = lam.copy()
            lam[:, d] = self.main[sel, d]
        return lam

    def multipliers(self, d: int, index: Any = None) -> np.ndarray:
        """μ^(d): ``(B, m-1, n)``, the blocks other than ``d`` in ascending order; ``index``
        selects instances (e.g. a training batch) without building the others.

        Parameters
        ----------
        d
            A main block (decomposition) index.
        index
            The instances (a slice, mask or indices); ``None``: all.
        """
        d = self._d(d)
        keep = [k for k in range(self.num_blocks) if k != d]
        sel = self._index(index)
        lam = self.lam[sel, d] if self.mode == "independent" else self.lam[sel]
        return -lam[:, keep]

    def main_objective(self, d: int) -> np.ndarray:
        """``q(c) + Σ_{k≠d} μ_k`` — the main subproblem's objective: ``(B, n)``.

        Parameters
        ----------
        d
            A main block (decomposition) index.
        """
        return self.main[:, self._d(d)]

    def main_solution(self, d: int) -> np.ndarray:
        """``x_d*(μ^(d), c)``: ``(B, n)``.

        Parameters
        ----------
        d
            A main block (decomposition) index.
        """
        return self.main_x[:, self._d(d)]

    @property
    def gap(self) -> np.ndarray:
        """``|bound − primal| / max(1, |primal|)`` per instance (NaN without a primal value)."""
        return np.abs(self.bound - self.primal_objective) / np.maximum(1.0, np.abs(self.primal_objective))

    _ARRAYS = ("lam", "main", "main_x", "run_bounds", "history", "primal_objective", "primal_x")

    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The result as arrays and a JSON-able header (see [`ldopt.cache`][ldopt.cache])."""
        arrays = {k: getattr(self, k) for k in self._ARRAYS if not (k == "main" and self.mode == "shared")}
        header = dict(
            sense=self.sense,
            mode=self.mode,
            iterations=self.iterations,
            seconds=self.seconds,
            step=self.step,
            solvers=list(self.solvers),
        )
        return arrays, header

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], header: dict[str, Any]) -> DualResult:
        """The result saved by `to_arrays()`.

        Parameters
        ----------
        arrays
            The arrays `to_arrays()` returned (or a cache entry's).
        header
            Its JSON header.
        """
        main = arrays["lam"] if header["mode"] == "shared" else arrays["main"]
        return cls(
            sense=header["sense"],
            mode=header["mode"],
            lam=arrays["lam"],
            main=main,
            main_x=arrays["main_x"],
            run_bounds=arrays["run_bounds"],
            history=arrays["history"],
            primal_objective=arrays["primal_objective"],
            primal_x=arrays["primal_x"],
            iterations=int(header["iterations"]),
            seconds=float(header["seconds"]),
            step=header["step"],
            solvers=list(header["solvers"]),
        )

    @classmethod
    def concat(cls, parts: list[DualResult]) -> DualResult:
        """Results of consecutive chunks of instances as one.

        Parameters
        ----------
        parts
            Results of consecutive chunks, in order.
        """
        if len(parts) == 1:
            return parts[0]
        it = max(p.iterations for p in parts)
        first = parts[0]
        cat = lambda name: np.concatenate([getattr(p, name) for p in parts])  # noqa: E731
        main = None if first.mode == "shared" else cat("main")
        lam = cat("lam")
        return cls(
            sense=first.sense,
            mode=first.mode,
            lam=lam,
            main=lam if main is None else main,
            main_x=cat("main_x"),
            run_bounds=cat("run_bounds"),
            history=np.concatenate([pad_rows(p.history, it) for p in parts], axis=1),
            primal_objective=cat("primal_objective"),
            primal_x=cat("primal_x"),
            iterations=it,
            seconds=max(p.seconds for p in parts),
            step=first.step,
            solvers=first.solvers,
        )


def pad_rows(h: np.ndarray, rows: int) -> np.ndarray:
    """A history cut short (early stop) extended to ``rows`` iterations by its last row."""
    return np.vstack([h, np.repeat(h[-1:], rows - len(h), axis=0)]) if len(h) < rows else h
