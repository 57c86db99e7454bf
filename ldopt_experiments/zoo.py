"""A zoo of Pyomo models written by others, adapted only in their cost, on which ldopt's defaults
are measured (``benchmarks/bench_zoo.py``).

Each model keeps its author's rows, variables and domains — also the free and non-negative
variables that only the rows bound — and turns its cost coefficients into a mutable Param ``c``.
Instances scale the model's own costs by PyEPO's polynomial map of features (mean about 1, times
multiplicative noise), so every instance is the author's problem with costs that the features
predict. Sources (Pyomo's examples, BSD 3-clause licence, © National Technology and Engineering
Solutions of Sandia, LLC):

* ``transportation`` — ``examples/doc/samples/case_studies/transportation`` (its data);
* ``network_flow`` — ``examples/doc/samples/case_studies/network_flow/networkFlow1`` (its data);
* ``diet`` — ``examples/doc/samples/case_studies/diet/DietProblem`` (its data), and
  ``diet_integer``: the same with whole servings, as the AMPL book's ``dieti``
  (``examples/pyomo/amplbook2/dieti.py``);
* ``warehouse`` — ``examples/doc/pyomobook/overview/wl_concrete.py`` (its data);
* ``p_median`` — ``examples/pyomo/p-median/pmedian.py`` (its random distances, N = 8, M = 12,
  P = 3);
* ``bin_windows`` — ``examples/pyomo/draft/bpack.py`` (windows of 10 binaries under a weight
  limit; its data file is not published: weights 1–9 and limit 20, seeded);
* ``whiskas`` — ``examples/pyomo/concrete/Whiskas.py`` (PuLP's blending case study, its data);
* ``knapsack_tools`` — ``examples/pyomo/concrete/knapsack-concrete.py`` (its data);
* ``max_flow`` — ``examples/doc/samples/case_studies/max_flow/MaxFlow`` (its data; the flow into
  the sink weighed per arc);
* ``multi_commodity`` and ``fixed_charge`` — the AMPL book's ``multi`` and ``multmip3``
  (``examples/pyomo/amplbook2``; ``ldopt_experiments.zoo_ampl``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyomo.environ as pyo

from ldopt.problems import Family, Instances
from ldopt.problems.cost_map import polynomial

from .zoo_ampl import fixed_charge, multi_commodity


def _cost_param(m: pyo.ConcreteModel, index: object, base: dict) -> None:
    """``m.c``: the author's cost coefficients as a mutable Param over ``index``."""
    m.c = pyo.Param(index, mutable=True, initialize=base)


def transportation() -> pyo.ConcreteModel:
    """Three warehouses supply five stores at unit costs; demands must be met (min)."""
    W, S = ["quick", "brown", "fox"], ["jumps", "over", "the", "lazy", "dog"]
    supply = dict(quick=3250, brown=7000, fox=1250)
    demand = dict(jumps=3000, over=3000, the=4000, lazy=500, dog=1000)
    table = [[1, 3, 2, 2, 1], [4, 5, 1, 1, 3], [2, 3, 3, 2, 1]]
    m = pyo.ConcreteModel()
    _cost_param(
        m, [(w, s) for w in W for s in S], {(w, s): table[i][j] for i, w in enumerate(W) for j, s in enumerate(S)}
    )
    m.amounts = pyo.Var(W, S, within=pyo.NonNegativeReals)
    m.cost = pyo.Objective(expr=sum(m.c[w, s] * m.amounts[w, s] for w in W for s in S))
    m.demandConstraint = pyo.Constraint(S, rule=lambda m, s: sum(m.amounts[w, s] for w in W) >= demand[s])
    m.supplyConstraint = pyo.Constraint(W, rule=lambda m, w: sum(m.amounts[w, s] for s in S) <= supply[w])
    return m


