"""Bounds every optimum meets (`ldopt.model.optimal_bounds`): a penalised slack, an unmet demand or
a slack in no row, which no row bounds, gets the bound its fixed cost implies, so the model
decomposes with no hand-added bound; every optimum of the whole model (HiGHS) lies within it, and
every Lagrangian bound stays on its side of the optimum, for costs of either sign and at every
magnitude."""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import ldopt


def _unmet_demand(seed: int, scale: float = 1.0, integer: bool = False):
    """``min c·x + Σ_k P_k u_k + 3 s``: demand rows ``Σ_i a_ki x_i + u_k ≥ d_k`` over binaries
    ``x`` with the unmet demand ``u_k ≥ 0`` (no upper bound) penalised at fixed ``P_k``; a
    capacity row ``Σ x ≤ cap``; a slack ``s ≥ 0`` in no row."""
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(4, 9)), int(rng.integers(2, 4))
    A = rng.uniform(0.5, 3.0, (k, n)) * scale
    d = A.sum(1) * rng.uniform(0.3, 0.8, k)
    P = rng.uniform(2.0, 6.0, k)
    m = pyo.ConcreteModel()
    m.I, m.K = pyo.RangeSet(0, n - 1), pyo.RangeSet(0, k - 1)
    m.c = pyo.Param(m.I, mutable=True, initialize=1.0)
    m.x = pyo.Var(m.I, domain=pyo.Binary)
    m.u = pyo.Var(m.K, domain=pyo.NonNegativeIntegers if integer else pyo.NonNegativeReals)
    m.s = pyo.Var(domain=pyo.NonNegativeReals)
    m.demand = pyo.Constraint(m.K, rule=lambda m, j: sum(A[j, i] * m.x[i] for i in m.I) + m.u[j] >= d[j])
    m.cap = pyo.Constraint(expr=sum(m.x[i] for i in m.I) <= n - 1)
    m.obj = pyo.Objective(
        expr=sum(m.c[i] * m.x[i] for i in m.I) + sum(P[j] * m.u[j] for j in m.K) + 3 * m.s, sense=pyo.minimize
    )
    return ldopt.Problem.from_pyomo(m, m.c), A, d


@pytest.mark.parametrize("integer", [False, True], ids=["continuous", "integer"])
@pytest.mark.parametrize(("seed", "scale"), [(0, 1.0), (1, 1e-3), (2, 1e3), (3, 1.0), (4, 1e5)])
def test_penalised_slacks_decompose_and_every_bound_is_a_bound(seed, scale, integer):
    p, _, d = _unmet_demand(seed, scale, integer)
    dec = ldopt.decompose(p)  # was refused: "'u[0]' is unbounded above in the whole model"
    added = {ib.name: ib for bounds in dec.inferred.values() for ib in bounds}
    assert "s" in added and added["s"].value == 0.0  # in no row: its inner bound
    for j in range(len(d)):
        ib = added[f"u[{j}]"]
        assert ib.side == "upper" and "every optimum, for all costs" in ib.source
        assert ib.value >= d[j] - 1e-9 * max(1.0, d[j])  # never below what the row may ask of it
    assert "every optimum" in dec.describe()
    rng = np.random.default_rng(seed + 100)
    C = np.vstack([rng.uniform(-3, 3, (6, p.num_costs)), rng.uniform(0, 3, (2, p.num_costs))]) * max(scale, 1.0)
    exact = p.solve(C, solver="highs")
    assert (exact.status == "optimal").all()
    U = np.array([added[f"u[{j}]"].value for j in range(len(d))])
    u = exact.x[:, [p.compiled.var_names.index(f"u[{j}]") for j in range(len(d))]]
    assert np.all(u <= U + 1e-6 * np.maximum(1.0, U))  # the optimum lies within the bounds
    tol = 1e-6 * np.maximum(1.0, np.abs(exact.objective))
    assert np.all(ldopt.lagrangian_bound(dec, C, progress=False).bound <= exact.objective + tol)
    assert np.all(dec.dual(C, iterations=20, progress=False).bound <= exact.objective + tol)


