"""The contract every solver backend implements.

A backend is built once per compiled model (:meth:`Backend.build` returns a :class:`Session`);
a session then solves many instances that differ only in the objective coefficients, without
rebuilding anything. :meth:`Backend.availability` says *why* a backend cannot be used.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ..compile import CompiledModel

# Per-instance termination statuses, shared by every backend.
OPTIMAL = "optimal"
FEASIBLE = "feasible"  # stopped (time or gap limit) with an incumbent
INFEASIBLE = "infeasible"
UNBOUNDED = "unbounded"
NO_SOLUTION = "no_solution"  # stopped without an incumbent
ERROR = "error"
HAS_SOLUTION = (OPTIMAL, FEASIBLE)


@dataclass(frozen=True)
class Availability:
    """Whether a backend can solve a model, and if not, why and what to do."""

    ok: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


@dataclass(frozen=True)
class SolverOptions:
    """Options every backend understands; ``extra`` goes to the solver as is."""

    time_limit: float | None = None
    gap: float = 0.0  # relative MIP gap; 0 = exact
    threads: int | None = None
    verbose: bool = False
    extra: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def make(
        cls,
        time_limit: float | None = None,
        gap: float = 0.0,
        threads: int | None = None,
        verbose: bool = False,
        options: dict[str, Any] | None = None,
    ) -> SolverOptions:
        from ..errors import InputError  # noqa: PLC0415

        if time_limit is not None and not time_limit > 0:
            raise InputError(f"time_limit: expected a positive number of seconds, got {time_limit}")
        if not 0 <= gap < 1:
            raise InputError(f"gap: expected a relative gap in [0, 1), got {gap}")
        if threads is not None and (int(threads) != threads or threads < 1):
            raise InputError(f"threads: expected a positive integer, got {threads}")
        extra = tuple(sorted((options or {}).items()))
        return cls(time_limit, float(gap), threads, bool(verbose), extra)

    @property
    def extra_dict(self) -> dict[str, Any]:
        return dict(self.extra)


@dataclass
class InstanceResult:
    """One solve: ``x`` (or None), the solver's bound on the linear part, and a status."""

    x: np.ndarray | None
    bound: float
    status: str
    message: str = ""


@dataclass
class Session(ABC):
    """A model built once inside a solver; :meth:`solve` changes only the objective."""

    model: CompiledModel
    options: SolverOptions
    info: dict[str, Any] = field(default_factory=dict)

    @abstractmethod
    def solve(self, q: np.ndarray, cost: np.ndarray) -> InstanceResult:
        """Optimise ``q · x`` in the model's sense; ``cost`` is the raw cost vector ``c``."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release solver resources (optional)."""


class Backend(ABC):
    """A solver family registered by name (see :mod:`ldopt.solvers.registry`)."""

    name: str = ""
    handles_integer: bool = True
    handles_quadratic: bool = False
    install_hint: str = ""

    @abstractmethod
    def installed(self) -> Availability:
        """Whether the solver's Python package (and license) are usable at all."""

    def availability(self, model: CompiledModel) -> Availability:
        """Whether this backend can solve ``model``; the reason says what to change if not."""
        inst = self.installed()
        if not inst:
            return inst
        if model.rows and any(r.is_quadratic for r in model.rows) and not self.handles_quadratic:
            return Availability(
                False,
                f"{self.name} cannot handle quadratic constraints; use solver='cvxpy' or 'gurobi'",
            )
        if not self.handles_integer and (model.var_type != "C").any():
            return Availability(
                False, f"{self.name} cannot handle integer variables; use solver='highs' or 'gurobi'"
            )
        return Availability(True)

    @abstractmethod
    def build(self, model: CompiledModel, options: SolverOptions) -> Session:
        """Build the model in the solver once; raise SolverUnavailableError if it cannot."""
