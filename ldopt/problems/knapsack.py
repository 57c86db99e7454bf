"""The multi-dimensional knapsack of the paper: data as PyEPO generates it, and its Pyomo model.

``max c·x  s.t.  W x <= b,  x binary``; weights ``W`` and capacities ``b`` are shared by every
instance, only the item values ``c`` vary (and are predicted from features).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ldopt import checks
from ldopt.errors import InputError
from ldopt.problems.family import Family, Instances, register


def _check_sizes(**sizes: Any) -> None:
    for name, value in sizes.items():
        checks.positive_int(name, value)


def _check_deg(deg: int) -> None:
    if isinstance(deg, bool) or not isinstance(deg, (int, np.integer)) or deg <= 0:
        raise InputError(f"deg: expected a positive integer, got {deg!r}")


def gen_data(
    num_data: int,
    num_features: int,
    num_items: int,
    dim: int = 1,
    deg: int = 1,
    noise_width: float = 0.0,
    seed: int = 135,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weights ``(dim, num_items)``, features ``(num_data, num_features)``, costs ``(num_data, num_items)``.

    Same random stream as ``pyepo.data.knapsack.genData`` for the same arguments, so the arrays are
    identical: weights in {3.00, ..., 7.99}, values ``ceil(5 (Bz/sqrt(p) + 3)^deg / 3.5^deg + 5/3.5^deg)``
    times uniform noise of half-width ``noise_width``, as float32.

    Parameters
    ----------
    num_data
        Instances.
    num_features
        Features per instance.
    num_items
        Items.
    dim
        Knapsack rows.
    deg
        The cost map's polynomial degree.
    noise_width
        Multiplicative noise half-width.
    seed
        The random seed.
    """
    weights, feats, costs, _ = _generate(num_data, num_features, num_items, dim, deg, noise_width, seed)
    return weights, feats, costs


def expected_costs(
    num_data: int,
    num_features: int,
    num_items: int,
    dim: int = 1,
    deg: int = 1,
    noise_width: float = 0.0,
    seed: int = 135,
) -> np.ndarray:
    """``E[c | features]`` ``(num_data, num_items)`` of [`gen_data`][ldopt.problems.knapsack.gen_data]'s
    instances for the same arguments: the mean of the rounded-up noisy values given the features,
    in closed form. The decisions for it are the Bayes floor: no predictor of the features expects
    a lower regret.

    Parameters
    ----------
    num_data
        Instances.
    num_features
        Features per instance.
    num_items
        Items.
    dim
        Knapsack rows.
    deg
        The cost map's polynomial degree.
    noise_width
        Multiplicative noise half-width.
    seed
        The random seed.
    """
    checks.nonnegative("noise_width", noise_width)
    _, _, values, _ = _draw(num_data, num_features, num_items, dim, deg, seed)
    return _expected(values, noise_width)


