"""The methods a run can train, by name, and what each one trains on.

Names: ``mse``; ``spo+``, ``imle`` (the full problem, PyEPO's losses over our adapter); ``cave``,
``cave+``, ``lava`` (solver-free, over the true optima; linear problems);
``ld:<surrogate>:<static|multiple>:<L1|L2>[:scaled|:unit][:two][:lam<λ>]`` — the paper's LD
methods with any surrogate registered in [`SURROGATES`][ldopt_torch.losses.surrogates.SURROGATES] (``spo+``,
``imle``, ``fy``, ``exact``, and any a user defines). ``:scaled`` rescales the main subproblem to
the costs ([`ldopt_torch.LDLoss`][ldopt_torch.LDLoss] ``scale="costs"``); ``:unit`` to its own
scale (``scale="unit"``: I-MLE's noise relative to it); ``:two``: I-MLE's two-sided difference
(``two_sides=True``); ``:lam100``: I-MLE's target perturbation λ = 100 instead of the reference's 10.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

from ldopt.errors import InputError
from ldopt_torch import IMLE, PAPER, SURROGATES, CaVELoss, FullLoss, LAVALoss, LDLoss, Loss, MSELoss
from ldopt_torch.losses.base import Mode
from ldopt_torch.losses.ld import Scale, Target

Kind = Literal["mse", "spo+", "imle", "cave", "cave+", "lava", "ld"]
BASELINES: tuple[str, ...] = ("mse", "spo+", "imle", "cave", "cave+", "lava")
GRAMMAR = (
    "mse | spo+ | imle | cave | cave+ | lava | ld:<surrogate>:<static|multiple>:<L1|L2>[:scaled|:unit][:two][:lam<λ>]"
)
PAPER_LAMBDA = PAPER.imle_lambda  # I-MLE's λ in the reference code (lt.PAPER's; the library's is 100)
SUFFIXES: dict[str, Scale] = {"scaled": "costs", "unit": "unit"}  # a method name's last part → its scale
TWO_SIDED = "two"  # the suffix of I-MLE's two-sided difference


@dataclass(frozen=True)
class MethodSpec:
    """A parsed method name (see the module docstring).

    Parameters
    ----------
    name
        The method's name as given.
    kind
        ``"mse"``, a full-problem baseline, or ``"ld"``.
    method
        The LD surrogate's registered name.
    mode
        ``"static"`` or ``"multiple"``.
    loss
        ``"L1"`` or ``"L2"``.
    scale
        ``LDLoss``'s ``scale``.
    lambd
        I-MLE's ``λ``.
    two_sides
        I-MLE's two-sided difference.
    """

    name: str
    kind: Kind
    method: str | None = None  # the surrogate's registered name
    mode: Mode = "static"
    loss: Target | None = None
    scale: Scale = "none"  # ``:scaled`` → "costs", ``:unit`` → "unit"
    lambd: float = PAPER_LAMBDA  # ``:lam<λ>``: I-MLE's λ
    two_sides: bool = False  # ``:two``: I-MLE's two-sided difference

    @property
    def label(self) -> str:
        """``ld:spo+:multiple:L1`` → ``LD(SPO+, multiple, L1)``."""
        if self.kind != "ld":
            return {"mse": "MSE", "spo+": "SPO+", "imle": "IMLE", "cave": "CaVE", "cave+": "CaVE+", "lava": "LAVA"}[
                self.kind
            ]
        m = SURROGATES[self.method or ""].label
        suffix = {"none": "", "costs": ", scaled", "unit": ", unit"}[self.scale]
        if self.two_sides:
            suffix += ", two-sided"
        if self.lambd != PAPER_LAMBDA:
            suffix += f", λ={self.lambd:g}"
        return f"LD({m}, {self.mode}, {self.loss}{suffix})"

    @property
    def needs_optima(self) -> bool:
        """Whether it trains on the full problem's true optima ([`ldopt_torch.OptDataset`][ldopt_torch.OptDataset])."""
        return self.kind in ("spo+", "imle", "cave", "cave+", "lava")

    @property
    def packages(self) -> tuple[str, ...]:
        """The optional packages it needs beyond ldopt's own (PyEPO's losses for the full-problem
        baselines)."""
        return ("pyepo",) if self.kind in ("spo+", "imle", "cave", "cave+") else ()

    @property
    def needs_structure(self) -> bool:
        """Whether it needs the binding normals or adjacent vertices (CaVE, LAVA)."""
        return self.kind in ("cave", "cave+", "lava")


