"""A solver's point made exactly feasible (`ldopt.model.exact_point`), on which rule 2 of
`ldopt.model.optimal_bounds` rests: HiGHS's points of random models with decimal data (whose
equality rows no float point meets exactly) come back meeting every row and bound in rational
arithmetic, checked here independently, and within the solver's tolerance of where they were; a
point that misses by more than the continuous variables can mend is refused, naming the row."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pyomo.environ as pyo
from hypothesis import given, settings
from hypothesis import strategies as st

import ldopt
from ldopt.model.exact_point import exact_point


def _model(seed: int, scale: float) -> ldopt.Problem:
    """Equality rows ``A x = b`` and inequality rows ``G x ≤ h`` with decimal coefficients over
    bounded continuous and integer variables, built around a point that meets the equalities in
    floats and the inequalities with room to spare (with no more continuous variables than
    equalities, the decimal data may leave no exact point with the solver's integers)."""
    rng = np.random.default_rng(seed)
    n, k, ell = int(rng.integers(4, 10)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
    whole = rng.random(n) < 0.3
    whole[: k + 1] = False  # more continuous variables than equalities: exact points exist near x
    x = np.where(whole, rng.integers(0, 5, n), rng.uniform(0, 5, n)) * np.where(whole, 1.0, scale)
    A = np.round(rng.uniform(-3, 3, (k, n)), 1)
    G = np.round(rng.uniform(-3, 3, (ell, n)), 1)
    b, h = A @ x, G @ x + rng.uniform(0.05, 1, ell) * scale  # slack at x: no degenerate vertex by design
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, n - 1)
    m.c = pyo.Param(m.I, mutable=True, initialize=1.0)
    m.x = pyo.Var(m.I, bounds=lambda m, i: (0, 10 * (1.0 if whole[i] else scale)))
    for i in np.flatnonzero(whole):
        m.x[int(i)].domain = pyo.Integers
    m.eq = pyo.Constraint(range(k), rule=lambda m, r: sum(float(A[r, i]) * m.x[i] for i in m.I) == float(b[r]))
    m.le = pyo.Constraint(range(ell), rule=lambda m, r: sum(float(G[r, i]) * m.x[i] for i in m.I) <= float(h[r]))
    m.obj = pyo.Objective(expr=sum(m.c[i] * m.x[i] for i in m.I))
    return ldopt.Problem.from_pyomo(m, m.c)


def _meets_exactly(cm, x: list[Fraction]) -> bool:
    rows = all(
        (not np.isfinite(r.lo) or act >= Fraction(r.lo)) and (not np.isfinite(r.hi) or act <= Fraction(r.hi))
        for r in cm.rows
        for act in [sum(Fraction(float(a)) * x[int(j)] for j, a in zip(r.index, r.coef, strict=True))]
    )
    whole = all(t.denominator == 1 for t, kind in zip(x, cm.var_type, strict=True) if kind != "C")
    return rows and whole and all(cm.var_lb[j] <= t <= cm.var_ub[j] for j, t in enumerate(x))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(0, 10**6), st.sampled_from([1e-3, 1.0, 1e3]))
def test_a_solvers_point_comes_back_exactly_feasible_and_close(seed, scale):
    p = _model(seed, scale)
    cm = p.compiled
    costs = np.random.default_rng(seed).uniform(-1, 1, p.num_costs)
    res = p.solve(costs, solver="highs")
    if res.status[0] != "optimal":  # the rounded data can leave no integer point
        return
    x = res.x[0]
    point = exact_point(cm, x, np.zeros(cm.num_vars, dtype=bool))
    assert point.x is not None, point.why_not
    assert _meets_exactly(cm, point.x)
    moved = np.abs(np.array([float(t) for t in point.x]) - x)
    assert np.all(moved <= 1e-5 * np.maximum(1.0, np.abs(x)))


def test_a_point_the_continuous_variables_cannot_mend_is_refused():
    """``x + 2 y = 3.3`` with ``y`` integer: at ``x = 1.3`` the row holds in floats (``1.3 + 2 ==
    3.3``) but not exactly, and moving ``x`` by one rounding mends it; held fixed, ``x`` is not
    moved and the point is refused naming the row, as is one that ``x`` could only mend by
    leaving its bounds; an integer past a fractional bound comes back on the integer inside it."""
    m = pyo.ConcreteModel()
    m.c = pyo.Param([0, 1], mutable=True, initialize=1.0)
    m.x = pyo.Var(bounds=(0, 1.5))
    m.y = pyo.Var(domain=pyo.Integers, bounds=(0, 5))
    m.row = pyo.Constraint(expr=m.x + 2 * m.y == 3.3)
    m.obj = pyo.Objective(expr=m.c[0] * m.x + m.c[1] * m.y)
    cm = ldopt.Problem.from_pyomo(m, m.c).compiled
    none = np.zeros(2, dtype=bool)
    assert 1.3 + 2 == 3.3 and Fraction(1.3) + 2 != Fraction(3.3)
    mended = exact_point(cm, np.array([1.3, 1.0]), none)
    assert mended.x is not None and _meets_exactly(cm, mended.x) and mended.x[0] == Fraction(3.3) - 2
    held = exact_point(cm, np.array([1.3, 1.0]), np.array([True, False]))
    assert held.x is None and "'row'" in held.why_not
    far = exact_point(cm, np.array([0.5, 0.0]), none)  # x would have to be 3.3
    assert far.x is None and "inside their bounds puts row 'row' on its side" in far.why_not
    m.y.setub(2.5)  # an integer's fractional bound: a point past it comes back on the integer inside
    m.row.set_value(m.x + 2 * m.y == 5.3)
    cm = ldopt.Problem.from_pyomo(m, m.c).compiled
    inside = exact_point(cm, np.array([1.3, 2.6]), none)
    assert inside.x is not None and _meets_exactly(cm, inside.x) and inside.x[1] == 2
