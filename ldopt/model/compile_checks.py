"""What compilation refuses or remembers about a Pyomo model beyond its rows: components it would
otherwise ignore (untransformed disjunctions, logical constraints, SOS), the cost in a variable's
bound, and the other mutable Params, whose values are frozen into the arrays at compile time."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ldopt.errors import ConstraintError, CostParamError, ModelError


def check_supported_components(model: Any) -> None:
    """Refuse components the compiler would ignore, naming the transformation that removes them."""
    import pyomo.environ as pyo  # noqa: PLC0415 - heavy import kept lazy
    from pyomo.gdp import Disjunct, Disjunction  # noqa: PLC0415

    def first(ctype: Any) -> Any:
        return next(iter(model.component_data_objects(ctype, active=True, descend_into=True)), None)

    sos = first(pyo.SOSConstraint)
    if sos is not None:
        raise ConstraintError(f"SOS constraint '{sos.name}' is not supported; write it with binary variables")
    gdp = first(Disjunction)
    gdp = first(Disjunct) if gdp is None else gdp
    if gdp is not None:
        raise ConstraintError(
            f"'{gdp.name}' is an untransformed disjunction, which ldopt would otherwise ignore; expected a "
            "model of plain constraints: apply pyo.TransformationFactory('gdp.bigm') (or 'gdp.hull') to it first"
        )
    logical = first(pyo.LogicalConstraint)
    if logical is not None:
        raise ConstraintError(
            f"'{logical.name}' is a LogicalConstraint, which ldopt would otherwise ignore; expected linear rows: "
            "apply pyo.TransformationFactory('core.logical_to_linear') to the model first"
        )


def _mutable(expr: Any) -> list[Any]:
    from pyomo.core.expr.visitor import identify_mutable_parameters  # noqa: PLC0415

    if expr is None or isinstance(expr, (int, float)):
        return []
    return list(identify_mutable_parameters(expr))


def bound_parameters(var_list: list[Any], cost_ids: set[int], cost_name: str) -> list[Any]:
    """The mutable Params in the variables' bounds; the cost Param there is refused (its value would
    be frozen at compile time while the cost changes per instance)."""
    out = []
    for v in var_list:
        for p in _mutable(v.lower) + _mutable(v.upper):
            if id(p) in cost_ids:
                raise CostParamError(
                    f"cost Param '{cost_name}' appears in the bounds of variable '{v.name}'; only the objective "
                    "may depend on the cost (write the bound as a constraint with a Param of its own)"
                )
            out.append(p)
    return out


def expression_parameters(model: Any, objective: Any, cost_ids: set[int]) -> list[Any]:
    """The mutable Params (other than the cost) in the objective and the active constraints."""
    import pyomo.environ as pyo  # noqa: PLC0415

    out = [p for p in _mutable(objective.expr) if id(p) not in cost_ids]
    for con in model.component_data_objects(pyo.Constraint, active=True, descend_into=True):
        out += _mutable(con.body) + _mutable(con.lower) + _mutable(con.upper)
    return out


def _value(p: Any) -> float:
    try:
        return float(p.value)
    except (TypeError, ValueError):
        return np.nan


@dataclass
class FrozenParams:
    """The mutable Params a compiled model read, and their values then: compilation froze them."""

    params: list[Any] = field(default_factory=list)
    values: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @classmethod
    def of(cls, params: list[Any]) -> FrozenParams:
        """The distinct Params of ``params`` with their current values."""
        unique = list({id(p): p for p in params}.values())
        return cls(unique, np.array([_value(p) for p in unique]))

    def check(self) -> None:
        """Raise if a Param changed since compilation (the compiled arrays would be stale)."""
        if not self.params:
            return
        now = np.array([_value(p) for p in self.params])
        changed = np.flatnonzero(~((now == self.values) | (np.isnan(now) & np.isnan(self.values))))
        if len(changed):
            k = int(changed[0])
            raise ModelError(
                f"mutable Param '{self.params[k].name}' changed from {self.values[k]:g} to {now[k]:g} after "
                "compilation; ldopt froze its value then (only the cost varies per instance): compile the model "
                "again with ldopt.Problem.from_pyomo"
            )
