"""Random small MILPs and LPs, as the second audit swept them: fractional and integral bounds,
``<=``, ``>=``, equality and range rows, both senses. Every solver that takes a model (the exact
oracles included) agrees with HiGHS, and every dual mode, step rule and the exact Lagrangian bound
respect weak duality. Then the same models with one number made bad (NaN, inf, huge, tiny): a
clear error or an honest answer, never a crash or a violated point reported as optimal."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import ldopt
from ldopt.solvers import registry
from ldopt.solvers.checked import FeasibilityCheck

SOLVERS = ["auto", "oracle", "highs", "gurobi", "cvxpy", "pyomo:appsi_highs"]


@dataclass
class Spec:
    """A random model: bounds, types, rows (coefficients and kind) around a feasible point."""

    lb: list[float]
    ub: list[float]
    kind: list[str]  # "C" | "I" | "B" per variable
    A: list[list[int]]
    rows: list[str]  # "le" | "ge" | "eq" | "range"
    slack: list[float]
    maximize: bool


@st.composite
def specs(draw: st.DrawFn) -> Spec:
    n = draw(st.integers(2, 5))
    m = draw(st.integers(1, 4))
    kind = draw(st.lists(st.sampled_from("CIB"), min_size=n, max_size=n))
    lo = draw(st.lists(st.sampled_from([0.0, -2.0, 0.5, -1.5, 1.0]), min_size=n, max_size=n))
    width = draw(st.lists(st.sampled_from([1.0, 2.5, 3.0, 4.7]), min_size=n, max_size=n))
    lb = [0.0 if k == "B" else lo[j] for j, k in enumerate(kind)]
    ub = [1.0 if k == "B" else lo[j] + width[j] for j, k in enumerate(kind)]
    A = draw(st.lists(st.lists(st.integers(-3, 3), min_size=n, max_size=n), min_size=m, max_size=m))
    A = [r if any(r) else [1, *r[1:]] for r in A]
    rows = draw(st.lists(st.sampled_from(["le", "ge", "eq", "range"]), min_size=m, max_size=m))
    slack = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.3]), min_size=m, max_size=m))
    return Spec(lb, ub, kind, A, rows, slack, draw(st.booleans()))


def build(spec: Spec, seed: int, bad: tuple[str, float] | None = None) -> pyo.ConcreteModel:
    """The model of ``spec``, its rows' sides around a random point of the (integral) box, so that
    it is feasible; ``bad`` = (where, value) puts one bad number into its data."""
    rng = np.random.default_rng(seed)
    n = len(spec.lb)
    x0 = np.array(
        [
            rng.integers(np.ceil(spec.lb[j]), np.floor(spec.ub[j]) + 1)
            if spec.kind[j] != "C"
            else rng.uniform(spec.lb[j], spec.ub[j])
            for j in range(n)
        ]
    )
    where, value = bad if bad is not None else ("", 0.0)
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, n - 1)
    m.c = pyo.Param(m.I, mutable=True, initialize=1.0)
    domain = {"C": pyo.Reals, "I": pyo.Integers, "B": pyo.Binary}
    m.x = pyo.Var(m.I, domain=lambda _, j: domain[spec.kind[j]], bounds=lambda _, j: (spec.lb[j], spec.ub[j]))
    A = np.array(spec.A, dtype=float)
    if where == "coef":
        A[0, 0] = value
    m.rows = pyo.ConstraintList()
    for k, (row, kind, s) in enumerate(zip(A, spec.rows, spec.slack, strict=True)):
        body = sum(float(a) * m.x[j] for j, a in enumerate(row) if a)
        at = float(np.array(spec.A[k], dtype=float) @ x0)
        side = value if where == "rhs" and k == 0 else None
        if kind == "le":
            m.rows.add(body <= (at + s if side is None else side))
        elif kind == "ge":
            m.rows.add(body >= (at - s if side is None else side))
        elif kind == "eq":
            m.rows.add(body == (at if side is None else side))
        else:
            m.rows.add(pyo.inequality(at - s - 0.5 if side is None else side, body, at + s + 0.5))
    obj_k = value if where == "objective" else 0.0
    m.o = pyo.Objective(
        expr=sum(m.c[j] * m.x[j] for j in m.I) + obj_k * m.x[0], sense=pyo.maximize if spec.maximize else pyo.minimize
    )
    if where == "bound":
        m.x[0].setub(value)
    return m


def usable(p: ldopt.Problem) -> list[str]:
    return [s for s in SOLVERS if registry.availability(p.compiled, s)]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=specs(), seed=st.integers(0, 2**16))
# found by the whole sweep before integer bounds were rounded: the shared dual's bound of this
# minimisation (x0 integer in [0, 2.5]) was 2.64 against the optimum 2.08
@example(Spec([0.0, 0.0], [2.5, 1.0], ["I", "C"], [[1, 0], [1, 0]], ["le", "ge"], [0.0, 0.0], False), 0)
def test_solvers_agree_and_every_dual_bound_is_valid(spec, seed):
    solvers_agree_and_bounds_hold(spec, seed)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=specs(), seed=st.integers(0, 2**16))
def test_the_whole_sweep(spec, seed):
    """The audit's size (600 models with the default test's 20): python -m pytest -m slow."""
    solvers_agree_and_bounds_hold(spec, seed)


def solvers_agree_and_bounds_hold(spec: Spec, seed: int) -> None:
    m = build(spec, seed)
    p = ldopt.Problem.from_pyomo(m, m.c)
    costs = np.random.default_rng(seed + 1).normal(0, 3, (2, p.num_costs)).round(2)
    ref = p.solve(costs, solver="highs")
    assert (ref.status == "optimal").all(), ref.messages  # feasible by construction, bounded by the box
    opt = ref.objective
    tol = 1e-6 * np.maximum(1.0, np.abs(opt))
    for name in usable(p):
        s = p.solve(costs, solver=name)
        assert (s.status == "optimal").all(), (name, s.status, s.messages)
        np.testing.assert_allclose(s.objective, opt, atol=1e-5 * max(1.0, np.abs(opt).max()), err_msg=name)
        assert (p.violation(s.x) <= 1e-5).all(), name
    sign = p.sign  # every bound must be on the optimum's far side: ≥ it for max, ≤ for min
    dec = ldopt.decompose(p)
    for mode in ("shared", "independent", "joint"):
        for block_solver in ("auto", "highs"):
            r = dec.dual(costs, iterations=15, mode=mode, solver=block_solver, progress=False)
            assert (sign * (r.bound - opt) >= -tol).all(), (mode, block_solver, r.bound, opt)
            assert (sign * (r.run_bounds - opt[:, None]) >= -tol[:, None]).all(), (mode, block_solver)
    for step in ("master", "adam"):
        r = dec.dual(costs, iterations=15, step=step, progress=False)
        assert (sign * (r.bound - opt) >= -tol).all(), (step, r.bound, opt)
    lb = ldopt.lagrangian_bound(dec, costs, iterations=60, progress=False)
    assert not lb.infeasible.any()
    assert (sign * (lb.bound - opt) >= -tol).all(), (lb.bound, opt)


BAD = [np.nan, np.inf, -np.inf, 1e300, -1e300, 1e20, 1e15, 1e-12, 1e-300]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    spec=specs(),
    seed=st.integers(0, 2**16),
    where=st.sampled_from(["coef", "rhs", "bound", "objective"]),
    value=st.sampled_from(BAD),
)
def test_bad_numbers_in_the_model_data_give_an_error_or_an_honest_answer(spec, seed, where, value):
    try:
        m = build(spec, seed, (where, value))
        p = ldopt.Problem.from_pyomo(m, m.c)
    except ldopt.LdoptError:
        return  # refused at compile time, naming the component
    except ValueError as exc:  # Pyomo's own refusal while building the model: not ldopt's call
        assert "invalid" in str(exc).lower() or "bound" in str(exc).lower()
        return
    check = FeasibilityCheck(p.compiled)
    costs = np.random.default_rng(seed).normal(0, 3, (1, p.num_costs)).round(2)
    for name in usable(p):
        try:
            s = p.solve(costs, solver=name)
        except ldopt.LdoptError:
            continue  # e.g. HiGHS refusing a coefficient of 1e15 or more, with its reason
        if s.status[0] in ("optimal", "feasible"):
            assert np.isfinite(s.objective[0]), name
            assert check.worst(s.x[0])[0] <= 1.0, (name, check.worst(s.x[0]))


def test_the_sweep_builds_fractional_integer_bounds():
    """The generator's fractional bounds reach integer variables (the audit's 55 of 94 failures)."""
    spec = Spec([0.5, -1.5], [3.0, 1.0], ["I", "I"], [[1, 1]], ["le"], [0.0], True)
    p = ldopt.Problem.from_pyomo(m := build(spec, 0), m.c)
    np.testing.assert_array_equal(p.compiled.var_lb, [1.0, -1.0])
    np.testing.assert_array_equal(p.compiled.var_ub, [3.0, 1.0])


pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
