"""``"oracle"``: a whole problem solved by the exact oracle that fits its rows, where one does.

A problem whose rows form one block that an oracle of [`ldopt.oracles`][ldopt.oracles] fits (one knapsack,
covering or flow row; one convex quadratic row; the portfolio's budget and risk rows) needs no
general solver. ``"auto"`` tries this backend first. An instance the oracle cannot finish (a bound
that binds, an empty feasible set) is solved by the next solver of ``"auto"``'s order.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ldopt.errors import LdoptError, SolverUnavailableError
from ldopt.model.compiled import CompiledModel
from ldopt.oracles import fit_oracle
from ldopt.oracles.base import Oracle
from ldopt.solvers.base import OPTIMAL, Availability, Backend, InstanceResult, Session, SolverOptions


class _Unfinished(Exception):
    """Raised by the oracle's fallback hook: the instance goes to the fallback session."""


def _unfinished(lam: np.ndarray) -> np.ndarray:
    raise _Unfinished


def fits_oracle(model: CompiledModel) -> bool:
    """Whether an exact oracle fits the whole of ``model``; decided once per model (a compiled
    model does not change), since fitting factors matrices."""
    if "_fits_oracle" not in model.__dict__:
        model.__dict__["_fits_oracle"] = _fit(model) is not None
    return bool(model.__dict__["_fits_oracle"])


def _fit(model: CompiledModel) -> Oracle | None:
    try:
        return fit_oracle(model)
    except LdoptError:  # e.g. a row that no point of the variable bounds meets
        return None


class OracleSession(Session):
    """Solves ``q·x`` in the model's sense with the model's oracle, one instance at a time."""

    def __init__(self, model: CompiledModel, options: SolverOptions, oracle: Oracle, fallback: Callable[[], Session]):
        super().__init__(model, options)
        self.oracle = oracle
        self.oracle.fallback = _unfinished
        self._open_fallback = fallback
        self._fallback: Session | None = None

    def solve(self, q: np.ndarray, cost: np.ndarray, start: np.ndarray | None = None) -> InstanceResult:
        try:
            x = self.oracle.argmax(self.model.sign * np.asarray(q, dtype=float)[None, :])[0]
        except _Unfinished:  # counted in the oracle's fallback_count
            if self._fallback is None:
                self._fallback = self._open_fallback()
            return self._fallback.solve(q, cost, start)
        with np.errstate(over="ignore"):
            value = float(q @ x)
        return InstanceResult(x, value, OPTIMAL, self.oracle.name)

    def close(self) -> None:
        if self._fallback is not None:
            self._fallback.close()


Opener = Callable[[CompiledModel, SolverOptions], Session]


class OracleBackend(Backend):
    """Exact structure oracles for whole problems (see the module docstring).

    ``fallback(model, options)`` opens the session that solves an instance the oracle cannot
    finish (the registry passes the next solver of ``"auto"``'s order): the registry depends on
    this module, never the reverse."""

    name = "oracle"
    handles_integer = True
    handles_quadratic = True

    def __init__(self, fallback: Opener) -> None:
        self.fallback = fallback

    def installed(self) -> Availability:
        return Availability(True)

    def availability(self, model: CompiledModel) -> Availability:
        if not fits_oracle(model):
            return Availability(
                False,
                "no exact oracle fits this problem's rows (one knapsack, covering, flow or continuous row; "
                "one convex quadratic row; one positive linear row with one convex quadratic row; "
                "assignment rows, Σ x = 1 or ≤ 1 over a bipartite graph; or a flow on a network); "
                "use solver='auto' or a solver name",
            )
        return Availability(True)

    def build(self, model: CompiledModel, options: SolverOptions) -> Session:
        oracle = _fit(model)
        if oracle is None:
            raise SolverUnavailableError(str(self.availability(model).reason))
        return OracleSession(model, options, oracle, lambda: self.fallback(model, options))