def _generate(
    num_data: int, num_features: int, num_items: int, dim: int, deg: int, noise_width: float, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`gen_data`'s weights, features and costs, and the values ``v`` before the noise."""
    checks.nonnegative("noise_width", noise_width)
    weights, feats, values, rng = _draw(num_data, num_features, num_items, dim, deg, seed)
    noisy = values * rng.uniform(1 - noise_width, 1 + noise_width, (num_data, num_items))
    return weights, feats, np.ceil(noisy).astype(np.float32), values


def _draw(
    num_data: int, num_features: int, num_items: int, dim: int, deg: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.random.RandomState]:
    """PyEPO's draws before the noise: weights, features, the values ``v`` and the random stream."""
    _check_deg(deg)
    _check_sizes(num_data=num_data, num_features=num_features, num_items=num_items, dim=dim)
    rng = np.random.RandomState(checks.nonnegative_int("seed", seed))
    weights = rng.choice(np.arange(300, 800), size=(dim, num_items)) / 100
    proj = rng.binomial(1, 0.5, (num_items, num_features))
    feats = rng.normal(0, 1, (num_data, num_features))
    values = (feats @ proj.T / np.sqrt(num_features) + 3) ** deg + 1
    return weights, feats, values * 5 / 3.5**deg, rng


def _expected(values: np.ndarray, noise_width: float) -> np.ndarray:
    """``E[ceil(v ε)]`` over ``ε ~ U[1 − w, 1 + w]`` for the values ``v`` before the noise: the
    costs' mean given the features, in closed form (``∫ ceil``, piecewise linear), not ``ceil(v)``."""
    if noise_width == 0:
        return np.ceil(values)
    lo, hi = values * (1 - noise_width), values * (1 + noise_width)
    return (_ceil_integral(hi) - _ceil_integral(lo)) / (hi - lo)


def _ceil_integral(y: np.ndarray) -> np.ndarray:
    """``∫_0^y ceil(t) dt`` for ``y ≥ 0``: the whole steps below ``y`` and the part of the last."""
    f = np.floor(y)
    return f * (f + 1) / 2 + np.ceil(y) * (y - f)


@dataclass
class KnapsackData:
    """One MKP data set under the paper's protocol.

    Parameters
    ----------
    weights
        Integer weights ``(dim, num_items)``.
    capacities
        Capacities ``(dim,)``.
    features
        Features ``(N, num_features)``.
    costs
        Item values ``(N, num_items)``.
    expected
        ``E[c | features]`` ``(N, num_items)``: the mean of the rounded-up noisy values, in closed
        form (the decisions for it are the Bayes floor).
    """

    weights: np.ndarray  # (m, n) integers 3..7
    capacities: np.ndarray  # (m,) integers
    features: np.ndarray  # (N, p)
    costs: np.ndarray  # (N, n)
    expected: np.ndarray  # (N, n) E[c | features]


def protocol_data(
    num_data: int,
    num_items: int,
    dim: int = 10,
    num_features: int = 12,
    deg: int = 8,
    noise_width: float = 0.5,
    seed: int = 42,
) -> KnapsackData:
    """The paper's MKP protocol: PyEPO's generator, weights truncated to integers 3..7 and
    capacities ``int(0.5 * row sum)``.

    Parameters
    ----------
    num_data
        Instances.
    num_items
        Items.
    dim
        Knapsack rows (the paper: 10).
    num_features
        Features per instance.
    deg
        The cost map's polynomial degree.
    noise_width
        Multiplicative noise half-width.
    seed
        The random seed.
    """
    w, feats, costs, values = _generate(num_data, num_features, num_items, dim, deg, noise_width, seed)
    weights = w.astype(int)
    capacities = (0.5 * weights.sum(axis=1)).astype(int)
    return KnapsackData(weights, capacities, feats, costs.astype(float), _expected(values, noise_width))


def build_model(weights: Any, capacities: Any) -> Any:
    """Pyomo model ``max sum_j c[j] x[j] s.t. sum_j W[k,j] x[j] <= b[k]`` with mutable ``c``.

    Parameters
    ----------
    weights
        Weights ``(dim, num_items)``.
    capacities
        Capacities ``(dim,)``.
    """
    import pyomo.environ as pyo  # noqa: PLC0415

    W = np.atleast_2d(checks.real_array("weights", weights))
    b = checks.real_array("capacities", capacities).reshape(-1)
    if W.ndim != 2 or W.shape[0] != b.shape[0] or W.size == 0:
        raise InputError(
            f"weights/capacities: expected shapes (m, n) and (m,), got {np.shape(weights)} and {np.shape(capacities)}"
        )
    m, n = W.shape
    model = pyo.ConcreteModel(name="multi-dimensional knapsack")
    model.I = pyo.RangeSet(0, n - 1)
    model.K = pyo.RangeSet(0, m - 1)
    model.c = pyo.Param(model.I, mutable=True, initialize=0.0)
    model.x = pyo.Var(model.I, domain=pyo.Binary)
    model.obj = pyo.Objective(expr=sum(model.c[j] * model.x[j] for j in model.I), sense=pyo.maximize)
    model.capacity = pyo.Constraint(
        model.K,
        rule=lambda mdl, k: sum(float(W[k, j]) * mdl.x[j] for j in mdl.I if W[k, j] != 0) <= float(b[k]),
    )
    return model


def _instances(num_data: int, size: int, deg: int, seed: int) -> Instances:
    d = protocol_data(num_data, size, deg=deg, seed=seed)
    return Instances(build_model(d.weights, d.capacities), d.features, d.costs, expected=d.expected)


FAMILY = register(Family("knapsack", _instances, 100, "the paper's multi-dimensional knapsack: size items, 10 rows"))