def test_what_only_the_costs_bound_is_still_refused_with_the_fix():
    """A variable whose coefficient is a cost (its sign unknown), or whose fixed coefficient pays
    for growing, has no bound valid at every optimum: refused, naming it and the fix."""
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, 2)
    m.c = pyo.Param(m.I, mutable=True, initialize=1.0)
    m.x = pyo.Var(m.I, domain=pyo.NonNegativeReals)
    m.r = pyo.Constraint(expr=m.x[0] + m.x[1] + m.x[2] >= 1)
    m.obj = pyo.Objective(expr=sum(m.c[i] * m.x[i] for i in m.I), sense=pyo.minimize)
    with pytest.raises(ldopt.DecompositionError, match=r"'x\[0\]' is unbounded above .* e\.g\. model\.x\[0\]\.setub"):
        ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c))
    m.obj.deactivate()
    m.y = pyo.Var(domain=pyo.NonNegativeReals)
    m.r2 = pyo.Constraint(expr=m.y + m.x[0] >= 1)
    m.x[0].setub(5), m.x[1].setub(5), m.x[2].setub(5)
    m.obj2 = pyo.Objective(expr=sum(m.c[i] * m.x[i] for i in m.I) - 2 * m.y, sense=pyo.minimize)  # y pays
    with pytest.raises(ldopt.DecompositionError, match=r"'y' is unbounded above"):
        ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(0, 10**6), st.sampled_from([1e-3, 1.0, 1e4]), st.booleans())
def test_the_bounds_keep_the_optimum(seed, scale, integer):
    """On random models whose penalised variables ``u`` sit in rows of both senses with
    coefficients of both signs, capping ``u`` where `optimal_bounds` says keeps the optimum value
    (HiGHS on the model with and without the caps), for costs of either sign: the caps cut off no
    optimum."""
    from ldopt.model.implied_bounds import with_bounds  # noqa: PLC0415
    from ldopt.model.optimal_bounds import optimal_bounds  # noqa: PLC0415
    from ldopt.model.propagation import propagate  # noqa: PLC0415

    rng = np.random.default_rng(seed)
    n, k, rows = int(rng.integers(2, 6)), int(rng.integers(1, 4)), int(rng.integers(1, 5))
    m = pyo.ConcreteModel()
    m.I, m.K, m.R = pyo.RangeSet(0, n - 1), pyo.RangeSet(0, k - 1), pyo.RangeSet(0, rows - 1)
    m.c = pyo.Param(m.I, mutable=True, initialize=1.0)
    m.x = pyo.Var(m.I, bounds=(0, 3), domain=pyo.Integers if integer else pyo.Reals)
    m.u = pyo.Var(m.K, domain=pyo.NonNegativeIntegers if integer else pyo.NonNegativeReals)
    A = np.round(rng.uniform(-3, 3, (rows, n)), 1) * scale
    B = np.where(rng.random((rows, k)) < 0.6, np.round(rng.uniform(0.5, 2, (rows, k)), 1), 0.0) * scale
    geq = rng.random(rows) < 0.5  # u loosens a >= row (coefficient > 0) and a <= row (coefficient < 0)
    side = np.round(rng.uniform(-2, 6, rows), 1) * scale

    def rule(m, r):
        lhs = sum(A[r, i] * m.x[i] for i in m.I) + sum((B[r, j] if geq[r] else -B[r, j]) * m.u[j] for j in m.K)
        return lhs >= side[r] if geq[r] else lhs <= -side[r]

    m.row = pyo.Constraint(m.R, rule=rule)
    pen = rng.uniform(0.5, 5.0, k)
    m.obj = pyo.Objective(
        expr=sum(m.c[i] * m.x[i] for i in m.I) + sum(pen[j] * m.u[j] for j in m.K), sense=pyo.minimize
    )
    try:
        p = ldopt.Problem.from_pyomo(m, m.c)
    except ldopt.InfeasibleModelError:
        assume(False)  # propagation proved the random rows infeasible
    cm = p.compiled
    assume(propagate(cm).conflict is None)  # (nor here, for continuous ones)
    needed = [(j, "upper") for j in range(cm.num_vars) if not np.isfinite(cm.var_ub[j])]
    found = optimal_bounds(cm, needed).found
    assert {ib.var for ib in found} == {j for j, _ in needed}  # every penalised u is capped
    capped = ldopt.Problem(with_bounds(cm, found))
    C = rng.uniform(-4, 4, (4, p.num_costs)) * scale
    whole, cut = p.solve(C, solver="highs"), capped.solve(C, solver="highs")
    assert list(whole.status) == list(cut.status)
    ok = whole.status == "optimal"
    np.testing.assert_allclose(cut.objective[ok], whole.objective[ok], rtol=1e-7, atol=1e-7 * scale)
