"""ldopt: decision-focused learning at scale through Lagrangian decomposition (no torch here)."""

from ldopt import problems, solvers
from ldopt.decomposition.blocks import Block
from ldopt.decomposition.check import CheckReport, check
from ldopt.decomposition.decompose import Decomposition, decompose
from ldopt.dual import DualResult, LagrangianBound, lagrangian_bound
from ldopt.errors import (
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
from ldopt.evaluate import regret
from ldopt.evaluate.lp_relaxation import lp_optima
from ldopt.model.problem import Problem
from ldopt.model.solution import Solution
from ldopt.runtime import cache, parallel, threads
from ldopt.solvers import Availability, SolverOptions, Status

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
