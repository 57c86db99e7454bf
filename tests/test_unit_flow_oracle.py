"""The unit-flow oracle (`ldopt.oracles.unit_flow`) against HiGHS: random acyclic networks with a
source and a sink (in either row convention), arc weights of either sign at every magnitude, as a
block of a decomposition and as the whole problem (PyEPO's shortest path)."""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ldopt
from ldopt.oracles import UnitFlowOracle, fit_oracle


def _network(seed: int, flip: bool):
    """A random DAG on ``n`` nodes (arcs go forward in a random order), a path from the source to
    the sink among its arcs, conservation rows ``in − out = b`` (``out − in`` with ``flip``), and a
    budget row beside them; returns the decomposition (flow rows, budget)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 12))
    rank = rng.permutation(n)  # node v sits at position rank[v]
    by_rank = np.argsort(rank)
    s, t = int(by_rank[0]), int(by_rank[-1])
    pairs = {(int(by_rank[i]), int(by_rank[i + 1])) for i in range(n - 1)}  # a path through all
    for _ in range(2 * n):
        a, b = sorted(rng.choice(n, 2, replace=False), key=lambda v: rank[v])
        pairs.add((int(a), int(b)))
    arcs = sorted(pairs)
    m = pyo.ConcreteModel()
    m.A = pyo.RangeSet(0, len(arcs) - 1)
    m.c = pyo.Param(m.A, mutable=True, initialize=1.0)
    m.x = pyo.Var(m.A, bounds=(0, 1 if seed % 3 else 2), domain=pyo.Binary if seed % 2 else pyo.Reals)
    b = {s: -1, t: 1}
    sign = -1 if flip else 1

    def node(m, v):
        inflow = sum(m.x[k] for k, (_, h) in enumerate(arcs) if h == v)
        outflow = sum(m.x[k] for k, (u, _) in enumerate(arcs) if u == v)
        return sign * (inflow - outflow) == sign * b.get(v, 0)

    m.node = pyo.Constraint(range(n), rule=node)
    m.budget = pyo.Constraint(expr=sum(m.x[k] for k in m.A) <= n)
    m.obj = pyo.Objective(expr=sum(m.c[k] * m.x[k] for k in m.A), sense=pyo.minimize)
    p = ldopt.Problem.from_pyomo(m, m.c)
    return ldopt.decompose(p, [["node"], ["budget"]])


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.integers(0, 10**6), st.booleans(), st.sampled_from([1e-6, 1.0, 1e6]))
def test_the_oracle_is_the_blocks_optimum(seed, flip, scale):
    dec = _network(seed, flip)
    block = dec.block(0)
    solver = block.solver("auto")
    assert isinstance(solver.oracle, UnitFlowOracle), block.describe()
    lam = np.random.default_rng(seed + 1).normal(size=(6, dec.problem.num_vars)) * scale
    lam[0] = 0.0
    x = solver.argmax(lam)
    ref = block.solver("highs").argmax(lam)
    assert np.all(np.isin(x, (0.0, 1.0))) and block.problem.violation(x).max() <= 1e-9  # a path
    np.testing.assert_allclose((lam * x).sum(1), (lam * ref).sum(1), rtol=1e-9, atol=1e-9 * scale * x.shape[1])


def test_a_cycle_or_a_second_source_is_left_to_others():
    m = pyo.ConcreteModel()
    m.c = pyo.Param(range(3), mutable=True, initialize=1.0)
    m.x = pyo.Var(range(3), bounds=(0, 1))  # arcs 0→1, 1→2, 2→0: a cycle
    m.n0 = pyo.Constraint(expr=m.x[2] - m.x[0] == -1)
    m.n1 = pyo.Constraint(expr=m.x[0] - m.x[1] == 0)
    m.n2 = pyo.Constraint(expr=m.x[1] - m.x[2] == 1)
    m.obj = pyo.Objective(expr=sum(m.c[i] * m.x[i] for i in range(3)))
    assert UnitFlowOracle.fit(ldopt.Problem.from_pyomo(m, m.c).compiled) is None
    m.x[2].fix(0)  # the cycle broken: a path 0→1→2
    assert isinstance(fit_oracle(ldopt.Problem.from_pyomo(m, m.c).compiled), UnitFlowOracle)
    m.n1.deactivate()
    m.n1b = pyo.Constraint(expr=m.x[0] - m.x[1] == -1)  # two sources
    assert UnitFlowOracle.fit(ldopt.Problem.from_pyomo(m, m.c).compiled) is None


@pytest.mark.parametrize("deg", [1, 6])
def test_pyepo_shortest_path_solves_by_the_oracle_as_highs_does(deg):
    inst = ldopt.problems.family("shortest_path").instances(40, deg=deg, seed=deg)
    p = inst.problem()
    assert isinstance(fit_oracle(p.compiled), UnitFlowOracle)
    C = np.vstack([inst.costs, -inst.costs[:5]])  # negative costs too: a longest path, still acyclic
    auto, ref = p.solve(C, solver="auto"), p.solve(C, solver="highs")
    np.testing.assert_allclose(auto.objective, ref.objective, rtol=1e-12, atol=1e-12)
    dec = ldopt.decompose(p, "component")
    np.testing.assert_allclose(dec.dual(C, progress=False).bound, ref.objective, rtol=1e-9, atol=1e-9)
