"""Compilation of Pyomo models into arrays, and the clear errors for what cannot be compiled."""

from __future__ import annotations

import pickle
import subprocess
import sys

import numpy as np
import pyomo.environ as pyo
import pytest

import ldopt
from ldopt.problems import knapsack, portfolio


def _base():
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, 2)
    m.c = pyo.Param(m.I, mutable=True, initialize=1.0)
    m.x = pyo.Var(m.I, domain=pyo.Binary)
    return m


def test_ldopt_imports_without_torch():
    code = "import sys, ldopt; assert 'torch' not in sys.modules, 'ldopt imported torch'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_knapsack_arrays_round_trip():
    d = knapsack.protocol_data(3, 12, dim=3, seed=1)
    m = knapsack.build_model(d.weights, d.capacities)
    p = ldopt.Problem.from_pyomo(m, m.c)
    assert (p.num_vars, p.num_costs, p.num_constraints, p.sense) == (12, 12, 3, "max")
    A = p.compiled.linear_matrix().toarray()
    np.testing.assert_array_equal(A, d.weights)
    np.testing.assert_array_equal([r.hi for r in p.compiled.rows], d.capacities)
    assert all(r.lo == -np.inf for r in p.compiled.rows)
    assert (p.compiled.var_type == "B").all()
    assert p.var_names == [f"x[{j}]" for j in range(12)]
    assert {r.component for r in p.compiled.rows} == {"capacity"}
    np.testing.assert_array_equal(p.compiled.Q.toarray(), np.eye(12))
    x = np.random.default_rng(0).integers(0, 2, (3, 12)).astype(float)
    np.testing.assert_allclose(p.objective(x, d.costs), (x * d.costs).sum(axis=1))


def test_affine_cost_map_and_constant():
    m = _base()
    m.y = pyo.Var(bounds=(0, 4), domain=pyo.Integers)
    m.obj = pyo.Objective(
        expr=sum((2 * m.c[i] + i) * m.x[i] for i in m.I) - 0.5 * m.y + 3 * m.c[1] + 7, sense=pyo.minimize
    )
    m.row = pyo.Constraint(expr=m.x[0] + m.y >= 1)
    p = ldopt.Problem.from_pyomo(m, m.c)
    cm = p.compiled
    assert p.sense == "min" and p.num_vars == 4 and p.var_names == ["x[0]", "x[1]", "x[2]", "y"]
    np.testing.assert_allclose(cm.q0, [0, 1, 2, -0.5])
    np.testing.assert_allclose(cm.Q.toarray(), np.vstack([2 * np.eye(3), np.zeros((1, 3))]))
    assert cm.k0 == 7 and list(cm.r) == [0, 3, 0]
    assert list(cm.var_type) == ["B", "B", "B", "I"] and cm.var_ub[3] == 4
    c = np.array([[1.0, -2.0, 0.5]])
    x = np.array([[1, 0, 1, 3]], dtype=float)
    expected = (2 * 1 + 0) * 1 + (2 * 0.5 + 2) * 1 - 1.5 + 3 * -2 + 7
    assert p.objective(x, c)[0] == pytest.approx(expected)
    # the affine map agrees with Pyomo evaluating the objective itself
    for i, v in enumerate(c[0]):
        m.c[i].set_value(v)
    for var, val in zip(cm.var_data, x[0], strict=True):
        var.set_value(val)
    assert pyo.value(m.obj) == pytest.approx(expected)


def test_scalar_cost_param_and_ge_quadratic_row():
    m = pyo.ConcreteModel()
    m.c = pyo.Param(mutable=True, initialize=1.0)
    m.x = pyo.Var([0, 1], bounds=(-5, 5))
    m.obj = pyo.Objective(expr=m.c * m.x[0] + m.x[1])
    m.q = pyo.Constraint(expr=-(m.x[0] ** 2) - m.x[1] ** 2 + m.x[0] >= -4)  # concave >= : convex
    p = ldopt.Problem.from_pyomo(m, m.c)
    (row,) = p.compiled.rows
    assert p.num_costs == 1 and row.is_quadratic and row.lo == -np.inf and row.hi == 4
    np.testing.assert_allclose(row.P, np.eye(2))
    np.testing.assert_allclose(row.dense(2), [-1, 0])


def test_portfolio_model_compiles_to_paper_form():
    cov, _, _ = portfolio.gen_data(2, 5, 6, seed=0)
    m = portfolio.build_model(cov, gamma=2.25)
    p = ldopt.Problem.from_pyomo(m, m.c)
    budget, risk = p.compiled.rows
    assert budget.is_equality and budget.hi == 1 and not budget.is_quadratic
    np.testing.assert_allclose(risk.P, cov)
    assert risk.hi == pytest.approx(2.25 * cov.mean())
    assert (p.compiled.var_lb == 0).all() and (p.compiled.var_ub == 1).all()


