"""The capacitated vehicle routing problem on PyEPO's data: demands, Pyomo model, decomposition.

Node 0 is the depot, nodes ``1..n−1`` the customers with demands ``q``; vehicles of capacity
``Q``, at most ``V`` of them. As in the CaVE paper's CVRP (Tang & Khalil, CPAIOR 2024), one binary
``x[e]`` per undirected edge in PyEPO's order carries the cost (``pyepo.data.tsp.genData`` on
``n`` nodes: [`tsp.gen_data()`][ldopt.problems.tsp.gen_data]), every customer has degree 2 and
the depot at most ``2V``; a binary depot edge rules out single-customer routes, as CaVE's model does.

The model is compact, so that every block is a plain set of rows: arcs ``y[i,j]`` orient the
routes (``link[e]``: ``x_e = y_ij + y_ji``; one arc out of and one into every customer, ``out``
and ``inn``), and loads ``u[v] ∈ [q_v, Q]`` with ``mtz[i,j]``: ``u_i − u_j + Q y_ij ≤ Q − q_j``
(Miller, Tucker and Zemlin's rows, as CaVE's ``vrpModel2``) rule out cycles without the depot and
routes over capacity. [`blocks()`][ldopt.problems.cvrp.blocks] puts every customer's degree row
in a block of its own and the rest (the routes) in one block, which
[`cvrp_oracle`][ldopt.problems.cvrp_oracle] solves as a relaxation (Fisher's K-tree idea: a forest
of customer edges and the depot's edges, capacity ignored);
[`cvrp_routes`][ldopt.problems.cvrp_routes] solves instances exactly by a capacity cut loop.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ldopt import checks
from ldopt.errors import InputError
from ldopt.problems.tsp import _nodes, edges

CAPACITY = 30.0
"""The CaVE paper's vehicle capacity for CVRP20."""
VEHICLES = 5
"""The CaVE paper's vehicle count for CVRP20."""


def demands(seed: int, customers: int = 20) -> np.ndarray:
    """The CaVE paper's demands for one seed: ``np.random.seed(seed); np.random.rand(customers) * 10``.

    Parameters
    ----------
    seed
        The experiment's seed (``42 + i``).
    customers
        Customers.
    """
    rng = np.random.RandomState(checks.nonnegative_int("seed", seed))
    return rng.rand(checks.positive_int("customers", customers)) * 10


def check(num_nodes: Any, demand: Any, capacity: Any, vehicles: Any) -> tuple[int, np.ndarray, float, int]:
    """``(n, q, Q, V)`` checked: ``n − 1`` positive demands, each at most ``Q``, and a total that
    ``V`` vehicles can carry.

    Parameters
    ----------
    num_nodes
        Nodes, the depot included.
    demand
        The customers' demands ``(n − 1,)``.
    capacity
        The vehicles' capacity.
    vehicles
        The most vehicles.
    """
    n = _nodes(num_nodes)
    q = checks.real_array("demands", demand).astype(float)
    if q.shape != (n - 1,):
        raise InputError(f"demands: expected {n - 1} demands (one per customer), got shape {q.shape}")
    if (q <= 0).any():
        raise InputError(f"demands: expected positive demands, got {q.min():g}")
    Q = float(checks.positive("capacity", capacity))
    V = checks.positive_int("vehicles", vehicles)
    if q.max() > Q:
        raise InputError(f"demands: expected each at most the capacity {Q:g}, got {q.max():g}")
    if 2 * min_vehicles(q, Q) > n - 1 or min_vehicles(q, Q) > V:
        raise InputError(
            f"vehicles: the demands need {min_vehicles(q, Q)} routes of two customers or more, "
            f"expected at most {V} vehicles and {(n - 1) // 2} routes"
        )
    return n, q, Q, V


def min_vehicles(q: np.ndarray, capacity: float) -> int:
    """``⌈Σ q / Q⌉``: the fewest routes that can carry the demands (a valid bound on every solution).

    Parameters
    ----------
    q
        Demands.
    capacity
        Capacity.
    """
    return int(np.ceil(float(np.sum(q)) / capacity - 1e-9))