def parse_method(name: str) -> MethodSpec:
    """A method name as a [`MethodSpec`][ldopt_experiments.methods.MethodSpec], or an error listing the grammar.

    Parameters
    ----------
    name
        A method name.
    """
    if name in BASELINES:
        return MethodSpec(name, cast(Kind, name))
    parts = name.split(":")
    extra = parts[4:]
    lam = _lambda(extra[-1]) if extra else None
    if lam is not None:
        extra = extra[:-1]
    two = bool(extra) and extra[-1] == TWO_SIDED
    if two:
        extra = extra[:-1]
    ok = (
        len(parts) >= 4
        and parts[0] == "ld"
        and parts[1] in SURROGATES
        and parts[2] in get_args(Mode)
        and parts[3] in get_args(Target)
        and len(extra) <= 1
        and all(e in SUFFIXES for e in extra)
        and ((lam is None and not two) or parts[1] == "imle")
    )
    if not ok:
        raise InputError(
            f"method: expected {GRAMMAR} (surrogates: {', '.join(SURROGATES)}; :two and :lam only with imle), "
            f"got {name!r}"
        )
    scale: Scale = SUFFIXES[extra[0]] if extra else "none"
    method, mode, loss = parts[1], cast(Mode, parts[2]), cast(Target, parts[3])
    return MethodSpec(name, "ld", method, mode, loss, scale, PAPER_LAMBDA if lam is None else lam, two)


def _lambda(part: str) -> float | None:
    """``lam100`` → 100.0; anything else → None."""
    if not part.startswith("lam"):
        return None
    try:
        value = float(part[3:])
    except ValueError:
        return None
    return value if value > 0 and value < float("inf") else None


def label(name: str) -> str:
    """The display label of a method name.

    Parameters
    ----------
    name
        A method name.
    """
    return parse_method(name).label


def check_packages(specs: list[MethodSpec]) -> None:
    """Raise, before any work starts, if a method needs a package that is not installed."""
    missing = sorted({(p, s.label) for s in specs for p in s.packages if importlib.util.find_spec(p) is None})
    if missing:
        names = ", ".join(f"{label} needs {pkg}" for pkg, label in missing)
        raise InputError(f"methods: {names}; install it with pip install 'ldopt[torch]' or leave those methods out")


def loss_for(spec: MethodSpec, setup: Any, solver: str, time_limit: float | None = None) -> tuple[Loss, Mode]:
    """The loss that trains ``spec`` on ``setup`` and the trainer's mode."""
    if spec.kind == "mse":
        return MSELoss(), "static"
    if spec.kind in ("spo+", "imle"):
        full = FullLoss(  # the protocol pins the reference's I-MLE (λ = 10)
            setup.problem, "spo+" if spec.kind == "spo+" else PAPER.imle(), solver=solver, time_limit=time_limit
        )
        return full, "static"
    if spec.kind in ("cave", "cave+"):
        return CaVELoss(setup.problem, plus=spec.kind == "cave+"), "static"
    if spec.kind == "lava":
        return LAVALoss(setup.problem), "static"
    method = spec.method or "spo+"
    surrogate = IMLE(lambd=spec.lambd, two_sides=spec.two_sides) if method == "imle" else method
    return LDLoss(setup.dec, surrogate, spec.loss or "L1", scale=spec.scale), spec.mode
