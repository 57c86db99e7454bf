"""The exceptions ldopt raises: every one is an [`LdoptError`][ldopt.errors.LdoptError] and says what to change."""

from __future__ import annotations


class LdoptError(Exception):
    """Base class of every error ldopt raises on purpose."""


class ModelError(LdoptError, ValueError):
    """The Pyomo model cannot be compiled: the message names the component and the fix."""


class ObjectiveError(ModelError):
    """No, several, or an unsupported (non-linear, non-affine) objective."""


class CostParamError(ModelError):
    """The cost is not a mutable Param of the model, or it is used where it may not be."""


class ConstraintError(ModelError):
    """A constraint is not linear or convex quadratic."""


class VariableError(ModelError):
    """A variable's domain is unsupported (e.g. an unbounded integer variable)."""


class InputError(LdoptError, ValueError):
    """An array argument has the wrong shape, dtype or non-finite values."""


class SolverError(LdoptError, RuntimeError):
    """A solver backend failed or cannot be used."""


class SolverUnavailableError(SolverError):
    """The solver is not installed, not licensed, too small for the model, or unknown."""


class DecompositionError(LdoptError, ValueError):
    """A decomposition request is invalid (blocks, unbounded subproblems, ...)."""


class InfeasibleModelError(ModelError, DecompositionError):
    """The model has no feasible point whatever the costs: the message names the rows that conflict
    where bound propagation found them (raised where bounds or a block's oracle need them)."""


class CacheError(LdoptError, RuntimeError):
    """A cache file is corrupt or was written for another problem or settings."""


class TornCacheError(CacheError):
    """A cache entry is unreadable or half written (e.g. a process killed between its two files)."""


class OutputError(LdoptError, OSError):
    """A results file or folder cannot be written (a file where a folder should be, no permission, a
    full disk) or read back (a results table or JSON record that is not one)."""
