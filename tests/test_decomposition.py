"""Lagrangian decomposition: weak duality for every decomposition, convergence to the LD dual value,
the multiplier identities, the executor, and the errors."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from models import bound_from_multipliers, ld_dual_value, linear_model, portfolio_instances, row_model

import ldopt
from ldopt.dual import DualSettings
from ldopt.problems import facility, knapsack, set_cover, shift_scheduling, shortest_path


def _knapsack_problem(seed, n=8, rows=3):
    rng = np.random.default_rng(seed)
    W = rng.integers(1, 8, (rows, n)).astype(float)
    b = np.floor(0.5 * W.sum(axis=1))
    m = knapsack.build_model(W, b)
    return ldopt.Problem.from_pyomo(m, m.c), rng


# HiGHS stops within its internal tolerances (seen: 8e-7 below the DP's and Gurobi's optimum)
HIGHS_ATOL = 1e-5


@settings(max_examples=24, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 2**31 - 1),
    rows=st.integers(2, 4),
    step=st.sampled_from(["polyak", "adam"]),
    mode=st.sampled_from(["shared", "independent", "joint"]),
)
def test_weak_duality_for_every_decomposition(seed, rows, step, mode):
    """Every decomposition's bound is recomputed from its multipliers alone and bounds the optimum."""
    p, rng = _knapsack_problem(seed, n=8, rows=rows)
    dec = ldopt.decompose(p)
    costs = rng.integers(1, 30, (5, 8)).astype(float)
    opt = p.solve(costs, solver="highs").objective
    r = dec.dual(costs, iterations=60, step=step, mode=mode, progress=False)
    assert (r.bound >= opt - HIGHS_ATOL).all()
    for d in range(dec.num_blocks):
        assert r.multipliers(d).shape == (5, rows - 1, 8)
        np.testing.assert_allclose(r.main_objective(d), costs + r.multipliers(d).sum(axis=1), atol=1e-9)
        B_d = bound_from_multipliers(dec, r, d, "max")
        np.testing.assert_allclose(B_d, r.bound_of(d), rtol=1e-9, atol=HIGHS_ATOL)
        assert (B_d >= opt - HIGHS_ATOL).all()
        x_d = r.main_solution(d)
        np.testing.assert_allclose(
            (x_d * r.main_objective(d)).sum(axis=1),
            dec.block(d).problem.solve(r.main_objective(d), solver="highs").objective,
            atol=HIGHS_ATOL,
        )
    assert (np.diff(r.history, axis=0) <= 1e-12).all()  # best-so-far never rises
    assert (r.bound <= r.history[0] + 1e-12).all()
    assert (r.primal_objective <= opt + 1e-7).all()
    assert (p.violation(r.primal_x) <= 1e-9).all()


def test_shared_and_independent_reach_theld_dual_value():
    p, rng = _knapsack_problem(7, n=6, rows=3)
    dec = ldopt.decompose(p)
    costs = rng.integers(1, 20, (4, 6)).astype(float)
    ld = ld_dual_value(p, dec, costs)
    shared = dec.dual(costs, DualSettings(tol=0.0), iterations=1500, progress=False)
    indep = dec.dual(costs, DualSettings(tol=0.0), iterations=1500, mode="independent", progress=False)
    assert (shared.bound >= ld - 1e-7).all() and (indep.bound >= ld - 1e-7).all()
    np.testing.assert_allclose(shared.bound, ld, rtol=5e-3)
    for d in range(3):
        np.testing.assert_allclose(indep.bound_of(d), ld, rtol=5e-3)
    # the shared solve gives every decomposition the same bound
    for d in range(3):
        np.testing.assert_array_equal(shared.bound_of(d), shared.bound)


def _assignment(n_items=4, n_bins=2, seed=0):
    """A generalized assignment problem (minimisation, equality rows)."""
    rng = np.random.default_rng(seed)
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, n_items - 1)
    m.J = pyo.RangeSet(0, n_bins - 1)
    m.c = pyo.Param(m.I, m.J, mutable=True, initialize=0.0)
    m.x = pyo.Var(m.I, m.J, domain=pyo.Binary)
    w = rng.integers(1, 5, (n_items, n_bins))
    m.obj = pyo.Objective(expr=sum(m.c[i, j] * m.x[i, j] for i in m.I for j in m.J), sense=pyo.minimize)
    m.assign = pyo.Constraint(m.I, rule=lambda mm, i: sum(mm.x[i, j] for j in mm.J) == 1)
    m.cap = pyo.Constraint(
        m.J, rule=lambda mm, j: sum(int(w[i, j]) * mm.x[i, j] for i in mm.I) <= int(w[:, j].sum() * 0.6)
    )
    return ldopt.Problem.from_pyomo(m, m.c), rng


