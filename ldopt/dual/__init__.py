"""Subgradient optimisation of the Lagrangian multipliers, batched over instances.

Shared mode (default) minimises the symmetric dual ``B(λ) = Σ_k max_{x∈X_k} λ_k·x`` over
``Σ_k λ_k = q(c)``: one solve gives the multipliers of every decomposition. ``"independent"``
runs the paper's ``m`` separate solves, one per main block ``d``, in the μ-form (``λ_d = q +
Σ_{k≠d} μ_k``, ``λ_k = −μ_k``). ``"joint"`` runs one μ-form solve whose penalties serve every
decomposition at once (`forms`). Step rules, stopping and parallelism: `run` and
`solve`; the stored result: [`DualResult`][ldopt.dual.DualResult].
"""

from ldopt.dual.bound import LagrangianBound, lagrangian_bound
from ldopt.dual.master import MASTER_WIDTH, resolve_step
from ldopt.dual.result import DualResult
from ldopt.dual.settings import (
    EXACT,
    LP_WIDTH,
    TRAINING,
    Adam,
    DualMode,
    DualSettings,
    Master,
    Polyak,
    Rule,
    Start,
    StartChoice,
    StepChoice,
    StepRule,
)
from ldopt.dual.solve import resolve_settings, resolve_start, solve_chunk, solve_dual

__all__ = [
    "EXACT",
    "LP_WIDTH",
    "MASTER_WIDTH",
    "TRAINING",
    "Adam",
    "DualMode",
    "DualResult",
    "DualSettings",
    "LagrangianBound",
    "Master",
    "Polyak",
    "Rule",
    "Start",
    "StartChoice",
    "StepChoice",
    "StepRule",
    "lagrangian_bound",
    "resolve_settings",
    "resolve_start",
    "resolve_step",
    "solve_chunk",
    "solve_dual",
]
