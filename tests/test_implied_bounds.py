"""Bound propagation is sound: every bound it implies holds on the whole model's LP relaxation
(no feasible point, integer or not, lies outside it), and it names a row that gives it."""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
from hypothesis import given, settings
from hypothesis import strategies as st
from models import linear_model

import ldopt
from ldopt.model.implied_bounds import implied_bounds
from ldopt.model.propagation import propagate


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**16), k=st.integers(1, 5), n=st.integers(2, 6))
def test_propagated_bounds_contain_the_lp_relaxation(seed, k, n):
    rng = np.random.default_rng(seed)
    A = rng.integers(-3, 4, (k, n)).astype(float)
    A[0] = np.abs(A[0]) + 1  # Σ a_j x_j ≤ cap with a > 0 bounds every x ≥ 0 from above
    hi = rng.integers(3, 15, k).astype(float)
    lo = np.where(rng.random(k) < 0.3, -rng.integers(0, 5, k).astype(float), -np.inf)
    lb = np.where(rng.random(n) < 0.5, 0.0, -rng.integers(0, 3, n).astype(float))
    model = linear_model(A, lo, hi, lb, np.full(n, np.inf), domain=pyo.Reals)
    cm = ldopt.Problem.from_pyomo(model, model.c).compiled
    found = propagate(cm)
    assert found.conflict is None  # x = 0 is feasible when every lb ≤ 0
    lo_b, hi_b, src_lo, src_hi = found.lb, found.ub, found.src_lb, found.src_ub
    assert (hi_b <= cm.var_ub).all() and (lo_b >= cm.var_lb).all()  # only ever tightened
    relaxed = ldopt.Problem.from_pyomo(model, model.c)
    for j in range(n):
        for sign, bound, src in ((1.0, hi_b[j], src_hi[j]), (-1.0, lo_b[j], src_lo[j])):
            c = np.zeros(n)
            c[j] = sign
            s = relaxed.solve(c, solver="highs")
            if s.status[0] != "optimal":  # infeasible or unbounded that way: nothing to contain
                continue
            assert sign * s.x[0, j] <= sign * bound + 1e-7 * max(1.0, abs(bound)), (j, sign, bound)
            if np.isfinite(bound) and bound != (cm.var_ub[j] if sign > 0 else cm.var_lb[j]):
                assert 0 <= src < len(cm.rows)  # a propagated bound names the row it came from
    found = implied_bounds(cm, [(j, "upper") for j in range(n)])
    assert {b.var for b in found} == set(range(n))  # the first row bounds every variable above