@pytest.mark.parametrize("blocks", [None, "component"])
def test_minimisation_with_equality_rows(blocks):
    p, rng = _assignment()
    dec = ldopt.decompose(p, blocks=blocks)
    assert dec.num_blocks == (6 if blocks is None else 2)
    costs = rng.uniform(1, 10, (5, p.num_costs))
    opt = p.solve(costs, solver="highs").objective
    r = dec.dual(costs, iterations=150, progress=False)
    assert (r.bound <= opt + 1e-7).all()  # a lower bound for a minimisation
    assert (np.diff(r.history, axis=0) >= -1e-12).all()
    for d in range(dec.num_blocks):
        B_d = bound_from_multipliers(dec, r, d, "min")
        np.testing.assert_allclose(B_d, r.bound_of(d), rtol=1e-9, atol=HIGHS_ATOL)
        assert (B_d <= opt + HIGHS_ATOL).all()
    ok = ~np.isnan(r.primal_objective)
    assert (r.primal_objective[ok] >= opt[ok] - 1e-7).all()


def test_general_integer_and_continuous_variables():
    A = np.array([[2, 1, 1], [1, 3, -1]], float)
    model = linear_model(
        A, np.array([-np.inf, -2]), np.array([6, 5]), np.zeros(3), np.array([3, 2, 4]), domain=pyo.Integers
    )
    model.x[2].domain = pyo.Reals
    p = ldopt.Problem.from_pyomo(model, model.c)
    dec = ldopt.decompose(p)
    costs = np.random.default_rng(2).normal(size=(6, 3))
    opt = p.solve(costs, solver="highs").objective
    r = dec.dual(costs, iterations=100, progress=False)
    assert (r.bound >= opt - 1e-7).all()


def test_portfolio_decomposition_bounds():
    _, dec, ret, opt = portfolio_instances(6, 20)
    r = dec.dual(ret, iterations=200, progress=False)
    assert (r.bound >= opt - 1e-6 * np.abs(opt)).all()
    assert (r.gap[np.isfinite(r.gap)] >= -1e-9).all()


def test_to_pyomo_agrees_with_internal_solvers():
    d = knapsack.protocol_data(3, 15, dim=3, seed=4)
    m = knapsack.build_model(d.weights, d.capacities)
    p = ldopt.Problem.from_pyomo(m, m.c)
    dec = ldopt.decompose(p)
    lam = np.random.default_rng(0).normal(0, 5, (4, 15))
    for k in range(dec.num_blocks):
        model = dec.block(k).to_pyomo()
        standalone = ldopt.Problem.from_pyomo(model, model.c)
        ours = dec.block(k).solver().argmax(lam)
        np.testing.assert_allclose(
            standalone.solve(lam, solver="pyomo:appsi_highs").objective, (ours * lam).sum(axis=1), atol=1e-9
        )
    p2, _ = _assignment()
    dec2 = ldopt.decompose(p2)
    model = dec2.block(0).to_pyomo()
    assert model.obj.sense == pyo.minimize  # the user's sense
    standalone = ldopt.Problem.from_pyomo(model, model.c)
    lam = np.random.default_rng(1).normal(size=(3, p2.num_vars))
    np.testing.assert_allclose(
        standalone.solve(lam, solver="highs").objective,
        -(dec2.block(0).solver().argmax(-lam) * -lam).sum(axis=1),
        atol=1e-9,
    )


def test_executor_gives_identical_results():
    d = knapsack.protocol_data(12, 30, dim=4, seed=5)
    m = knapsack.build_model(d.weights, d.capacities)
    dec = ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c))
    serial = dec.dual(d.costs, iterations=40, progress=False)
    with ProcessPoolExecutor(2) as ex:
        par = dec.dual(d.costs, iterations=40, executor=ex, chunk_size=5, progress=False)
    np.testing.assert_array_equal(serial.bound, par.bound)
    np.testing.assert_array_equal(serial.lam, par.lam)
    np.testing.assert_array_equal(serial.main_x, par.main_x)
    np.testing.assert_array_equal(serial.history, par.history)
    np.testing.assert_array_equal(serial.primal_objective, par.primal_objective)


