"""Capacitated lot sizing with setup times: data generated from features, and the Pyomo model.

Items ``i`` are made over periods ``t`` on one resource of capacity ``u`` per period. Demands
``d_it`` must be met from production ``x_it`` and stock ``s_it`` (none at the start, no backlog);
producing item ``i`` in a period takes a setup ``y_it`` that costs ``f_i`` and uses ``τ_i`` of the
capacity; stock costs ``h_i`` per unit and period. ``c_it``, the unit production cost (material
or energy prices that move with the features), is what is predicted::

    min  Σ_it c_it x_it + Σ_it h_i s_it + Σ_it f_i y_it
    s.t. s_i,t-1 + x_it − s_it = d_it          (balance; m.balance[i, t], s_i,-1 = 0)
         x_it <= M_it y_it                     (setup; m.setup[i, t], M_it the smaller of u and
                                                the demand left from t on)
         Σ_i (x_it + τ_i y_it) <= u            (capacity; m.capacity[t])
         0 <= x_it <= M_it,  0 <= s_it <= demand left after t,  y_it ∈ {0, 1}

Every row is a block with an exact oracle: a balance row (±1 over continuous variables) in
closed form, a setup row by fixing its binary, a capacity row by enumerating its ``2^I`` setups
(``I <= 6``) beside continuous quantities. Every data set is feasible: the capacity covers
lot-for-lot production with every setup in every period (``build_model`` refuses a capacity
below the demand to date).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ldopt import checks
from ldopt.errors import InputError
from ldopt.problems.cost_map import polynomial
from ldopt.problems.family import Family, Instances, register


@dataclass
class LotSizingData:
    """One lot-sizing data set: fixed data and per-instance features and unit production costs.

    Parameters
    ----------
    demands
        Demands ``(items, periods)``.
    capacity
        Production time per period.
    setup_times
        Setup time per item.
    setup_costs
        Setup cost per item.
    holding_costs
        Holding cost per item and period.
    features
        Features ``(N, p)``.
    costs
        Unit production costs ``(N, items · periods)``.
    """

    demands: np.ndarray  # (items, periods), integers
    capacity: float
    setup_times: np.ndarray  # (items,)
    setup_costs: np.ndarray  # (items,)
    holding_costs: np.ndarray  # (items,)
    features: np.ndarray  # (N, p)
    costs: np.ndarray  # (N, items * periods): c_it at i * periods + t


def gen_data(
    num_data: int,
    num_features: int = 5,
    items: int = 4,
    periods: int = 8,
    deg: int = 4,
    noise_width: float = 0.5,
    capacity_ratio: float = 1.5,
    seed: int = 135,
) -> LotSizingData:
    """Demands uniform in 5..20; the capacity ``capacity_ratio`` times the mean total demand a
    period, raised to cover lot-for-lot production with every setup; setup times 2..5; holding
    costs 0.05..0.15 and setup costs 5..15 per item; ``c_it`` a polynomial of degree ``deg`` in
    the features (PyEPO's cost map, mean about 1) times uniform noise.

    Parameters
    ----------
    num_data
        Instances.
    num_features
        Features per instance.
    items
        Items.
    periods
        Periods.
    deg
        The cost map's polynomial degree.
    noise_width
        Multiplicative noise half-width.
    capacity_ratio
        Capacity over the mean total demand a period.
    seed
        The random seed.
    """
    for name, value in dict(num_data=num_data, num_features=num_features, deg=deg).items():
        checks.positive_int(name, value)
    ni, nt = checks.positive_int("items", items), checks.positive_int("periods", periods)
    if ni > 6:
        raise InputError(f"items: expected at most 6 (a capacity row's setups are enumerated), got {ni}")
    checks.nonnegative("noise_width", noise_width)
    ratio = checks.positive("capacity_ratio", capacity_ratio)
    rng = np.random.RandomState(checks.nonnegative_int("seed", seed))
    demands = rng.randint(5, 21, (ni, nt)).astype(float)
    times = rng.randint(2, 6, ni).astype(float)
    capacity = float(max(np.ceil(ratio * demands.sum(0).mean()), (demands.sum(0) + times.sum()).max()))
    setup = np.round(rng.uniform(5, 15, ni), 2)
    holding = np.round(rng.uniform(0.05, 0.15, ni), 3)
    B = rng.binomial(1, 0.5, (ni * nt, num_features))
    feats = rng.normal(0, 1, (num_data, num_features))
    noise = rng.uniform(1 - noise_width, 1 + noise_width, (num_data, ni * nt))
    costs = (polynomial(feats, B, deg) * noise).astype(np.float32)
    return LotSizingData(demands, capacity, times, setup, holding, feats, costs)


def _check(demands: Any, capacity: Any, setup_times: Any, setup_costs: Any, holding_costs: Any) -> tuple[Any, ...]:
    d = checks.real_array("demands", demands)
    if d.ndim != 2 or not d.size or (d < 0).any():
        raise InputError(
            f"demands: expected a nonnegative (items, periods) array, got shape {d.shape} with minimum "
            f"{d.min() if d.size else 'none'}"
        )
    ni = d.shape[0]
    if ni > 6:
        raise InputError(f"demands: expected at most 6 items (a capacity row's setups are enumerated), got {ni}")
    per_item = []
    for name, value in dict(setup_times=setup_times, setup_costs=setup_costs, holding_costs=holding_costs).items():
        v = checks.real_array(name, value).reshape(-1)
        if len(v) != ni or (v < 0).any():
            raise InputError(f"{name}: expected {ni} nonnegative values (one per item), got {v.tolist()}")
        per_item.append(v)
    u = checks.positive("capacity", capacity)
    need = np.cumsum(d.sum(0)) - u * np.arange(1, d.shape[1] + 1)  # demand beyond all capacity so far
    if (need > 1e-9).any():
        t = int(np.argmax(need > 1e-9))
        raise InputError(
            f"capacity: expected at least the demand of periods 0..{t} over them ({need[t] + u * (t + 1):g} "
            f"in {t + 1} periods), got {u:g} a period; raise it"
        )
    return d, u, *per_item


def build_model(demands: Any, capacity: Any, setup_times: Any, setup_costs: Any, holding_costs: Any) -> Any:
    """A Pyomo model of the module docstring's problem; cost ``m.c[i, t]`` (mutable), production
    ``m.x[i, t]``, stock ``m.s[i, t]``, setups ``m.y[i, t]``.

    Parameters
    ----------
    demands
        Demands ``(items, periods)``.
    capacity
        Production time per period.
    setup_times
        Setup time per item.
    setup_costs
        Setup cost per item.
    holding_costs
        Holding cost per item and period.
    """
    import pyomo.environ as pyo  # noqa: PLC0415

    d, u, tau, f, h = _check(demands, capacity, setup_times, setup_costs, holding_costs)
    ni, nt = d.shape
    left = np.cumsum(d[:, ::-1], axis=1)[:, ::-1]  # demand from t on
    big = np.minimum(u, left)
    m = pyo.ConcreteModel(name=f"lot sizing {ni}x{nt}")
    m.I, m.T = pyo.RangeSet(0, ni - 1), pyo.RangeSet(0, nt - 1)
    m.c = pyo.Param(m.I, m.T, mutable=True, initialize=1.0)
    m.x = pyo.Var(m.I, m.T, bounds=lambda mm, i, t: (0.0, float(big[i, t])))
    m.s = pyo.Var(m.I, m.T, bounds=lambda mm, i, t: (0.0, float(left[i, t] - d[i, t])))
    m.y = pyo.Var(m.I, m.T, domain=pyo.Binary)
    m.obj = pyo.Objective(
        expr=sum(m.c[i, t] * m.x[i, t] + float(h[i]) * m.s[i, t] + float(f[i]) * m.y[i, t] for i in m.I for t in m.T),
        sense=pyo.minimize,
    )
    m.balance = pyo.Constraint(
        m.I,
        m.T,
        rule=lambda mm, i, t: (mm.s[i, t - 1] if t > 0 else 0) + mm.x[i, t] - mm.s[i, t] == float(d[i, t]),
    )
    m.setup = pyo.Constraint(m.I, m.T, rule=lambda mm, i, t: mm.x[i, t] <= float(big[i, t]) * mm.y[i, t])
    m.capacity = pyo.Constraint(
        m.T, rule=lambda mm, t: sum(mm.x[i, t] + float(tau[i]) * mm.y[i, t] for i in mm.I) <= float(u)
    )
    return m


def _instances(num_data: int, size: int, deg: int, seed: int) -> Instances:
    d = gen_data(num_data, 5, items=size, periods=8, deg=deg, seed=seed)
    e = gen_data(num_data, 5, items=size, periods=8, deg=deg, noise_width=0.0, seed=seed)
    m = build_model(d.demands, d.capacity, d.setup_times, d.setup_costs, d.holding_costs)
    return Instances(m, d.features, d.costs, expected=e.costs)


FAMILY = register(Family("lot_sizing", _instances, 4, "capacitated lot sizing with setup times: size items, 8 periods"))
