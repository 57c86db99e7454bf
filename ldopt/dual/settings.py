"""The settings of a dual solve: a frozen, validated record that is also the cache key."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

import numpy as np

from .. import checks
from ..errors import InputError

DualMode = Literal["shared", "independent", "joint"]
StepRule = Literal["polyak", "adam", "master"]
StepChoice = Literal["polyak", "adam", "master", "auto"]  # "auto": resolved per decomposition (resolve_step)
Start = Literal["symmetric"]  # the μ-form's start at the shared λ = q/m (see solve_dual)
SolverChoice = str | tuple[str, ...] | tuple[tuple[int, str], ...]  # all blocks, one per block, {block: name}


def solver_choice(solver: Any) -> SolverChoice:
    """``solver=`` as a hashable value: a name, one name per block, or ``{block: name}`` pairs."""
    what = "a solver name, a list of names (one per block) or {block: name}"
    if isinstance(solver, tuple) and solver and all(isinstance(p, tuple) and len(p) == 2 for p in solver):
        solver = dict(solver)  # the (block, name) pairs this returns: the same choice again
    if isinstance(solver, str) and solver:
        return solver
    if isinstance(solver, dict) and all(
        isinstance(k, (int, np.integer)) and not isinstance(k, bool) and isinstance(v, str) and v
        for k, v in solver.items()
    ):
        return tuple(sorted((int(k), v) for k, v in solver.items()))
    if isinstance(solver, (list, tuple)) and solver and all(isinstance(v, str) and v for v in solver):
        return tuple(solver)
    raise InputError(f"solver: expected {what}, got {solver!r}")


def _start(name: str, value: Any) -> float | Start:
    """A number, or ``"symmetric"``."""
    if isinstance(value, str):
        if value == "symmetric":
            return "symmetric"
        raise InputError(f"{name}: expected a number or 'symmetric', got {value!r}")
    return checks.finite(name, value)


@dataclass(frozen=True)
class DualSettings:
    """How [`ldopt.dual.solve_dual()`][ldopt.dual.solve_dual] optimises the multipliers (see its docstring).

    ``mode``: ``"shared"`` (one symmetric solve for every decomposition), ``"independent"`` (the
    paper's one μ-form run per decomposition) or ``"joint"`` (one μ-form run whose per-block
    penalties serve every decomposition). ``lr``: the step scale (Polyak's α₀, default 2, or
    Adam's learning rate, default 0.01; unused by ``step="master"``, column generation, whose
    ``iterations`` are pricing rounds). ``mu0``: the μ-forms' start, a number (the paper's 1) or
    ``"symmetric"`` (every block's objective ``q/m``, the shared solve's start).
    """

    iterations: int = 300
    mode: DualMode = "shared"
    step: StepRule = "polyak"
    lr: float | None = None
    mu0: float | Start = 1.0
    tol: float = 1e-6
    time_limit: float | None = None
    solver: SolverChoice = "auto"
    _lr: float = field(init=False, repr=False, compare=False, default=0.0)

    def __post_init__(self) -> None:
        fields = dict(
            iterations=checks.positive_int("iterations", self.iterations),
            mode=checks.choice("mode", self.mode, get_args(DualMode)),
            step=checks.choice("step", self.step, get_args(StepRule)),
            lr=checks.positive_or_none("lr", self.lr),
            mu0=_start("mu0", self.mu0),
            tol=checks.nonnegative("tol", self.tol),
            time_limit=checks.positive_or_none("time_limit", self.time_limit, " (seconds)"),
            solver=solver_choice(self.solver),
        )
        for key, value in fields.items():
            object.__setattr__(self, key, value)
        default = 0.01 if self.step == "adam" else 2.0
        object.__setattr__(self, "_lr", float(self.lr) if self.lr is not None else default)

    @property
    def step_scale(self) -> float:
        """The step scale in force: ``lr`` or the step rule's default."""
        return self._lr

    def key(self) -> dict[str, Any]:
        """A JSON-able record of everything that changes the answer (for caches and checkpoints)."""
        out = {k: v for k, v in asdict(self).items() if not k.startswith("_")}
        out["lr"] = self.step_scale
        out["solver"] = (
            self.solver
            if isinstance(self.solver, str)
            else [list(s) if isinstance(s, tuple) else s for s in self.solver]
        )
        return out
