"""The compiled form of a problem: arrays every solver backend and the decomposer read.

* variables: names, bounds, and a type per variable (``"C"``, ``"I"`` or ``"B"``);
* objective ``f(x, c) = (q0 + Q c) · x + k0 + r · c`` with ``Q`` sparse ``(n, n_c)``;
* constraints in declaration order, each a `Row`: linear ``lo <= a · x <= hi`` or convex
  quadratic ``x' P x + a · x <= hi``.

Every `CompiledModel`, however made, checks its numbers: no NaN or infinite coefficient anywhere
(a solver would drop the row, answer "error", or crash), and integer bounds rounded inward to the
integers they allow (an oracle that reads the bounds as given would return ``x = 1.5`` for an
integer variable with bounds ``(0.5, 3)``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from ldopt.errors import ConstraintError, ObjectiveError, VariableError
from ldopt.model.compile_checks import FrozenParams


def sense_sign(sense: str) -> float:
    """+1 for ``"max"``, -1 for ``"min"``: the one place the sense becomes a sign."""
    return 1.0 if sense == "max" else -1.0


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
    def matrix(self) -> np.ndarray:
        """``P`` of a quadratic row (a linear row has none: asking is an error)."""
        if self.P is None:
            raise ConstraintError(f"row '{self.name}' is linear: it has no quadratic matrix")
        return self.P

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
    model: Any = field(repr=False, default=None)  # the Pyomo model (not pickled: workers use the arrays)
    var_data: list[Any] = field(repr=False, default_factory=list)
    cost_data: list[Any] = field(repr=False, default_factory=list)
    frozen: FrozenParams = field(repr=False, default_factory=FrozenParams)  # the other mutable Params read
    cost_name: str = "c"  # the cost Param's name
    implied: tuple[Any, ...] = field(repr=False, default=())  # integer bounds the rows imply (InferredBound)
    oracles: tuple[Any, ...] = field(repr=False, default=())  # declared Oracle classes, tried before ldopt's
    cost_range: tuple[float, float] = (-np.inf, np.inf)  # every cost's interval, as the cost Param's domain declares

    def __post_init__(self) -> None:
        # every way of making a model (compilation, a block, a replaced copy) gets the same checks
        integer_bounds(self.var_names, self.var_lb, self.var_ub, self.var_type)
        check_numbers(self)

    @property
    def sign(self) -> float:
        """+1 for a maximisation, -1 for a minimisation: internal maximisation form = sign × user's."""
        return sense_sign(self.sense)

    @property
    def num_vars(self) -> int:
        return len(self.var_names)

    @property
    def num_costs(self) -> int:
        return len(self.cost_keys)

    def __getstate__(self) -> dict[str, Any]:
        # Pyomo objects stay behind: models with rule lambdas do not pickle, and workers use arrays.
        state = dict(self.__dict__)
        state.update(model=None, var_data=[], cost_data=[], frozen=FrozenParams())
        return state

    def fingerprint(self) -> str:
        """A content hash of the arrays (variables, objective, rows); equal models hash equal.

        Computed once: a compiled model is not changed after compilation."""
        if "_fingerprint" not in self.__dict__:
            from ldopt.runtime.cache import digest  # noqa: PLC0415

            Q = self.Q.tocsr()
            rows = [(r.name, r.index, r.coef, r.lo, r.hi, r.P) for r in self.rows]
            self._fingerprint = digest(
                self.var_names,
                self.var_lb,
                self.var_ub,
                self.var_type.astype(str),
                self.sense,
                self.q0,
                Q.data,
                Q.indices,
                Q.indptr,
                Q.shape,
                self.k0,
                self.r,
                rows,
                *([self.cost_range] if self.declares_costs else []),
            )
        return self._fingerprint

    @property
    def declares_costs(self) -> bool:
        """Whether the cost Param's domain bounds the costs (``cost_range`` is not the whole line)."""
        return bool(np.isfinite(self.cost_range).any())

    @property
    def identity_costs(self) -> bool:
        """Whether the objective coefficients are the costs themselves up to ``q0``: ``Q = I``."""
        Q = self.Q
        return Q.shape[0] == Q.shape[1] and (sp.identity(Q.shape[0], format="csr") != Q).nnz == 0

    def cost_selection(self) -> np.ndarray | None:
        """The variable each cost multiplies, ``(num_costs,)``, when the objective is ``Σ_i c_i x_{v_i}``
        (``Q`` selects distinct variables with coefficient 1, ``q0 = 0``, ``r = 0``): the variables
        beside them (flows, slacks) cost nothing. ``None`` otherwise."""
        Q = self.Q.tocsc()
        if np.any(self.q0) or np.any(self.r) or Q.nnz != Q.shape[1]:
            return None
        if not (np.all(np.diff(Q.indptr) == 1) and np.all(Q.data == 1.0)):
            return None
        rows = Q.indices.copy()
        return rows if len(np.unique(rows)) == len(rows) else None

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

        def cat(xs: list[np.ndarray], dt: Any) -> np.ndarray:
            return np.concatenate(xs).astype(dt) if xs else np.zeros(0, dt)

        return sp.csr_matrix(
            (cat(val, float), cat(idx, np.int64), np.asarray(indptr)), shape=(len(rows), self.num_vars)
        )


