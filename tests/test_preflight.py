"""``ldopt.check``: the report's bounds obey weak duality and LD*'s optimality among multipliers,
and it names each block's solver and why no exact oracle fits."""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo

import ldopt
from ldopt.problems import knapsack


def test_the_report_on_a_knapsack_orders_its_bounds():
    d = knapsack.protocol_data(8, 20, dim=3, seed=2)
    m = knapsack.build_model(d.weights, d.capacities)
    dec = ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c))
    r = ldopt.check(dec, d.costs[:4])
    assert [b.solver for b in r.blocks] == ["knapsack"] * 3 and not any(b.why for b in r.blocks)
    assert r.proven.all()
    tol = 1e-6 * np.abs(r.optimum).max()
    assert (r.ld_bound >= r.optimum - tol).all()  # weak duality (a maximisation)
    assert (r.dual_bound >= r.ld_bound - tol).all()  # no multipliers beat LD*
    assert r.ld_gap <= r.dual_gap + 1e-9
    joint = dec.dual(d.costs[:4], iterations=30, mode="joint", step="polyak", progress=False)  # what check times
    arrays, _ = joint.to_arrays()
    assert r.bytes_per_instance == sum(a.nbytes for a in arrays.values()) // 4
    text = str(r)
    assert "block 2 [capacity[2]] — knapsack" in text and "LD*" in text and "kB per instance" in text


def test_the_report_says_why_no_oracle_fits():
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, 3)
    m.c = pyo.Param(m.I, mutable=True, initialize=1.0)
    m.x = pyo.Var(m.I, domain=pyo.Integers, bounds=(0, 3))
    m.eq = pyo.Constraint(expr=2 * m.x[0] + 3 * m.x[1] + m.x[2] == 5)
    m.pair = pyo.ConstraintList()
    m.pair.add(m.x[0] + m.x[3] <= 4)
    m.pair.add(m.x[1] - m.x[3] <= 2)
    m.o = pyo.Objective(expr=sum(m.c[i] * m.x[i] for i in m.I), sense=pyo.maximize)
    p = ldopt.Problem.from_pyomo(m, m.c)
    r = ldopt.check(ldopt.decompose(p, blocks="component"), np.ones((2, 4)))
    assert "two-sided (equality or range) row over integer variables" in r.blocks[0].why
    assert r.blocks[1].why.startswith("2 rows")
    tol = 1e-6 * max(1.0, np.abs(r.optimum).max())
    assert (r.ld_bound >= r.optimum - tol).all() and (r.dual_bound >= r.ld_bound - tol).all()
