"""Solver backends, selected by name: ``"highs"``, ``"gurobi"``, ``"cvxpy"``, ``"pyomo:<name>"``, ``"auto"``."""

from .base import Availability, Backend, InstanceResult, Session, SolverOptions, Status
from .registry import auto_order, availability, backend, open_session, register, registered

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
