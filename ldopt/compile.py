"""Compile a Pyomo model with a mutable cost ``Param`` into arrays, once.

The compiled form (:class:`CompiledModel`) is what every solver backend and the decomposer read:

* variables: names, bounds, and a type per variable (``"C"``, ``"I"`` or ``"B"``);
* objective ``f(x, c) = (q0 + Q c) · x + k0 + r · c`` with ``Q`` sparse ``(n, n_c)``;
* constraints in declaration order, each a :class:`Row`: linear ``lo <= a · x <= hi`` or convex
  quadratic ``x' P x + a · x <= hi`` (a ``>=`` concave row is negated into this form).

Nothing here imports a solver: compile errors are about the model, and name the component.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from .errors import ConstraintError, CostParamError, ModelError, ObjectiveError, VariableError

VAR_TYPES = ("C", "I", "B")
_PSD_TOL = 1e-9


@dataclass(frozen=True)
class Row:
    """One compiled constraint row: ``lo <= a·x (+ x'Px) <= hi`` (``P`` only with ``lo = -inf``)."""

    name: str
    component: str
    index: np.ndarray  # variable positions with a nonzero linear coefficient
    coef: np.ndarray  # their coefficients
    lo: float
    hi: float
    P: np.ndarray | None = None  # dense symmetric PSD matrix (quadratic rows only)

    @property
    def is_quadratic(self) -> bool:
        return self.P is not None

    @property
    def is_equality(self) -> bool:
        return self.lo == self.hi

    def dense(self, n: int) -> np.ndarray:
        """The linear coefficients as a dense vector of length ``n``."""
        a = np.zeros(n)
        a[self.index] = self.coef
        return a


@dataclass
class CompiledModel:
    """Arrays of a compiled Pyomo model (see the module docstring)."""

    var_names: list[str]
    var_lb: np.ndarray
    var_ub: np.ndarray
    var_type: np.ndarray  # array of "C" | "I" | "B"
    sense: str  # "max" | "min"
    q0: np.ndarray
    Q: sp.csr_matrix
    k0: float
    r: np.ndarray
    rows: list[Row]
    cost_keys: list[Any]
    model: Any = field(repr=False, default=None)
    var_data: list[Any] = field(repr=False, default_factory=list)
    cost_data: list[Any] = field(repr=False, default_factory=list)
    objective_data: Any = field(repr=False, default=None)

    @property
    def num_vars(self) -> int:
        return len(self.var_names)

    @property
    def num_costs(self) -> int:
        return len(self.cost_keys)

    def __getstate__(self) -> dict[str, Any]:
        # Pyomo objects stay behind: models with rule lambdas do not pickle, and workers use arrays.
        state = dict(self.__dict__)
        state.update(model=None, var_data=[], cost_data=[], objective_data=None)
        return state

    def fingerprint(self) -> str:
        """A content hash of the arrays (variables, objective, rows); equal models hash equal.

        Computed once: a compiled model is not changed after compilation."""
        if "_fingerprint" not in self.__dict__:
            from .cache import digest  # noqa: PLC0415

            Q = self.Q.tocsr()
            rows = [(r.name, r.index, r.coef, r.lo, r.hi, r.P) for r in self.rows]
            self._fingerprint = digest(self.var_names, self.var_lb, self.var_ub, self.var_type.astype(str),
                                       self.sense, self.q0, Q.data, Q.indices, Q.indptr, Q.shape, self.k0, self.r,
                                       rows)
        return self._fingerprint

    @property
    def identity_costs(self) -> bool:
        """Whether the objective coefficients are the costs themselves up to ``q0``: ``Q = I``."""
        Q = self.Q
        return Q.shape[0] == Q.shape[1] and (Q != sp.identity(Q.shape[0], format="csr")).nnz == 0

    def linear_matrix(self, rows: list[int] | None = None) -> sp.csr_matrix:
        """The linear parts of ``rows`` (default: all) as a CSR matrix ``(len(rows), n)``."""
        rows = list(range(len(self.rows))) if rows is None else rows
        indptr = [0]
        idx: list[np.ndarray] = []
        val: list[np.ndarray] = []
        for k in rows:
            row = self.rows[k]
            idx.append(row.index)
            val.append(row.coef)
            indptr.append(indptr[-1] + len(row.index))
        cat = (lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dt))
        return sp.csr_matrix(
            (cat(val, float), cat(idx, np.int64), np.asarray(indptr)), shape=(len(rows), self.num_vars)
        )


def _pyomo():
    import pyomo.environ as pyo  # noqa: PLC0415 - heavy import kept lazy
    from pyomo.core.expr.visitor import identify_mutable_parameters, replace_expressions
    from pyomo.repn.standard_repn import generate_standard_repn

    return pyo, generate_standard_repn, replace_expressions, identify_mutable_parameters


