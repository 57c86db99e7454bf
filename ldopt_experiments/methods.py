"""The methods a run can train, by name, and what each one trains on.

Names: ``mse``; ``spo+``, ``imle`` (the full problem, PyEPO's losses over our adapter); ``cave``,
``cave+``, ``lava`` (solver-free, over the true optima; linear problems);
``ld:<spo+|imle|exact>:<static|multiple>:<L1|L2>[:scaled|:unit]`` — the paper's LD methods
(``:scaled`` rescales the main subproblem to the costs, :class:`ldopt_torch.LDLoss`
``scale="costs"``; ``:unit`` to its own scale, ``scale="unit"``: I-MLE's noise relative to it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

from torch import nn

from ldopt.errors import InputError
from ldopt_torch import CaVELoss, FullLoss, LAVALoss, LDLoss, MSELoss

Kind = Literal["mse", "spo+", "imle", "cave", "cave+", "lava", "ld"]
LDMethod = Literal["spo+", "imle", "exact"]
Mode = Literal["static", "multiple"]
Loss = Literal["L1", "L2"]
Scale = Literal["none", "costs", "unit"]  # LDLoss's scale
BASELINES: tuple[str, ...] = ("mse", "spo+", "imle", "cave", "cave+", "lava")
GRAMMAR = "mse | spo+ | imle | cave | cave+ | lava | ld:<spo+|imle|exact>:<static|multiple>:<L1|L2>[:scaled|:unit]"
SUFFIXES: dict[str, Scale] = {"scaled": "costs", "unit": "unit"}  # a method name's last part → its scale


@dataclass(frozen=True)
class MethodSpec:
    """A parsed method name (see the module docstring)."""

    name: str
    kind: Kind
    method: LDMethod | None = None
    mode: Mode = "static"
    loss: Loss | None = None
    scale: Scale = "none"  # ``:scaled`` → "costs", ``:unit`` → "unit"

    @property
    def label(self) -> str:
        """``ld:spo+:multiple:L1`` → ``LD(SPO+, multiple, L1)``."""
        if self.kind != "ld":
            return {"mse": "MSE", "spo+": "SPO+", "imle": "IMLE", "cave": "CaVE", "cave+": "CaVE+", "lava": "LAVA"}[
                self.kind
            ]
        m = {"spo+": "SPO+", "imle": "IMLE", "exact": "Exact"}[self.method or ""]
        suffix = {"none": "", "costs": ", scaled", "unit": ", unit"}[self.scale]
        return f"LD({m}, {self.mode}, {self.loss}{suffix})"

    @property
    def needs_optima(self) -> bool:
        """Whether it trains on the full problem's true optima (:class:`ldopt_torch.OptDataset`)."""
        return self.kind in ("spo+", "imle", "cave", "cave+", "lava")

    @property
    def needs_structure(self) -> bool:
        """Whether it needs the binding normals or adjacent vertices (CaVE, LAVA)."""
        return self.kind in ("cave", "cave+", "lava")


def parse_method(name: str) -> MethodSpec:
    """A method name as a :class:`MethodSpec`, or an error listing the grammar."""
    if name in BASELINES:
        return MethodSpec(name, cast(Kind, name))
    parts = name.split(":")
    ok = (
        len(parts) in (4, 5)
        and parts[0] == "ld"
        and parts[1] in get_args(LDMethod)
        and parts[2] in get_args(Mode)
        and parts[3] in get_args(Loss)
        and (len(parts) == 4 or parts[4] in SUFFIXES)
    )
    if not ok:
        raise InputError(f"method: expected {GRAMMAR}, got {name!r}")
    scale: Scale = SUFFIXES[parts[4]] if len(parts) == 5 else "none"
    return MethodSpec(name, "ld", cast(LDMethod, parts[1]), cast(Mode, parts[2]), cast(Loss, parts[3]), scale)


def label(name: str) -> str:
    """The display label of a method name."""
    return parse_method(name).label


def loss_for(spec: MethodSpec, setup: Any, solver: str, time_limit: float | None = None) -> tuple[nn.Module, Mode]:
    """The loss that trains ``spec`` on ``setup`` and the trainer's mode."""
    if spec.kind == "mse":
        return MSELoss(), "static"
    if spec.kind in ("spo+", "imle"):
        return FullLoss(setup.problem, spec.kind, solver=solver, time_limit=time_limit), "static"
    if spec.kind in ("cave", "cave+"):
        return CaVELoss(setup.problem, plus=spec.kind == "cave+"), "static"
    if spec.kind == "lava":
        return LAVALoss(setup.problem), "static"
    return LDLoss(setup.dec, spec.method or "spo+", spec.loss or "L1", scale=spec.scale), spec.mode
