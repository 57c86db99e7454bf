"""The data generators reproduce PyEPO's exactly, and the protocol choices of DESIGN.md hold."""

from __future__ import annotations

import numpy as np
import pytest

import ldopt
from ldopt.errors import InputError
from ldopt.problems import facility, knapsack, lot_sizing, portfolio, set_cover, shift_scheduling, shortest_path


@pytest.mark.parametrize("args", [(20, 12, 30, 10, 8, 0.5, 42), (7, 5, 11, 1, 1, 0.0, 135), (3, 4, 9, 3, 4, 0.2, 0)])
def test_knapsack_matches_pyepo(args):
    pyepo_knapsack = pytest.importorskip("pyepo.data.knapsack", reason="pyepo is not installed")
    num_data, p, n, dim, deg, noise, seed = args
    ours = knapsack.gen_data(num_data, p, n, dim=dim, deg=deg, noise_width=noise, seed=seed)
    ref = pyepo_knapsack.genData(num_data, p, n, dim=dim, deg=deg, noise_width=noise, seed=seed)
    for a, b in zip(ours, ref, strict=True):
        np.testing.assert_array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float).reshape(np.shape(a)))
    assert ours[2].dtype == np.float32


@pytest.mark.parametrize("args", [(20, 5, 30, 8, 1.0, 42), (9, 3, 7, 1, 0.5, 135)])
def test_portfolio_matches_pyepo(args):
    pyepo_portfolio = pytest.importorskip("pyepo.data.portfolio", reason="pyepo is not installed")
    num_data, p, n, deg, noise, seed = args
    ours = portfolio.gen_data(num_data, p, n, deg=deg, noise_level=noise, seed=seed)
    ref = pyepo_portfolio.genData(num_data, p, n, deg=deg, noise_level=noise, seed=seed)
    for a, b in zip(ours, ref, strict=True):
        np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-6, atol=1e-12)


def test_knapsack_protocol():
    d = knapsack.protocol_data(5, 40, seed=1)
    assert d.weights.shape == (10, 40) and d.weights.dtype.kind == "i"
    assert d.weights.min() >= 3 and d.weights.max() <= 7
    np.testing.assert_array_equal(d.capacities, (0.5 * d.weights.sum(axis=1)).astype(int))
    assert d.features.shape == (5, 12) and d.costs.shape == (5, 40)
    assert (d.costs >= 1).all() and (d.costs == np.ceil(d.costs)).all()


def test_portfolio_covariance_is_psd_and_risk_level():
    cov, _, _ = portfolio.gen_data(4, 5, 25, deg=8, seed=3)
    assert np.linalg.eigvalsh(cov).min() > 0
    assert portfolio.risk_level(cov) == pytest.approx(2.25 * cov.mean())


def test_bad_generator_arguments():
    with pytest.raises(InputError, match="deg: expected a positive integer, got 0"):
        knapsack.gen_data(2, 3, 4, deg=0)
    with pytest.raises(InputError, match="deg"):
        portfolio.gen_data(2, 3, 4, deg=1.5)
    with pytest.raises(InputError, match=r"expected shapes \(m, n\) and \(m,\)"):
        knapsack.build_model(np.ones((2, 3)), [1, 2, 3])
    with pytest.raises(InputError, match="square"):
        portfolio.build_model(np.ones((2, 3)))


@pytest.mark.parametrize("args", [(50, 5, (5, 5), 1, 0.0, 135), (20, 3, (3, 4), 4, 0.5, 7), (7, 2, (1, 6), 2, 0.1, 0)])
def test_shortest_path_matches_pyepo(args):
    pyepo_sp = pytest.importorskip("pyepo.data.shortestpath", reason="pyepo is not installed")
    utils = pytest.importorskip("pyepo.model.utils", reason="pyepo is not installed")
    ours, theirs = shortest_path.gen_data(*args), pyepo_sp.genData(*args)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(a, b)
    assert shortest_path.arcs(args[2]) == utils._get_grid_arcs(args[2])