# --- bad input --------------------------------------------------------------------------------


def test_no_objective():
    m = _base()
    with pytest.raises(ldopt.ObjectiveError, match="no active Objective"):
        ldopt.Problem.from_pyomo(m, m.c)


def test_two_objectives():
    m = _base()
    m.o1 = pyo.Objective(expr=sum(m.c[i] * m.x[i] for i in m.I))
    m.o2 = pyo.Objective(expr=m.x[0])
    with pytest.raises(ldopt.ObjectiveError, match=r"expected one active Objective, got 2.*deactivate"):
        ldopt.Problem.from_pyomo(m, m.c)


def test_objective_quadratic_in_variables():
    m = _base()
    m.obj = pyo.Objective(expr=sum(m.c[i] * m.x[i] for i in m.I) + m.x[0] * m.x[1])
    with pytest.raises(ldopt.ObjectiveError, match="quadratic in the variables"):
        ldopt.Problem.from_pyomo(m, m.c)


def test_objective_not_affine_in_cost():
    m = _base()
    m.obj = pyo.Objective(expr=sum(m.c[i] * m.c[i] * m.x[i] for i in m.I))
    with pytest.raises(ldopt.ObjectiveError, match="objective 'obj'"):
        ldopt.Problem.from_pyomo(m, m.c)
    m.obj.deactivate()
    m.obj2 = pyo.Objective(expr=sum(m.c[i] * m.x[i] for i in m.I) + m.c[0] ** 2)
    with pytest.raises(ldopt.ObjectiveError, match="not affine in the cost"):
        ldopt.Problem.from_pyomo(m, m.c)


def test_nonlinear_objective():
    m = _base()
    m.obj = pyo.Objective(expr=sum(m.c[i] * m.x[i] for i in m.I) + pyo.exp(m.x[0]))
    with pytest.raises(ldopt.ObjectiveError, match="nonlinear"):
        ldopt.Problem.from_pyomo(m, m.c)


def test_cost_not_mutable_or_not_param_or_unused():
    m = _base()
    m.fixed = pyo.Param(m.I, initialize=1.0)
    m.obj = pyo.Objective(expr=sum(m.c[i] * m.x[i] for i in m.I))
    with pytest.raises(ldopt.CostParamError, match=r"not mutable.*mutable=True"):
        ldopt.Problem.from_pyomo(m, m.fixed)
    with pytest.raises(ldopt.CostParamError, match=r"expected a mutable pyomo Param.*got IndexedVar"):
        ldopt.Problem.from_pyomo(m, m.x)
    with pytest.raises(ldopt.CostParamError, match="got ndarray"):
        ldopt.Problem.from_pyomo(m, np.ones(3))
    m.other = pyo.Param(m.I, mutable=True, initialize=2.0)
    with pytest.raises(ldopt.CostParamError, match="does not appear in objective"):
        ldopt.Problem.from_pyomo(m, m.other)
    other = _base()
    with pytest.raises(ldopt.CostParamError, match="does not belong"):
        ldopt.Problem.from_pyomo(m, other.c)


def test_cost_in_constraint():
    m = _base()
    m.obj = pyo.Objective(expr=sum(m.c[i] * m.x[i] for i in m.I))
    m.bad = pyo.Constraint(expr=m.c[0] * m.x[0] <= 1)
    with pytest.raises(ldopt.CostParamError, match="appears in constraint 'bad'"):
        ldopt.Problem.from_pyomo(m, m.c)


def test_nonconvex_and_nonquadratic_constraints():
    m = _base()
    m.obj = pyo.Objective(expr=sum(m.c[i] * m.x[i] for i in m.I))
    m.nc = pyo.Constraint(expr=m.x[0] * m.x[1] <= 1)  # indefinite
    with pytest.raises(ldopt.ConstraintError, match="'nc' is nonconvex"):
        ldopt.Problem.from_pyomo(m, m.c)
    m.nc.deactivate()
    m.eq = pyo.Constraint(expr=m.x[0] ** 2 + m.x[1] ** 2 == 1)
    with pytest.raises(ldopt.ConstraintError, match="equality or range"):
        ldopt.Problem.from_pyomo(m, m.c)
    m.eq.deactivate()
    m.cub = pyo.Constraint(expr=m.x[0] ** 3 <= 1)
    with pytest.raises(ldopt.ConstraintError, match="'cub' is nonlinear"):
        ldopt.Problem.from_pyomo(m, m.c)