def test_block_choices_and_errors():
    p, _ = _knapsack_problem(1, n=5, rows=3)
    assert ldopt.decompose(p, blocks="component").num_blocks == 1
    assert ldopt.decompose(p, blocks=[[0, 1], ["capacity[2]"]]).num_blocks == 2
    with pytest.raises(ldopt.DecompositionError, match="in no block"):
        ldopt.decompose(p, blocks=[[0, 1]])
    with pytest.raises(ldopt.DecompositionError, match="in several blocks"):
        ldopt.decompose(p, blocks=[[0, 1], [1, 2]])
    with pytest.raises(ldopt.DecompositionError, match="neither a row index"):
        ldopt.decompose(p, blocks=[[0, 1], [7]])
    with pytest.raises(ldopt.DecompositionError, match="expected None, 'component'"):
        ldopt.decompose(p, blocks="rows")
    dec = ldopt.decompose(p)
    with pytest.raises(ldopt.DecompositionError, match=r"block: expected an index in \[0, 3\), got 3"):
        dec.block(3)
    with pytest.raises(ldopt.InputError, match="iterations"):
        dec.dual(np.ones(5), iterations=0)
    with pytest.raises(ldopt.InputError, match="step"):
        dec.dual(np.ones(5), step="newton")
    with pytest.raises(ldopt.InputError, match=r"expected shape \(5,\)"):
        dec.dual(np.ones(4))
    r = dec.dual(np.ones(5), iterations=3, progress=False)
    with pytest.raises(ldopt.InputError, match="decomposition index"):
        r.multipliers(5)
    p2, _ = _assignment()
    dec2 = ldopt.decompose(p2, blocks="component")  # a block of several assignment rows
    with pytest.raises(ldopt.SolverUnavailableError, match="has no exact oracle"):
        dec2.dual(np.ones(p2.num_costs), iterations=2, solver="oracle", progress=False)
    # per-block solver names
    r2 = dec.dual(np.ones(5), iterations=5, solver={0: "highs"}, progress=False)
    assert r2.solvers == ["highs", "knapsack", "knapsack"]


def _two_rows(bound_x1: bool) -> ldopt.Problem:
    m = pyo.ConcreteModel()
    m.c = pyo.Param([0, 1], mutable=True, initialize=1.0)
    m.x = pyo.Var([0, 1], bounds=(0, None))
    m.obj = pyo.Objective(expr=m.c[0] * m.x[0] + m.c[1] * m.x[1], sense=pyo.maximize)
    m.r0 = pyo.Constraint(expr=m.x[0] <= 4)
    m.r1 = pyo.Constraint(expr=m.x[1] <= 4 if bound_x1 else m.x[1] >= m.x[0])
    return ldopt.Problem.from_pyomo(m, m.c)


def test_a_block_gets_the_bounds_that_the_model_implies():
    """x ≥ 0 declared, x1 ≤ 4 only through row r1: block 0 (r0) alone leaves x1 unbounded; the
    model implies x1 ≤ 4, so block 0 gets that bound, says so, and its bounds stay valid."""
    p = _two_rows(bound_x1=True)
    dec = ldopt.decompose(p)
    # 4, moved outward by at most what rounding could have cost (sound for the exact row)
    np.testing.assert_allclose(dec.blocks[0].compiled.var_ub, [np.inf, 4.0], rtol=1e-13)
    np.testing.assert_allclose(dec.blocks[1].compiled.var_ub, [4.0, np.inf], rtol=1e-13)
    assert dec.blocks[0].compiled.var_ub[1] >= 4.0 and dec.blocks[1].compiled.var_ub[0] >= 4.0
    assert "bounds added to the block: x[1] ≤ 4 (from row 'r1')" in dec.describe()
    assert p.compiled.var_ub.tolist() == [np.inf, np.inf]  # the problem itself is unchanged
    costs = np.array([[1.0, 2.0], [3.0, -1.0]])
    opt = p.solve(costs, solver="highs").objective
    r = dec.dual(costs, iterations=50, progress=False)
    assert (r.bound >= opt - 1e-9).all()
    np.testing.assert_allclose(ldopt.lagrangian_bound(dec, costs, progress=False).bound, opt, atol=1e-6)
    assert ldopt.decompose(p, blocks=[["r0", "r1"]]).inferred == {}  # one block bounds both itself


