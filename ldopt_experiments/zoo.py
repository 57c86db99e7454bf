"""A zoo of Pyomo models written by others, adapted only in their cost, on which ldopt's defaults
are measured (``benchmarks/bench_zoo.py``).

Each model keeps its author's rows, variables and domains — also the free and non-negative
variables that only the rows bound — and turns its cost coefficients into a mutable Param ``c``.
Instances scale the model's own costs by PyEPO's polynomial map of features (mean about 1, times
multiplicative noise), so every instance is the author's problem with costs that the features
predict. Sources (Pyomo's examples, BSD 3-clause licence, © National Technology and Engineering
Solutions of Sandia, LLC, but the last two):

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
  (``examples/pyomo/amplbook2``; ``ldopt_experiments.zoo_ampl``);
* ``cutting_stock`` — ``examples/pyomo/columngeneration/cutting_stock.py`` (its data, from
  Wikipedia's cutting-stock article): the master problem in whole rolls, as its last step solves
  it, over every maximal pattern (the columns its generation draws from) rather than those
  generated; each pattern's roll priced by a cost declared non-negative;
* ``lot_sizing_backlog`` — ``examples/pyomobook/blocks-ch/lotsizing.py`` (its data; the setup
  cost per period, declared non-negative);
* ``jobshop`` — ``examples/gdp/jobshop-nodisjuncts.py`` with ``jobshop.dat`` (after GAMS's
  ``logmip4``): the makespan, plus each job's completion time weighted by a cost (``1/7`` as
  given), declared non-negative;
* ``sched`` — ``examples/doc/samples/comparisons/sched/pyomo`` (its data; the values ``amt``);
* ``netdes`` — mpi-sppy's ``examples/netdes/netdes.py`` (BSD 3-clause licence, © 2020 B. Knueven,
  D. Mildebrath, C. Muir, J.-P. Watson and D. L. Woodruff), its first scenario of
  ``data/network-10-10-L-01.dat`` (a NETGEN instance) as one deterministic model; the arcs'
  variable costs are the costs, the fixed costs stay the author's;
* ``sslp`` — mpi-sppy's ``examples/sslp/model/ReferenceModel.py`` (BSD 3-clause licence, © 2024
  Lawrence Livermore National Security, LLC, Alliance for Sustainable Energy, LLC, the Regents of
  the University of California, et al.; Ntaimo and Sen's stochastic server location), its
  ``data/sslp_5_25_50`` scenario 1 (11 of the 25 clients present) as one deterministic model:
  servers opened at fixed costs, clients allocated within their capacity, the overflow at each
  server penalised per unit (1000, the author's default, and bounded by no row above); the
  allocations' revenues are the costs.

The bounds a model leaves to its optimum come from the costs' declared sign
(`ldopt.model.optimal_bounds`); nothing is added by hand.
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


def _cost_param(m: pyo.ConcreteModel, index: object, base: dict, within: object = pyo.Any) -> None:
    """``m.c``: the author's cost coefficients as a mutable Param over ``index`` (``within``: the
    costs' declared domain, where the model's bounds at an optimum need their sign)."""
    m.c = pyo.Param(index, mutable=True, initialize=base, within=within)


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


def cutting_stock() -> pyo.ConcreteModel:
    """Whole master rolls of width 5600 cut into 13 widths to meet their demands, one count per
    cutting pattern, each pattern priced by its cost (min, integer counts that only an optimum
    bounds: the costs are declared non-negative). The patterns are the example's: one per width
    (as many as fit), then those its column generation adds (`_generated_patterns`)."""
    demand = {
        1380: 22, 1520: 25, 1560: 12, 1710: 14, 1820: 18, 1880: 18, 1930: 20,
        2000: 10, 2050: 12, 2100: 14, 2140: 16, 2150: 18, 2200: 20,
    }  # fmt: skip
    widths, roll = list(demand), 5600
    patterns = _generated_patterns(widths, [demand[w] for w in widths], roll)
    m = pyo.ConcreteModel()
    m.P = pyo.RangeSet(0, len(patterns) - 1)
    _cost_param(m, m.P, dict.fromkeys(m.P, 1.0), within=pyo.NonNegativeReals)
    m.pattern = pyo.Var(m.P, domain=pyo.NonNegativeIntegers)
    m.obj = pyo.Objective(expr=sum(m.c[p] * m.pattern[p] for p in m.P))
    m.demand = pyo.Constraint(
        widths, rule=lambda m, w: sum(int(patterns[p][widths.index(w)]) * m.pattern[p] for p in m.P) >= demand[w]
    )
    return m


def _generated_patterns(widths: list[int], demand: list[int], roll: int, rounds: int = 30) -> np.ndarray:
    """The example's column generation (Bradley, Hax and Magnanti, §12.8): from one pattern per
    width, solve the master LP (SciPy's HiGHS), price the widths by its duals and add the pattern
    worth most (an integer knapsack, solved exactly by dynamic programming over the roll's width)
    while it is worth more than a roll, at most ``rounds`` times. Patterns ``(P, widths)``."""
    from scipy.optimize import linprog  # noqa: PLC0415

    n = len(widths)
    patterns = [np.eye(n, dtype=int)[i] * (roll // w) for i, w in enumerate(widths)]
    for _ in range(rounds):
        A = np.array(patterns).T
        lp = linprog(np.ones(len(patterns)), A_ub=-A, b_ub=-np.array(demand, float), method="highs")
        price = -lp.ineqlin.marginals  # the duals of the demand rows, ≥ 0
        best = np.zeros(roll + 1)  # best[r]: the most a pattern of width ≤ r is worth (unbounded knapsack)
        choice = np.full(roll + 1, -1)  # the width cut last at r, or -1: r's best is (r − 1)'s
        for r in range(1, roll + 1):
            best[r] = best[r - 1]
            for i, w in enumerate(widths):
                if w <= r and best[r - w] + price[i] > best[r] + 1e-12:
                    best[r], choice[r] = best[r - w] + price[i], i
        if best[roll] <= 1 + 1e-9:
            break
        new, r = np.zeros(n, dtype=int), roll
        while r > 0:
            if choice[r] < 0:
                r -= 1
            else:
                new[choice[r]] += 1
                r -= widths[choice[r]]
        patterns.append(new)
    return np.array(patterns)


def lot_sizing_backlog() -> pyo.ConcreteModel:
    """Five periods of production under a setup and a capacity, an initial stock, and an
    inventory that may go negative (backlog): held and short stock at fixed rates, each period's
    setup priced by its cost (min, MIP; the stock and backlog have no upper bound)."""
    i0, h_pos, h_neg, cap = 5.0, 0.7, 1.2, 5.0
    d = {1: 5.0, 2: 7.0, 3: 6.2, 4: 3.1, 5: 1.7}
    m = pyo.ConcreteModel()
    m.T = pyo.RangeSet(5)
    _cost_param(m, m.T, dict.fromkeys(m.T, 4.6), within=pyo.NonNegativeReals)
    m.y = pyo.Var(m.T, domain=pyo.Binary)
    m.x = pyo.Var(m.T, domain=pyo.NonNegativeReals)
    m.i = pyo.Var(m.T)
    m.i_pos = pyo.Var(m.T, domain=pyo.NonNegativeReals)
    m.i_neg = pyo.Var(m.T, domain=pyo.NonNegativeReals)
    m.inventory = pyo.Constraint(m.T, rule=lambda m, t: m.i[t] == (i0 if t == 1 else m.i[t - 1]) + m.x[t] - d[t])
    m.pos_neg = pyo.Constraint(m.T, rule=lambda m, t: m.i[t] == m.i_pos[t] - m.i_neg[t])
    m.prod_indicator = pyo.Constraint(m.T, rule=lambda m, t: m.x[t] <= cap * m.y[t])
    m.obj = pyo.Objective(expr=sum(m.c[t] * m.y[t] + h_pos * m.i_pos[t] + h_neg * m.i_neg[t] for t in m.T))
    return m


def jobshop() -> pyo.ConcreteModel:
    """Seven jobs through five stages with zero wait between stages, no two jobs at a stage at
    once (a disjunction per clash, reformulated by Pyomo's ``gdp.bigm``): the makespan plus each
    job's completion time weighted by its cost (min, MIP with start times; the makespan is free)."""
    from pyomo.gdp import Disjunction  # noqa: PLC0415 - Pyomo's GDP extension, this model only

    tau = {
        ("A", 1): 3, ("A", 3): 5, ("A", 5): 2, ("B", 2): 3, ("B", 3): 4, ("B", 5): 3,
        ("C", 1): 6, ("C", 2): 3, ("C", 4): 6, ("D", 2): 8, ("D", 3): 5, ("D", 4): 1,
        ("E", 2): 4, ("E", 3): 6, ("E", 5): 2, ("F", 1): 2, ("F", 3): 5, ("F", 4): 7,
        ("G", 2): 8, ("G", 4): 5, ("G", 5): 4,
    }  # fmt: skip
    jobs, stages = ["A", "B", "C", "D", "E", "F", "G"], [1, 2, 3, 4, 5]
    horizon = sum(tau.values())

    def before(j: str, s: int) -> int:  # the job's time in the stages before s
        return sum(tau.get((j, k), 0) for k in stages if k < s)

    m = pyo.ConcreteModel()
    _cost_param(m, jobs, dict.fromkeys(jobs, 1.0 / len(jobs)), within=pyo.NonNegativeReals)
    m.ms = pyo.Var()
    m.t = pyo.Var(jobs, within=pyo.NonNegativeReals, bounds=(0, horizon))
    clashes = [(i, k, s) for i in jobs for k in jobs for s in stages if i < k and (i, s) in tau and (k, s) in tau]
    m.Feas = pyo.Constraint(jobs, rule=lambda m, i: m.ms >= m.t[i] + before(i, 6))
    m.disj = Disjunction(
        clashes,
        rule=lambda m, i, k, s: [
            m.t[i] + before(i, s) + tau[i, s] <= m.t[k] + before(k, s),
            m.t[k] + before(k, s) + tau[k, s] <= m.t[i] + before(i, s),
        ],
    )
    m.makespan = pyo.Objective(expr=m.ms + sum(m.c[j] * (m.t[j] + before(j, 6)) for j in jobs))
    pyo.TransformationFactory("gdp.bigm").apply_to(m)
    return m


def sched() -> pyo.ConcreteModel:
    """Four people each do one of five tasks in each of two slots; every task runs once, with
    one to five people, in one of the slots' five rooms: the most valued people–task pairs (max,
    binary, assignment rows)."""
    tasks, people, slots = ["T1", "T2", "T3", "T4", "T5"], ["P1", "P2", "P3", "P4"], ["S1", "S2"]
    amt = {"P1": (1, 0, 2, 0, 0), "P2": (0, 1, 2, 0, 0), "P3": (0, 0, 1, 2, 0), "P4": (0, 0, 0, 1, 2)}
    m = pyo.ConcreteModel()
    _cost_param(
        m, [(t, p) for t in tasks for p in people], {(t, p): amt[p][tasks.index(t)] for t in tasks for p in people}
    )
    m.x = pyo.Var(tasks, people, slots, within=pyo.Binary)
    m.xts = pyo.Var(tasks, slots, within=pyo.Binary)
    m.xtp = pyo.Var(tasks, people, within=pyo.Binary)
    m.rule1 = pyo.Constraint(tasks, slots, rule=lambda m, t, s: sum(m.x[t, p, s] for p in people) >= m.xts[t, s])
    m.rule2 = pyo.Constraint(tasks, people, slots, rule=lambda m, t, p, s: m.x[t, p, s] <= m.xts[t, s])
    m.rule3 = pyo.Constraint(tasks, people, rule=lambda m, t, p: sum(m.x[t, p, s] for s in slots) == m.xtp[t, p])
    m.rule4 = pyo.Constraint(tasks, rule=lambda m, t: sum(m.xts[t, s] for s in slots) == 1)
    m.rule5 = pyo.Constraint(tasks, rule=lambda m, t: (1, sum(m.xtp[t, p] for p in people), 5))
    m.rule6 = pyo.Constraint(slots, rule=lambda m, s: sum(m.xts[t, s] for t in tasks) <= 5)
    m.rule7 = pyo.Constraint(people, slots, rule=lambda m, p, s: sum(m.x[t, p, s] for t in tasks) == 1)
    m.z = pyo.Objective(expr=sum(m.c[t, p] * m.xtp[t, p] for t in tasks for p in people), sense=pyo.maximize)
    return m


_NETDES = (  # network-10-10-L-01.dat: adjacency, fixed costs; scenario 0's variable costs, capacities, demands
    "0,1,0,1,0,1,0,1,1,0;1,0,1,1,0,0,0,1,1,0;0,0,0,0,0,0,0,0,0,0;0,0,1,0,0,0,1,1,0,0;0,0,0,0,0,0,1,1,1,1;"
    "0,1,0,1,0,0,0,0,0,0;0,0,0,0,0,0,0,0,0,1;1,1,0,0,0,0,0,0,0,1;0,1,0,0,1,0,0,0,0,0;1,0,0,0,0,1,0,0,0,0",
    "0,11560,0,10520,0,11540,0,11160,11000,0;14819,0,12400,8340,0,0,0,10780,8120,0;0,0,0,0,0,0,0,0,0,0;"
    "0,0,8820,0,0,0,11140,7859,0,0;0,0,0,0,0,0,13119,11200,10480,12600;0,10480,0,11200,0,0,0,0,0,0;"
    "0,0,0,0,0,0,0,0,0,10200;8980,10780,0,0,0,0,0,0,0,9580;0,11740,0,0,11560,0,0,0,0,0;12500,0,0,0,0,10440,0,0,0,0",
    "0,47,0,39,0,73,0,55,78,0;80,0,51,20,0,0,0,29,67,0;0,0,0,0,0,0,0,0,0,0;0,0,79,0,0,0,80,64,0,0;"
    "0,0,0,0,0,0,80,73,68,80;0,20,0,80,0,0,0,0,0,0;0,0,0,0,0,0,0,0,0,28;43,47,0,0,0,0,0,0,0,40;"
    "0,39,0,0,25,0,0,0,0,0;27,0,0,0,0,50,0,0,0,0",
    "0,23,0,29,0,34,0,29,35,0;28,0,38,36,0,0,0,39,23,0;0,0,0,0,0,0,0,0,0,0;0,0,30,0,0,0,22,28,0,0;"
    "0,0,0,0,0,0,39,34,24,38;0,40,0,26,0,0,0,0,0,0;0,0,0,0,0,0,0,0,0,24;35,32,0,0,0,0,0,0,0,35;"
    "0,34,0,0,38,0,0,0,0,0;35,0,0,0,0,28,0,0,0,0",
    "-34,19,0,0,0,22,-35,0,28,0",
)


def netdes() -> pyo.ConcreteModel:
    """Build arcs at fixed costs and route the demands over those built, each arc's flow within
    its capacity if built and priced by its cost (min, MIP: binaries beside flow-conservation rows,
    a min-cost flow block with ``blocks="component"``)."""
    adjacency, fixed, variable, capacity = (
        np.array([row.split(",") for row in text.split(";")], dtype=float) for text in _NETDES[:4]
    )
    demand = np.array(_NETDES[4].split(","), dtype=float)
    edges = [(int(i), int(j)) for i, j in zip(*np.nonzero(adjacency), strict=True)]
    m = pyo.ConcreteModel()
    _cost_param(m, edges, {e: variable[e] for e in edges})
    m.x = pyo.Var(edges, domain=pyo.Binary)
    m.y = pyo.Var(edges, domain=pyo.NonNegativeReals)
    m.MinCost = pyo.Objective(expr=sum(fixed[e] * m.x[e] for e in edges) + sum(m.c[e] * m.y[e] for e in edges))
    m.vubs = pyo.Constraint(edges, rule=lambda m, i, j: m.y[i, j] - capacity[i, j] * m.x[i, j] <= 0)

    def balance(m: pyo.ConcreteModel, v: int) -> object:
        out = sum(m.y[e] for e in edges if e[0] == v)
        return out - sum(m.y[e] for e in edges if e[1] == v) == demand[v]

    m.bals = pyo.Constraint(range(len(demand)), rule=balance)
    return m


_SSLP = (  # mpi-sppy's sslp_5_25_50/scenariodata/Scenario1.dat: revenue (= demand) per client and server
    "0,22,18,14,22;15,11,20,8,14;4,22,10,0,25;14,23,23,5,22;8,23,14,5,11;18,5,2,23,6;6,8,22,3,15;"
    "14,21,6,16,14;21,6,1,8,3;16,14,13,12,22;8,20,15,15,12;11,4,9,15,11;2,19,13,2,9;15,20,17,0,16;"
    "6,1,21,23,1;11,21,2,15,17;17,17,3,13,3;15,5,14,19,7;10,8,0,8,14;22,24,23,14,15;14,13,8,2,23;"
    "21,12,10,12,17;2,10,13,10,9;20,21,9,20,21;23,18,2,9,23"
)


def sslp() -> pyo.ConcreteModel:
    """Open servers at fixed costs and allocate every present client to one, each server's
    allocated demand within its capacity once open, beyond it an overflow penalised per unit;
    each allocation's revenue is its cost (min, binary beside a penalised continuous overflow that
    no row bounds above)."""
    revenue = np.array([row.split(",") for row in _SSLP.split(";")], dtype=float)
    present = {1, 3, 11, 13, 15, 16, 17, 19, 20, 21, 22}
    fixed, capacity, penalty = [40.0, 60.0, 47.0, 68.0, 60.0], 188.0, 1000.0
    m = pyo.ConcreteModel()
    m.Servers, m.Clients = pyo.RangeSet(5), pyo.RangeSet(25)
    pairs = [(i, j) for i in m.Clients for j in m.Servers]
    _cost_param(m, pairs, {(i, j): revenue[i - 1, j - 1] for i, j in pairs})
    m.FacilityOpen = pyo.Var(m.Servers, within=pyo.Binary)
    m.Allocation = pyo.Var(m.Clients, m.Servers, within=pyo.Binary)
    m.Dummy = pyo.Var(m.Servers, within=pyo.NonNegativeReals)
    m.DemandConstraint = pyo.Constraint(
        m.Servers,
        rule=lambda m, j: (
            sum(revenue[i - 1, j - 1] * m.Allocation[i, j] for i in m.Clients) - m.Dummy[j]
            <= capacity * m.FacilityOpen[j]
        ),
    )
    m.ClientConstraint = pyo.Constraint(
        m.Clients, rule=lambda m, i: sum(m.Allocation[i, j] for j in m.Servers) == (1 if i in present else 0)
    )
    m.MaxRevenue = pyo.Objective(
        expr=sum(fixed[j - 1] * m.FacilityOpen[j] for j in m.Servers)
        + penalty * sum(m.Dummy[j] for j in m.Servers)
        - sum(m.c[i, j] * m.Allocation[i, j] for i, j in pairs)
    )
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
            expected = base * polynomial(features, B, deg)  # the noise is multiplicative with mean 1
            return Instances(model, features, expected * noise, expected=expected)

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
        ZooModel(
            "cutting_stock", cutting_stock, "Pyomo's cutting stock, every maximal pattern (MIP, counts unbounded)"
        ),
        ZooModel("lot_sizing_backlog", lot_sizing_backlog, "the Pyomo book's lot sizing with backlog (MIP)"),
        ZooModel("jobshop", jobshop, "Pyomo's GDP job shop with start times, big-M (MIP)"),
        ZooModel("sched", sched, "Pyomo's people-task-slot schedule (binary, assignment rows)"),
        ZooModel("netdes", netdes, "mpi-sppy's fixed-charge network design, one scenario (MIP)"),
        ZooModel("sslp", sslp, "mpi-sppy's server location, overflow penalised per unit, one scenario (MIP)"),
    )
}