def test_unbounded_integer_variable():
    """Solving needs no bound the solver does not need: an integer variable that nothing bounds
    compiles with its infinite bound and solves; decomposing, which needs one, finds the bound
    every optimum meets (`test_optimal_bounds.py`)."""
    m = _base()
    m.z = pyo.Var(domain=pyo.NonNegativeIntegers)
    m.obj = pyo.Objective(expr=sum(m.c[i] * m.x[i] for i in m.I) + m.z)
    m.row = pyo.Constraint(expr=m.x[0] + m.z >= 1)
    p = ldopt.Problem.from_pyomo(m, m.c)
    z = p.compiled.var_names.index("z")
    assert p.compiled.var_ub[z] == np.inf
    assert p.solve(np.full(p.num_costs, 0.5), solver="highs").x[0, z] == 0  # x[0] meets the row for less
    # z's fixed cost penalises it and its row asks at most 1 of it: bounded at every optimum
    added = ldopt.decompose(p).inferred
    assert [(ib.name, ib.value) for bounds in added.values() for ib in bounds] == [("z", 1.0)]


@pytest.mark.parametrize("seed", range(12))
def test_integers_that_only_an_optimum_bounds_solve_as_written(seed):
    """A cutting-stock-like model (patterns ``x_p`` in NonNegativeIntegers under ``≥`` demand rows,
    nothing bounding them above) solves on every solver to scipy's MILP optimum of the same
    arrays, for random positive costs (a minimisation: every optimum is bounded)."""
    from scipy.optimize import Bounds, LinearConstraint, milp  # noqa: PLC0415

    rng = np.random.default_rng(seed)
    items, patterns = int(rng.integers(2, 5)), int(rng.integers(3, 7))
    A = rng.integers(0, 4, (items, patterns))
    A[rng.integers(0, items, patterns), np.arange(patterns)] += 1  # every pattern cuts something
    A[np.arange(items), rng.integers(0, patterns, items)] += 1  # every item is cut by some pattern
    d = rng.integers(5, 60, items)
    m = pyo.ConcreteModel()
    m.P, m.I = pyo.RangeSet(0, patterns - 1), pyo.RangeSet(0, items - 1)
    m.c = pyo.Param(m.P, mutable=True, initialize=1.0)
    m.x = pyo.Var(m.P, domain=pyo.NonNegativeIntegers)
    m.demand = pyo.Constraint(m.I, rule=lambda m, i: sum(int(A[i, q]) * m.x[q] for q in m.P) >= int(d[i]))
    m.obj = pyo.Objective(expr=sum(m.c[q] * m.x[q] for q in m.P), sense=pyo.minimize)
    p = ldopt.Problem.from_pyomo(m, m.c)
    C = rng.uniform(0.5, 3.0, (3, patterns))
    ref = [milp(c, constraints=LinearConstraint(A, d, np.inf), integrality=np.ones(patterns),
                bounds=Bounds(0, np.inf)).fun for c in C]  # fmt: skip
    for solver in ("auto", "highs", "gurobi"):
        if not ldopt.solvers.availability(p.compiled, solver).ok:
            continue  # gurobipy missing or unlicensed here
        s = p.solve(C, solver=solver)
        assert (s.status == "optimal").all(), (solver, s.status)
        np.testing.assert_allclose(s.objective, ref, rtol=1e-9, atol=1e-6)
        assert p.violation(s.x).max() <= 1e-6


def test_violated_constant_constraint():
    m = _base()
    m.obj = pyo.Objective(expr=sum(m.c[i] * m.x[i] for i in m.I))
    m.x[0].fix(1)
    m.bad = pyo.Constraint(expr=m.x[0] <= 0)
    with pytest.raises(ldopt.ConstraintError, match="'bad' has no free variable"):
        ldopt.Problem.from_pyomo(m, m.c)


def test_bad_cost_arrays_name_the_shape():
    m = knapsack.build_model(np.ones((1, 4)), [2])
    p = ldopt.Problem.from_pyomo(m, m.c)
    with pytest.raises(ldopt.InputError, match=r"expected shape \(4,\) or \(B, 4\), got \(3,\)"):
        p.solve(np.ones(3), solver="highs")
    with pytest.raises(ldopt.InputError, match=r"got \(2, 2, 4\)"):
        p.solve(np.ones((2, 2, 4)), solver="highs")
    with pytest.raises(ldopt.InputError, match="expected finite values, got nan at instance 1, entry 2"):
        p.solve([[1, 1, 1, 1], [1, 1, np.nan, 1]], solver="highs")
    with pytest.raises(ldopt.InputError, match="expected finite values, got inf"):
        p.objective(np.ones(4), [1, np.inf, 1, 1])
    with pytest.raises(ldopt.InputError, match="expected numbers"):
        p.solve(["a", "b", "c", "d"], solver="highs")
    with pytest.raises(ldopt.InputError, match="gap"):
        p.solve(np.ones(4), solver="highs", gap=2.0)


