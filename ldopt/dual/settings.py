"""The settings of a dual solve: a frozen, validated record that is also the cache key."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal, cast, get_args

import numpy as np

from ldopt import checks
from ldopt.errors import InputError

DualMode = Literal["shared", "independent", "joint"]
StepRule = Literal["polyak", "adam", "master"]
StepChoice = Literal["polyak", "adam", "master", "auto"]  # "auto": resolved per decomposition (resolve_step)
Layout = Literal["auto", "dense", "sparse"]  # where multipliers and copies live (ldopt.dual.support)
Start = Literal["symmetric", "lp"]  # the shared λ = q/m, or the LP relaxation's duals (lp_start)
StartChoice = Literal["auto", "symmetric", "lp"]  # "auto": resolved per decomposition (resolve_start)
SolverChoice = str | tuple[str, ...] | tuple[tuple[int, str], ...]  # all blocks, one per block, {block: name}


def solver_choice(solver: Any) -> SolverChoice:
    """``solver=`` as a hashable value: a name, one name per block, or ``{block: name}`` pairs."""
    what = "a solver name, a list of names (one per block) or {block: name}"
    if isinstance(solver, tuple) and solver and all(isinstance(p, tuple) and len(p) == 2 for p in solver):
        solver = dict(solver)  # the (block, name) pairs this returns: the same choice again
    if isinstance(solver, str) and solver:
        return solver
    if isinstance(solver, dict) and all(
        isinstance(k, (int, np.integer)) and not isinstance(k, bool) and isinstance(v, str) and v
        for k, v in solver.items()
    ):
        return tuple(sorted((int(k), v) for k, v in solver.items()))
    if isinstance(solver, (list, tuple)) and solver and all(isinstance(v, str) and v for v in solver):
        return tuple(solver)
    raise InputError(f"solver: expected {what}, got {solver!r}")


def start_value(name: str, value: Any) -> float | StartChoice:
    """The multipliers' start ``value``: a finite number, ``"auto"``, ``"symmetric"`` or ``"lp"``.

    Parameters
    ----------
    name
        The argument's name, for the error.
    value
        The start to check.
    """
    if isinstance(value, str):
        if value in get_args(StartChoice):
            return cast(StartChoice, value)
        raise InputError(f"{name}: expected a number, 'auto', 'symmetric' or 'lp', got {value!r}")
    return checks.finite(name, value)


@dataclass(frozen=True)
class Polyak:
    """Polyak's step ``t = α (B(λ) − target) / ||g||²`` towards the best primal value (or, before
    one is found, 5% below the best bound); ``α`` halves after ``patience`` iterations without a
    better bound.

    Parameters
    ----------
    alpha
        The initial ``α``.
    patience
        Iterations without a better bound before ``α`` halves; ``None``: ``max(5, iterations // 20)``.
    """

    alpha: float = 2.0
    patience: int | None = None
    name: ClassVar[str] = "polyak"

    def __post_init__(self) -> None:
        object.__setattr__(self, "alpha", checks.positive("alpha", self.alpha))
        object.__setattr__(self, "patience", checks.positive_int_or_none("patience", self.patience))

    @property
    def scale(self) -> float:
        """The step scale (``alpha``)."""
        return self.alpha

    def scaled(self, scale: float) -> Polyak:
        """The same rule with step scale ``scale``.

        Parameters
        ----------
        scale
            The new initial ``α``.
        """
        return replace(self, alpha=scale)


@dataclass(frozen=True)
class Adam:
    """The reference code's rule: Adam on the multipliers, per instance, projected back onto
    ``Σ_k λ_k = q(c)``.

    Parameters
    ----------
    lr
        Adam's learning rate.
    """

    lr: float = 0.01
    name: ClassVar[str] = "adam"

    def __post_init__(self) -> None:
        object.__setattr__(self, "lr", checks.positive("lr", self.lr))

    @property
    def scale(self) -> float:
        """The step scale (``lr``)."""
        return self.lr

    def scaled(self, scale: float) -> Adam:
        """The same rule with step scale ``scale``.

        Parameters
        ----------
        scale
            The new learning rate.
        """
        return replace(self, lr=scale)


@dataclass(frozen=True)
class Master:
    """The exact dual optimum by column generation (`ldopt.dual.master`); ``iterations`` are its
    pricing rounds. It needs no primal value and converges where none is found.

    Parameters
    ----------
    smoothing
        Wentges' weight of the best multipliers in the pricing point, in ``[0, 1)`` (0: plain
        Dantzig–Wolfe).
    """

    smoothing: float = 0.5
    name: ClassVar[str] = "master"

    def __post_init__(self) -> None:
        smoothing = checks.finite("smoothing", self.smoothing)
        if not 0.0 <= smoothing < 1.0:
            raise InputError(f"smoothing: expected a weight in [0, 1), got {smoothing}")
        object.__setattr__(self, "smoothing", smoothing)

    @property
    def scale(self) -> float:
        """No step scale (``nan``)."""
        return float("nan")

    def scaled(self, scale: float) -> Master:
        """This rule (it has no step scale).

        Parameters
        ----------
        scale
            Ignored: column generation takes no step.
        """
        return self


Rule = Polyak | Adam | Master
RULES: dict[str, type[Rule]] = {"polyak": Polyak, "adam": Adam, "master": Master}


def step_rule(step: Any) -> Rule | Literal["auto"]:
    """A step rule from a rule object or its name (``"auto"`` stays a name until the
    decomposition resolves it)."""
    if isinstance(step, (Polyak, Adam, Master)):
        return step
    choice = checks.choice("step", step, get_args(StepChoice))
    return "auto" if choice == "auto" else RULES[choice]()


@dataclass(frozen=True)
class DualSettings:
    """How [`ldopt.dual.solve_dual()`][ldopt.dual.solve_dual] optimises the multipliers: one frozen,
    validated record holding every default of the dual once, passed as is from
    [`LDDataset`][ldopt_torch.LDDataset] to the solver and used as the cache key.

    Parameters
    ----------
    iterations
        Subgradient steps at most per run (pricing rounds for the master).
    mode
        ``"shared"`` (one symmetric solve for every decomposition: the tightest bounds for the least
        work), ``"independent"`` (the paper's one μ-form run per decomposition) or ``"joint"`` (one
        μ-form run whose per-block penalties serve every decomposition, ``2m`` block solves an
        iteration).
    step
        The step rule: [`Polyak`][ldopt.dual.settings.Polyak]``(alpha=2)``,
        [`Adam`][ldopt.dual.settings.Adam]``(lr=0.01)`` (the reference's rule),
        [`Master`][ldopt.dual.settings.Master]``()`` (the exact dual optimum by column generation),
        their names, or ``"auto"`` (the default: the master where every block touches at most
        [`MASTER_WIDTH`][ldopt.dual.master.MASTER_WIDTH] variables, else Polyak;
        [`resolve_step()`][ldopt.dual.master.resolve_step]).
    mu0
        The start: ``"symmetric"`` (every block's objective ``q/m``, which follows the costs'
        scale), ``"lp"`` (the LP relaxation's row duals split over the blocks: a bound at most the
        LP's for one warm HiGHS LP solve per instance, and its repaired point a first primal value;
        linear models, [`lp_multipliers()`][ldopt.dual.lp_start.lp_multipliers]), a number (the
        μ-forms' start, the paper's 1), or ``"auto"`` (the default,
        [`resolve_start()`][ldopt.dual.solve.resolve_start]: the LP's duals priced once where the
        model is linear and every block touches at least [`LP_WIDTH`][ldopt.dual.settings.LP_WIDTH]
        variables, else ``"symmetric"``).
    tol
        An instance stops once its bound is within this (relative) of the best primal value, or its
        copies agree.
    time_limit
        Seconds per instance, or ``None`` (a chunk of ``b`` instances stops after ``time_limit × b``).
    solver
        The block solvers: one name for every block, a list with one per block, or
        ``{block: name}`` (``"auto"``: an exact oracle where one fits).
    layout
        Where multipliers and copies live: ``"sparse"`` (on each block's support), ``"dense"`` or
        ``"auto"`` (the default: sparse where the supports hold at most half of ``m × n``;
        [`resolve_layout()`][ldopt.dual.support.resolve_layout]). Both give the same bounds.
    """

    iterations: int = 300
    mode: DualMode = "shared"
    step: Rule | StepChoice = "auto"
    mu0: float | StartChoice = "auto"
    tol: float = 1e-6
    time_limit: float | None = None
    solver: SolverChoice = "auto"
    layout: Layout = "auto"

    def __post_init__(self) -> None:
        fields = dict(
            iterations=checks.positive_int("iterations", self.iterations),
            mode=checks.choice("mode", self.mode, get_args(DualMode)),
            step=step_rule(self.step),
            mu0=start_value("mu0", self.mu0),
            tol=checks.nonnegative("tol", self.tol),
            time_limit=checks.positive_or_none("time_limit", self.time_limit, " (seconds)"),
            solver=solver_choice(self.solver),
            layout=checks.choice("layout", self.layout, get_args(Layout)),
        )
        for key, value in fields.items():
            object.__setattr__(self, key, value)

    def merged(self, **given: Any) -> DualSettings:
        """These settings with the keywords ``given`` that are not ``None`` in place of their fields
        (how ``dec.dual`` and ``LDDataset`` merge their everyday keywords into ``settings``).

        Parameters
        ----------
        **given
            Fields of ``DualSettings``; ``None`` leaves a field as it is.
        """
        return replace(self, **{k: v for k, v in given.items() if v is not None})

    @property
    def rule(self) -> Rule:
        """The step rule (``"auto"`` must be resolved first)."""
        if isinstance(self.step, str):
            raise InputError("step='auto': expected it resolved for a decomposition (ldopt.dual.resolve_step)")
        return self.step

    @property
    def start(self) -> float | Start:
        """The start (``"auto"`` must be resolved first)."""
        if self.mu0 == "auto":
            raise InputError("mu0='auto': expected it resolved for a decomposition (ldopt.dual.resolve_start)")
        return self.mu0

    @property
    def step_name(self) -> str:
        """The step rule's name (``"polyak"``, ``"adam"``, ``"master"`` or ``"auto"``)."""
        return self.step if isinstance(self.step, str) else self.step.name

    @property
    def step_scale(self) -> float:
        """The step scale in force: Polyak's ``α`` or Adam's learning rate."""
        return self.rule.scale

    def key(self) -> dict[str, Any]:
        """A JSON-able record of everything that changes the answer (for caches and checkpoints)."""
        rule = self.rule
        out: dict[str, Any] = dict(
            iterations=self.iterations,
            mode=self.mode,
            step=rule.name,
            lr=2.0 if isinstance(rule, Master) else rule.scale,  # the key the named rules always had
            mu0=self.mu0,
            tol=self.tol,
            time_limit=self.time_limit,
            solver=(
                self.solver
                if isinstance(self.solver, str)
                else [list(s) if isinstance(s, tuple) else s for s in self.solver]
            ),
        )
        if isinstance(rule, Polyak) and rule.patience is not None:
            out["patience"] = rule.patience
        if isinstance(rule, Master) and rule.smoothing != 0.5:  # (the keys of the default are unchanged)
            out["smoothing"] = rule.smoothing
        if self.layout != "dense":  # the dense layout's keys stay what they were before layouts
            out["layout"] = self.layout
        return out


LP_WIDTH = 1000
"""The narrowest block (variables its rows touch) at which ``mu0="auto"`` starts from the LP's
duals and prices them once: there one evaluation of the blocks costs about one LP solve, and
subgradient steps cost tens of them for a worse bound (``docs/results.md``, "The largest public
DFL knapsack"); the widest block of the zoo's models and the families trained there touches 100."""

EXACT = DualSettings(iterations=500, step=Master())
"""[`lagrangian_bound()`][ldopt.dual.bound.lagrangian_bound]'s default: column generation to the
dual's optimum ``LD*`` (at most 500 pricing rounds, relative gap ``tol``)."""

TRAINING = DualSettings(iterations=30, mode="joint", step="polyak")
"""The training sets' default dual (``LDDataset``'s and ``lt.DEFAULTS.dual``): one joint μ-form run
of 30 Polyak steps (from the start ``mu0="auto"`` chooses), whose penalties serve every
decomposition (what ``ldopt.check`` reports)."""
