"""The result of a dual solve: multipliers, bounds and main solutions, in the user's sense."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ldopt import checks
from ldopt.dual.settings import DualMode, Start
from ldopt.dual.support import Support
from ldopt.errors import InputError


def stack_parts(parts: list[dict[str, Any]], key: str, consume: bool) -> np.ndarray:
    """The parts' arrays ``key`` stacked on the first axis (each dropped from its part once copied
    when ``consume``)."""
    shape = (sum(len(p[key]) for p in parts), *parts[0][key].shape[1:])
    out = np.empty(shape, dtype=np.result_type(*(p[key] for p in parts)))
    start = 0
    for p in parts:
        size = len(p[key])
        out[start : start + size] = p[key]
        start += size
        if consume:
            p[key] = None
    return out


def compact(x: np.ndarray) -> np.ndarray:
    """``x`` as ``uint8`` where every value is 0 or 1 (solutions of binary blocks), else as it is."""
    x = np.asarray(x)
    if x.dtype == np.uint8 or x.size == 0:
        return x
    return x.astype(np.uint8) if ((x == 0) | (x == 1)).all() else x


def pad_rows(h: np.ndarray, rows: int) -> np.ndarray:
    """A history cut short (early stop) extended to ``rows`` iterations by its last row."""
    return np.vstack([h, np.repeat(h[-1:], rows - len(h), axis=0)]) if len(h) < rows else h


@dataclass
class DualResult:
    """Multipliers, bounds and main solutions for ``B`` instances of an ``m``-block decomposition.

    What is stored depends on the mode and the layout; `main_objective()`, `main_solution()`,
    `multipliers()` and `lambdas_of()` return the same dense arrays in both layouts. Dense (memory
    ``B·m·n``; ``B·m²·n`` for ``"independent"``): ``lam`` is the shared ``λ``, the joint run's
    ``λ_k`` of every block when not main, or every independent run's ``λ`` ``(B, m, m, n)``;
    ``main`` every decomposition's main objective ``λ_d = q(c) + Σ_{k≠d} μ_k^(d)`` ``(B, m, n)``
    (shared: ``lam``; a joint run keeps ``q(c) − Σ_k λ_k`` ``(B, n)``, and ``λ_d`` is ``main``
    plus ``lam[:, d]``); ``main_x`` the main solutions ``(B, m, n)`` (as ``uint8`` where every
    value is 0 or 1: exact, an eighth of the memory); ``run_bounds`` ``(B, 1)`` for shared, else
    ``(B, m)``. Sparse (``support`` set, `ldopt.dual.support`; memory ``B·(nnz + n)``
    with ``nnz = Σ_k |S_k|``): ``lam`` ``(B, nnz)`` holds each ``λ_k`` on its support (zero
    elsewhere); ``main`` ``(B, n)`` is ``q(c) − Σ_k λ_k`` (decomposition ``d``'s main objective is
    ``main`` plus ``λ_d``); ``main_x`` ``(B, nnz)`` the main solutions on the supports, ``box_x`` off.

    Parameters
    ----------
    sense
        The problem's sense, ``"max"`` or ``"min"``.
    mode
        ``"shared"``, ``"independent"`` or ``"joint"``.
    lam
        The multipliers (see above; user's sense).
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
    start
        The start used: ``"symmetric"``, ``"lp"`` or a number (``None``: a result cached before
        the start was recorded).
    solvers
        Each block's solver name.
    chunks_computed
        Chunks solved by this call (with an executor or a checkpoint).
    chunks_loaded
        Chunks loaded from the checkpoint.
    support
        The sparse layout's supports, or ``None`` (dense).
    box_x
        The sparse layout's main solutions off the supports ``(B, n)``.
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
    start: float | Start | None = None
    solvers: list[str] = field(default_factory=list)
    chunks_computed: int = 1
    chunks_loaded: int = 0
    support: Support | None = None
    box_x: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.main_x = compact(self.main_x)

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
        return self.lam.shape[-2] if self.support is None else self.support.num_blocks

    @property
    def num_vars(self) -> int:
        """``n``: the problem's variables."""
        return self.main.shape[-1]

    @property
    def layout(self) -> Literal["dense", "sparse"]:
        """``"dense"`` or ``"sparse"`` (multipliers and solutions on the blocks' supports)."""
        return "dense" if self.support is None else "sparse"

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
        # sparse: the cost of the variables no block touches is spread over the blocks
        return self.lam if self.support is None else self.support.spread(self.lam, self.main)

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
        sel = checks.instances("index", index, self.num_instances)
        if self.mode == "independent":
            return self.lam[sel, d]
        if self.support is None and self.mode == "shared":
            return self.lam[sel]
        lam = self.lam[sel].copy() if self.support is None else self.support.to_dense(self.lam[sel])
        lam[:, d] = self.main_objective(d, sel)
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
        sel = checks.instances("index", index, self.num_instances)
        if self.support is not None:
            return -self.support.to_dense(self.lam[sel])[:, keep]
        lam = self.lam[sel, d] if self.mode == "independent" else self.lam[sel]
        return -lam[:, keep]

    def main_objective(self, d: int, index: Any = None) -> np.ndarray:
        """``q(c) + Σ_{k≠d} μ_k`` — the main subproblem's objective: ``(B, n)``.

        Parameters
        ----------
        d
            A main block (decomposition) index.
        index
            The instances (a slice, mask or indices); ``None``: all.
        """
        d, sel = self._d(d), checks.instances("index", index, self.num_instances)
        if self.support is None:
            return self.main[sel, d] if self.main.ndim == 3 else self.main[sel] + self.lam[sel, d]
        return self.support.with_block(self.main[sel], self.lam[sel], d, add=True)

    def main_solution(self, d: int, index: Any = None) -> np.ndarray:
        """``x_d*(μ^(d), c)``: ``(B, n)``.

        Parameters
        ----------
        d
            A main block (decomposition) index.
        index
            The instances (a slice, mask or indices); ``None``: all.
        """
        d, sel = self._d(d), checks.instances("index", index, self.num_instances)
        if self.support is None or self.box_x is None:
            return self.main_x[sel, d].astype(float)
        return self.support.with_block(self.box_x[sel], self.main_x[sel], d)

    @property
    def gap(self) -> np.ndarray:
        """``|bound − primal| / max(1, |primal|)`` per instance (NaN without a primal value)."""
        return np.abs(self.bound - self.primal_objective) / np.maximum(1.0, np.abs(self.primal_objective))

    _ARRAYS = ("lam", "main", "main_x", "run_bounds", "history", "primal_objective", "primal_x")

    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The result as arrays and a JSON-able header (see [`ldopt.runtime.cache`][ldopt.runtime.cache])."""
        dense = self.support is None
        arrays = {k: getattr(self, k) for k in self._ARRAYS if not (k == "main" and self.mode == "shared" and dense)}
        header = dict(
            sense=self.sense,
            mode=self.mode,
            iterations=self.iterations,
            seconds=self.seconds,
            step=self.step,
            start=self.start,
            solvers=list(self.solvers),
        )
        if self.support is not None and self.box_x is not None:
            arrays = {**arrays, **self.support.to_arrays(), "box_x": self.box_x}
            header["layout"] = "sparse"
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
        sparse = header.get("layout", "dense") == "sparse"
        main = arrays["lam"] if header["mode"] == "shared" and not sparse else arrays["main"]
        kept: dict[str, Any] = {k: arrays[k] for k in cls._ARRAYS if k != "main"}
        return cls(
            sense=header["sense"],
            mode=header["mode"],
            main=main,
            iterations=int(header["iterations"]),
            seconds=float(header["seconds"]),
            step=header["step"],
            start=header.get("start"),
            solvers=list(header["solvers"]),
            support=Support.from_arrays(arrays, main.shape[-1]) if sparse else None,
            box_x=arrays["box_x"] if sparse else None,
            **kept,
        )

    @classmethod
    def concat(cls, parts: list[DualResult], consume: bool = False) -> DualResult:
        """Results of consecutive chunks of instances as one.

        Parameters
        ----------
        parts
            Results of consecutive chunks, in order.
        consume
            Release each part's arrays once copied (the parts are spent): the peak memory is the
            result and one part, not twice the result.
        """
        if len(parts) == 1:
            return parts[0]
        it = max(p.iterations for p in parts)
        first = parts[0]
        own_main = first.mode != "shared" or first.support is not None  # else main is lam
        names = [k for k in cls._ARRAYS if k != "history" and (k != "main" or own_main)]
        names += [] if first.box_x is None else ["box_x"]
        history = np.concatenate([pad_rows(p.history, it) for p in parts], axis=1)
        cats: dict[str, Any] = {k: stack_parts([p.__dict__ for p in parts], k, consume) for k in names}
        cats.setdefault("main", cats["lam"])  # the dense shared layout's main objectives are its λ
        return cls(
            sense=first.sense,
            mode=first.mode,
            history=history,
            iterations=it,
            seconds=max(p.seconds for p in parts),
            step=first.step,
            start=first.start,
            solvers=first.solvers,
            support=first.support,
            **cats,
        )