def network_flow() -> pyo.ConcreteModel:
    """Flows on ten routes with lower and upper loads, conservation with excess at every place (min)."""
    places = ["Albany", "Abq", "Atlanta", "Boise", "Boston", "Casper", "Charleston", "Chicago"]
    routes = {
        ("Albany", "Casper"): (3000, 6000, 0.6),
        ("Albany", "Boise"): (1000, 5000, 0.4),
        ("Abq", "Boise"): (0, 4000, 0.3),
        ("Abq", "Boston"): (2000, 7000, 0.5),
        ("Atlanta", "Boston"): (1000, 5000, 0.2),
        ("Atlanta", "Chicago"): (500, 4000, 0.125),
        ("Boise", "Casper"): (1500, 6000, 0.25),
        ("Boise", "Charleston"): (1000, 5000, 0.3),
        ("Boston", "Charleston"): (2000, 7000, 0.5),
        ("Boston", "Chicago"): (1000, 3000, 0.2),
    }
    supply = dict(Albany=10000, Abq=7000, Atlanta=9000, Boston=3000)
    demand = dict(Boise=2000, Casper=7000, Charleston=8000, Chicago=6000)
    m = pyo.ConcreteModel()
    R = list(routes)
    _cost_param(m, R, {r: routes[r][2] for r in R})
    m.amount = pyo.Var(R, within=pyo.NonNegativeReals)
    m.excess = pyo.Var(places, within=pyo.NonNegativeReals)
    m.costTotal = pyo.Objective(expr=sum(m.c[r] * m.amount[r] for r in R))
    m.loadOnRoad = pyo.Constraint(R, rule=lambda m, i, j: (routes[i, j][0], m.amount[i, j], routes[i, j][1]))

    def conserve(m: pyo.ConcreteModel, p: str) -> object:
        inflow = sum(m.amount[r] for r in R if r[1] == p) + supply.get(p, 0)
        return inflow == sum(m.amount[r] for r in R if r[0] == p) + demand.get(p, 0) + m.excess[p]

    m.supplyDemand = pyo.Constraint(places, rule=conserve)
    return m


def _diet(integer: bool) -> pyo.ConcreteModel:
    foods, nutrients = ["steak", "apple", "rice"], ["calories", "protein", "vc"]
    value = dict(
        calories=dict(steak=180, apple=65, rice=143),
        protein=dict(steak=40, apple=1, rice=5),
        vc=dict(steak=0, apple=30, rice=0),
    )
    low, high = dict(calories=2000, protein=56, vc=300), dict(calories=4000, protein=168, vc=2000)
    m = pyo.ConcreteModel()
    _cost_param(m, foods, dict(steak=10, apple=2, rice=1))
    m.amount = pyo.Var(foods, within=pyo.NonNegativeIntegers if integer else pyo.NonNegativeReals)
    m.cost = pyo.Objective(expr=sum(m.c[f] * m.amount[f] for f in foods))
    m.volume = pyo.Constraint(expr=sum(m.amount[f] for f in foods) <= 400)
    m.nutrientConstraint = pyo.Constraint(
        nutrients, rule=lambda m, n: (low[n], sum(value[n][f] * m.amount[f] for f in foods), high[n])
    )
    return m


def diet() -> pyo.ConcreteModel:
    """The cheapest foods within nutrient ranges and a volume (min, continuous)."""
    return _diet(integer=False)


def diet_integer() -> pyo.ConcreteModel:
    """The same diet in whole servings; the servings have no bounds of their own (min, integer)."""
    return _diet(integer=True)


def _location(N: list, M: list, d: dict, P: int, exact: bool) -> pyo.ConcreteModel:
    m = pyo.ConcreteModel()
    _cost_param(m, list(d), d)
    m.x = pyo.Var(N, M, bounds=(0, 1))
    m.y = pyo.Var(N, within=pyo.Binary)
    m.obj = pyo.Objective(expr=sum(m.c[n, k] * m.x[n, k] for n in N for k in M))
    m.one_per_cust = pyo.Constraint(M, rule=lambda m, k: sum(m.x[n, k] for n in N) == 1)
    m.warehouse_active = pyo.Constraint(N, M, rule=lambda m, n, k: m.x[n, k] <= m.y[n])
    total = sum(m.y[n] for n in N)
    m.num_warehouses = pyo.Constraint(expr=total == P if exact else total <= P)
    return m


