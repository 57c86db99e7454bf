"""The assignment oracle (`ldopt.oracles.assignment`) against HiGHS on the same blocks: random
bipartite graphs whose rows are ``= 1`` or ``≤ 1`` in every mix, objectives of either sign at
every magnitude; the oracle's point is a matching of the block, worth the block's optimum."""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ldopt
from ldopt.oracles import AssignmentOracle


def _block(seed: int, mode: str):
    """A model whose first block is an assignment block of ``L × R`` rows (a random bipartite graph
    that holds a matching of every left row, ``= 1`` rows drawn by ``mode``) and whose second is a
    budget row over every pair; returns the decomposition."""
    rng = np.random.default_rng(seed)
    L = int(rng.integers(1, 7))
    R = int(rng.integers(L, 9))
    match = rng.permutation(R)[:L]  # left i - right match[i]: a matching the exact rows allow
    pairs = {(i, int(match[i])) for i in range(L)} | {
        (int(i), int(j)) for i, j in zip(rng.integers(0, L, 3 * L), rng.integers(0, R, 3 * L), strict=True)
    }
    pairs = sorted(pairs)
    exact_l = {"equal": np.ones(L, bool), "leq": np.zeros(L, bool)}.get(mode, rng.random(L) < 0.5)
    exact_r = np.zeros(R, bool)
    if mode == "equal" and L == R:
        exact_r[:] = True
    elif mode == "mixed":
        exact_r[match[rng.random(L) < 0.5]] = True  # only rows the matching covers
    m = pyo.ConcreteModel()
    m.E = pyo.RangeSet(0, len(pairs) - 1)
    m.c = pyo.Param(m.E, mutable=True, initialize=1.0)
    m.x = pyo.Var(m.E, domain=pyo.Binary if seed % 2 else pyo.UnitInterval)
    m.left = pyo.Constraint(
        range(L),
        rule=lambda m, i: (
            (sum(m.x[e] for e, p in enumerate(pairs) if p[0] == i) == 1)
            if exact_l[i]
            else (sum(m.x[e] for e, p in enumerate(pairs) if p[0] == i) <= 1)
        ),
    )
    m.right = pyo.Constraint(
        range(R),
        rule=lambda m, j: (
            pyo.Constraint.Skip
            if not any(p[1] == j for p in pairs)
            else (sum(m.x[e] for e, p in enumerate(pairs) if p[1] == j) == 1)
            if exact_r[j]
            else (sum(m.x[e] for e, p in enumerate(pairs) if p[1] == j) <= 1)
        ),
    )
    m.budget = pyo.Constraint(expr=sum(m.x[e] for e in m.E) <= L + R)
    m.obj = pyo.Objective(expr=sum(m.c[e] * m.x[e] for e in m.E), sense=pyo.maximize)
    p = ldopt.Problem.from_pyomo(m, m.c)
    return ldopt.decompose(p, [["left", "right"], ["budget"]])


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.integers(0, 10**6), st.sampled_from(["equal", "leq", "mixed", "left"]), st.sampled_from([1e-6, 1.0, 1e6]))
def test_the_oracle_is_the_blocks_optimum(seed, mode, scale):
    dec = _block(seed, mode)
    block = dec.block(0)
    solver = block.solver("auto")
    assert isinstance(solver.oracle, AssignmentOracle), block.describe()
    lam = np.random.default_rng(seed + 1).normal(size=(6, dec.problem.num_vars)) * scale
    lam[0] = 0.0  # ties everywhere
    x = solver.argmax(lam)
    ref = block.solver("highs").argmax(lam)
    assert np.all(np.isin(x, (0.0, 1.0)))
    assert block.problem.violation(x).max() <= 1e-9  # a matching of the block
    got, best = (lam * x).sum(1), (lam * ref).sum(1)
    np.testing.assert_allclose(got, best, rtol=1e-9, atol=1e-9 * scale * dec.problem.num_vars)


def test_blocks_that_are_no_assignment_are_left_to_others():
    """Rows around an even cycle are an assignment block; an odd cycle, a side of 2 or a variable
    in one row only are not."""

    def block(n: int, side: float = 1.0, pendant: bool = False):
        m = pyo.ConcreteModel()
        m.c = pyo.Param(range(n + 1), mutable=True, initialize=1.0)
        m.x = pyo.Var(range(n + 1), domain=pyo.Binary)
        m.ring = pyo.Constraint(
            range(n), rule=lambda m, k: m.x[k] + m.x[(k + 1) % n] + (m.x[n] if pendant and k == 0 else 0) <= side
        )
        m.other = pyo.Constraint(expr=sum(m.x[k] for k in range(n + 1)) <= n)
        m.obj = pyo.Objective(expr=sum(m.c[k] * m.x[k] for k in range(n + 1)), sense=pyo.maximize)
        return ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c), [["ring"], ["other"]]).block(0).compiled

    assert isinstance(AssignmentOracle.fit(block(4)), AssignmentOracle)
    assert AssignmentOracle.fit(block(5)) is None  # an odd cycle of rows: not bipartite
    assert AssignmentOracle.fit(block(4, side=2.0)) is None
    assert AssignmentOracle.fit(block(4, pendant=True)) is None


@pytest.mark.parametrize("mode", ["equal", "mixed"])
def test_the_lagrangian_bound_with_the_oracle_is_highs(mode):
    dec = _block(3, mode)
    C = np.random.default_rng(4).normal(size=(5, dec.problem.num_costs))
    mine = ldopt.lagrangian_bound(dec, C, progress=False).bound
    theirs = ldopt.lagrangian_bound(dec, C, ldopt.dual.EXACT.merged(solver="highs"), progress=False).bound
    np.testing.assert_allclose(mine, theirs, rtol=1e-6, atol=1e-6)
    assert np.all(mine >= dec.problem.solve(C, solver="highs").objective - 1e-6)  # a bound on the maximum
