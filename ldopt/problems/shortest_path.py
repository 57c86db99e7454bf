"""Shortest path on PyEPO's grid: the data as ``pyepo.data.shortestpath.genData`` makes it, and
the Pyomo model.

The grid has ``rows × cols`` nodes numbered row by row; every node has an arc east and an arc
south where the grid goes on (PyEPO's arc order). One unit of flow goes from node 0 to the last
node: ``min c·x  s.t.  Σ_in x − Σ_out x = b_v`` at every node ``v`` (``b = −1`` at the source,
``+1`` at the sink), ``0 <= x <= 1``. Each node's row has ±1 coefficients, so the LD blocks are
flow-conservation rows with a closed-form oracle; the whole problem is totally unimodular, so
``binary=False`` (PyEPO's LP) and ``binary=True`` have the same optima.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ldopt import checks
from ldopt.errors import InputError
from ldopt.problems.cost_map import polynomial
from ldopt.problems.family import Family, Instances, register


def _grid(grid: Any) -> tuple[int, int]:
    try:
        rows, cols = (int(g) for g in grid)
    except (TypeError, ValueError):
        raise InputError(f"grid: expected (rows, cols), got {grid!r}") from None
    if rows < 1 or cols < 1 or rows * cols < 2:
        raise InputError(f"grid: expected at least two nodes, got {grid!r}")
    return rows, cols


def arcs(grid: tuple[int, int]) -> list[tuple[int, int]]:
    """The grid's arcs ``(tail, head)`` in PyEPO's order: each row's east arcs, then its south arcs.

    Parameters
    ----------
    grid
        ``(rows, columns)`` of nodes.
    """
    rows, cols = _grid(grid)
    out = []
    for i in range(rows):
        out += [(i * cols + j, i * cols + j + 1) for j in range(cols - 1)]
        if i < rows - 1:
            out += [(i * cols + j, (i + 1) * cols + j) for j in range(cols)]
    return out


def gen_data(
    num_data: int,
    num_features: int,
    grid: tuple[int, int] = (5, 5),
    deg: int = 1,
    noise_width: float = 0.0,
    seed: int = 135,
) -> tuple[np.ndarray, np.ndarray]:
    """Features ``(num_data, num_features)`` and arc costs ``(num_data, num_arcs)``.

    Same random stream as ``pyepo.data.shortestpath.genData`` for the same arguments, so the arrays
    are identical: ``c = ((B z / sqrt(p) + 3)^deg + 1) / 3.5^deg`` times uniform noise of
    half-width ``noise_width``, as float32.

    Parameters
    ----------
    num_data
        Instances.
    num_features
        Features per instance.
    grid
        ``(rows, columns)`` of nodes.
    deg
        The cost map's polynomial degree.
    noise_width
        Multiplicative noise half-width.
    seed
        The random seed.
    """
    rows, cols = _grid(grid)
    checks.positive_int("num_data", num_data)
    checks.positive_int("num_features", num_features)
    checks.positive_int("deg", deg)
    checks.nonnegative("noise_width", noise_width)
    rng = np.random.RandomState(checks.nonnegative_int("seed", seed))
    d = (rows - 1) * cols + (cols - 1) * rows
    B = rng.binomial(1, 0.5, (d, num_features))
    feats = rng.normal(0, 1, (num_data, num_features))
    costs = polynomial(feats, B, deg) * rng.uniform(1 - noise_width, 1 + noise_width, (num_data, d))
    return feats, costs.astype(np.float32)


def regions(grid: tuple[int, int], parts: int = 2) -> list[list[str]]:
    """Blocks for [`ldopt.decompose()`][ldopt.decompose]: the node rows in ``parts`` bands of consecutive grid rows.

    One block per node (the default decomposition) shows each copy one node's arcs, and a path is
    only defined by all of them together; a band holds whole paths across it, so its block is a
    small flow problem (solved as a min-cost flow, `ldopt.oracles.MinCostFlowOracle`). On the 5×5
    grid two bands (rows 0–2 and 3–4) train LD(SPO+) as well as MSE (README, "Five more families").

    Parameters
    ----------
    grid
        ``(rows, columns)`` of nodes.
    parts
        Bands of grid rows (blocks).
    """
    rows, cols = _grid(grid)
    parts = checks.positive_int("parts", parts)
    if parts > rows:
        raise InputError(f"parts: expected at most the grid's {rows} rows, got {parts}")
    edges = np.linspace(0, rows, parts + 1)
    bands = [range(int(np.ceil(edges[k])), int(np.ceil(edges[k + 1]))) for k in range(parts)]
    return [[f"node[{i * cols + j}]" for i in band for j in range(cols)] for band in bands]


def build_model(grid: tuple[int, int] = (5, 5), binary: bool = True) -> Any:
    """A Pyomo model: ``min Σ c[a] x[a]`` over the grid's arcs with one conservation row per node
    (``m.node``), cost ``m.c`` (mutable, one per arc) and arcs ``m.x``.

    Parameters
    ----------
    grid
        ``(rows, columns)`` of nodes.
    binary
        Binary arc variables (else continuous in ``[0, 1]``: the LP, also exact).
    """
    import pyomo.environ as pyo  # noqa: PLC0415

    rows, cols = _grid(grid)
    arc_list = arcs((rows, cols))
    nodes = rows * cols
    m = pyo.ConcreteModel(name=f"shortest path {rows}x{cols}")
    m.A = pyo.RangeSet(0, len(arc_list) - 1)
    m.V = pyo.RangeSet(0, nodes - 1)
    m.c = pyo.Param(m.A, mutable=True, initialize=1.0)
    m.x = pyo.Var(m.A, domain=pyo.Binary if binary else pyo.NonNegativeReals, bounds=(0, 1))
    m.obj = pyo.Objective(expr=sum(m.c[a] * m.x[a] for a in m.A), sense=pyo.minimize)
    into = {v: [a for a, (_, h) in enumerate(arc_list) if h == v] for v in range(nodes)}
    out = {v: [a for a, (t, _) in enumerate(arc_list) if t == v] for v in range(nodes)}
    supply = {0: -1.0, nodes - 1: 1.0}

    def conservation(model: Any, v: int) -> Any:
        return sum(model.x[a] for a in into[v]) - sum(model.x[a] for a in out[v]) == supply.get(v, 0.0)

    m.node = pyo.Constraint(m.V, rule=conservation)
    return m


def _instances(num_data: int, size: int, deg: int, seed: int, parts: int | None = None) -> Instances:
    F, C = gen_data(num_data, 5, (size, size), deg=deg, noise_width=0.5, seed=seed)
    _, E = gen_data(num_data, 5, (size, size), deg=deg, noise_width=0.0, seed=seed)  # the same draws, no noise
    blocks = None if parts is None else regions((size, size), parts)
    return Instances(build_model((size, size)), F, C, blocks=blocks, expected=E)


def _two_regions(num_data: int, size: int, deg: int, seed: int) -> Instances:
    return _instances(num_data, size, deg, seed, parts=2)


FAMILY = register(
    Family("shortest_path", _instances, 5, "PyEPO's shortest path on a size × size grid, a block per node")
)
REGIONS = register(
    Family("shortest_path_regions", _two_regions, 5, "the shortest path with two bands of grid rows as blocks")
)
