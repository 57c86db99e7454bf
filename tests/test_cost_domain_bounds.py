"""Bounds that hold for the costs the cost Param's domain declares (`ldopt.model.optimal_bounds`).

A cutting-stock model's pattern counts (``NonNegativeIntegers`` under ``≥`` demand rows, each
priced by a predicted cost) and a lot-sizing model's inventory and backlog (free under balance
rows, penalised at fixed rates, beside a predicted setup cost) are bounded only at an optimum,
and only for costs of the right sign. Declared ``within=pyo.NonNegativeReals`` (or a finite
range), they decompose with no hand-added bound: every bound keeps an optimum for every cost in
the domain (HiGHS on the model with and without the bounds), every Lagrangian bound is a bound
(weak duality against HiGHS's exact optima), at magnitudes 1e-3 to 1e5; costs outside the domain
(where the bounds need not hold: the whole model may be unbounded) are refused by the dual, the
exact bound, ``ldopt.check`` and ``LDLoss``; undeclared, the model is refused with the fix."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import ldopt
from ldopt.model.implied_bounds import with_bounds


def _cutting_stock(seed: int, scale: float = 1.0, domain=pyo.NonNegativeReals) -> tuple[ldopt.Problem, np.ndarray]:
    """``min Σ_p c_p x_p`` over integer pattern counts ``x ≥ 0`` (no upper bound) with demand rows
    ``Σ_p a_wp x_p ≥ d_w``; patterns of 1–3 pieces of random widths (``domain``: the cost Param's)."""
    rng = np.random.default_rng(seed)
    widths, patterns = int(rng.integers(2, 5)), int(rng.integers(4, 9))
    A = rng.integers(0, 4, (widths, patterns))
    A[rng.integers(0, widths, patterns), np.arange(patterns)] += 1  # every pattern cuts something
    A[np.arange(widths), rng.integers(0, patterns, widths)] += 1  # every width is cut by some pattern
    d = rng.integers(1, 30, widths) * scale
    m = pyo.ConcreteModel()
    m.W, m.P = pyo.RangeSet(0, widths - 1), pyo.RangeSet(0, patterns - 1)
    m.c = pyo.Param(m.P, mutable=True, initialize=1.0, **({} if domain is None else {"within": domain}))
    m.x = pyo.Var(m.P, within=pyo.NonNegativeIntegers)
    m.obj = pyo.Objective(expr=sum(m.c[p] * m.x[p] for p in m.P))
    m.demand = pyo.Constraint(m.W, rule=lambda m, w: sum(int(A[w, p]) * m.x[p] for p in m.P) >= float(d[w]))
    return ldopt.Problem.from_pyomo(m, m.c), d


def _lot_sizing(
    seed: int, scale: float = 1.0, domain=pyo.NonNegativeReals, must_clear: bool = False, priced_stock: bool = False
) -> ldopt.Problem:
    """The Pyomo book's lot sizing with backlog (``blocks-ch/lotsizing.py``) on random data: a
    setup ``y_t`` priced by the cost ``c_t``, production ``x_t ≤ P y_t``, a free inventory ``i_t =
    i_{t-1} + x_t − d_t`` split into ``i⁺ − i⁻`` (both ``≥ 0``, no upper bound) held at fixed rates
    (``must_clear``: no backlog at the end, and production beyond the demand net of the stock;
    ``priced_stock``: the holding and backlog rates are the costs, the setup's fixed)."""
    rng = np.random.default_rng(seed)
    T = int(rng.integers(2, 6))
    d = rng.uniform(0, 8, T) * scale
    cap, i0 = rng.uniform(3, 10) * scale, rng.uniform(0, 5) * scale
    h_pos, h_neg = rng.uniform(0.2, 1.0), rng.uniform(0.5, 2.0)
    m = pyo.ConcreteModel()
    m.T = pyo.RangeSet(1, T)
    keys = ["hold", "short"] if priced_stock else list(m.T)
    m.c = pyo.Param(keys, mutable=True, initialize=4.6, **({} if domain is None else {"within": domain}))
    m.y = pyo.Var(m.T, domain=pyo.Binary)
    m.x = pyo.Var(m.T, domain=pyo.NonNegativeReals)
    m.i = pyo.Var(m.T)
    m.i_pos = pyo.Var(m.T, domain=pyo.NonNegativeReals)
    m.i_neg = pyo.Var(m.T, domain=pyo.NonNegativeReals)
    m.inventory = pyo.Constraint(
        m.T, rule=lambda m, t: m.i[t] == (i0 if t == 1 else m.i[t - 1]) + m.x[t] - float(d[t - 1])
    )
    m.pos_neg = pyo.Constraint(m.T, rule=lambda m, t: m.i[t] == m.i_pos[t] - m.i_neg[t])
    m.prod = pyo.Constraint(m.T, rule=lambda m, t: m.x[t] <= cap * m.y[t])
    if priced_stock:
        m.obj = pyo.Objective(
            expr=sum(4.6 * m.y[t] + m.c["hold"] * m.i_pos[t] + m.c["short"] * m.i_neg[t] for t in m.T)
        )
    else:
        m.obj = pyo.Objective(expr=sum(m.c[t] * m.y[t] + h_pos * m.i_pos[t] + h_neg * m.i_neg[t] for t in m.T))
    if must_clear:  # no backlog left at the end (``must_clear``): demand beyond the stock needs a setup
        m.i_neg[T].fix(0.0)
        m.more = pyo.Constraint(expr=sum(m.x[t] for t in m.T) >= float(d.sum()) - i0 + 1.0)
    return ldopt.Problem.from_pyomo(m, m.c)


def _keeps_the_optimum_and_bounds_it(p: ldopt.Problem, dec: ldopt.Decomposition, C: np.ndarray) -> None:
    """HiGHS's optimum of the model equals that of the model with every bound the blocks were
    given (so an optimum lies within them), and the Lagrangian bounds lie below it."""
    added = [ib for bounds in dec.inferred.values() for ib in bounds]
    whole = p.solve(C, solver="highs")
    capped = ldopt.Problem(with_bounds(p.compiled, added)).solve(C, solver="highs")
    assert (whole.status == "optimal").all() and (capped.status == "optimal").all()
    tol = 1e-6 * np.maximum(1.0, np.abs(whole.objective))
    np.testing.assert_allclose(capped.objective, whole.objective, rtol=1e-7, atol=1e-7 * np.abs(C).max())
    assert np.all(ldopt.lagrangian_bound(dec, C, progress=False).bound <= whole.objective + tol)
    assert np.all(dec.dual(C, iterations=20, progress=False).bound <= whole.objective + tol)


@pytest.mark.parametrize(("seed", "scale"), [(0, 1.0), (1, 1e-3), (2, 1e3), (3, 1.0), (4, 1e5)])
def test_cutting_stock_decomposes_for_non_negative_costs(seed, scale):
    p, d = _cutting_stock(seed, scale)
    dec = ldopt.decompose(p)  # undeclared: refused (below)
    assert dec.cost_range == (0.0, np.inf)
    added = [ib for bounds in dec.inferred.values() for ib in bounds]
    assert added and all(ib.side == "upper" and ib.costs == (0.0, np.inf) for ib in added)
    assert all("for costs in [0, inf)" in ib.source for ib in added)
    for ib in added:  # a count never needs to cut more than the largest demand it serves
        assert ib.value <= d.max() + 1
    assert "for costs in [0, inf) only" in dec.describe()
    rng = np.random.default_rng(seed)
    C = rng.uniform(0, 3, (6, p.num_costs)) * scale
    C[0, : p.num_costs // 2] = 0.0  # free patterns: an optimum still lies within the bounds
    _keeps_the_optimum_and_bounds_it(p, dec, C)


@pytest.mark.parametrize(("seed", "scale"), [(0, 1.0), (1, 1e-3), (2, 1e3), (5, 1.0), (6, 1e4)])
def test_lot_sizing_with_backlog_decomposes_from_a_feasible_points_objective(seed, scale):
    p = _lot_sizing(seed, scale)
    dec = ldopt.decompose(p)
    added = {ib.name: ib for bounds in dec.inferred.values() for ib in bounds}
    backlog = [ib for name, ib in added.items() if name.startswith(("i_pos", "i_neg"))]
    assert backlog and all("a feasible point's objective" in ib.source for ib in backlog)
    assert all(ib.costs == (0.0, np.inf) for ib in backlog)  # the setup costs' sign was used
    rng = np.random.default_rng(seed)
    C = np.vstack([rng.uniform(0, 10, (4, p.num_costs)), np.full((1, p.num_costs), 1e6), np.zeros((1, p.num_costs))])
    _keeps_the_optimum_and_bounds_it(p, dec, C * scale)


def test_a_finite_domain_bounds_through_a_point_that_sets_up():
    """Costs in ``[0.5, 20]``: the feasible point may pay setups, so its objective depends on the
    costs and the bound is taken at their worst; it still keeps every optimum in the domain."""
    p = _lot_sizing(7, domain=pyo.RangeSet(0.5, 20, 0))
    dec = ldopt.decompose(p)
    assert dec.cost_range == (0.5, 20.0)
    assert "for costs in [0.5, 20] only" in dec.describe()
    C = np.random.default_rng(7).uniform(0.5, 20, (6, p.num_costs))
    _keeps_the_optimum_and_bounds_it(p, dec, np.vstack([C, np.full(p.num_costs, 20.0), np.full(p.num_costs, 0.5)]))


def test_a_point_that_must_pay_for_priced_variables_needs_an_upper_end():
    """No backlog may be left at the end, so every feasible point sets up: with costs in ``[0, ∞)``
    no feasible point's objective is bounded, and the refusal says to declare an upper end; with
    one (``[0, 50]``) the backlog is bounded at the worst costs and keeps the optimum."""
    with pytest.raises(
        ldopt.DecompositionError, match=r"declare an upper end for the costs, e\.g\. within=pyo\.RangeSet"
    ):
        ldopt.decompose(_lot_sizing(3, must_clear=True))
    p = _lot_sizing(3, domain=pyo.RangeSet(0, 50, 0), must_clear=True)
    dec = ldopt.decompose(p)
    assert dec.cost_range == (0.0, 50.0)
    C = np.random.default_rng(3).uniform(0, 50, (5, p.num_costs))
    _keeps_the_optimum_and_bounds_it(p, dec, np.vstack([C, np.full(p.num_costs, 50.0), np.zeros(p.num_costs)]))


@pytest.mark.parametrize(("seed", "scale"), [(0, 1.0), (2, 1e3), (5, 1e-3), (12, 1e3)])  # 5, 12: a point without stock
def test_priced_stock_needs_costs_away_from_zero_and_is_bounded_from_there(seed, scale):
    """The holding and backlog rates are the costs, so a rate may be 0 and no feasible point's
    objective bounds the stock: refused in ``[0, ∞)`` with the fix, a positive lower end (and an
    upper end where every feasible point holds stock or backlog, checked by HiGHS).
    Declared as the refusal says, the stock is bounded by what the point pays over the smallest
    rate, and keeps the optimum at rates from the domain's lower end to its upper end."""
    p = _lot_sizing(seed, scale, priced_stock=True)
    cm = p.compiled
    stock_ub = np.where([n.startswith(("i_pos", "i_neg")) for n in cm.var_names], 0.0, cm.var_ub)
    holds = ldopt.Problem(replace(cm, var_ub=stock_ub)).solve(np.ones(2), solver="highs").status[0] != "optimal"
    if holds:  # no point without stock (an initial stock above the first demand, or a demand above capacity)
        fix, domain, hi = (
            r"declare an upper end and a positive lower end .*RangeSet\(0\.01, 1000, 0\)",
            (0.05, 1000),
            1000.0,
        )
    else:
        fix, domain, hi = (
            r"its cost can be 0 .*declare a positive lower end .*RangeSet\(0\.01, None, 0\)",
            (0.05, None),
            np.inf,
        )
    with pytest.raises(ldopt.DecompositionError, match=r"is unbounded above .*" + fix):
        ldopt.decompose(p)
    p = _lot_sizing(seed, scale, domain=pyo.RangeSet(*domain, 0), priced_stock=True)
    dec = ldopt.decompose(p)
    assert dec.cost_range == (0.05, hi)
    stock = [ib for bounds in dec.inferred.values() for ib in bounds if ib.name.startswith(("i_pos", "i_neg"))]
    assert stock and all(ib.costs == (0.05, hi) and "at a cost of at least 0.05" in ib.source for ib in stock)
    rng = np.random.default_rng(seed)
    top = min(hi, 1e4)
    C = np.vstack([rng.uniform(0.05, 10, (4, 2)), [0.05, 0.05], [0.05, top], [top, 0.05]])
    _keeps_the_optimum_and_bounds_it(p, dec, C)


@pytest.mark.parametrize(("seed", "scale"), [(5, 1e-3), (12, 1e3)])  # a point without stock
def test_bounds_per_instance_would_not_tighten_the_lagrangian_dual(seed, scale):
    """Rule 2's bounds hold for every rate in the domain; bounds for one instance's rates, even the
    tightest its own optimum gives (``x_j ≤ opt(c) / c_j``: every term of the objective is ≥ 0), leave
    the best Lagrangian bound ``LD*`` unchanged, as `docs/mathematics.md` proves for continuous
    variables in blocks of continuous rows (the stock here): the master's certified bounds agree."""
    p = _lot_sizing(seed, scale, domain=pyo.RangeSet(0.05, None, 0), priced_stock=True)
    dec = ldopt.decompose(p)
    cm = p.compiled
    C = np.random.default_rng(seed).uniform(0.05, 5, (3, 2))
    opt = p.solve(C, solver="highs").objective
    ld = dec.dual(C, step="master", progress=False)
    domains = {ib.var: ib.value for bounds in dec.inferred.values() for ib in bounds if ib.name.startswith("i_")}
    assert domains
    rate = np.array([0 if n.startswith("i_pos") else 1 if n.startswith("i_neg") else -1 for n in cm.var_names])
    for c, best, bound in zip(C, opt, ld.bound, strict=True):
        ub = np.where(rate >= 0, best / c[np.maximum(rate, 0)], cm.var_ub)
        assert all(ub[j] < value for j, value in domains.items())  # tighter than the domain's bounds
        tight = ldopt.decompose(ldopt.Problem(replace(cm, var_ub=ub))).dual(c, step="master", progress=False)
        assert bound <= best + 1e-7 * abs(best)
        np.testing.assert_allclose(tight.bound[0], bound, rtol=1e-5)


def test_costs_outside_the_domain_are_refused_where_the_bounds_would_be_used():
    p, _ = _cutting_stock(0)
    dec = ldopt.decompose(p)
    C = np.random.default_rng(0).uniform(0, 3, (3, p.num_costs))
    C[1, 2] = -0.5  # a pattern that pays to be cut: the whole model is unbounded, the capped one is not
    assert p.solve(C[1], solver="highs").status[0] == "unbounded"
    refused = r"costs: expected every cost in \[0, inf\), the cost Param's domain, got -0\.5 for c\[2\] of instance 1"
    with pytest.raises(ldopt.InputError, match=refused):
        dec.dual(C, progress=False)
    with pytest.raises(ldopt.InputError, match=refused):
        ldopt.lagrangian_bound(dec, C, progress=False)
    with pytest.raises(ldopt.InputError, match=refused):
        ldopt.check(dec, C, progress=False)
    C[1, 2] = 0.0  # the domain's edge is in it
    assert "for costs in [0, inf) only" in str(ldopt.check(dec, C[:2], progress=False))


@pytest.mark.parametrize("domain", [(0.05, None), (0.05, 1000)])
def test_a_refusal_suggests_a_map_whose_values_lie_in_the_domain(domain):
    """Rates declared away from 0 (and below an upper end): a rate below the lower end is refused
    with a map of a model's output onto the domain, and every value of that map lies in it."""
    p = _lot_sizing(5, 1e-3, domain=pyo.RangeSet(*domain, 0), priced_stock=True)  # a point without stock
    dec = ldopt.decompose(p)
    with pytest.raises(ldopt.InputError, match=r"got 0\.01 for c\[hold\]") as refused:
        dec.dual(np.array([[0.01, 1.0]]), progress=False)
    suggested = str(refused.value).split("e.g. ")[-1].removesuffix(" of a model's output z")
    lo, hi = domain[0], np.inf if domain[1] is None else domain[1]
    assert suggested == ("0.05 + softplus(z)" if np.isinf(hi) else "0.05 + 999.95·sigmoid(z)")
    z = np.array([-700.0, -30.0, -1.0, 0.0, 1.0, 30.0, 700.0])
    maps = {"softplus": np.logaddexp(0.0, z), "sigmoid": np.exp(-np.logaddexp(0.0, -z))}
    values = eval(suggested.replace("·", "*").replace("(z)", ""), maps)  # the suggested map at z
    assert np.all((values >= lo) & (values <= hi)) and values[0] == lo


def test_undeclared_costs_are_refused_with_the_declaration_as_the_fix():
    p, _ = _cutting_stock(0, domain=None)
    with pytest.raises(
        ldopt.DecompositionError, match=r"whose sign the cost Param does not declare .*NonNegativeReals"
    ):
        ldopt.decompose(p)
    p = _lot_sizing(0, domain=None)
    with pytest.raises(ldopt.DecompositionError, match=r"'i_\w+\[1\]' is unbounded above .* 'y\[1\]' has a cost that"):
        ldopt.decompose(p)
    p = _lot_sizing(0, domain=pyo.RangeSet(-1, 5, 0))  # declared, but of either sign: the message says so
    with pytest.raises(ldopt.DecompositionError, match=r"'y\[1\]' has a coefficient of either sign \(\[-1, 5\]\)"):
        ldopt.decompose(p)


@pytest.mark.torch
def test_ldloss_refuses_predictions_outside_the_domain():
    torch = pytest.importorskip("torch", reason="ldopt_torch needs torch (pip install 'ldopt[torch]')")
    import ldopt_torch as lt  # noqa: PLC0415

    p, _ = _cutting_stock(1)
    dec = ldopt.decompose(p)
    rng = np.random.default_rng(1)
    C = rng.uniform(0.5, 2, (4, p.num_costs))
    data = lt.LDDataset(dec, rng.normal(size=(4, 3)), C, iterations=5, progress=False)
    loss = lt.LDLoss(dec, "spo+")
    batch = next(iter(data.batches(4, shuffle=False)))
    pred = torch.as_tensor(C, dtype=torch.float64)
    assert torch.isfinite(loss(pred, batch))
    with pytest.raises(ldopt.InputError, match=r"pred_costs: expected every cost in \[0, inf\)"):
        loss(pred - 1.0, batch)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(0, 10**6), st.sampled_from([1e-3, 1.0, 1e3]), st.booleans())
def test_the_bounds_keep_an_optimum_for_every_cost_in_the_domain(seed, scale, cutting):
    """Random cutting-stock and lot-sizing models, random costs in the domain with exact zeros
    and huge ones: capping where the decomposition says keeps the optimum value and every
    Lagrangian bound is a bound."""
    if cutting:
        p, _ = _cutting_stock(seed, scale)
    else:
        p = _lot_sizing(seed, scale)
    try:
        dec = ldopt.decompose(p)
    except ldopt.InfeasibleModelError:
        assume(False)
    rng = np.random.default_rng(seed)
    C = rng.uniform(0, 5, (4, p.num_costs)) * np.where(rng.random((4, p.num_costs)) < 0.2, 0.0, 1.0)
    C[3] *= 1e5
    _keeps_the_optimum_and_bounds_it(p, dec, C * (scale if cutting else 1.0))
