"""ldopt: decision-focused learning at scale through Lagrangian decomposition (no torch here)."""

from . import cache, parallel, problems, regret, solvers, threads
from .decomposed import Decomposition, decompose
from .decomposition import Block
from .dual import DualResult, LagrangianBound, lagrangian_bound
from .errors import (
    CacheError,
    ConstraintError,
    CostParamError,
    DecompositionError,
    InfeasibleModelError,
    InputError,
    LdoptError,
    ModelError,
    ObjectiveError,
    OutputError,
    SolverError,
    SolverUnavailableError,
    TornCacheError,
    VariableError,
)
from .lp_relaxation import lp_optima
from .preflight import CheckReport, check
from .problem import Problem
from .solution import Solution
from .solvers import Availability, SolverOptions, Status

__version__ = "0.1.0"

__all__ = [
    "Availability",
    "Block",
    "CacheError",
    "CheckReport",
    "ConstraintError",
    "CostParamError",
    "Decomposition",
    "DecompositionError",
    "DualResult",
    "InfeasibleModelError",
    "InputError",
    "LagrangianBound",
    "LdoptError",
    "ModelError",
    "ObjectiveError",
    "OutputError",
    "Problem",
    "Solution",
    "SolverError",
    "SolverOptions",
    "SolverUnavailableError",
    "Status",
    "TornCacheError",
    "VariableError",
    "cache",
    "check",
    "decompose",
    "lagrangian_bound",
    "lp_optima",
    "parallel",
    "problems",
    "regret",
    "solvers",
    "threads",
]