def _cost_data(model: Any, cost: Any) -> tuple[list[Any], list[Any]]:
    pyo, *_ = _pyomo()
    from pyomo.core.base.param import Param  # noqa: PLC0415

    if not isinstance(cost, Param):
        raise CostParamError(
            f"cost: expected a mutable pyomo Param component of the model (e.g. model.c), "
            f"got {type(cost).__name__}"
        )
    if not cost.mutable:
        raise CostParamError(
            f"cost Param '{cost.name}' is not mutable; declare it with Param(..., mutable=True)"
        )
    if cost.model() is not model:
        raise CostParamError(f"cost Param '{cost.name}' does not belong to the model passed")
    keys = list(cost.index_set()) if cost.is_indexed() else [None]
    data = [cost[k] for k in keys] if cost.is_indexed() else [cost]
    if not data:
        raise CostParamError(f"cost Param '{cost.name}' has an empty index set")
    return keys, data


def _objective(model: Any) -> Any:
    pyo, *_ = _pyomo()
    objs = list(model.component_data_objects(pyo.Objective, active=True, descend_into=True))
    if not objs:
        raise ObjectiveError("the model has no active Objective; add one that uses the cost Param")
    if len(objs) > 1:
        names = ", ".join(o.name for o in objs[:5])
        raise ObjectiveError(
            f"expected one active Objective, got {len(objs)} ({names}); deactivate all but one"
        )
    return objs[0]


def _check_supported_components(model: Any) -> None:
    pyo, *_ = _pyomo()
    sos = list(model.component_data_objects(pyo.SOSConstraint, active=True, descend_into=True))
    if sos:
        raise ConstraintError(
            f"SOS constraint '{sos[0].name}' is not supported; write it with binary variables"
        )


def _is_psd(P: np.ndarray) -> bool:
    if not P.size:
        return True
    w = np.linalg.eigvalsh(P)
    return bool(w[0] >= -_PSD_TOL * max(1.0, float(np.abs(w).max())))


