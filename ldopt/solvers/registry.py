"""The solver registry: backends by name, ``"auto"`` selection, and availability with reasons."""

from __future__ import annotations

from collections.abc import Callable

from ldopt.errors import SolverUnavailableError
from ldopt.model.compiled import CompiledModel
from ldopt.solvers.base import Availability, Backend, Session, SolverOptions
from ldopt.solvers.checked import checked
from ldopt.solvers.cvxpy_backend import CvxpyBackend
from ldopt.solvers.gurobi import GurobiBackend
from ldopt.solvers.highs import HighsBackend
from ldopt.solvers.oracle_backend import OracleBackend, fits_oracle
from ldopt.solvers.pyomo_backend import PyomoBackend

_FACTORIES: dict[str, Callable[[], Backend]] = {}
_INSTANCES: dict[str, Backend] = {}


def register(name: str, factory: Callable[[], Backend]) -> None:
    """Register a backend factory under ``name`` (it then joins the conformance tests).

    Parameters
    ----------
    name
        The backend's name.
    factory
        Makes the backend (called once, when first used).
    """
    _FACTORIES[name] = factory
    _INSTANCES.pop(name, None)


def registered() -> list[str]:
    """The registered backend names (``"pyomo:<name>"`` is a family and is not listed)."""
    return list(_FACTORIES)


def backend(name: str) -> Backend:
    """The backend called ``name``; unknown names raise with the list of known ones.

    Parameters
    ----------
    name
        A registered backend's name, or ``"pyomo:<solver>"``.
    """
    if not isinstance(name, str):
        raise SolverUnavailableError(f"solver: expected a name such as 'highs', got {type(name).__name__}")
    if name.startswith("pyomo:"):
        sub = name.split(":", 1)[1]
        if not sub:
            raise SolverUnavailableError("solver 'pyomo:' needs a Pyomo solver name, e.g. 'pyomo:appsi_highs'")
        return _INSTANCES.setdefault(name, PyomoBackend(sub))
    if name not in _FACTORIES:
        known = ", ".join([*_FACTORIES, "pyomo:<name>", "auto"])
        raise SolverUnavailableError(f"unknown solver '{name}'; expected one of: {known}")
    if name not in _INSTANCES:
        _INSTANCES[name] = _FACTORIES[name]()
    return _INSTANCES[name]


def auto_order(model: CompiledModel) -> list[str]:
    """Preference order for ``"auto"``: an exact oracle where one fits the whole problem, then a
    licensed fast solver, the embedded ones after.

    Parameters
    ----------
    model
        A compiled model.
    """
    first = ["oracle"] if fits_oracle(model) else []
    if any(r.is_quadratic for r in model.rows):
        return [*first, "gurobi", "cvxpy"]
    return [*first, "gurobi", "highs"]


def open_session(model: CompiledModel, name: str, options: SolverOptions) -> tuple[str, Session]:
    """Build a session of solver ``name`` (or the first usable one for ``"auto"``), its answers
    checked against the model's rows and bounds ([`ldopt.solvers.checked`][ldopt.solvers.checked]).

    Parameters
    ----------
    model
        A compiled model.
    name
        A solver name or ``"auto"``.
    options
        The solver options.
    """
    if name == "auto":
        reasons = []
        for cand in auto_order(model):
            try:
                return open_session(model, cand, options)
            except SolverUnavailableError as exc:
                reasons.append(f"{cand}: {exc}")
        raise SolverUnavailableError("no solver can handle this model: " + "; ".join(reasons))
    b = backend(name)
    avail = b.availability(model)
    if not avail:
        raise SolverUnavailableError(avail.reason)
    return name, checked(b.build(model, options))


def availability(model: CompiledModel, name: str) -> Availability:
    """Whether solver ``name`` can solve ``model`` (building it once if needed to know).

    Parameters
    ----------
    model
        A compiled model.
    name
        A solver name.
    """
    try:
        _, session = open_session(model, name, SolverOptions())
    except SolverUnavailableError as exc:
        return Availability(False, str(exc))
    session.close()
    return Availability(True)


register("highs", HighsBackend)
register("gurobi", GurobiBackend)
register("cvxpy", CvxpyBackend)


def _oracle_fallback(model: CompiledModel, options: SolverOptions) -> Session:
    """The session for instances the whole-problem oracle cannot finish: the next solver of
    ``"auto"``'s order that runs."""
    reasons = []
    for name in auto_order(model):
        if name != "oracle":
            try:
                return open_session(model, name, options)[1]
            except SolverUnavailableError as exc:
                reasons.append(f"{name}: {exc}")
    raise SolverUnavailableError(f"oracle: an instance needs a fallback solver and none runs: {'; '.join(reasons)}")


register("oracle", lambda: OracleBackend(_oracle_fallback))