def build_model(num_nodes: int, demand: Any, capacity: float = CAPACITY, vehicles: int = VEHICLES) -> Any:
    """A Pyomo model of the CVRP: ``min Σ c[e] x[e]`` with ``deg``, ``link``, ``out``, ``inn`` and
    ``mtz`` rows (see the module docstring); cost ``m.c`` (mutable, one per edge), edges ``m.x``,
    arcs ``m.y`` (both binary, ``y``'s arcs ``(i, j), (j, i)`` per edge in edge order) and loads ``m.u``.

    Parameters
    ----------
    num_nodes
        Nodes, the depot (node 0) included.
    demand
        The customers' demands ``(n − 1,)`` (e.g. [`demands()`][ldopt.problems.cvrp.demands]).
    capacity
        The vehicles' capacity.
    vehicles
        The most vehicles (routes).
    """
    import pyomo.environ as pyo  # noqa: PLC0415

    n, q, Q, V = check(num_nodes, demand, capacity, vehicles)
    E = edges(n)
    arcs = [a for (i, j) in E for a in ((i, j), (j, i))]
    m = pyo.ConcreteModel(name=f"cvrp {n}")
    m.E = pyo.RangeSet(0, len(E) - 1)
    m.V = pyo.RangeSet(0, n - 1)
    m.C = pyo.RangeSet(1, n - 1)
    m.A = pyo.Set(initialize=arcs, dimen=2, ordered=True)
    m.c = pyo.Param(m.E, mutable=True, initialize=1.0)
    m.x = pyo.Var(m.E, domain=pyo.Binary)
    m.y = pyo.Var(m.A, domain=pyo.Binary)
    m.u = pyo.Var(m.C, bounds=lambda mm, v: (float(q[v - 1]), Q))
    m.obj = pyo.Objective(expr=sum(m.c[e] * m.x[e] for e in m.E), sense=pyo.minimize)
    at = {v: [e for e, ij in enumerate(E) if v in ij] for v in range(n)}

    def deg(mm: Any, v: int) -> Any:
        total = sum(mm.x[e] for e in at[v])
        return total <= 2 * V if v == 0 else total == 2

    m.deg = pyo.Constraint(m.V, rule=deg)
    m.link = pyo.Constraint(m.E, rule=lambda mm, e: mm.x[e] == mm.y[E[e]] + mm.y[E[e][::-1]])
    m.out = pyo.Constraint(m.C, rule=lambda mm, v: sum(mm.y[a] for a in arcs if a[0] == v) == 1)
    m.inn = pyo.Constraint(m.C, rule=lambda mm, v: sum(mm.y[a] for a in arcs if a[1] == v) == 1)
    inner = [(i, j) for (i, j) in arcs if i > 0 and j > 0]
    m.mtz = pyo.Constraint(
        inner, rule=lambda mm, i, j: mm.u[i] - mm.u[j] + Q * mm.y[i, j] <= Q - float(q[j - 1])
    )  # fmt: skip
    return m


def blocks(num_nodes: int) -> list[list[str]]:
    """The decomposition: one block per customer's degree row, and last the routes' block
    (``deg[0]``, ``link``, ``out``, ``inn``, ``mtz``).

    Parameters
    ----------
    num_nodes
        Nodes, the depot included.
    """
    n = _nodes(num_nodes)
    return [[f"deg[{v}]"] for v in range(1, n)] + [["deg[0]", "link", "out", "inn", "mtz"]]


def variable_index(problem: Any, num_nodes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Positions of ``x[e]`` (edge order), ``y[i,j]`` (``m.y``'s order) and ``u[v]`` (``v = 1..n−1``)
    among ``problem``'s variables.

    Parameters
    ----------
    problem
        The compiled model of ``build_model(num_nodes, ...)``.
    num_nodes
        Nodes, the depot included.
    """
    return positions(problem.compiled.var_names, num_nodes)


def same_data(problem: Any, num_nodes: int, demand: np.ndarray, capacity: float, vehicles: int) -> None:
    """Raise ``InputError`` unless ``problem`` is the model of ``build_model(num_nodes, demand,
    capacity, vehicles)`` in these data: its loads' bounds ``(q_v, Q)`` and its depot's degree row
    ``≤ 2V`` (an oracle built for other demands would bound another problem).

    Parameters
    ----------
    problem
        The compiled model.
    num_nodes
        Nodes, the depot included.
    demand
        The customers' demands ``(n − 1,)`` (checked).
    capacity
        The vehicles' capacity.
    vehicles
        The most vehicles.
    """
    cm = problem.compiled
    _, _, ux = positions(cm.var_names, num_nodes)
    depot = next((r for r in cm.rows if r.name == "deg[0]"), None)
    model_q, model_cap = cm.var_lb[ux], cm.var_ub[ux]
    if not np.array_equal(model_q, demand):
        mine, given = str(np.round(model_q, 6).tolist())[:120], str(demand.tolist())[:120]
        raise InputError(f"demand: expected the model's own demands {mine}, got {given}")
    if not np.all(model_cap == capacity):
        raise InputError(f"capacity: expected the model's own ({float(model_cap.max()):g}), got {capacity:g}")
    if depot is None:
        raise InputError(f"problem: expected the model of cvrp.build_model({num_nodes}, ...), got one without deg[0]")
    if depot.hi != 2 * vehicles:
        raise InputError(f"vehicles: expected the model's own ({depot.hi / 2:g}), got {vehicles}")


def positions(var_names: Any, num_nodes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """[`variable_index()`][ldopt.problems.cvrp.variable_index] from the variables' names.

    Parameters
    ----------
    var_names
        A compiled model's variable names.
    num_nodes
        Nodes, the depot included.
    """
    n = _nodes(num_nodes)
    E = edges(n)
    names = {name: k for k, name in enumerate(var_names)}
    try:
        ex = np.array([names[f"x[{e}]"] for e in range(len(E))])
        yx = np.array([names[f"y[{a},{b}]"] for (i, j) in E for (a, b) in ((i, j), (j, i))])
        ux = np.array([names[f"u[{v}]"] for v in range(1, n)])
    except KeyError as exc:
        raise InputError(f"problem: expected the model of cvrp.build_model({n}, ...), got one without {exc}") from None
    return ex, yx, ux
