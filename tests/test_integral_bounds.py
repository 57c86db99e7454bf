"""Bounds rounded to integers where every feasible objective is one (`ldopt.evaluate.regret.integral_bounds`).

With integer variables under integral costs the optimum is an integer, so the LP's bound rounded
down (up for a minimisation) still bounds it: checked against HiGHS's exact optimum, and left as
it was where a cost, a continuous variable or the constant is fractional."""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from models import linear_model

import ldopt
from ldopt.evaluate.optima import Optima
from ldopt.evaluate.regret import integral_bounds, optima


def _mkp(seed: int, minimise: bool, n: int = 14, rows: int = 3):
    rng = np.random.default_rng(seed)
    A = rng.integers(1, 9, (rows, n)).astype(float)
    if minimise:  # covering rows
        lo, hi = np.maximum(1.0, 0.3 * A.sum(axis=1)), np.full(rows, np.inf)
    else:
        lo, hi = np.full(rows, -np.inf), np.maximum(1.0, 0.4 * A.sum(axis=1))
    m = linear_model(A, lo, hi, np.zeros(n), np.ones(n), sense=pyo.minimize if minimise else pyo.maximize)
    return m, rng


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), minimise=st.booleans())
def test_the_lp_bound_of_integral_costs_is_rounded_and_still_bounds_the_optimum(seed, minimise):
    m, rng = _mkp(seed, minimise)
    p = ldopt.Problem.from_pyomo(m, m.c)
    costs = rng.integers(1, 30, (4, p.num_costs)).astype(float)
    opt, lp_x = ldopt.lp_optima(p, costs)
    lp = p.objective(lp_x, costs)  # the LP's optimum, unrounded
    exact = p.solve(costs, solver="highs").objective
    s = p.sign
    np.testing.assert_array_equal(opt.bound, np.round(opt.bound))  # integers
    assert np.all(s * exact <= s * opt.bound + 1e-9)  # still a bound on the optimum
    assert np.all(s * opt.bound <= s * lp + 1e-6 * (1 + np.abs(lp)))  # no looser than the LP
    assert np.all(s * (lp - opt.bound) < 1 + 1e-6 * (1 + np.abs(lp)))  # by less than one
    assert np.all(s * opt.value <= s * exact + 1e-9)


def test_fractional_costs_keep_the_lp_bound():
    m, rng = _mkp(3, False)
    p = ldopt.Problem.from_pyomo(m, m.c)
    costs = rng.integers(1, 30, (3, p.num_costs)).astype(float)
    costs[1, 0] += 0.5  # instance 1 has a fractional cost: its objective need not be an integer
    opt, lp_x = ldopt.lp_optima(p, costs)
    lp = p.objective(lp_x, costs)
    np.testing.assert_allclose(opt.bound[1], lp[1], rtol=1e-9)
    np.testing.assert_array_equal(opt.bound[[0, 2]], np.round(opt.bound[[0, 2]]))


@pytest.mark.parametrize("cost_on_continuous", [False, True])
def test_a_continuous_variable_rounds_only_without_a_cost(cost_on_continuous):
    """``x_0`` continuous: the objective stays an integer while ``x_0``'s cost is 0."""
    m, rng = _mkp(5, False, n=8, rows=2)
    m.x[0].domain = pyo.Reals
    p = ldopt.Problem.from_pyomo(m, m.c)
    costs = rng.integers(1, 30, (5, p.num_costs)).astype(float)
    costs[:, 0] = 7.0 if cost_on_continuous else 0.0
    raw = Optima("max", np.zeros(5), np.full(5, 10.5), np.zeros((5, p.num_vars)))
    out = integral_bounds(p, costs.tolist(), raw)  # any array-like costs
    np.testing.assert_array_equal(out.bound, np.full(5, 10.5 if cost_on_continuous else 10.0))


def test_the_rounding_never_crosses_the_best_known_value_and_keeps_open_bounds():
    m, rng = _mkp(6, False, n=6, rows=2)
    p = ldopt.Problem.from_pyomo(m, m.c)
    costs = rng.integers(1, 30, (4, p.num_costs)).astype(float)
    value = np.array([10.5, 3.0, 3.0, np.nan])  # instance 0: a value no integer bound may cross
    raw = Optima("max", value, np.array([10.7, np.inf, 4.0 - 1e-10, 2.3]), np.zeros((4, p.num_vars)))
    out = integral_bounds(p, costs, raw)
    np.testing.assert_array_equal(out.bound, [10.7, np.inf, 4.0, 2.0])  # 4 − 1e-10: float error, not below 4
    low = Optima("min", np.full(4, 1.0), np.array([0.2, -np.inf, 0.5, -3.5]), np.zeros((4, p.num_vars)))
    np.testing.assert_array_equal(integral_bounds(p, costs, low).bound, [1.0, -np.inf, 1.0, -3.0])


def test_optima_with_a_lagrangian_bound_stay_integral_and_valid():
    """``optima(bound=)`` passes its bounds through the same rounding (it matters where the solver
    stops early; HiGHS's own bound is already an integer)."""
    m, rng = _mkp(8, False, n=16, rows=4)
    p = ldopt.Problem.from_pyomo(m, m.c)
    costs = rng.integers(1, 30, (3, p.num_costs)).astype(float)
    dec = ldopt.decompose(p)
    ld = dec.dual(costs, iterations=5, progress=False).bound  # a valid bound, generally fractional
    opt = optima(p, costs, "highs", time_limit=1e-3, bound=ld + 0.5)
    exact = p.solve(costs, solver="highs").objective
    assert np.all(opt.bound <= np.floor(ld + 0.5 + 1e-6 * (1 + np.abs(ld))))
    np.testing.assert_array_equal(opt.bound, np.round(opt.bound))
    assert np.all(exact <= opt.bound + 1e-9)
