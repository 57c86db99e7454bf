"""The benchmark protocol of the paper (see ``docs/protocol.md``): problem instances, their
decomposition, and standardised train / validation / test splits."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import ldopt
from ldopt.problems import knapsack, portfolio

Split = tuple[np.ndarray, np.ndarray]  # (features, costs)


@dataclass
class Setup:
    """One problem instance set: the problem, its decomposition and standardised splits."""

    name: str
    size: int
    problem: ldopt.Problem
    dec: ldopt.Decomposition
    train: Split
    val: Split
    test: Split
    lr: float  # the protocol's learning rate for this family


def splits(F: np.ndarray, C: np.ndarray, n: tuple[int, int, int]) -> tuple[Split, Split, Split]:
    """Train, validation and test splits of ``n`` instances each, features standardised with the
    training split's mean and deviation."""
    mu, sd = F[: n[0]].mean(0), F[: n[0]].std(0)
    F = (F - mu) / np.where(sd > 0, sd, 1.0)
    a, b = n[0], n[0] + n[1]
    return (F[:a], C[:a]), (F[a:b], C[a:b]), (F[b : b + n[2]], C[b : b + n[2]])


def knapsack_setup(
    items: int = 100, dim: int = 10, train: int = 200, val: int = 100, test: int = 1000, deg: int = 8, seed: int = 42
) -> Setup:
    """The MKP protocol (PyEPO's data, integer weights 3..7, capacity half the row sum); ``dim``
    rows (the paper: 10)."""
    d = knapsack.protocol_data(train + val + test, items, dim=dim, deg=deg, seed=seed)
    model = knapsack.build_model(d.weights, d.capacities)
    p = ldopt.Problem.from_pyomo(model, model.c)
    tr, va, te = splits(d.features, d.costs, (train, val, test))
    return Setup("knapsack", items, p, ldopt.decompose(p), tr, va, te, lr=1e-2)


def portfolio_setup(
    assets: int = 50, train: int = 100, val: int = 25, test: int = 1000, deg: int = 8, seed: int = 42
) -> Setup:
    """The portfolio protocol (PyEPO's data, γ = 2.25); blocks: budget (0) and risk (1)."""
    cov, feats, ret = portfolio.gen_data(train + val + test, 5, assets, deg=deg, seed=seed)
    model = portfolio.build_model(cov)
    p = ldopt.Problem.from_pyomo(model, model.c)
    tr, va, te = splits(feats, ret.astype(float), (train, val, test))
    return Setup("portfolio", assets, p, ldopt.decompose(p), tr, va, te, lr=2e-3)
