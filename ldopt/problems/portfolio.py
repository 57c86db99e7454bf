"""The quadratic portfolio of the paper: data as PyEPO generates it, and its Pyomo model.

``max c·x  s.t.  1·x = 1,  x'Σx <= γ·mean(Σ),  0 <= x <= 1`` with asset returns ``c`` varying per
instance and the covariance ``Σ`` shared.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ldopt.errors import InputError
from ldopt.problems.family import Family, Instances, register
from ldopt.problems.knapsack import _check_deg

GAMMA = 2.25


def gen_data(
    num_data: int,
    num_features: int,
    num_assets: int,
    deg: int = 1,
    noise_level: float = 1.0,
    seed: int = 135,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Covariance ``(n, n)``, features ``(N, p)``, returns ``(N, n)`` (float32).

    Same random stream as ``pyepo.data.portfolio.genData``: a factor model whose loadings and
    idiosyncratic noise scale with ``noise_level``.

    Parameters
    ----------
    num_data
        Instances.
    num_features
        Features per instance.
    num_assets
        Assets.
    deg
        The returns' polynomial degree.
    noise_level
        The factor model's noise scale.
    seed
        The random seed.
    """
    cov, feats, _, ret = _draws(num_data, num_features, num_assets, deg, noise_level, seed)
    return cov, feats, ret


def _draws(
    num_data: int, num_features: int, num_assets: int, deg: int, noise_level: float, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``gen_data``'s arrays and, third, the returns' mean given the features (``E[c | x]``: the
    factor and residual shocks are centred Gaussians)."""
    _check_deg(deg)
    rng = np.random.RandomState(seed)
    proj = rng.binomial(1, 0.5, (num_assets, num_features))
    load = rng.uniform(-2.5e-3 * noise_level, 2.5e-3 * noise_level, (num_assets, num_features))
    feats = rng.normal(0, 1, (num_data, num_features))
    mean = (0.05 * (feats @ proj.T) / np.sqrt(num_features) + 0.1 ** (1 / deg)) ** deg
    shocks = rng.randn(num_data, num_features + num_assets)  # factor then residual, per instance
    ret = mean + shocks[:, :num_features] @ load.T + 0.01 * noise_level * shocks[:, num_features:]
    cov = load @ load.T + (1e-2 * noise_level) ** 2 * np.eye(num_assets)
    return cov, feats, mean, ret.astype(np.float32)


def risk_level(cov: Any, gamma: float = GAMMA) -> float:
    """The risk budget ``γ · mean(Σ)``.

    Parameters
    ----------
    cov
        The covariance ``(n, n)``.
    gamma
        The risk budget's multiple of the mean covariance.
    """
    return float(gamma * np.mean(cov))


def build_model(cov: Any, gamma: float = GAMMA) -> Any:
    """Pyomo model of the portfolio with mutable returns ``c``, components ``budget`` and ``risk``.

    Parameters
    ----------
    cov
        The covariance ``(n, n)``.
    gamma
        The risk budget's multiple of the mean covariance.
    """
    import pyomo.environ as pyo  # noqa: PLC0415

    S = np.asarray(cov, dtype=float)
    if S.ndim != 2 or S.shape[0] != S.shape[1]:
        raise InputError(f"cov: expected a square matrix (n, n), got shape {np.shape(cov)}")
    if not np.allclose(S, S.T):
        raise InputError("cov: expected a symmetric matrix")
    if not gamma > 0:
        raise InputError(f"gamma: expected a positive number, got {gamma}")
    n = S.shape[0]
    model = pyo.ConcreteModel(name="quadratic portfolio")
    model.I = pyo.RangeSet(0, n - 1)
    model.c = pyo.Param(model.I, mutable=True, initialize=0.0)
    model.x = pyo.Var(model.I, bounds=(0.0, 1.0))
    model.obj = pyo.Objective(expr=sum(model.c[i] * model.x[i] for i in model.I), sense=pyo.maximize)
    model.budget = pyo.Constraint(expr=sum(model.x[i] for i in model.I) == 1.0)
    model.risk = pyo.Constraint(
        expr=sum(float(S[i, j]) * model.x[i] * model.x[j] for i in range(n) for j in range(n) if S[i, j] != 0)
        <= risk_level(S, gamma)
    )
    return model


def _instances(num_data: int, size: int, deg: int, seed: int) -> Instances:
    cov, feats, mean, ret = _draws(num_data, 5, size, deg, 1.0, seed)
    return Instances(build_model(cov), feats, ret, main="risk", expected=mean)


FAMILY = register(Family("portfolio", _instances, 50, "the paper's Markowitz portfolio: size assets", lr=2e-3))