def compile_pyomo(model: Any, cost: Any) -> CompiledModel:
    """Compile ``model`` with cost Param ``cost`` into a :class:`CompiledModel`.

    Raises a :class:`~ldopt.errors.ModelError` subclass naming the component and the fix.
    """
    pyo, standard_repn, replace_expressions, mutable_params = _pyomo()
    if not isinstance(model, pyo.Block):
        raise ModelError(f"model: expected a pyomo ConcreteModel, got {type(model).__name__}")
    cost_keys, cost_data = _cost_data(model, cost)
    cost_ids = {id(p): j for j, p in enumerate(cost_data)}
    obj = _objective(model)
    _check_supported_components(model)

    # Objective: replace each cost ParamData by a placeholder Var, so the repn exposes c.
    holder = pyo.ConcreteModel()
    holder.cv = pyo.Var(range(len(cost_data)))
    holder_ids = {id(holder.cv[j]): j for j in range(len(cost_data))}
    sub = {id(p): holder.cv[j] for j, p in enumerate(cost_data)}
    used = [p for p in mutable_params(obj.expr) if id(p) in cost_ids]
    if not used:
        raise CostParamError(
            f"cost Param '{cost.name}' does not appear in objective '{obj.name}'; "
            "the objective coefficients must depend on it"
        )
    try:
        expr = replace_expressions(
            obj.expr, sub, descend_into_named_expressions=True, remove_named_expressions=True
        )
        repn = standard_repn(expr, compute_values=True, quadratic=True)
    except (ValueError, TypeError) as exc:
        raise ObjectiveError(f"objective '{obj.name}' cannot be evaluated: {exc}") from None
    if repn.nonlinear_expr is not None:
        raise ObjectiveError(
            f"objective '{obj.name}' is nonlinear; expected an expression linear in the "
            "variables with coefficients affine in the cost"
        )

    var_index: dict[int, int] = {}
    var_list: list[Any] = []

    def vpos(v: Any) -> int:
        k = var_index.get(id(v))
        if k is None:
            k = var_index[id(v)] = len(var_list)
            var_list.append(v)
        return k

    obj_lin: dict[int, float] = {}
    r = np.zeros(len(cost_data))
    for v, a in zip(repn.linear_vars, repn.linear_coefs):
        if id(v) in holder_ids:
            r[holder_ids[id(v)]] += float(a)
        else:
            k = vpos(v)
            obj_lin[k] = obj_lin.get(k, 0.0) + float(a)
    q_trip: list[tuple[int, int, float]] = []
    for (v1, v2), a in zip(repn.quadratic_vars, repn.quadratic_coefs):
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
        q_trip.append((vpos(xv), holder_ids[id(cv)], float(a)))
    k0 = float(repn.constant)
    sense = "max" if obj.sense == pyo.maximize else "min"

    # Constraints, in declaration order.
    rows: list[Row] = []
    raw_rows = []
    for con in model.component_data_objects(pyo.Constraint, active=True, descend_into=True):
        if any(id(p) in cost_ids for p in mutable_params(con.body)):
            raise CostParamError(
                f"cost Param '{cost.name}' appears in constraint '{con.name}'; only the "
                "objective may depend on the cost"
            )
        try:
            crepn = standard_repn(con.body, compute_values=True, quadratic=True)
        except (ValueError, TypeError) as exc:
            raise ConstraintError(f"constraint '{con.name}' cannot be evaluated: {exc}") from None
        if crepn.nonlinear_expr is not None:
            raise ConstraintError(
                f"constraint '{con.name}' is nonlinear; only linear and convex quadratic "
                "constraints are supported"
            )
        lin = [(vpos(v), float(a)) for v, a in zip(crepn.linear_vars, crepn.linear_coefs)]
        quad = [(vpos(a), vpos(b), float(w)) for (a, b), w in zip(crepn.quadratic_vars, crepn.quadratic_coefs)]
        lo = -np.inf if con.lower is None else float(pyo.value(con.lower)) - float(crepn.constant)
        hi = np.inf if con.upper is None else float(pyo.value(con.upper)) - float(crepn.constant)
        comp = con.parent_component().name
        if not lin and not quad:
            if lo > 1e-9 or hi < -1e-9:
                raise ConstraintError(
                    f"constraint '{con.name}' has no free variable and is violated "
                    f"({lo:g} <= 0 <= {hi:g} fails); fix the data or deactivate it"
                )
            continue
        raw_rows.append((con.name, comp, lin, quad, lo, hi))

    # Put the variables in declaration order (the order a user indexes x by).
    seen = {id(v) for v in var_list}
    ordered = [v for v in model.component_data_objects(pyo.Var, descend_into=True) if id(v) in seen]
    ordered_ids = {id(v) for v in ordered}
    ordered += [v for v in var_list if id(v) not in ordered_ids]
    perm = np.array([var_index[id(v)] for v in ordered], dtype=np.int64)
    new_pos = np.empty_like(perm)
    new_pos[perm] = np.arange(len(perm))
    var_list = ordered
    obj_lin = {int(new_pos[k]): a for k, a in obj_lin.items()}
    q_trip = [(int(new_pos[i]), j, a) for i, j, a in q_trip]
    raw_rows = [
        (nm, cp, [(int(new_pos[k]), w) for k, w in lin],
         [(int(new_pos[i]), int(new_pos[j]), w) for i, j, w in quad], lo, hi)
        for nm, cp, lin, quad, lo, hi in raw_rows
    ]
    n = len(var_list)
    for name, comp, lin, quad, lo, hi in raw_rows:
        a = np.zeros(n)
        for k, w in lin:
            a[k] += w
        nz = np.flatnonzero(a)
        if not quad:
            rows.append(Row(name, comp, nz, a[nz], lo, hi))
            continue
        P = np.zeros((n, n))
        for i, j, w in quad:
            P[i, j] += w / 2.0
            P[j, i] += w / 2.0
        if np.isfinite(lo) and np.isfinite(hi):
            raise ConstraintError(
                f"quadratic constraint '{name}' is an equality or range, which is nonconvex; "
                "use a single '<=' bound with a convex (PSD) quadratic"
            )
        if np.isfinite(lo):  # x'Px + a x >= lo  <=>  x'(-P)x - a x <= -lo
            P, a, lo, hi = -P, -a, -np.inf, -lo
            nz = np.flatnonzero(a)
        if not _is_psd(P):
            raise ConstraintError(
                f"quadratic constraint '{name}' is nonconvex (its matrix is not positive "
                "semidefinite in '<=' form); only convex quadratic constraints are supported"
            )
        rows.append(Row(name, comp, nz, a[nz], lo, hi, P))

    # Variables: types and bounds.
    names, lb, ub, vtype = [], np.empty(n), np.empty(n), np.empty(n, dtype="<U1")
    for k, v in enumerate(var_list):
        names.append(v.name)
        lo_v, hi_v = v.bounds
        lb[k] = -np.inf if lo_v is None else float(lo_v)
        ub[k] = np.inf if hi_v is None else float(hi_v)
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
        if vtype[k] != "C" and not (np.isfinite(lb[k]) and np.isfinite(ub[k])):
            raise VariableError(
                f"integer variable '{v.name}' is unbounded (bounds {v.bounds}); give it finite "
                "bounds, e.g. Var(..., bounds=(0, 10))"
            )
        if lb[k] > ub[k]:
            raise VariableError(f"variable '{v.name}' has empty bounds {v.bounds}")

    q0 = np.zeros(n)
    for k, a in obj_lin.items():
        q0[k] = a
    if q_trip:
        ii, jj, vv = zip(*q_trip)
        Q = sp.csr_matrix((vv, (ii, jj)), shape=(n, len(cost_data)))
    else:
        Q = sp.csr_matrix((n, len(cost_data)))
    Q.sum_duplicates()
    return CompiledModel(
        var_names=names,
        var_lb=lb,
        var_ub=ub,
        var_type=vtype,
        sense=sense,
        q0=q0,
        Q=Q,
        k0=k0,
        r=r,
        rows=rows,
        cost_keys=cost_keys,
        model=model,
        var_data=var_list,
        cost_data=cost_data,
        objective_data=obj,
    )
