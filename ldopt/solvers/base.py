"""The contract every solver backend implements.

A backend is built once per compiled model ([`Backend.build()`][ldopt.solvers.base.Backend.build] returns a
[`Session`][ldopt.solvers.base.Session]); a session then solves many instances that differ only in
the objective coefficients, without rebuilding anything.
[`Backend.availability()`][ldopt.solvers.base.Backend.availability] says *why* a backend cannot be used.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

import numpy as np

from ldopt import checks
from ldopt.errors import InputError

if TYPE_CHECKING:
    from ldopt.model.compiled import CompiledModel


class Status(str, Enum):
    """How the solve of one instance ended; equal to its string value (``Solution.status`` holds those)."""

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"  # stopped (time or gap limit) with an incumbent
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    NO_SOLUTION = "no_solution"  # stopped without an incumbent
    ERROR = "error"
    VIOLATED = "violated"  # the solver's point violates a row or bound of the model (ldopt.solvers.checked)

    def __str__(self) -> str:
        return self.value


# the statuses by their short names, as the backends use them
OPTIMAL, FEASIBLE, INFEASIBLE = Status.OPTIMAL, Status.FEASIBLE, Status.INFEASIBLE
UNBOUNDED, NO_SOLUTION, ERROR = Status.UNBOUNDED, Status.NO_SOLUTION, Status.ERROR
VIOLATED = Status.VIOLATED
HAS_SOLUTION = (Status.OPTIMAL.value, Status.FEASIBLE.value)


@dataclass(frozen=True)
class Availability:
    """Whether a backend can solve a model, and if not, why and what to do.

    Parameters
    ----------
    ok
        Whether the backend can solve the model.
    reason
        Why not, and what to do instead (empty when ``ok``).
    """

    ok: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


@dataclass(frozen=True)
class SolverOptions:
    """Options every backend understands; ``extra`` goes to the solver as is.

    Parameters
    ----------
    time_limit
        Seconds per instance, or ``None``.
    gap
        Relative MIP gap (0: exact).
    threads
        The solver's threads, or ``None`` (its default).
    verbose
        Show the solver's log.
    extra
        Solver-specific ``(name, value)`` pairs, passed as is.
    """

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
        """Validated options (``options`` become solver-specific ``extra`` pairs).

        Parameters
        ----------
        time_limit
            Seconds per instance, or ``None``.
        gap
            Relative MIP gap (0: exact).
        threads
            The solver's threads, or ``None`` (its default).
        verbose
            Show the solver's log.
        options
            Solver-specific options ``{name: value}``, passed as is.
        """
        limit = checks.positive_or_none("time_limit", time_limit, unit=" (seconds)")
        options = {} if options is None else checks.instance("options", options, dict, "a dict of solver options")
        if not all(isinstance(k, str) for k in options):
            raise InputError(f"options: expected option names (str) as keys, got {list(options)!r}")
        try:
            extra = tuple(sorted(options.items()))
            hash(extra)
        except TypeError:
            raise InputError(f"options: expected plain values (numbers, strings, bools), got {options!r}") from None
        return cls(
            limit,
            checks.unit_interval("gap", gap),
            checks.positive_int_or_none("threads", threads),
            checks.boolean("verbose", verbose),
            extra,
        )

    @property
    def extra_dict(self) -> dict[str, Any]:
        """The solver-specific options as a dictionary."""
        return dict(self.extra)


@dataclass
class InstanceResult:
    """One solve: ``x`` (or None), the solver's bound on the linear part, and a status.

    Parameters
    ----------
    x
        The solution, or ``None``.
    bound
        The solver's bound on ``q·x`` (the model's sense).
    status
        How the solve ended.
    message
        The solver's message.
    """

    x: np.ndarray | None
    bound: float
    status: Status
    message: str = ""


@dataclass
class Session(ABC):
    """A model built once inside a solver; `solve()` changes only the objective.

    Parameters
    ----------
    model
        The compiled model built into the solver.
    options
        The solver options.
    """

    model: CompiledModel
    options: SolverOptions

    @abstractmethod
    def solve(self, q: np.ndarray, cost: np.ndarray, start: np.ndarray | None = None) -> InstanceResult:
        """Optimise ``q · x`` in the model's sense; ``cost`` is the raw cost vector ``c``.

        ``start``: a feasible point to begin from (a MIP start), where the solver takes one.

        Parameters
        ----------
        q
            The objective coefficients ``(n,)`` (the model's sense).
        cost
            The raw cost vector ``c``.
        start
            A feasible point to begin from (a MIP start), or ``None``.
        """

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release solver resources (optional)."""


class Backend(ABC):
    """A solver family registered by name (see `ldopt.solvers.registry`)."""

    name: str = ""
    handles_integer: bool = True
    handles_quadratic: bool = False
    install_hint: str = ""

    @abstractmethod
    def installed(self) -> Availability:
        """Whether the solver's Python package (and license) are usable at all."""

    def availability(self, model: CompiledModel) -> Availability:
        """Whether this backend can solve ``model``; the reason says what to change if not.

        Parameters
        ----------
        model
            A compiled model.
        """
        inst = self.installed()
        if not inst:
            return inst
        if model.rows and any(r.is_quadratic for r in model.rows) and not self.handles_quadratic:
            return Availability(
                False,
                f"{self.name} cannot handle quadratic constraints; use solver='cvxpy' or 'gurobi'",
            )
        if not self.handles_integer and (model.var_type != "C").any():
            return Availability(False, f"{self.name} cannot handle integer variables; use solver='highs' or 'gurobi'")
        return Availability(True)

    @abstractmethod
    def build(self, model: CompiledModel, options: SolverOptions) -> Session:
        """Build the model in the solver once; raise SolverUnavailableError if it cannot.

        Parameters
        ----------
        model
            A compiled model.
        options
            The solver options.
        """
