"""ldopt: decision-focused learning at scale through Lagrangian decomposition (no torch here)."""

from . import cache, parallel, problems, regret, solvers
from .errors import (
    CacheError,
    ConstraintError,
    CostParamError,
    DecompositionError,
    InputError,
    LdoptError,
    ModelError,
    ObjectiveError,
    SolverError,
    SolverUnavailableError,
    VariableError,
)
from .decomposition import Block, Decomposition, decompose
from .dual import DualResult
from .problem import Problem
from .solution import Solution
from .solvers import Availability, SolverOptions

__version__ = "0.1.0"

__all__ = [
    "Availability",
    "Block",
    "Decomposition",
    "DualResult",
    "decompose",
    "CacheError",
    "ConstraintError",
    "CostParamError",
    "DecompositionError",
    "InputError",
    "LdoptError",
    "ModelError",
    "ObjectiveError",
    "Problem",
    "Solution",
    "SolverError",
    "SolverOptions",
    "SolverUnavailableError",
    "VariableError",
    "cache",
    "parallel",
    "problems",
    "regret",
    "solvers",
]