def test_a_variable_the_whole_model_leaves_unbounded_is_refused():
    p = _two_rows(bound_x1=False)  # x1 ≥ x0 and nothing above
    with pytest.raises(ldopt.DecompositionError, match=r"'x\[1\]' is unbounded above in the whole model"):
        ldopt.decompose(p)


def test_implied_bounds_that_propagation_misses_come_from_the_lp_relaxation():
    """Free x, y in the diamond |x| + |y| ≤ 4: every row has two free variables, so propagation
    finds nothing; the LP relaxation bounds both by 4. Each row alone bounds neither."""
    m = pyo.ConcreteModel()
    m.c = pyo.Param([0, 1], mutable=True, initialize=1.0)
    m.x = pyo.Var([0, 1])
    m.obj = pyo.Objective(expr=m.c[0] * m.x[0] + m.c[1] * m.x[1], sense=pyo.maximize)
    m.rows = pyo.ConstraintList()
    for a, b in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
        m.rows.add(a * m.x[0] + b * m.x[1] <= 4)
    p = ldopt.Problem.from_pyomo(m, m.c)
    dec = ldopt.decompose(p)
    for b in dec.blocks:
        assert np.isfinite(b.compiled.var_lb).all() and np.isfinite(b.compiled.var_ub).all()
        assert all(ib.source == "the LP relaxation of the whole model" for ib in dec.inferred[b.index])
        # 4, moved outward by the LP solver's feasibility tolerance (its x_j may fall short of the optimum)
        assert all(4.0 <= abs(ib.value) <= 4.0 * (1 + 2e-6) for ib in dec.inferred[b.index])
    costs = np.random.default_rng(0).normal(size=(5, 2))
    opt = p.solve(costs, solver="highs").objective
    assert (ldopt.lagrangian_bound(dec, costs, progress=False).bound >= opt - 1e-7).all()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), minimise=st.booleans())
def test_implied_bounds_keep_weak_duality(seed, minimise):
    """Nonnegative variables without upper bounds, bounded only by a few covering-free rows of
    the whole model (as users write them): every block decomposes and every bound is valid."""
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(3, 7)), int(rng.integers(2, 5))
    A = rng.integers(-2, 4, (k, n)).astype(float)
    A[0] = rng.integers(1, 4, n)  # one row bounds every variable: Σ a_j x_j ≤ cap, a > 0
    lo = np.full(k, -np.inf)
    hi = np.r_[rng.integers(5, 20), rng.integers(0, 10, k - 1)].astype(float)
    sense = pyo.minimize if minimise else pyo.maximize
    model = linear_model(A, lo, hi, np.zeros(n), np.full(n, np.inf), domain=pyo.NonNegativeReals, sense=sense)
    p = ldopt.Problem.from_pyomo(model, model.c)
    dec = ldopt.decompose(p)
    costs = rng.normal(0, 2, (3, n))
    opt = p.solve(costs, solver="highs").objective
    r = dec.dual(costs, iterations=40, progress=False)
    assert (p.sign * (r.bound - opt) >= -1e-6 * np.maximum(1, np.abs(opt))).all()


def test_dual_without_a_primal_value_keeps_iterating_on_a_minimisation():
    """Regression: with no feasible primal value yet (p = -inf) the gap test must not stop a run."""
    rng = np.random.default_rng(5)
    agents, J = 3, 8
    w = rng.integers(5, 25, (agents, J))
    cap = (1.3 * w.sum(1) / agents).astype(int)
    A = np.zeros((J + agents, agents * J))
    for j in range(J):
        A[j, [i * J + j for i in range(agents)]] = 1.0
    for i in range(agents):
        A[J + i, i * J : (i + 1) * J] = w[i]
    lo = np.r_[np.ones(J), np.full(agents, -np.inf)]
    hi = np.r_[np.ones(J), cap]
    model = linear_model(A, lo, hi, np.zeros(agents * J), np.ones(agents * J), sense=pyo.minimize)
    p = ldopt.Problem.from_pyomo(model, model.c)
    costs = rng.uniform(1, 10, (6, agents * J))
    r = ldopt.decompose(p).dual(costs, DualSettings(layout="dense"), iterations=200, step="polyak", progress=False)
    opt = p.solve(costs, solver="highs").objective
    assert r.iterations > 50
    assert (r.bound <= opt + 1e-9).all()
    assert ((opt - r.bound) / opt).mean() < 0.05
    # on the supports the copies agree sooner: the exact optimum, and the run stops there
    s = ldopt.decompose(p).dual(costs, DualSettings(layout="sparse"), iterations=200, step="polyak", progress=False)
    assert (s.bound <= opt + 1e-9).all() and np.allclose(s.bound, opt, rtol=1e-6)


