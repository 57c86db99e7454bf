"""The min-cost-flow oracle (`ldopt.oracles.min_cost_flow`) against HiGHS: random networks with
cycles, several sources and sinks, arcs to the rest of the model (in one row only), lower bounds
above zero, rows in either sign convention, integer and continuous arcs, weights of either sign at
every magnitude; and the bands of PyEPO's shortest-path grid (``shortest_path.regions``), which
went to a solver before."""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
from hypothesis import given, settings
from hypothesis import strategies as st

import ldopt
from ldopt.oracles import MinCostFlowOracle, UnitFlowOracle, fit_oracle


def _network(seed: int, integer: bool, scale: float):
    """A random directed graph on ``n`` nodes (cycles allowed) plus arcs from and to outside it;
    bounds ``[l, u]`` with ``l ≥ 0``; balances from a random flow within them (so the rows are
    feasible), each row ``in − out = b`` or its negation; a budget row beside them. Returns the
    decomposition (flow rows, budget)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 9))
    pairs = {(int(a), int(b)) for a, b in rng.integers(0, n, (3 * n, 2)) if a != b}
    outside = [(-1, int(v)) for v in rng.choice(n, int(rng.integers(0, 3)))] + [
        (int(v), -1) for v in rng.choice(n, int(rng.integers(0, 3)))
    ]
    arcs = sorted(pairs) + outside
    lo = np.where(rng.random(len(arcs)) < 0.3, rng.integers(0, 3, len(arcs)), 0).astype(float)
    hi = lo + rng.integers(1, 5, len(arcs))
    if not integer:
        lo, hi = lo * scale * 0.37, hi * scale * 0.37
    f = lo + rng.random(len(arcs)) * (hi - lo)
    if integer:
        f = np.round(f)
    b = np.zeros(n)
    for k, (t, h) in enumerate(arcs):
        if h >= 0:
            b[h] += f[k]
        if t >= 0:
            b[t] -= f[k]
    flip = rng.random(n) < 0.5
    m = pyo.ConcreteModel()
    m.A = pyo.RangeSet(0, len(arcs) - 1)
    m.c = pyo.Param(m.A, mutable=True, initialize=1.0)
    m.x = pyo.Var(m.A, domain=pyo.Integers if integer else pyo.Reals, bounds=lambda m, k: (lo[k], hi[k]))

    def node(m, v):
        net = sum(m.x[k] for k, (_, h) in enumerate(arcs) if h == v) - sum(
            m.x[k] for k, (t, _) in enumerate(arcs) if t == v
        )
        return (-net == -float(b[v])) if flip[v] else (net == float(b[v]))

    m.node = pyo.Constraint(range(n), rule=node)
    m.budget = pyo.Constraint(expr=sum(m.x[k] for k in m.A) <= float(hi.sum()))
    m.obj = pyo.Objective(expr=sum(m.c[k] * m.x[k] for k in m.A), sense=pyo.minimize)
    return ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c), [["node"], ["budget"]])


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.integers(0, 10**6), st.booleans(), st.sampled_from([1e-6, 1.0, 1e6]), st.sampled_from([1e-6, 1.0, 1e6]))
def test_the_oracle_is_the_blocks_optimum(seed, integer, weights, scale):
    """Against HiGHS on the same network with unit-scale data (a flow problem scales with its
    data; HiGHS's absolute tolerances do not): weights ``λ`` and capacities at every magnitude."""
    dec = _network(seed, integer, scale)
    block = dec.block(0)
    solver = block.solver("auto")
    if isinstance(solver.oracle, UnitFlowOracle):
        return  # one source, one sink, acyclic: the longest path's (tested there)
    assert isinstance(solver.oracle, MinCostFlowOracle), solver.describe()
    lam = np.random.default_rng(seed + 1).normal(size=(6, dec.problem.num_vars)) * weights
    lam[0] = 0.0
    x = solver.argmax(lam)
    magnitude = np.abs(block.compiled.var_ub).max()
    assert block.problem.violation(x).max() <= 1e-9 * max(1.0, magnitude)
    if integer:
        assert np.all(x == np.round(x))
    unit = _network(seed, integer, 1.0).block(0).solver("highs").argmax(lam)
    ref = (lam * unit).sum(1) * (1.0 if integer else scale)
    np.testing.assert_allclose((lam * x).sum(1), ref, rtol=1e-7, atol=1e-7 * np.abs(ref).max())
    assert solver.oracle.fallback_count == 0  # every instance finished by the oracle


def test_the_shortest_paths_bands_are_solved_by_the_oracle_with_the_same_bounds():
    """``regions(grid, 2)``: two bands of the 5 × 5 grid's node rows, each a network with arcs to
    the other band; the oracle gives the dual HiGHS's bounds."""
    from ldopt.problems import shortest_path  # noqa: PLC0415

    inst = ldopt.problems.family("shortest_path").instances(6, deg=4, seed=0)
    p = inst.problem()
    dec = ldopt.decompose(p, shortest_path.regions((5, 5), 2))
    assert all(isinstance(s.oracle, MinCostFlowOracle) for s in dec.block_solvers("auto"))
    assert "min-cost flow" in dec.describe()
    mine = ldopt.lagrangian_bound(dec, inst.costs, progress=False)
    theirs = ldopt.lagrangian_bound(dec, inst.costs, solver="highs", progress=False)
    assert mine.converged.all() and theirs.converged.all()
    np.testing.assert_allclose(mine.bound, theirs.bound, rtol=1e-5)  # column generation's tolerance
    assert np.all(mine.bound <= p.solve(inst.costs, solver="highs").objective + 1e-7)


def test_rows_that_are_no_network_are_left_to_others():
    m = pyo.ConcreteModel()
    m.c = pyo.Param(range(3), mutable=True, initialize=1.0)
    m.x = pyo.Var(range(3), bounds=(0, 2))
    m.r0 = pyo.Constraint(expr=m.x[0] - m.x[1] == 1)
    m.r1 = pyo.Constraint(expr=m.x[1] + m.x[2] == 1)
    m.r2 = pyo.Constraint(expr=m.x[2] - m.x[0] == 0)  # signs no orientation reconciles: an odd cycle
    m.obj = pyo.Objective(expr=sum(m.c[i] * m.x[i] for i in range(3)))
    assert MinCostFlowOracle.fit(ldopt.Problem.from_pyomo(m, m.c).compiled) is None
    m.r2.deactivate()  # two rows, x[1] in both with opposite orientable signs: a network
    assert isinstance(fit_oracle(ldopt.Problem.from_pyomo(m, m.c).compiled), MinCostFlowOracle)
    m.r3 = pyo.Constraint(expr=m.x[0] + m.x[1] + m.x[2] <= 3)  # an inequality row
    assert MinCostFlowOracle.fit(ldopt.Problem.from_pyomo(m, m.c).compiled) is None


def test_a_network_designs_balance_rows_are_one_min_cost_flow_block():
    """mpi-sppy's network design (the zoo's ``netdes``) with ``blocks="component"``: the balance
    rows are a network whose arcs the capacity rows bound (two arcs only by the balance rows
    themselves: into a node with no way out); the exact bound is HiGHS's and bounds the optimum."""
    from ldopt_experiments.zoo import ZOO  # noqa: PLC0415

    inst = ZOO["netdes"].family().instances(4, deg=2, seed=1)
    p = inst.problem()
    dec = ldopt.decompose(p, "component")
    flows = [s for s in dec.block_solvers("auto") if isinstance(s.oracle, MinCostFlowOracle)]
    assert len(flows) == 1 and "bals" in dec.block(1).describe()
    mine = ldopt.lagrangian_bound(dec, inst.costs, progress=False)
    theirs = ldopt.lagrangian_bound(dec, inst.costs, solver="highs", progress=False)
    np.testing.assert_allclose(mine.bound, theirs.bound, rtol=1e-5)
    assert np.all(mine.bound <= p.solve(inst.costs, solver="highs").objective * (1 + 1e-7))