def warehouse() -> pyo.ConcreteModel:
    """Open at most two of three warehouses and serve four cities from them (min)."""
    d = {
        ("Harlingen", "NYC"): 1956, ("Harlingen", "LA"): 1606, ("Harlingen", "Chicago"): 1410,
        ("Harlingen", "Houston"): 330, ("Memphis", "NYC"): 1096, ("Memphis", "LA"): 1792,
        ("Memphis", "Chicago"): 531, ("Memphis", "Houston"): 567, ("Ashland", "NYC"): 485,
        ("Ashland", "LA"): 2322, ("Ashland", "Chicago"): 324, ("Ashland", "Houston"): 1236,
    }  # fmt: skip
    return _location(["Harlingen", "Memphis", "Ashland"], ["NYC", "LA", "Chicago", "Houston"], d, 2, exact=False)


def p_median() -> pyo.ConcreteModel:
    """Exactly three of eight locations serve twelve customers; distances uniform in [1, 2] (min)."""
    rng = random.Random(1000)
    N, M = list(range(1, 9)), list(range(1, 13))
    d = {(n, k): rng.uniform(1.0, 2.0) for n in N for k in M}
    return _location(N, M, d, 3, exact=True)


def bin_windows() -> pyo.ConcreteModel:
    """Choose items of values ``1 + 0.02 i``; every window of ten consecutive items weighs at
    most 20 (max)."""
    rng = np.random.RandomState(7)
    N = 30
    items = list(range(1, N + 1))
    w = {(i, j): int(rng.randint(1, 10)) for i in range(1, N - 8) for j in range(i, i + 10)}
    m = pyo.ConcreteModel()
    _cost_param(m, items, {i: 1 + 0.02 * i for i in items})
    m.b = pyo.Var(items, domain=pyo.Boolean)
    m.zot = pyo.Objective(expr=sum(m.c[i] * m.b[i] for i in items), sense=pyo.maximize)
    m.bletch = pyo.Constraint(range(1, N - 8), rule=lambda m, i: sum(w[i, j] * m.b[j] for j in range(i, i + 10)) <= 20)
    return m


def whiskas() -> pyo.ConcreteModel:
    """The cheapest can of cat food meeting protein, fat, fibre and salt shares (min, LP)."""
    ing = ["CHICKEN", "BEEF", "MUTTON", "RICE", "WHEAT", "GEL"]
    costs = dict(CHICKEN=0.013, BEEF=0.008, MUTTON=0.010, RICE=0.002, WHEAT=0.005, GEL=0.001)
    protein = dict(CHICKEN=0.100, BEEF=0.200, MUTTON=0.150, RICE=0.000, WHEAT=0.040, GEL=0.000)
    fat = dict(CHICKEN=0.080, BEEF=0.100, MUTTON=0.110, RICE=0.010, WHEAT=0.010, GEL=0.000)
    fibre = dict(CHICKEN=0.001, BEEF=0.005, MUTTON=0.003, RICE=0.100, WHEAT=0.150, GEL=0.000)
    salt = dict(CHICKEN=0.002, BEEF=0.005, MUTTON=0.007, RICE=0.002, WHEAT=0.008, GEL=0.000)
    m = pyo.ConcreteModel()
    _cost_param(m, ing, costs)
    m.ingredient_vars = pyo.Var(ing, bounds=(0, None))
    m.obj = pyo.Objective(expr=sum(m.c[i] * m.ingredient_vars[i] for i in ing))
    x = m.ingredient_vars
    m.c0 = pyo.Constraint(expr=sum(x[i] for i in ing) == 100)
    m.c1 = pyo.Constraint(expr=sum(protein[i] * x[i] for i in ing) >= 8.0)
    m.c2 = pyo.Constraint(expr=sum(fat[i] * x[i] for i in ing) >= 6.0)
    m.c3 = pyo.Constraint(expr=sum(fibre[i] * x[i] for i in ing) <= 2.0)
    m.c4 = pyo.Constraint(expr=sum(salt[i] * x[i] for i in ing) <= 0.4)
    return m


def knapsack_tools() -> pyo.ConcreteModel:
    """Pack a hammer, a wrench, a screwdriver and a towel under a weight limit of 14 (max)."""
    v = dict(hammer=8, wrench=3, screwdriver=6, towel=11)
    w = dict(hammer=5, wrench=7, screwdriver=4, towel=3)
    m = pyo.ConcreteModel()
    m.ITEMS = pyo.Set(initialize=list(v))
    _cost_param(m, m.ITEMS, v)
    m.x = pyo.Var(m.ITEMS, within=pyo.Binary)
    m.value = pyo.Objective(expr=sum(m.c[i] * m.x[i] for i in m.ITEMS), sense=pyo.maximize)
    m.weight = pyo.Constraint(expr=sum(w[i] * m.x[i] for i in m.ITEMS) <= 14)
    return m


