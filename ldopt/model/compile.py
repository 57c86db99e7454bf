"""Compile a Pyomo model with a mutable cost ``Param`` into arrays (`CompiledModel`), once.

The steps: the cost ``Param``; the objective, with every cost entry replaced by a placeholder
variable so that its standard representation exposes ``q0``, ``Q``, ``k0`` and ``r``; the
constraint rows in declaration order; the variables in declaration order; the arrays.

``x`` has one column per variable the objective or an active constraint mentions, in the model's
declaration order (``Problem.var_names``); a fixed variable is a column whose bounds are its value.
Nothing here imports a solver: compile errors are about the model, and name the component.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from ldopt.errors import CostParamError, ModelError, ObjectiveError, VariableError
from ldopt.model.compile_checks import FrozenParams, bound_parameters, check_supported_components, expression_parameters
from ldopt.model.compile_rows import compile_rows, make_row
from ldopt.model.compiled import CompiledModel
from ldopt.model.implied_bounds import bound_integers


def _pyomo() -> Any:
    import pyomo.environ as pyo  # noqa: PLC0415 - heavy import kept lazy

    return pyo


@dataclass
class _Vars:
    """The variables met so far, by identity, with their first-seen position."""

    index: dict[int, int] = field(default_factory=dict)
    data: list[Any] = field(default_factory=list)

    def pos(self, v: Any) -> int:
        k = self.index.get(id(v))
        if k is None:
            k = self.index[id(v)] = len(self.data)
            self.data.append(v)
        return k


@dataclass
class _Objective:
    sense: str
    lin: dict[int, float]  # variable position -> coefficient (q0)
    q: list[tuple[int, int, float]]  # (variable, cost entry, coefficient) (Q)
    r: np.ndarray
    k0: float


def _cost_data(model: Any, cost: Any) -> tuple[list[Any], list[Any]]:
    from pyomo.core.base.param import Param  # noqa: PLC0415 - heavy import kept lazy

    if not isinstance(cost, Param):
        raise CostParamError(
            f"cost: expected a mutable pyomo Param component of the model (e.g. model.c), got {type(cost).__name__}"
        )
    if not cost.mutable:
        raise CostParamError(f"cost Param '{cost.name}' is not mutable; declare it with Param(..., mutable=True)")
    if cost.model() is not model:
        raise CostParamError(f"cost Param '{cost.name}' does not belong to the model passed")
    keys = list(cost.index_set()) if cost.is_indexed() else [None]
    data = [cost[k] for k in keys] if cost.is_indexed() else [cost]
    if not data:
        raise CostParamError(f"cost Param '{cost.name}' has an empty index set")
    return keys, data


def _cost_range(cost: Any) -> tuple[float, float]:
    """The interval the cost Param's domain declares for every cost (``within=pyo.NonNegativeReals``:
    ``(0, inf)``); ``(-inf, inf)`` where it declares none (Pyomo's default ``Any``)."""
    try:
        lo, hi = cost.domain.bounds()
    except (AttributeError, TypeError, ValueError):
        return (-np.inf, np.inf)
    return (-np.inf if lo is None else float(lo), np.inf if hi is None else float(hi))


def _objective_component(model: Any) -> Any:
    pyo = _pyomo()
    objs = list(model.component_data_objects(pyo.Objective, active=True, descend_into=True))
    if not objs:
        raise ObjectiveError("the model has no active Objective; add one that uses the cost Param")
    if len(objs) > 1:
        names = ", ".join(o.name for o in objs[:5])
        raise ObjectiveError(f"expected one active Objective, got {len(objs)} ({names}); deactivate all but one")
    return objs[0]


def _compile_objective(obj: Any, cost: Any, cost_data: list[Any], vars_: _Vars) -> _Objective:
    """``q0``, ``Q``, ``k0``, ``r``: each cost entry becomes a placeholder variable, so that the
    objective's standard representation is bilinear in (cost, variable) and linear elsewhere."""
    pyo = _pyomo()
    from pyomo.core.expr.visitor import identify_mutable_parameters, replace_expressions  # noqa: PLC0415
    from pyomo.repn.standard_repn import generate_standard_repn  # noqa: PLC0415

    cost_ids = {id(p) for p in cost_data}
    if not any(id(p) in cost_ids for p in identify_mutable_parameters(obj.expr)):
        raise CostParamError(
            f"cost Param '{cost.name}' does not appear in objective '{obj.name}'; "
            "the objective coefficients must depend on it"
        )
    holder = pyo.ConcreteModel()
    holder.cv = pyo.Var(range(len(cost_data)))
    holder_ids = {id(holder.cv[j]): j for j in range(len(cost_data))}
    sub = {id(p): holder.cv[j] for j, p in enumerate(cost_data)}
    try:
        expr = replace_expressions(obj.expr, sub, descend_into_named_expressions=True, remove_named_expressions=True)
        repn = generate_standard_repn(expr, compute_values=True, quadratic=True)
    except (ValueError, TypeError) as exc:
        raise ObjectiveError(f"objective '{obj.name}' cannot be evaluated: {exc}") from None
    if repn.nonlinear_expr is not None:
        raise ObjectiveError(
            f"objective '{obj.name}' is nonlinear; expected an expression linear in the "
            "variables with coefficients affine in the cost"
        )
    lin: dict[int, float] = {}
    r = np.zeros(len(cost_data))
    for v, a in zip(repn.linear_vars, repn.linear_coefs, strict=True):
        if id(v) in holder_ids:
            r[holder_ids[id(v)]] += float(a)
        else:
            k = vars_.pos(v)
            lin[k] = lin.get(k, 0.0) + float(a)
    q: list[tuple[int, int, float]] = []
    for (v1, v2), a in zip(repn.quadratic_vars, repn.quadratic_coefs, strict=True):
        c1, c2 = id(v1) in holder_ids, id(v2) in holder_ids
        if c1 and c2:
            raise ObjectiveError(
                f"objective '{obj.name}' is not affine in the cost (product of costs "
                f"{v1.name}·{v2.name}); expected q(c) = q0 + Q c"
            )
        if not c1 and not c2:
            raise ObjectiveError(
                f"objective '{obj.name}' is quadratic in the variables ({v1.name}·{v2.name}); "
                "expected a linear objective"
            )
        cv, xv = (v1, v2) if c1 else (v2, v1)
        q.append((vars_.pos(xv), holder_ids[id(cv)], float(a)))
    sense = "max" if obj.sense == pyo.maximize else "min"
    return _Objective(sense, lin, q, r, float(repn.constant))


def _fixed_variables(model: Any, obj: Any) -> list[Any]:
    """Fixed variables the objective or an active constraint mentions (their values were folded
    into constants; they still get a column of ``x``)."""
    pyo = _pyomo()
    from pyomo.core.expr.visitor import identify_variables  # noqa: PLC0415

    exprs = [obj.expr] + [c.body for c in model.component_data_objects(pyo.Constraint, active=True, descend_into=True)]
    out: dict[int, Any] = {}
    for e in exprs:
        for v in identify_variables(e, include_fixed=True):
            if v.fixed:
                out.setdefault(id(v), v)
    return list(out.values())


def _declaration_order(model: Any, vars_: _Vars, fixed: list[Any]) -> tuple[list[Any], np.ndarray]:
    """The variables in declaration order (the order a user indexes ``x`` by), and each first-seen
    position's new position."""
    pyo = _pyomo()
    for v in fixed:
        vars_.pos(v)
    seen = set(vars_.index)
    ordered = [v for v in model.component_data_objects(pyo.Var, descend_into=True) if id(v) in seen]
    ordered_ids = {id(v) for v in ordered}
    ordered += [v for v in vars_.data if id(v) not in ordered_ids]  # variables of other blocks of the model
    new_pos = np.empty(len(ordered), dtype=np.int64)
    new_pos[[vars_.index[id(v)] for v in ordered]] = np.arange(len(ordered))
    return ordered, new_pos


def _variable_arrays(var_list: list[Any]) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Names, bounds and types (a fixed variable's bounds are its value)."""
    n = len(var_list)
    names, lb, ub, vtype = [], np.empty(n), np.empty(n), np.empty(n, dtype="<U1")
    for k, v in enumerate(var_list):
        names.append(v.name)
        try:
            lo_v, hi_v = (v.value, v.value) if v.fixed else v.bounds
        except ValueError as exc:  # Pyomo refuses a NaN bound when asked for it
            raise VariableError(f"variable '{v.name}': expected numbers or None as bounds ({exc})") from None
        lb[k] = -np.inf if lo_v is None else float(lo_v)
        ub[k] = np.inf if hi_v is None else float(hi_v)
        if np.isnan(lb[k]) or np.isnan(ub[k]):
            raise VariableError(f"variable '{v.name}': expected numbers or None as bounds, got {v.bounds}")
        if v.is_binary():
            vtype[k] = "B"
        elif v.is_integer():
            vtype[k] = "I"
        elif v.is_continuous():
            vtype[k] = "C"
        else:
            raise VariableError(
                f"variable '{v.name}' has domain {v.domain}, which is neither continuous nor "
                "integer; use Reals, Integers or Binary with bounds"
            )
        if lb[k] > ub[k]:
            raise VariableError(f"variable '{v.name}' has empty bounds {v.bounds}")
    return names, lb, ub, vtype


def compile_pyomo(model: Any, cost: Any) -> CompiledModel:
    """Compile ``model`` with cost Param ``cost`` into a `CompiledModel`.

    Raises a [`ModelError`][ldopt.errors.ModelError] subclass naming the component and the fix.
    """
    pyo = _pyomo()
    if not isinstance(model, pyo.Block):
        raise ModelError(f"model: expected a pyomo ConcreteModel, got {type(model).__name__}")
    if not model.is_constructed():
        raise ModelError(
            f"model: expected a ConcreteModel, got an uninstantiated {type(model).__name__}; "
            "make an instance first: instance = model.create_instance(data), then compile the instance"
        )
    cost_keys, cost_data = _cost_data(model, cost)
    obj = _objective_component(model)
    check_supported_components(model)
    vars_ = _Vars()
    objective = _compile_objective(obj, cost, cost_data, vars_)
    raw_rows = compile_rows(model, cost, cost_data, vars_.pos)
    var_list, pos = _declaration_order(model, vars_, _fixed_variables(model, obj))
    n = len(var_list)
    names, lb, ub, vtype = _variable_arrays(var_list)
    cost_ids = {id(p) for p in cost_data}
    frozen = FrozenParams.of(
        bound_parameters(var_list, cost_ids, cost.name) + expression_parameters(model, obj, cost_ids)
    )
    q0 = np.zeros(n)
    for k, a in objective.lin.items():
        q0[pos[k]] = a
    if objective.q:
        ii, jj, vv = zip(*objective.q, strict=True)
        Q = sp.csr_matrix((vv, (pos[list(ii)], jj)), shape=(n, len(cost_data)))
    else:
        Q = sp.csr_matrix((n, len(cost_data)))
    Q.sum_duplicates()
    compiled = CompiledModel(
        var_names=names,
        var_lb=lb,
        var_ub=ub,
        var_type=vtype,
        sense=objective.sense,
        q0=q0,
        Q=Q,
        k0=objective.k0,
        r=objective.r,
        rows=[make_row(raw, n, pos) for raw in raw_rows],
        cost_keys=cost_keys,
        model=model,
        var_data=var_list,
        cost_data=cost_data,
        frozen=frozen,
        cost_name=cost.name,
        cost_range=_cost_range(cost),
    )
    return bound_integers(compiled)  # an integer variable that only its rows bound gets their bounds
