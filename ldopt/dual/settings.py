"""The settings of a dual solve: a frozen, validated record that is also the cache key."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal, cast, get_args

import numpy as np

from .. import checks
from ..errors import InputError

DualMode = Literal["shared", "independent", "joint"]
StepRule = Literal["polyak", "adam", "master"]
StepChoice = Literal["polyak", "adam", "master", "auto"]  # "auto": resolved per decomposition (resolve_step)
Layout = Literal["auto", "dense", "sparse"]  # where multipliers and copies live (ldopt.dual.support)
Start = Literal["symmetric", "lp"]  # the shared λ = q/m, or the LP relaxation's duals (lp_start)
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


def start_value(name: str, value: Any) -> float | Start:
    """The multipliers' start ``value``: a finite number, ``"symmetric"`` or ``"lp"``.

    Parameters
    ----------
    name
        The argument's name, for the error.
    value
        The start to check.
    """
    if isinstance(value, str):
        if value in get_args(Start):
            return cast(Start, value)
        raise InputError(f"{name}: expected a number, 'symmetric' or 'lp', got {value!r}")
    return checks.finite(name, value)


def dual_mode(mode: Any, independent: Any, default: DualMode) -> DualMode:
    """``mode`` (``default`` when ``None``), with the older ``independent=True`` spelling of
    ``"independent"``; both given and different is an error."""
    independent = checks.boolean("independent", independent)
    if mode is None:
        return "independent" if independent else default
    if independent and mode != "independent":
        raise InputError(f"independent=True and mode={mode!r}: expected one of them, not both")
    return cast(DualMode, checks.choice("mode", mode, ("joint", "independent", "shared")))


GIVEN = object()  # a keyword's "default" that counts it as given whatever its value


def refuse_beside(where: str, keywords: dict[str, tuple[Any, Any]]) -> None:
    """Refuse the keywords ``{name: (value, default)}`` that differ from their default beside a
    settings object passed as ``where`` (plain values compared; anything else counts as given)."""

    def unset(value: Any, default: Any) -> bool:
        if value is default:
            return True
        return type(value) in (int, float, str, bool) and type(value) is type(default) and value == default

    given = [k for k, (value, default) in keywords.items() if not unset(value, default)]
    if given:
        raise InputError(f"{', '.join(given)}: expected them inside {where}, got them beside it")


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
    pricing rounds. It needs no primal value and converges where none is found."""

    name: ClassVar[str] = "master"

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


def step_rule(step: Any, lr: float | None = None) -> Rule | Literal["auto"]:
    """A step rule from a rule object or its name (``"auto"`` stays a name until the
    decomposition resolves it); ``lr`` gives a named rule its step scale."""
    if isinstance(step, (Polyak, Adam, Master)):
        if lr is not None:
            raise InputError(f"lr: expected it only with a step rule's name, got it with {step!r} (set the rule's own)")
        return step
    choice = checks.choice("step", step, get_args(StepChoice))
    if choice == "auto":
        return "auto"
    rule = RULES[choice]()
    return rule if lr is None else rule.scaled(checks.positive("lr", lr))


@dataclass(frozen=True)
class DualSettings:
    """How [`ldopt.dual.solve_dual()`][ldopt.dual.solve_dual] optimises the multipliers: one frozen,
    validated record, passed as is from [`LDDataset`][ldopt_torch.LDDataset] to the solver and used
    as the cache key.

    Parameters
    ----------
    iterations
        Subgradient steps at most per run (pricing rounds for the master).
    mode
        ``"shared"`` (one symmetric solve for every decomposition), ``"independent"`` (the paper's
        one μ-form run per decomposition) or ``"joint"`` (one μ-form run whose per-block penalties
        serve every decomposition).
    step
        The step rule: [`Polyak`][ldopt.dual.settings.Polyak], [`Adam`][ldopt.dual.settings.Adam],
        [`Master`][ldopt.dual.settings.Master], their names, or ``"auto"`` (resolved per
        decomposition by [`resolve_step()`][ldopt.dual.master.resolve_step]; the default).
    lr
        A named rule's step scale (Polyak's ``α``, Adam's learning rate); ``None``: the rule's own.
        Give a rule object its parameter instead.
    mu0
        The start: ``"symmetric"`` (``q/m`` per block; the default), ``"lp"`` (the LP's duals,
        [`lp_multipliers()`][ldopt.dual.lp_start.lp_multipliers]) or a number (the paper's 1).
    tol
        An instance stops once its bound is within this (relative) of the best primal value.
    time_limit
        Seconds per instance, or ``None`` (a chunk of ``b`` instances stops after ``time_limit × b``).
    solver
        The block solvers: a name, one per block, or ``{block: name}``.
    layout
        Where multipliers and copies live: ``"sparse"`` (on each block's support), ``"dense"`` or
        ``"auto"`` ([`resolve_layout()`][ldopt.dual.support.resolve_layout]).
    """

    iterations: int = 300
    mode: DualMode = "shared"
    step: Rule | StepChoice = "auto"
    lr: float | None = None
    mu0: float | Start = "symmetric"
    tol: float = 1e-6
    time_limit: float | None = None
    solver: SolverChoice = "auto"
    layout: Layout = "auto"

    def __post_init__(self) -> None:
        lr = checks.positive_or_none("lr", self.lr)
        step = step_rule(self.step, lr)
        fields = dict(
            iterations=checks.positive_int("iterations", self.iterations),
            mode=checks.choice("mode", self.mode, get_args(DualMode)),
            step=step,
            lr=lr if step == "auto" else None,  # the rule's own parameter, once "auto" is resolved
            mu0=start_value("mu0", self.mu0),
            tol=checks.nonnegative("tol", self.tol),
            time_limit=checks.positive_or_none("time_limit", self.time_limit, " (seconds)"),
            solver=solver_choice(self.solver),
            layout=checks.choice("layout", self.layout, get_args(Layout)),
        )
        for key, value in fields.items():
            object.__setattr__(self, key, value)

    @property
    def rule(self) -> Rule:
        """The step rule (``"auto"`` must be resolved first)."""
        if isinstance(self.step, str):
            raise InputError("step='auto': expected it resolved for a decomposition (ldopt.dual.resolve_step)")
        return self.step

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
        if self.layout != "dense":  # the dense layout's keys stay what they were before layouts
            out["layout"] = self.layout
        return out


TRAINING = DualSettings(iterations=30, mode="joint", step="polyak")
"""The training sets' default dual (``LDDataset``'s): one joint μ-form run of 30 Polyak steps from
the symmetric start, whose penalties serve every decomposition (what ``ldopt.check`` times)."""
