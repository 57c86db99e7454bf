"""Weighted set covering: data from features, and the Pyomo model.

``n`` sets over ``m`` elements; ``x[j] ∈ {0, 1}`` buys set ``j`` at cost ``c[j]`` (the costs to
predict); every element must be covered::

    min  Σ_j c[j] x[j]
    s.t. Σ_{j ∋ i} x[j] >= 1            (element i covered; m.cover[i])

Each covering row has unit coefficients over binaries: its LD block has the closed-form oracle.
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
class CoverData:
    """One set-covering data set: the fixed membership and per-instance features and set costs.

    Parameters
    ----------
    membership
        0/1 membership ``(elements, sets)``.
    features
        Features ``(N, p)``.
    costs
        Set costs ``(N, sets)``.
    """

    membership: np.ndarray  # (elements, sets), 0/1: element i is in set j
    features: np.ndarray  # (N, p)
    costs: np.ndarray  # (N, sets)


def gen_data(
    num_data: int,
    num_features: int = 5,
    sets: int = 40,
    elements: int = 30,
    density: float = 0.15,
    deg: int = 4,
    noise_width: float = 0.5,
    seed: int = 135,
) -> CoverData:
    """Each element in each set with probability ``density`` and in at least two sets; costs
    ``c[j] = (1 + |S_j|) / (1 + mean |S|) · poly_deg(B z) · noise`` (bigger sets cost more; PyEPO's
    cost map, mean about 1).

    Parameters
    ----------
    num_data
        Instances.
    num_features
        Features per instance.
    sets
        Sets.
    elements
        Elements.
    density
        The probability that a set holds an element.
    deg
        The cost map's polynomial degree.
    noise_width
        Multiplicative noise half-width.
    seed
        The random seed.
    """
    for name, value in dict(num_data=num_data, num_features=num_features, deg=deg).items():
        checks.positive_int(name, value)
    n, m = checks.positive_int("sets", sets), checks.positive_int("elements", elements)
    if n < 2:
        raise InputError(f"sets: expected at least 2 (every element lies in two sets), got {n}")
    p = checks.share("density", density)
    checks.nonnegative("noise_width", noise_width)
    rng = np.random.RandomState(checks.nonnegative_int("seed", seed))
    member = (rng.uniform(size=(m, n)) < p).astype(float)
    for i in range(m):  # at least two sets per element
        while member[i].sum() < 2:
            member[i, rng.randint(n)] = 1.0
    size = member.sum(0)
    B = rng.binomial(1, 0.5, (n, num_features))
    feats = rng.normal(0, 1, (num_data, num_features))
    noise = rng.uniform(1 - noise_width, 1 + noise_width, (num_data, n))
    costs = polynomial(feats, B, deg) * noise * (1 + size) / (1 + size.mean())
    return CoverData(member, feats, costs.astype(np.float32))


def build_model(membership: Any) -> Any:
    """A Pyomo model of the module docstring's problem: cost ``m.c[j]`` (mutable), choices ``m.x[j]``;
    ``membership`` is an ``(elements, sets)`` 0/1 array.

    Parameters
    ----------
    membership
        0/1 membership ``(elements, sets)``.
    """
    import pyomo.environ as pyo  # noqa: PLC0415

    a = checks.real_array("membership", membership)
    if a.ndim != 2 or a.size == 0 or not np.isin(a, (0.0, 1.0)).all():
        raise InputError(f"membership: expected a non-empty (elements, sets) 0/1 array, got shape {a.shape}")
    bare = np.flatnonzero(a.sum(1) == 0)
    if len(bare):
        raise InputError(
            f"membership: element {int(bare[0])} lies in no set, so no cover exists; expected every row to hold a 1"
        )
    m = pyo.ConcreteModel(name=f"set cover {a.shape[1]} sets x {a.shape[0]} elements")
    m.J, m.I = pyo.RangeSet(0, a.shape[1] - 1), pyo.RangeSet(0, a.shape[0] - 1)
    m.c = pyo.Param(m.J, mutable=True, initialize=1.0)
    m.x = pyo.Var(m.J, domain=pyo.Binary)
    m.obj = pyo.Objective(expr=sum(m.c[j] * m.x[j] for j in m.J), sense=pyo.minimize)
    m.cover = pyo.Constraint(m.I, rule=lambda mm, i: sum(mm.x[j] for j in np.flatnonzero(a[i]).tolist()) >= 1)
    return m


def _instances(num_data: int, size: int, deg: int, seed: int) -> Instances:
    d = gen_data(num_data, 5, sets=size, elements=max(1, 3 * size // 4), deg=deg, seed=seed)
    e = gen_data(num_data, 5, sets=size, elements=max(1, 3 * size // 4), deg=deg, noise_width=0.0, seed=seed)
    return Instances(build_model(d.membership), d.features, d.costs, expected=e.costs)


FAMILY = register(Family("set_cover", _instances, 40, "weighted set covering: size sets over 3 size / 4 elements"))
