"""Solver backends by name: ``"highs"``, ``"gurobi"``, ``"cvxpy"``, ``"oracle"``, ``"pyomo:<name>"``, ``"auto"``."""

from ldopt.solvers.base import Availability, Backend, InstanceResult, Session, SolverOptions, Status
from ldopt.solvers.registry import auto_order, availability, backend, open_session, register, registered

__all__ = [
    "Availability",
    "Backend",
    "InstanceResult",
    "Session",
    "SolverOptions",
    "Status",
    "auto_order",
    "availability",
    "backend",
    "open_session",
    "register",
    "registered",
]