INTEGRALITY_TOL = 1e-9
"""An integer variable's bound within this of an integer is that integer (``2.0000000001`` → 2)."""


def integer_bounds(names: list[str], lb: np.ndarray, ub: np.ndarray, vtype: np.ndarray) -> None:
    """Round the bounds of integer and binary variables inward, in place; raise where no integer is left."""
    integer = vtype != "C"
    if not integer.any():
        return
    lo = np.where(integer & np.isfinite(lb), np.ceil(lb - INTEGRALITY_TOL), lb)
    hi = np.where(integer & np.isfinite(ub), np.floor(ub + INTEGRALITY_TOL), ub)
    empty = np.flatnonzero(integer & (lo > hi))
    if len(empty):
        j = int(empty[0])
        raise VariableError(
            f"integer variable '{names[j]}': expected bounds that hold an integer, got ({lb[j]:g}, {ub[j]:g}); "
            "widen them or make the variable continuous"
        )
    lb[:] = lo
    ub[:] = hi


def _bad(values: np.ndarray) -> int | None:
    """The first position of a NaN or infinite value, or ``None``."""
    bad = np.flatnonzero(~np.isfinite(values))
    return int(bad[0]) if len(bad) else None


def check_numbers(cm: CompiledModel) -> None:
    """Raise a [`ModelError`][ldopt.errors.ModelError] naming the first NaN or infinite number of ``cm``
    (a coefficient, a side or a bound) and where it is."""
    names = cm.var_names
    for side, values, wrong in (("lower", cm.var_lb, np.inf), ("upper", cm.var_ub, -np.inf)):
        bad = np.flatnonzero(np.isnan(values) | (values == wrong))
        if len(bad):
            raise VariableError(
                f"variable '{names[bad[0]]}': expected a finite {side} bound or none, got {values[bad[0]]}; "
                "fix the model's data"
            )
    j = _bad(cm.q0)
    if j is not None:
        raise ObjectiveError(f"objective: the coefficient of '{names[j]}' is {cm.q0[j]}; expected a finite number")
    Q = cm.Q.tocoo()
    j = _bad(Q.data)
    if j is not None:
        raise ObjectiveError(
            f"objective: the coefficient of cost entry {cm.cost_keys[Q.col[j]]!r} on '{names[Q.row[j]]}' is "
            f"{Q.data[j]}; expected a finite number"
        )
    j = _bad(np.r_[cm.r, cm.k0])
    if j is not None:
        raise ObjectiveError("objective: a constant term is NaN or infinite; expected finite numbers")
    for row in cm.rows:
        _check_row(row, names)


def _check_row(row: Row, names: list[str]) -> None:
    j = _bad(row.coef)
    if j is not None:
        raise ConstraintError(
            f"constraint '{row.name}': the coefficient of '{names[row.index[j]]}' is {row.coef[j]}; "
            "expected a finite number (fix the Param or data behind it)"
        )
    if np.isnan(row.lo) or np.isnan(row.hi) or row.lo == np.inf or row.hi == -np.inf:
        raise ConstraintError(
            f"constraint '{row.name}': expected finite sides (or none), got lower {row.lo} and upper {row.hi}"
        )
    if row.P is not None and not np.isfinite(row.P).all():
        raise ConstraintError(f"constraint '{row.name}': a quadratic coefficient is NaN or infinite")
