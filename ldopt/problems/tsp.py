"""The travelling salesperson problem on PyEPO's data: generator, Pyomo model, exact tours.

Nodes ``0..n−1``, one binary ``x[e]`` per undirected edge in PyEPO's order (``itertools
.combinations``, the rows of ``scipy.spatial.distance.pdist``), ``min c·x``. The model is compact
so that every block is a plain set of rows: the degree rows ``deg[v]`` (``Σ_{e∋v} x_e = 2``), and
rows that make the edges among nodes ``1..n−1`` a spanning tree — ``count`` (``n − 2`` of them)
and a single-commodity flow that node 1 sends to every other node over them (``flow[v]``,
``link[e]``: ``f_ij + f_ji ≤ (n − 2) x_e``). A spanning tree of ``1..n−1`` and two edges at node 0
form a *1-tree*; a 1-tree with degree 2 everywhere is a tour. ``blocks(n)`` puts the tree rows and
``deg[0]`` into one block and every other degree row into a block of its own: the Lagrangian bound
of that decomposition is Held and Karp's (1970), with the exact 1-tree oracle of
[`ldopt.problems.tsp_oracle`][ldopt.problems.tsp_oracle] for the tree block
(``ldopt.decompose(p, tsp.blocks(n), oracles=tsp_oracle.block_oracles(p, n))``).

The flow formulation's LP relaxation is weak, so whole-problem solves of the model are slow beyond
a few nodes; [`ldopt.problems.tsp_tours`][ldopt.problems.tsp_tours] solves instances exactly by the
subtour cut loop instead, and the problem uses it where it declares its oracle:
``Problem.from_pyomo(m, m.c, oracles=[tsp_tours.Tours])``.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ldopt import checks
from ldopt.errors import InputError


def _nodes(num_nodes: Any) -> int:
    n = checks.positive_int("num_nodes", num_nodes)
    if n < 4:
        raise InputError(f"num_nodes: expected at least 4 nodes, got {n}")
    return n


def edges(num_nodes: int) -> list[tuple[int, int]]:
    """The undirected edges ``(i, j)``, ``i < j``, in PyEPO's order.

    Parameters
    ----------
    num_nodes
        Nodes.
    """
    return list(itertools.combinations(range(_nodes(num_nodes)), 2))


def gen_data(
    num_data: int, num_features: int, num_nodes: int, deg: int = 1, noise_width: float = 0.0, seed: int = 135
) -> tuple[np.ndarray, np.ndarray]:
    """Features ``(num_data, num_features)`` and edge costs ``(num_data, n(n−1)/2)``.

    The random stream of ``pyepo.data.tsp.genData`` for the same arguments (identical arrays):
    Euclidean distances between coordinates (half uniform on ``[−2, 2]²``, half Gaussian) plus
    ``(B z / sqrt(p) + 3)^deg / 3^(deg−1)`` times uniform noise of half-width ``noise_width``,
    rounded to 4 decimals, as float32.

    Parameters
    ----------
    num_data
        Instances.
    num_features
        Features per instance.
    num_nodes
        Nodes.
    deg
        The cost map's polynomial degree.
    noise_width
        Multiplicative noise half-width.
    seed
        The random seed.
    """
    n = _nodes(num_nodes)
    checks.positive_int("num_data", num_data)
    p = checks.positive_int("num_features", num_features)
    checks.positive_int("deg", deg)
    checks.nonnegative("noise_width", noise_width)
    rng = np.random.RandomState(checks.nonnegative_int("seed", seed))
    coords = np.concatenate((rng.uniform(-2, 2, (n // 2, 2)), rng.normal(0, 1, (n - n // 2, 2))))
    i, j = np.triu_indices(n, 1)
    dist = np.sqrt(((coords[i] - coords[j]) ** 2).sum(axis=1))
    E = len(i)
    B = rng.binomial(1, 0.5, (E, p)) * rng.uniform(-2, 2, (E, p))
    feats = rng.normal(0, 1, (num_data, p))
    mapped = ((feats @ B.T / np.sqrt(p) + 3) ** deg) / 3 ** (deg - 1)
    costs = dist + mapped * rng.uniform(1 - noise_width, 1 + noise_width, (num_data, E))
    return feats, np.around(costs, decimals=4).astype(np.float32)


def build_model(num_nodes: int) -> Any:
    """A Pyomo model of the TSP: ``min Σ c[e] x[e]`` with ``deg``, ``count``, ``flow`` and
    ``link`` rows (see the module docstring), cost ``m.c`` (mutable, one per edge), edges ``m.x``
    (binary) and arc flows ``m.f`` (continuous, among nodes ``1..n−1``).

    Parameters
    ----------
    num_nodes
        Nodes.
    """
    import pyomo.environ as pyo  # noqa: PLC0415

    n = _nodes(num_nodes)
    E = edges(n)
    inner = [e for e, (i, _) in enumerate(E) if i > 0]
    arcs = [(i, j) for e in inner for (i, j) in (E[e], E[e][::-1])]
    m = pyo.ConcreteModel(name=f"tsp {n}")
    m.E = pyo.RangeSet(0, len(E) - 1)
    m.V = pyo.RangeSet(0, n - 1)
    m.A = pyo.Set(initialize=arcs, dimen=2, ordered=True)
    m.c = pyo.Param(m.E, mutable=True, initialize=1.0)
    m.x = pyo.Var(m.E, domain=pyo.Binary)
    m.f = pyo.Var(m.A, bounds=(0, n - 2))
    m.obj = pyo.Objective(expr=sum(m.c[e] * m.x[e] for e in m.E), sense=pyo.minimize)
    at = {v: [e for e, ij in enumerate(E) if v in ij] for v in range(n)}
    m.deg = pyo.Constraint(m.V, rule=lambda mm, v: sum(mm.x[e] for e in at[v]) == 2)
    m.count = pyo.Constraint(expr=sum(m.x[e] for e in inner) == n - 2)
    supply = {v: (-(n - 2) if v == 1 else 1) for v in range(1, n)}

    def flow(mm: Any, v: int) -> Any:
        if v == 0:
            return pyo.Constraint.Skip
        into = sum(mm.f[i, j] for (i, j) in arcs if j == v)
        return into - sum(mm.f[i, j] for (i, j) in arcs if i == v) == supply[v]

    m.flow = pyo.Constraint(m.V, rule=flow)
    m.link = pyo.Constraint(inner, rule=lambda mm, e: mm.f[E[e]] + mm.f[E[e][::-1]] <= (n - 2) * mm.x[e])
    return m


def blocks(num_nodes: int) -> list[list[str]]:
    """Held and Karp's decomposition: one block per degree row of nodes ``1..n−1``, and last the
    1-tree block (``deg[0]``, ``count``, ``flow``, ``link``).

    Parameters
    ----------
    num_nodes
        Nodes.
    """
    n = _nodes(num_nodes)
    return [[f"deg[{v}]"] for v in range(1, n)] + [["deg[0]", "count", "flow", "link"]]


def variable_index(problem: Any, num_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions of ``x[e]`` (edge order) and ``f[i,j]`` (``m.f``'s order) among ``problem``'s variables.

    Parameters
    ----------
    problem
        The compiled model of ``build_model(num_nodes)``.
    num_nodes
        Nodes.
    """
    return positions(problem.compiled.var_names, num_nodes)


def positions(var_names: Any, num_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """[`variable_index()`][ldopt.problems.tsp.variable_index] from the variables' names.

    Parameters
    ----------
    var_names
        A compiled model's variable names.
    num_nodes
        Nodes.
    """
    n = _nodes(num_nodes)
    E = edges(n)
    names = {name: k for k, name in enumerate(var_names)}
    inner = [E[e] for e, (i, _) in enumerate(E) if i > 0]
    try:
        ex = np.array([names[f"x[{e}]"] for e in range(len(E))])
        fx = np.array([names[f"f[{a},{b}]"] for (i, j) in inner for (a, b) in ((i, j), (j, i))])
    except KeyError as exc:
        raise InputError(f"problem: expected the model of tsp.build_model({n}), got one without {exc}") from None
    return ex, fx