def test_describe_names_each_blocks_rows_and_how_it_is_solved():
    d = knapsack.protocol_data(4, 30, dim=3, seed=0)
    m = knapsack.build_model(d.weights, d.capacities)
    dec = ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c))
    lines = dec.describe().splitlines()
    assert len(lines) == 1 + dec.num_blocks
    assert all("capacity[" in ln and "knapsack row over 30 binary variables" in ln for ln in lines[1:])
    named = dec.describe({1: "highs"}).splitlines()
    assert "highs: the solver named for this block" in named[2] and "knapsack" in named[1]
    p = row_model([1.0] * 8 + [1.0], None, 4.0, [0] * 9, [1] * 8 + [2.5], ["B"] * 8 + ["C"])
    assert "no exact oracle fits this block" in ldopt.decompose(p).describe()


def test_mu_form_runs_progress_without_a_feasible_primal():
    """Shortest path and facility location: the primal heuristic finds no feasible point in the
    blocks' copies, so Polyak's target comes from the scale of the block values. With 5% of the
    best bound (near 0 on these minimisations) as the target's distance, the joint runs stalled at
    a median of 0.12 (shortest path) and 0.24 (facility location) of the optimum after 300
    iterations, and the paper's runs at 0.0 on facility location; now 0.88 and 0.66."""
    _, C = shortest_path.gen_data(20, 5, (3, 3), deg=4, noise_width=0.5, seed=1)
    sp = shortest_path.build_model((3, 3))
    fd = facility.gen_data(10, facilities=5, customers=10, seed=1)
    fl = facility.build_model(fd.demands, fd.capacities, fd.fixed_costs)
    for model, costs, floor in [(sp, C, 0.7), (fl, fd.costs, 0.5)]:
        p = ldopt.Problem.from_pyomo(model, model.c)
        opt = p.solve(costs, solver="highs").objective
        r = ldopt.decompose(p).dual(costs, iterations=300, mode="joint", progress=False)
        assert (r.bound <= opt + 1e-7).all()
        assert np.median(r.bound / opt) > floor


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(3, 14), packing=st.integers(0, 3), covering=st.integers(1, 4))
def test_the_repair_gives_feasible_points_of_covering_and_packing_rows(seed, n, packing, covering):
    """Binary rows with nonnegative coefficients, ``<=`` and ``>=`` mixed: every primal value the dual
    reports is a feasible point's (checked against the model) and no better than the optimum."""
    rng = np.random.default_rng(seed)
    m = pyo.ConcreteModel()
    m.J = pyo.RangeSet(0, n - 1)
    m.c = pyo.Param(m.J, mutable=True, initialize=1.0)
    m.x = pyo.Var(m.J, domain=pyo.Binary)
    m.obj = pyo.Objective(expr=sum(m.c[j] * m.x[j] for j in m.J), sense=pyo.minimize)
    m.rows = pyo.ConstraintList()
    for _ in range(covering):
        on = rng.choice(n, size=rng.integers(2, n + 1), replace=False).tolist()
        m.rows.add(sum(m.x[j] for j in on) >= 1)
    for _ in range(packing):
        w = rng.integers(1, 6, n)
        m.rows.add(sum(int(w[j]) * m.x[j] for j in range(n)) <= int(w.sum() * 0.7))
    p = ldopt.Problem.from_pyomo(m, m.c)
    C = rng.uniform(-0.5, 2.0, (6, n))
    s = p.solve(C, solver="highs")
    ok = s.status == "optimal"
    r = ldopt.decompose(p).dual(C, mode="shared", iterations=40, progress=False)
    found = np.isfinite(r.primal_objective)
    assert (p.violation(r.primal_x[found]) <= 1e-6).all()
    np.testing.assert_allclose((r.primal_x[found] * C[found]).sum(1), r.primal_objective[found], rtol=1e-9, atol=1e-9)
    assert (r.primal_objective[found & ok] >= s.objective[found & ok] - 1e-7).all()
    assert (r.bound[ok] <= s.objective[ok] + 1e-7).all()


