"""Capacitated facility location: data generated from features, and the Pyomo model.

Facilities ``j`` with fixed opening costs ``f_j`` and capacities ``u_j`` serve customers ``i``
with demands ``d_i``; ``c_ij`` is the cost per unit of demand shipped from ``j`` to ``i`` (the
costs to predict). Variables: ``y_j ∈ {0, 1}`` (open) and ``x_ij ∈ [0, 1]`` (the share of
``i``'s demand served by ``j``)::

    min  Σ_j f_j y_j + Σ_ij d_i c_ij x_ij
    s.t. Σ_j x_ij = 1                  (every customer served; m.serve[i])
         Σ_i d_i x_ij <= u_j y_j       (capacity of an open facility; m.capacity[j])
         Σ_j u_j y_j >= Σ_i d_i        (enough capacity open; m.cover, a valid inequality)

Every row is a block with an exact oracle: the assignment rows in closed form, each capacity row
by enumerating its one binary beside continuous shares, the cover row as a knapsack.
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
class FacilityData:
    """One facility-location data set: fixed data and per-instance features and unit costs.

    Parameters
    ----------
    demands
        Customer demands ``(customers,)``.
    capacities
        Facility capacities ``(facilities,)``.
    fixed_costs
        Facility opening costs ``(facilities,)``.
    features
        Features ``(N, p)``.
    costs
        Unit shipping costs ``(N, facilities · customers)``.
    """

    demands: np.ndarray  # (customers,)
    capacities: np.ndarray  # (facilities,)
    fixed_costs: np.ndarray  # (facilities,)
    features: np.ndarray  # (N, p)
    costs: np.ndarray  # (N, facilities * customers): c_ij at j * customers + i


def gen_data(
    num_data: int,
    num_features: int = 5,
    facilities: int = 5,
    customers: int = 10,
    deg: int = 4,
    noise_width: float = 0.5,
    capacity_ratio: float = 2.0,
    seed: int = 135,
) -> FacilityData:
    """Facilities and customers uniform in the unit square; ``c_ij`` is their distance times a
    polynomial of degree ``deg`` in the features (PyEPO's cost map), times uniform noise.

    Demands are integers in 5..35; capacities sum to ``capacity_ratio`` times the total demand;
    fixed costs grow with the square root of the capacity, at the scale of serving a customer.

    Parameters
    ----------
    num_data
        Instances.
    num_features
        Features per instance.
    facilities
        Candidate facilities.
    customers
        Customers.
    deg
        The cost map's polynomial degree.
    noise_width
        Multiplicative noise half-width.
    capacity_ratio
        Total capacity over total demand.
    seed
        The random seed.
    """
    for name, value in dict(num_data=num_data, num_features=num_features, deg=deg).items():
        checks.positive_int(name, value)
    nf, nc = checks.positive_int("facilities", facilities), checks.positive_int("customers", customers)
    checks.nonnegative("noise_width", noise_width)
    ratio = checks.positive("capacity_ratio", capacity_ratio)
    rng = np.random.RandomState(checks.nonnegative_int("seed", seed))
    fac, cus = rng.uniform(0, 1, (nf, 2)), rng.uniform(0, 1, (nc, 2))
    dist = np.linalg.norm(fac[:, None, :] - cus[None, :, :], axis=2).reshape(-1)  # j-major
    demands = rng.randint(5, 36, nc).astype(float)
    share = rng.uniform(0.5, 1.5, nf)
    capacities = np.ceil(ratio * demands.sum() * share / share.sum())
    fixed = np.round(rng.uniform(0.5, 1.0, nf) * np.sqrt(capacities) * demands.mean() / 4, 2)
    B = rng.binomial(1, 0.5, (nf * nc, num_features))
    feats = rng.normal(0, 1, (num_data, num_features))
    scale = polynomial(feats, B, deg)
    noise = rng.uniform(1 - noise_width, 1 + noise_width, (num_data, nf * nc))
    return FacilityData(demands, capacities, fixed, feats, (scale * noise * (0.1 + dist)).astype(np.float32))


def build_model(demands: Any, capacities: Any, fixed_costs: Any, cover: bool = True) -> Any:
    """A Pyomo model of the module docstring's problem; cost ``m.c[j, i]`` (mutable), shares
    ``m.x[j, i]``, openings ``m.y[j]``. ``cover=False`` drops the cover row.

    Parameters
    ----------
    demands
        Customer demands.
    capacities
        Facility capacities.
    fixed_costs
        Facility opening costs.
    cover
        Add the cover row ``Σ_j u_j y_j ≥ Σ_i d_i`` (a valid inequality).
    """
    import pyomo.environ as pyo  # noqa: PLC0415

    d = checks.real_array("demands", demands).reshape(-1)
    u = checks.real_array("capacities", capacities).reshape(-1)
    f = checks.real_array("fixed_costs", fixed_costs).reshape(-1)
    if len(f) != len(u) or not len(u) or not len(d):
        raise InputError(
            f"fixed_costs: expected one per facility ({len(u)} capacities), got {len(f)}; and at least one "
            f"facility and customer, got {len(u)} and {len(d)}"
        )
    m = pyo.ConcreteModel(name=f"facility location {len(u)}x{len(d)}")
    m.J, m.I = pyo.RangeSet(0, len(u) - 1), pyo.RangeSet(0, len(d) - 1)
    m.c = pyo.Param(m.J, m.I, mutable=True, initialize=1.0)
    m.x = pyo.Var(m.J, m.I, bounds=(0, 1))
    m.y = pyo.Var(m.J, domain=pyo.Binary)
    opening = sum(float(f[j]) * m.y[j] for j in m.J)
    shipping = sum(float(d[i]) * m.c[j, i] * m.x[j, i] for j in m.J for i in m.I)
    m.obj = pyo.Objective(expr=opening + shipping, sense=pyo.minimize)
    m.serve = pyo.Constraint(m.I, rule=lambda mm, i: sum(mm.x[j, i] for j in mm.J) == 1)
    m.capacity = pyo.Constraint(
        m.J, rule=lambda mm, j: sum(float(d[i]) * mm.x[j, i] for i in mm.I) <= float(u[j]) * mm.y[j]
    )
    if cover:
        m.cover = pyo.Constraint(expr=sum(float(u[j]) * m.y[j] for j in m.J) >= float(d.sum()))
    return m


def _instances(num_data: int, size: int, deg: int, seed: int) -> Instances:
    d = gen_data(num_data, 5, facilities=max(2, size // 2), customers=size, deg=deg, seed=seed)
    e = gen_data(num_data, 5, facilities=max(2, size // 2), customers=size, deg=deg, noise_width=0.0, seed=seed)
    return Instances(build_model(d.demands, d.capacities, d.fixed_costs), d.features, d.costs, expected=e.costs)


FAMILY = register(Family("facility", _instances, 10, "capacitated facility location: size customers, size // 2 sites"))