def test_shortest_path_model_finds_the_dag_shortest_path_and_every_row_has_an_oracle():
    """Against a dynamic program over the grid (a DAG): the LP and the binary model agree with it,
    and every node's conservation row gets the closed-form oracle."""
    grid = (4, 5)
    _, costs = shortest_path.gen_data(30, 5, grid, deg=2, noise_width=0.5, seed=3)
    arc_list = shortest_path.arcs(grid)
    want = []
    for c in costs.astype(float):
        dist = np.full(grid[0] * grid[1], np.inf)
        dist[0] = 0.0
        for a, (t, h) in sorted(enumerate(arc_list), key=lambda e: e[1]):  # tails in topological order
            dist[h] = min(dist[h], dist[t] + c[a])
        want.append(dist[-1])
    for binary in (True, False):
        m = shortest_path.build_model(grid, binary=binary)
        p = ldopt.Problem.from_pyomo(m, m.c)
        s = p.solve(costs, solver="highs")
        np.testing.assert_allclose(s.objective, want, rtol=1e-9)
        assert set(np.unique(np.round(s.x, 9))) <= {0.0, 1.0}
    dec = ldopt.decompose(p)
    assert all("linear-row" in line for line in dec.describe().splitlines()[1:])
    r = dec.dual(costs, iterations=50)
    assert (r.bound <= np.asarray(want) + 1e-7).all()  # weak duality: a lower bound for a minimum


