"""The benchmark protocol of the paper (see ``docs/protocol.md``): problem instances, their
decomposition, and standardised train / validation / test splits."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

import ldopt
from ldopt.cache import digest
from ldopt.problems import facility, knapsack, lot_sizing, portfolio, set_cover, shift_scheduling, shortest_path

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
    main: int | None = None  # the static mode's main block (None: the first the method fits, if the blocks are alike)
    dual: dict[str, Any] = field(default_factory=dict)  # the LD training sets' dual options

    @functools.cached_property
    def data_digest(self) -> str:
        """A content hash of the splits and the protocol's settings (a run's key; hashed once)."""
        return digest(*self.train, *self.val, *self.test, self.main, self.lr, self.dual)


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
    """The portfolio protocol (PyEPO's data, γ = 2.25); blocks: budget (0) and risk (1).

    As in the paper, the static mode's main block is the risk row: with the budget row as main,
    the main decision is a vertex of the simplex (one asset) whatever the prediction, and LD(SPO+,
    static, L1) tested at 12.6% instead of 1.7%. The multipliers start from the shared solve's
    ``q(c)/m`` (``mu0="symmetric"``): the reference's ``μ = 1`` is ten times the returns
    (about 0.1), and 30 joint steps from it leave the bound 5.8 times the optimum.
    """
    cov, feats, ret = portfolio.gen_data(train + val + test, 5, assets, deg=deg, seed=seed)
    model = portfolio.build_model(cov)
    p = ldopt.Problem.from_pyomo(model, model.c)
    tr, va, te = splits(feats, ret.astype(float), (train, val, test))
    dec = ldopt.decompose(p)
    risk = next(k for k in range(dec.num_blocks) if [r.component for r in dec.block(k).compiled.rows] == ["risk"])
    return Setup("portfolio", assets, p, dec, tr, va, te, lr=2e-3, main=risk, dual=dict(mu0="symmetric"))


def _setup(name: str, size: int, model: Any, F: np.ndarray, C: np.ndarray, n: tuple[int, int, int]) -> Setup:
    p = ldopt.Problem.from_pyomo(model, model.c)
    tr, va, te = splits(F, C.astype(float), n)
    return Setup(name, size, p, ldopt.decompose(p), tr, va, te, lr=1e-2)


def shortest_path_setup(
    size: int = 5,
    train: int = 200,
    val: int = 50,
    test: int = 200,
    deg: int = 4,
    seed: int = 42,
    regions: int | None = None,
) -> Setup:
    """PyEPO's shortest path on a ``size × size`` grid (its data, noise half-width 0.5); one block
    per node, or with ``regions=k`` one per band of grid rows
    ([`ldopt.problems.shortest_path.regions()`][ldopt.problems.shortest_path.regions])."""
    F, C = shortest_path.gen_data(train + val + test, 5, (size, size), deg=deg, noise_width=0.5, seed=seed)
    s = _setup("shortest_path", size, shortest_path.build_model((size, size)), F, C, (train, val, test))
    if regions is None:
        return s
    dec = ldopt.decompose(s.problem, blocks=shortest_path.regions((size, size), regions))
    return replace(s, name="shortest_path_regions", dec=dec)


def shortest_path_regions_setup(
    size: int = 5, train: int = 200, val: int = 50, test: int = 200, deg: int = 4, seed: int = 42
) -> Setup:
    """The shortest path with two regions (bands of grid rows) as blocks instead of single nodes."""
    return shortest_path_setup(size, train, val, test, deg, seed, regions=2)


def facility_setup(
    size: int = 10, train: int = 200, val: int = 50, test: int = 200, deg: int = 4, seed: int = 42
) -> Setup:
    """Capacitated facility location: ``size`` customers, ``size // 2`` facilities."""
    d = facility.gen_data(train + val + test, 5, facilities=max(2, size // 2), customers=size, deg=deg, seed=seed)
    m = facility.build_model(d.demands, d.capacities, d.fixed_costs)
    return _setup("facility", size, m, d.features, d.costs, (train, val, test))


def shift_setup(size: int = 8, train: int = 200, val: int = 50, test: int = 200, deg: int = 4, seed: int = 42) -> Setup:
    """Shift scheduling: ``size`` employees, a week of 3 shifts a day."""
    d = shift_scheduling.gen_data(train + val + test, 5, employees=size, days=7, shifts=3, deg=deg, seed=seed)
    m = shift_scheduling.build_model(d.requirements, d.most, d.least)
    return _setup("shift_scheduling", size, m, d.features, d.costs, (train, val, test))


def cover_setup(
    size: int = 40, train: int = 200, val: int = 50, test: int = 200, deg: int = 4, seed: int = 42
) -> Setup:
    """Weighted set covering: ``size`` sets over ``3 size / 4`` elements."""
    d = set_cover.gen_data(train + val + test, 5, sets=size, elements=max(1, 3 * size // 4), deg=deg, seed=seed)
    return _setup("set_cover", size, set_cover.build_model(d.membership), d.features, d.costs, (train, val, test))


def lot_sizing_setup(
    size: int = 4, train: int = 200, val: int = 50, test: int = 200, deg: int = 4, seed: int = 42
) -> Setup:
    """Capacitated lot sizing with setup times: ``size`` items (at most 6) over 8 periods."""
    d = lot_sizing.gen_data(train + val + test, 5, items=size, periods=8, deg=deg, seed=seed)
    m = lot_sizing.build_model(d.demands, d.capacity, d.setup_times, d.setup_costs, d.holding_costs)
    return _setup("lot_sizing", size, m, d.features, d.costs, (train, val, test))


FAMILIES = {
    "shortest_path": shortest_path_setup,
    "shortest_path_regions": shortest_path_regions_setup,
    "facility": facility_setup,
    "shift_scheduling": shift_setup,
    "set_cover": cover_setup,
    "lot_sizing": lot_sizing_setup,
}