def test_the_shared_dual_closes_the_gap_on_rosters_and_covers():
    """With a feasible point from the repair, 300 shared steps end within 1% of the optimum (median)."""
    roster = shift_scheduling.gen_data(10, employees=6, days=7, seed=2)
    cover = set_cover.gen_data(10, sets=30, elements=22, seed=2)
    cases = [
        (shift_scheduling.build_model(roster.requirements, roster.most, roster.least), roster.costs),
        (set_cover.build_model(cover.membership), cover.costs),
    ]
    for m, costs in cases:
        p = ldopt.Problem.from_pyomo(m, m.c)
        opt = p.solve(costs, solver="highs").objective
        r = ldopt.decompose(p).dual(costs, mode="shared", iterations=300, step="polyak", progress=False)
        assert np.isfinite(r.primal_objective).all()
        assert np.median(r.bound / opt) > 0.99 and (r.bound <= opt + 1e-6).all()


@pytest.mark.parametrize("mode", ["independent", "joint"])
def test_a_symmetric_start_begins_at_the_shared_bound_and_stays_valid(mode):
    """``mu0="symmetric"`` gives every block ``q/m`` at the start (``q_j/c_j`` on the supports in the
    sparse layout): the μ-form runs' first bound is the shared solve's first bound in that layout;
    every bound is a valid (weak-duality) bound; and on a set cover with 30 rows, where μ = 1
    starts far off, 30 joint steps get close."""
    d = set_cover.gen_data(8, sets=20, elements=15, seed=4)
    m = set_cover.build_model(d.membership)
    p = ldopt.Problem.from_pyomo(m, m.c)
    dec = ldopt.decompose(p)
    opt = p.solve(d.costs, solver="highs").objective
    sym = dec.dual(d.costs, DualSettings(mu0="symmetric"), iterations=30, mode=mode, step="polyak", progress=False)
    # in either layout (independent runs are dense; joint ones here on the supports: q_j / c_j)
    shared = dec.dual(
        d.costs, DualSettings(layout=sym.layout), iterations=1, mode="shared", step="polyak", progress=False
    )
    np.testing.assert_allclose(sym.history[0], shared.history[0], rtol=1e-9, atol=1e-9)
    assert (sym.bound <= opt + 1e-7).all()
    one = dec.dual(d.costs, DualSettings(mu0=1.0), iterations=30, mode=mode, step="polyak", progress=False)
    assert np.median(sym.bound / opt) > max(0.8, np.median(one.bound / opt))
    default = dec.dual(d.costs, iterations=30, mode=mode, step="polyak", progress=False)
    np.testing.assert_array_equal(default.bound, sym.bound)  # the symmetric start is the default
    with pytest.raises(ldopt.InputError, match="mu0: expected a number, 'auto', 'symmetric' or 'lp'"):
        dec.dual(d.costs, DualSettings(mu0="sym"), mode=mode)


def test_dantzigs_transportation_model_decomposes_as_written():
    """Dantzig's transportation problem as Pyomo's and GAMS's examples write it (trnsport: shipments
    NonNegativeReals, supply ≤ and demand ≥ rows, no upper bounds). The demand blocks get the bounds
    the supply rows imply, and for an LP the exact Lagrangian bound is the optimum (strong duality)."""
    m = pyo.ConcreteModel()
    supply, demand = {"seattle": 350, "san-diego": 600}, {"new-york": 325, "chicago": 300, "topeka": 275}
    m.I, m.J = pyo.Set(initialize=list(supply)), pyo.Set(initialize=list(demand))
    m.c = pyo.Param(m.I, m.J, mutable=True, initialize=1.0)
    m.x = pyo.Var(m.I, m.J, within=pyo.NonNegativeReals)
    m.supply = pyo.Constraint(m.I, rule=lambda m, i: sum(m.x[i, j] for j in m.J) <= supply[i])
    m.demand = pyo.Constraint(m.J, rule=lambda m, j: sum(m.x[i, j] for i in m.I) >= demand[j])
    m.cost = pyo.Objective(expr=sum(m.c[i, j] * m.x[i, j] for i in m.I for j in m.J), sense=pyo.minimize)
    p = ldopt.Problem.from_pyomo(m, m.c)
    for blocks in (None, "component"):
        dec = ldopt.decompose(p, blocks=blocks)
        assert "x[seattle,new-york] ≤ 350 (from row 'supply[seattle]')" in dec.describe()
        costs = np.random.default_rng(0).uniform(1, 3, (4, 6))
        opt = p.solve(costs, solver="highs").objective
        np.testing.assert_allclose(ldopt.lagrangian_bound(dec, costs, progress=False).bound, opt, rtol=1e-6)