@pytest.mark.parametrize(
    ("grid", "parts", "sizes"), [((5, 5), 2, [15, 10]), ((4, 6), 3, [12, 6, 6]), ((3, 3), 3, [3, 3, 3])]
)
def test_shortest_path_regions_are_bands_of_grid_rows_and_bound_the_optimum(grid, parts, sizes):
    """Every node row once, in bands of whole grid rows; the decomposition's dual bounds the
    shortest path from below (weak duality) and is tighter than one block per node's."""
    groups = shortest_path.regions(grid, parts)
    assert [len(g) for g in groups] == sizes
    names = [n for g in groups for n in g]
    assert sorted(names) == sorted(f"node[{v}]" for v in range(grid[0] * grid[1]))
    assert all(len({int(n[5:-1]) // grid[1] for n in g}) * grid[1] == len(g) for g in groups)  # whole grid rows
    _, costs = shortest_path.gen_data(6, 5, grid, deg=2, noise_width=0.5, seed=2)
    m = shortest_path.build_model(grid)
    p = ldopt.Problem.from_pyomo(m, m.c)
    best = p.solve(costs, solver="highs").objective
    kw = dict(mode="shared", iterations=100, step="polyak")  # the subgradient runs, as measured
    by_region = ldopt.decompose(p, blocks=groups).dual(costs, solver="highs", **kw).bound
    by_node = ldopt.decompose(p).dual(costs, **kw).bound
    assert (by_region <= best + 1e-7).all()
    assert by_region.mean() >= by_node.mean() - 1e-9


def test_shortest_path_regions_reject_bad_parts():
    with pytest.raises(InputError, match="parts: expected at most the grid's 5 rows, got 6"):
        shortest_path.regions((5, 5), 6)
    with pytest.raises(InputError, match="parts"):
        shortest_path.regions((5, 5), 0)


def test_shortest_path_rejects_a_bad_grid():
    for grid in [(1, 1), (0, 3), "5x5", (2,)]:
        with pytest.raises(InputError, match="grid"):
            shortest_path.build_model(grid)


def test_facility_location_blocks_all_have_oracles_and_bound_the_optimum():
    """Assignment rows in closed form, capacity rows by the mixed-row oracle, the cover row as a
    knapsack; the optimum agrees between HiGHS and Gurobi and the shared dual bounds it (weak
    duality for a minimum: bound <= optimum)."""
    d = facility.gen_data(12, facilities=4, customers=8, seed=5)
    assert d.costs.shape == (12, 32) and (d.costs > 0).all()
    assert d.capacities.sum() >= 2 * d.demands.sum() - 1e-9
    m = facility.build_model(d.demands, d.capacities, d.fixed_costs)
    p = ldopt.Problem.from_pyomo(m, m.c)
    dec = ldopt.decompose(p)
    names = [line.split("— ")[1].split(":")[0] for line in dec.describe().splitlines()[1:]]
    assert names == ["linear-row"] * 8 + ["mixed-row"] * 4 + ["knapsack"]
    s = p.solve(d.costs, solver="highs")
    assert (s.status == "optimal").all() and (p.violation(s.x) <= 1e-6).all()
    if "gurobi" in ldopt.solvers.registered() and p.solvers()["gurobi"].ok:
        np.testing.assert_allclose(p.solve(d.costs, solver="gurobi").objective, s.objective, rtol=1e-6)
    r = dec.dual(d.costs, iterations=300)
    assert (r.bound <= s.objective + 1e-6).all()
    assert np.median(r.bound / s.objective) > 0.8  # the shared solve gets close


def test_facility_generator_is_deterministic_and_checks_its_input():
    a, b = facility.gen_data(5, seed=3), facility.gen_data(5, seed=3)
    np.testing.assert_array_equal(a.costs, b.costs)
    with pytest.raises(InputError, match="fixed_costs"):
        facility.build_model([5, 6], [10, 10], [1.0])
    with pytest.raises(InputError, match="demands"):
        facility.build_model([5, np.nan], [10, 10], [1.0, 2.0])


def _roster_ok(x: np.ndarray, d: shift_scheduling.ShiftData) -> np.ndarray:
    """Each roster's feasibility, checked from the rules, not from the model."""
    E, (D, T) = len(d.most), d.requirements.shape
    r = x.reshape(len(x), E, D, T).round()
    ok = (r.sum(1) >= d.requirements - 1e-9).all((1, 2))  # staffing
    ok &= (r.sum(3) <= 1).all((1, 2))  # one shift a day
    ok &= (r[:, :, :-1, T - 1] + r[:, :, 1:, 0] <= 1).all((1, 2))  # rest after a night
    load = r.sum((2, 3))
    return ok & (load <= d.most).all(1) & (load >= d.least).all(1)


def test_shift_scheduling_rosters_obey_the_rules_and_every_row_has_an_oracle():
    """HiGHS's rosters keep every rule; on a tiny instance they match enumeration; every row is a
    closed-form block and the shared dual bounds the optimum from below (weak duality, a minimum)."""
    d = shift_scheduling.gen_data(8, employees=6, days=5, shifts=3, seed=4)
    assert d.costs.shape == (8, 90) and (d.costs > 0).all()
    m = shift_scheduling.build_model(d.requirements, d.most, d.least)
    p = ldopt.Problem.from_pyomo(m, m.c)
    s = p.solve(d.costs, solver="highs")
    assert (s.status == "optimal").all() and _roster_ok(s.x, d).all()
    dec = ldopt.decompose(p)
    assert all("linear-row" in line for line in dec.describe().splitlines()[1:])
    assert dec.num_blocks == 5 * 3 + 6 * 5 + 6 * 4 + 6 + 6
    r = dec.dual(d.costs, mode="shared", iterations=300)
    assert (r.bound <= s.objective + 1e-6).all()
    assert np.median(r.bound / s.objective) > 0.5
    # enumeration on 2 employees, 2 days, 2 shifts (16 rosters)
    t = shift_scheduling.ShiftData(
        np.array([[1.0, 1.0], [1.0, 0.0]]),
        np.array([2.0, 2.0]),
        np.array([1.0, 0.0]),
        np.zeros((0, 5)),
        np.zeros((0, 8)),
    )
    tm = shift_scheduling.build_model(t.requirements, t.most, t.least)
    tp = ldopt.Problem.from_pyomo(tm, tm.c)
    rng = np.random.default_rng(0)
    costs = rng.uniform(0.5, 2.0, (20, 8))
    every = np.array([[(k >> j) & 1 for j in range(8)] for k in range(256)], dtype=float)
    feasible = every[_roster_ok(every, t)]
    np.testing.assert_allclose(tp.solve(costs, solver="highs").objective, (costs @ feasible.T).min(1), rtol=1e-9)


def test_shift_scheduling_generator_is_deterministic_and_checks_its_input():
    a, b = shift_scheduling.gen_data(4, seed=2), shift_scheduling.gen_data(4, seed=2)
    np.testing.assert_array_equal(a.costs, b.costs)
    with pytest.raises(InputError, match="least"):
        shift_scheduling.build_model([[1, 1]], [1, 1], [2, 0])
    with pytest.raises(InputError, match="requirements"):
        shift_scheduling.build_model([1, 1], [1, 1], [0, 0])
    with pytest.raises(InputError, match="employees"):
        shift_scheduling.gen_data(4, employees=2, shifts=3, staffing=1.0)  # 3 a day, 2 people
    with pytest.raises(InputError, match="staffing"):
        shift_scheduling.gen_data(4, staffing=1.5)


def test_set_cover_optimum_matches_enumeration_and_every_row_has_an_oracle():
    d = set_cover.gen_data(10, sets=12, elements=9, density=0.2, seed=6)
    assert (d.membership.sum(1) >= 2).all() and d.costs.shape == (10, 12)
    m = set_cover.build_model(d.membership)
    p = ldopt.Problem.from_pyomo(m, m.c)
    every = np.array([[(k >> j) & 1 for j in range(12)] for k in range(1 << 12)], dtype=float)
    covers = every[(every @ d.membership.T >= 1).all(1)]
    want = (d.costs.astype(float) @ covers.T).min(1)
    s = p.solve(d.costs, solver="highs")
    np.testing.assert_allclose(s.objective, want, rtol=1e-9)
    dec = ldopt.decompose(p)
    assert all("linear-row" in line for line in dec.describe().splitlines()[1:])
    r = dec.dual(d.costs, mode="shared", iterations=300)
    assert (r.bound <= want + 1e-6).all() and np.median(r.bound / want) > 0.8


def test_set_cover_refuses_an_element_in_no_set():
    with pytest.raises(InputError, match="element 1 lies in no set"):
        set_cover.build_model([[1, 0], [0, 0]])
    with pytest.raises(InputError, match="0/1"):
        set_cover.build_model([[2, 0]])
    with pytest.raises(InputError, match="sets"):
        set_cover.gen_data(3, sets=1)


def _lot_sizing_by_enumeration(d: lot_sizing.LotSizingData, c: np.ndarray) -> float:
    """The optimum over every setup pattern, each with its production LP solved by SciPy."""
    from scipy.optimize import linprog  # noqa: PLC0415

    ni, nt = d.demands.shape
    left = np.cumsum(d.demands[:, ::-1], axis=1)[:, ::-1]
    big = np.minimum(d.capacity, left)
    n = ni * nt  # variables: x (i-major), then s
    best = np.inf
    for k in range(1 << n):
        y = np.array([(k >> j) & 1 for j in range(n)], dtype=float).reshape(ni, nt)
        A_eq, b_eq = np.zeros((n, 2 * n)), d.demands.reshape(-1)
        for i in range(ni):
            for t in range(nt):
                r = i * nt + t
                A_eq[r, r], A_eq[r, n + r] = 1.0, -1.0
                if t:
                    A_eq[r, n + r - 1] = 1.0
        A_ub = np.zeros((nt, 2 * n))
        for t in range(nt):
            A_ub[t, [i * nt + t for i in range(ni)]] = 1.0
        b_ub = d.capacity - (d.setup_times[:, None] * y).sum(0)
        bounds = [(0, big.reshape(-1)[j] * y.reshape(-1)[j]) for j in range(n)]
        bounds += [(0, (left - d.demands).reshape(-1)[j]) for j in range(n)]
        cost = np.concatenate([c, np.repeat(d.holding_costs, nt)])
        res = linprog(cost, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs")
        if res.status == 0:
            best = min(best, res.fun + float((d.setup_costs[:, None] * y).sum()))
    return best


def test_lot_sizing_optimum_matches_enumeration_and_every_row_has_an_oracle():
    d = lot_sizing.gen_data(6, items=2, periods=4, seed=3)
    assert d.costs.shape == (6, 8) and d.capacity >= (d.demands.sum(0) + d.setup_times.sum()).max()
    m = lot_sizing.build_model(d.demands, d.capacity, d.setup_times, d.setup_costs, d.holding_costs)
    p = ldopt.Problem.from_pyomo(m, m.c)
    want = np.array([_lot_sizing_by_enumeration(d, c.astype(float)) for c in d.costs])
    s = p.solve(d.costs, solver="highs")
    np.testing.assert_allclose(s.objective, want, rtol=1e-7)
    # the plans meet demand from production and stock, within capacity, producing only after a setup
    x = s.x.reshape(6, 3, 2, 4)  # x, s, y over (item, period)
    stock_in = np.concatenate([np.zeros((6, 2, 1)), x[:, 1, :, :-1]], axis=2)
    np.testing.assert_allclose(stock_in + x[:, 0] - x[:, 1], np.broadcast_to(d.demands, (6, 2, 4)), atol=1e-6)
    assert ((x[:, 0] + d.setup_times[None, :, None] * x[:, 2]).sum(1) <= d.capacity + 1e-6).all()
    assert (x[:, 0] <= 1e-6 + d.capacity * x[:, 2]).all()
    dec = ldopt.decompose(p)
    kinds = [line.split(" — ")[1].split(":")[0] for line in dec.describe().splitlines()[1:]]
    assert set(kinds) == {"linear-row", "mixed-row"}, kinds
    r = dec.dual(d.costs, mode="shared", iterations=100, progress=False)
    assert (r.bound <= want + 1e-6).all()


def test_lot_sizing_generator_is_deterministic_and_checks_its_input():
    a, b = lot_sizing.gen_data(4, seed=2), lot_sizing.gen_data(4, seed=2)
    np.testing.assert_array_equal(a.costs, b.costs)
    np.testing.assert_array_equal(a.demands, b.demands)
    with pytest.raises(InputError, match="items: expected at most 6"):
        lot_sizing.gen_data(4, items=7)
    with pytest.raises(InputError, match=r"capacity: expected at least the demand of periods 0\.\.1"):
        lot_sizing.build_model([[5, 30]], 10, [1], [1], [0.1])
    with pytest.raises(InputError, match="setup_costs: expected 2 nonnegative values"):
        lot_sizing.build_model([[5, 5], [5, 5]], 30, [1, 1], [1], [0.1, 0.1])
    with pytest.raises(InputError, match="demands: expected a nonnegative"):
        lot_sizing.build_model([5, 5], 30, [1], [1], [0.1])


@pytest.mark.parametrize(
    "name", ["shortest_path", "facility", "set_cover", "lot_sizing", "shift_scheduling", "knapsack", "portfolio"]
)
def test_the_expected_costs_are_the_costs_mean_given_the_features(name):
    """``Instances.expected`` is ``E[c | features]``: the costs' deviations from it average to 0
    within 4 standard errors over 1000 instances (the noise is independent of everything else),
    and where the noise multiplies the costs, they stay within its width of it."""
    inst = ldopt.problems.family(name).instances(1000, deg=4, seed=5)
    E, C = inst.expected, inst.costs
    assert E is not None and E.shape == C.shape
    diff = (C - E).ravel()
    assert abs(diff.mean()) <= 4 * diff.std() / np.sqrt(diff.size)
    if name not in ("knapsack", "portfolio"):  # rounded up after the noise; additive shocks
        ratio = C[E > 0] / E[E > 0]
        assert ratio.min() >= 0.5 - 1e-6 and ratio.max() <= 1.5 + 1e-6


def test_the_portfolios_expected_returns_leave_shocks_of_the_models_covariance():
    """The portfolio's returns are ``E[c | x]`` plus centred Gaussian shocks whose covariance is the
    model's: every asset's sample variance of ``c − E`` over 4000 instances lies within 5 of its
    standard errors (``σ² √(2/N)``) of the covariance's diagonal, and ``E`` is the returns' mean
    map without the shocks (the same for every noise level)."""
    n = 20
    inst = ldopt.problems.family("portfolio").instances(4000, n, deg=4, seed=3)
    cov, _, ret = portfolio.gen_data(4000, 5, n, deg=4, seed=3)
    np.testing.assert_array_equal(inst.costs, ret)
    var = np.diag(cov)
    sample = (ret - inst.expected).var(0)
    assert (np.abs(sample - var) <= 5 * var * np.sqrt(2 / 4000)).all()
    _, _, mean, _ = portfolio._draws(4000, 5, n, 4, 0.3, 3)
    np.testing.assert_allclose(mean, inst.expected, rtol=1e-12)


def test_gen_datas_expected_costs_are_its_costs_mean_given_the_features():
    """``knapsack.expected_costs`` is ``E[c | features]`` of ``gen_data``'s instances (PyEPO's
    ``genData``): PyEPO's costs deviate from it by 0 on average within 4 standard errors, stay
    within the noise's width of it (rounded up), and without noise it is the rounded values."""
    pyepo_knapsack = pytest.importorskip("pyepo.data.knapsack", reason="pyepo is not installed")
    args = dict(num_data=400, num_features=5, num_items=60, dim=3, deg=4, noise_width=0.5, seed=7)
    _, _, C = pyepo_knapsack.genData(**args)
    E = knapsack.expected_costs(**args)
    diff = (C - E).ravel()
    assert abs(diff.mean()) <= 4 * diff.std() / np.sqrt(diff.size)
    _, _, v, _ = knapsack._draw(400, 5, 60, 3, 4, 7)
    assert np.all(0.5 * v <= E)
    assert np.all(np.ceil(1.5 * v) >= E)
    np.testing.assert_array_equal(knapsack.expected_costs(**{**args, "noise_width": 0.0}), np.ceil(v))
    with pytest.raises(InputError, match="noise_width"):
        knapsack.expected_costs(**{**args, "noise_width": -1.0})


def test_the_knapsacks_expected_costs_integrate_the_rounded_noise():
    """PyEPO rounds the knapsack's noisy values up: ``E[ceil(v ε)]`` in closed form equals a fine
    midpoint rule over ``ε ~ U[0.5, 1.5]`` (not ``ceil(v)``), and ``ceil(v)`` without noise."""
    E = knapsack.protocol_data(20, 30, dim=10, deg=4, seed=9).expected
    _, _, v, _ = knapsack._draw(20, 12, 30, 10, 4, 9)  # protocol_data's draws: 12 features
    eps = 0.5 + (np.arange(20000) + 0.5) / 20000
    numeric = np.ceil(v[..., None] * eps).mean(-1)
    np.testing.assert_allclose(E, numeric, atol=1e-3)  # the rule's error: a jump per step of 1/20000
    np.testing.assert_array_equal(
        knapsack.protocol_data(20, 30, dim=10, deg=4, noise_width=0.0, seed=9).expected, np.ceil(v)
    )