def test_unknown_and_unfit_solvers():
    m = knapsack.build_model(np.ones((1, 4)), [2])
    p = ldopt.Problem.from_pyomo(m, m.c)
    with pytest.raises(ldopt.SolverUnavailableError, match=r"unknown solver 'glpk'.*highs"):
        p.solve(np.ones(4), solver="glpk")
    with pytest.raises(ldopt.SolverUnavailableError, match="not available"):
        p.solve(np.ones(4), solver="pyomo:no_such_solver_xyz")
    cov, _, r = portfolio.gen_data(1, 5, 4, seed=0)
    mp = portfolio.build_model(cov)
    pp = ldopt.Problem.from_pyomo(mp, mp.c)
    with pytest.raises(ldopt.SolverUnavailableError, match="highs cannot handle quadratic constraints"):
        pp.solve(r, solver="highs")
    assert not pp.solvers()["highs"] and "quadratic" in pp.solvers()["highs"].reason


def test_gurobi_size_limited_license_is_reported():
    pytest.importorskip("gurobipy", reason="gurobipy is not installed")
    n = 2600
    m = knapsack.build_model(np.ones((2, n)), [n // 2, n // 3])  # two rows: no exact oracle fits it whole
    p = ldopt.Problem.from_pyomo(m, m.c)
    avail = ldopt.solvers.availability(p.compiled, "gurobi")
    if avail:
        pytest.skip("gurobi has an unrestricted license here; the size-limit message cannot be shown")
    assert "license-limited" in avail.reason and "solver='highs'" in avail.reason
    with pytest.raises(ldopt.SolverUnavailableError, match="license-limited"):
        p.solve(np.ones(n), solver="gurobi")
    # "auto" falls back to HiGHS instead of failing
    assert p.solve(np.ones(n), solver="auto").solver == "highs"


def test_errors_are_ldopt_errors():
    for cls in (
        ldopt.ObjectiveError,
        ldopt.CostParamError,
        ldopt.ConstraintError,
        ldopt.VariableError,
        ldopt.InputError,
        ldopt.SolverUnavailableError,
    ):
        assert issubclass(cls, ldopt.LdoptError)


def test_highs_prints_nothing_unless_asked():
    """highspy.Highs() prints HiGHS's banner in its constructor, once per process; ldopt's sessions and
    the dual's master LP do not, and ``verbose=True`` still shows HiGHS's log."""
    code = (
        "import numpy as np, ldopt; from ldopt.problems import knapsack\n"
        "d = knapsack.protocol_data(2, 10, dim=3, seed=0)\n"
        "m = knapsack.build_model(d.weights, d.capacities)\n"
        "p = ldopt.Problem.from_pyomo(m, m.c)\n"
        "C = np.random.default_rng(0).uniform(1, 2, (2, 10))\n"
        "p.solve(C, solver='highs')\n"
        "ldopt.decompose(p).dual(C, iterations=3, step='master', progress=False)\n"
        "print('quiet done', flush=True)\n"
        "p.solve(C[0], solver='highs', verbose=True)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    quiet, _, loud = (out.stdout + out.stderr).partition("quiet done")
    assert "HiGHS" not in quiet, quiet
    assert "HiGHS" in loud


def test_cost_names_follow_the_cost_params_index_order_not_the_variables():
    m = pyo.ConcreteModel()
    m.I, m.J = pyo.Set(initialize=["b", "a"]), pyo.Set(initialize=[2, 1])
    m.cost = pyo.Param(m.I, m.J, mutable=True, initialize=0.0)
    m.x = pyo.Var(m.J, m.I, bounds=(0, 1))
    m.o = pyo.Objective(expr=sum(m.cost[i, j] * m.x[j, i] for i in m.I for j in m.J), sense=pyo.maximize)
    p = ldopt.Problem.from_pyomo(m, m.cost)
    assert p.cost_names == ["cost[b,2]", "cost[b,1]", "cost[a,2]", "cost[a,1]"]
    assert p.var_names == ["x[2,b]", "x[2,a]", "x[1,b]", "x[1,a]"]
    c = np.array([1.0, -1.0, -1.0, -1.0])  # only cost[b,2] pays: x[2,b] and nothing else
    np.testing.assert_array_equal(p.solve(c, solver="highs").x[0], [1, 0, 0, 0])
    assert pickle.loads(pickle.dumps(p)).cost_names == p.cost_names  # also in a worker