def max_flow() -> pyo.ConcreteModel:
    """The most flow from the zoo home through capacitated arcs; each arc into home weighed by its
    cost (max, LP; the author's weights are 1)."""
    upper = {
        ("Zoo", "A"): 11, ("Zoo", "B"): 8, ("A", "C"): 5, ("A", "D"): 8, ("B", "A"): 4, ("B", "C"): 3,
        ("C", "D"): 12, ("C", "E"): 4, ("D", "E"): 5, ("D", "Home"): 10, ("E", "Home"): 6,
    }  # fmt: skip
    nodes = ["Zoo", "A", "B", "C", "D", "E", "Home"]
    arcs = list(upper)
    into_sink = [a for a in arcs if a[1] == "Home"]
    m = pyo.ConcreteModel()
    _cost_param(m, into_sink, {a: 1.0 for a in into_sink})
    m.amount = pyo.Var(arcs, within=pyo.NonNegativeReals)
    m.maxFlow = pyo.Objective(expr=sum(m.c[a] * m.amount[a] for a in into_sink), sense=pyo.maximize)
    m.loadOnArc = pyo.Constraint(arcs, rule=lambda m, i, j: m.amount[i, j] <= upper[i, j])

    def flow(m: pyo.ConcreteModel, node: str) -> object:
        inflow = sum(m.amount[a] for a in arcs if a[1] == node)
        outflow = sum(m.amount[a] for a in arcs if a[0] == node)
        if node == "Zoo":
            return outflow <= 1000000
        if node == "Home":
            return inflow >= 0
        return inflow == outflow

    m.flow = pyo.Constraint(nodes, rule=flow)
    return m


@dataclass(frozen=True)
class ZooModel:
    """A model of the zoo: its builder and what it is."""

    name: str
    build: Callable[[], pyo.ConcreteModel]
    description: str

    def family(self, noise_width: float = 0.5) -> Family:
        """The model as a [`Family`][ldopt.problems.family.Family]: instances scale the model's own
        costs by PyEPO's polynomial map of 5 features (``size`` is unused: the author's size).

        Parameters
        ----------
        noise_width
            Multiplicative noise half-width.
        """

        def generate(num_data: int, size: int, deg: int, seed: int) -> Instances:
            model = self.build()
            base = np.array([pyo.value(model.c[k]) for k in model.c], dtype=float)
            rng = np.random.RandomState(seed)
            features = rng.normal(size=(num_data, 5))
            B = rng.binomial(1, 0.5, (len(base), 5))
            noise = rng.uniform(1 - noise_width, 1 + noise_width, (num_data, len(base)))
            return Instances(model, features, base * polynomial(features, B, deg) * noise)

        return Family(self.name, generate, 1, self.description)


ZOO: dict[str, ZooModel] = {
    z.name: z
    for z in (
        ZooModel("transportation", transportation, "Pyomo's transportation case study (LP)"),
        ZooModel("network_flow", network_flow, "Pyomo's network-flow case study (LP, free excess)"),
        ZooModel("diet", diet, "Pyomo's diet case study (LP)"),
        ZooModel("diet_integer", diet_integer, "the diet in whole servings (MIP, no variable bounds)"),
        ZooModel("warehouse", warehouse, "the Pyomo book's warehouse location (MIP)"),
        ZooModel("p_median", p_median, "Pyomo's p-median example (MIP)"),
        ZooModel("bin_windows", bin_windows, "Pyomo's bpack windows of knapsack rows (binary)"),
        ZooModel("whiskas", whiskas, "Pyomo's Whiskas blending example (LP)"),
        ZooModel("knapsack_tools", knapsack_tools, "Pyomo's concrete knapsack example (binary)"),
        ZooModel("max_flow", max_flow, "Pyomo's max-flow case study (LP, maximisation)"),
        ZooModel("multi_commodity", multi_commodity, "the AMPL book's multi-commodity transportation (LP)"),
        ZooModel("fixed_charge", fixed_charge, "the AMPL book's fixed-charge multi-commodity routes (MIP)"),
    )
}
