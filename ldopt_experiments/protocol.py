"""The benchmark protocol of the paper (see ``docs/protocol.md``): problem instances, their
decomposition, and standardised train / validation / test splits."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

import ldopt
from ldopt import problems
from ldopt.dual import StartChoice
from ldopt.problems import knapsack
from ldopt.runtime.cache import digest

Split = tuple[np.ndarray, np.ndarray]  # (features, costs)


@dataclass
class Setup:
    """One problem instance set: the problem, its decomposition and standardised splits.

    Parameters
    ----------
    name
        The family's name.
    size
        Its size.
    problem
        The problem.
    dec
        Its decomposition.
    train
        Training features and costs.
    val
        Validation features and costs.
    test
        Test features and costs.
    lr
        The protocol's learning rate.
    main
        Static mode's main block, or ``None``.
    mu0
        The LD training sets' start where the protocol's ``μ = 1`` does not fit the family (the
        portfolio's ``"symmetric"``), or ``None``.
    expected_test
        ``E[c | features]`` of the test split where the generator knows it
        (``Instances.expected``): its decisions are the Bayes floor of the test regret; else ``None``.
    """

    name: str
    size: int
    problem: ldopt.Problem
    dec: ldopt.Decomposition
    train: Split
    val: Split
    test: Split
    lr: float  # the protocol's learning rate for this family
    main: int | None = None  # the static mode's main block (None: the first the method fits, if the blocks are alike)
    mu0: float | StartChoice | None = None  # the LD training sets' start, where not the protocol's
    expected_test: np.ndarray | None = None  # E[c | features] of the test split (the Bayes floor's costs)

    @functools.cached_property
    def data_digest(self) -> str:
        """A content hash of the splits and the protocol's settings (a run's key; hashed once)."""
        return digest(
            *self.train, *self.val, *self.test, self.main, self.lr, {} if self.mu0 is None else {"mu0": self.mu0}
        )


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
    rows (the paper: 10).

    Parameters
    ----------
    items
        Items.
    dim
        Rows.
    train
        Training instances.
    val
        Validation instances.
    test
        Test instances.
    deg
        The cost map's polynomial degree.
    seed
        The data seed.
    """
    d = knapsack.protocol_data(train + val + test, items, dim=dim, deg=deg, seed=seed)
    model = knapsack.build_model(d.weights, d.capacities)
    p = ldopt.Problem.from_pyomo(model, model.c)
    tr, va, te = splits(d.features, d.costs, (train, val, test))
    return Setup("knapsack", items, p, ldopt.decompose(p), tr, va, te, lr=1e-2, expected_test=d.expected[train + val :])


def portfolio_setup(
    assets: int = 50, train: int = 100, val: int = 25, test: int = 1000, deg: int = 8, seed: int = 42
) -> Setup:
    """The portfolio protocol (PyEPO's data, γ = 2.25); blocks: budget (0) and risk (1).

    As in the paper, the static mode's main block is the risk row: with the budget row as main,
    the main decision is a vertex of the simplex (one asset) whatever the prediction, and LD(SPO+,
    static, L1) tested at 12.6% instead of 1.7%. The multipliers start from the shared solve's
    ``q(c)/m`` (``mu0="symmetric"``): the reference's ``μ = 1`` is ten times the returns
    (about 0.1), and 30 joint steps from it leave the bound 5.8 times the optimum.

    Parameters
    ----------
    assets
        Assets.
    train
        Training instances.
    val
        Validation instances.
    test
        Test instances.
    deg
        The returns' polynomial degree.
    seed
        The data seed.
    """
    fam = problems.family("portfolio")
    inst = fam.instances(train + val + test, assets, deg=deg, seed=seed)
    p = inst.problem()
    dec = ldopt.decompose(p, inst.blocks)
    tr, va, te = splits(inst.features, inst.costs, (train, val, test))
    expected = None if inst.expected is None else inst.expected[train + val :]
    return Setup("portfolio", assets, p, dec, tr, va, te, fam.lr, inst.main_block(dec), "symmetric", expected)


def family_setup(
    name: str,
    size: int | None = None,
    train: int = 200,
    val: int = 50,
    test: int = 200,
    deg: int = 4,
    seed: int = 42,
) -> Setup:
    """The setup of a registered family ([`ldopt.problems.family()`][ldopt.problems.family.family]):
    its instances, decomposition and main block, with standardised splits."""
    fam = problems.family(name)
    size = fam.size if size is None else size
    inst = fam.instances(train + val + test, size, deg=deg, seed=seed)
    p = inst.problem()
    dec = ldopt.decompose(p, inst.blocks)
    tr, va, te = splits(inst.features, inst.costs, (train, val, test))
    expected = None if inst.expected is None else inst.expected[train + val :]
    return Setup(name, size, p, dec, tr, va, te, lr=fam.lr, main=inst.main_block(dec), expected_test=expected)


PROTOCOLS = ("knapsack", "portfolio")  # the paper's families: their own setups above (rows, multipliers)
FAMILIES = {
    name: functools.partial(family_setup, name) for name in problems.FAMILIES if name not in PROTOCOLS
}  # the other registered families, by name: FAMILIES[name](size=..., train=..., seed=...)
