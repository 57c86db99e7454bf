"""Two of the zoo's models from the AMPL book (Fourer, Gay and Kernighan, *AMPL: A Modeling
Language for Mathematical Programming*, 2nd ed.), as distributed with Pyomo's examples
(``examples/pyomo/amplbook2``, BSD 3-clause licence, © National Technology and Engineering
Solutions of Sandia, LLC), written in Pyomo from their ``.mod`` and ``.dat`` files:

* ``multi_commodity`` — ``multi.mod``/``multi.dat``: three steel products shipped from three
  mills to seven plants, supplies and demands met exactly, a joint limit on every route (LP);
* ``fixed_charge`` — ``multmip3.mod``/``multmip3.dat``: the same with a fixed cost for every route
  used, a minimum load on a used route and at most five plants served per mill (MIP).

Only the costs change: they become the mutable Param ``c`` (shipping costs, then route costs).
"""

from __future__ import annotations

import pyomo.environ as pyo

ORIG = ["GARY", "CLEV", "PITT"]
DEST = ["FRA", "DET", "LAN", "WIN", "STL", "FRE", "LAF"]
PROD = ["bands", "coils", "plate"]
SUPPLY = {"bands": (400, 700, 800), "coils": (800, 1600, 1800), "plate": (200, 300, 300)}
DEMAND = {
    "bands": (300, 300, 100, 75, 650, 225, 250),
    "coils": (500, 750, 400, 250, 950, 850, 500),
    "plate": (100, 100, 0, 50, 200, 100, 250),
}
LIMIT = 625
COST = {  # [product][origin] -> one cost per destination
    "bands": ((30, 10, 8, 10, 11, 71, 6), (22, 7, 10, 7, 21, 82, 13), (19, 11, 12, 10, 25, 83, 15)),
    "coils": ((39, 14, 11, 14, 16, 82, 8), (27, 9, 12, 9, 26, 95, 17), (24, 14, 17, 13, 28, 99, 20)),
    "plate": ((41, 15, 12, 16, 17, 86, 8), (29, 9, 13, 9, 28, 99, 18), (26, 14, 17, 13, 31, 104, 20)),
}
FIXED = ((3000, 1200, 1200, 1200, 2500, 3500, 2500), (2000, 1000, 1500, 1200, 2500, 3000, 2200),
         (2000, 1200, 1500, 1500, 2500, 3500, 2200))  # fmt: skip
MINLOAD, MAXSERVE = 375, 5


def _shipments(m: pyo.ConcreteModel, costs: dict) -> None:
    """``Trans`` with its supply and demand rows, the costs ``c`` over ``costs``' keys."""
    m.c = pyo.Param(list(costs), mutable=True, initialize=costs)
    m.Trans = pyo.Var(ORIG, DEST, PROD, within=pyo.NonNegativeReals)
    m.Supply = pyo.Constraint(
        ORIG, PROD, rule=lambda m, i, p: sum(m.Trans[i, j, p] for j in DEST) == SUPPLY[p][ORIG.index(i)]
    )
    m.Demand = pyo.Constraint(
        DEST, PROD, rule=lambda m, j, p: sum(m.Trans[i, j, p] for i in ORIG) == DEMAND[p][DEST.index(j)]
    )


def _shipping_costs() -> dict:
    return {(i, j, p): COST[p][a][b] for a, i in enumerate(ORIG) for b, j in enumerate(DEST) for p in PROD}


def multi_commodity() -> pyo.ConcreteModel:
    """The AMPL book's ``multi``: the cheapest shipments of three products under route limits (min, LP)."""
    m = pyo.ConcreteModel()
    _shipments(m, _shipping_costs())
    m.Total_Cost = pyo.Objective(expr=sum(m.c[k] * m.Trans[k] for k in m.Trans))
    m.Multi = pyo.Constraint(ORIG, DEST, rule=lambda m, i, j: sum(m.Trans[i, j, p] for p in PROD) <= LIMIT)
    return m


def fixed_charge() -> pyo.ConcreteModel:
    """The AMPL book's ``multmip3``: shipments plus a fixed cost per route used, a minimum load and
    at most five plants per mill (min, MIP); the costs ``c`` are the shipping and the route costs."""
    costs = _shipping_costs()
    costs.update({(i, j, "route"): FIXED[a][b] for a, i in enumerate(ORIG) for b, j in enumerate(DEST)})
    m = pyo.ConcreteModel()
    _shipments(m, costs)
    m.Use = pyo.Var(ORIG, DEST, within=pyo.Binary)
    m.Total_Cost = pyo.Objective(
        expr=sum(m.c[k] * m.Trans[k] for k in m.Trans)
        + sum(m.c[i, j, "route"] * m.Use[i, j] for i in ORIG for j in DEST)
    )
    m.Max_Serve = pyo.Constraint(ORIG, rule=lambda m, i: sum(m.Use[i, j] for j in DEST) <= MAXSERVE)
    m.Multi = pyo.Constraint(
        ORIG, DEST, rule=lambda m, i, j: sum(m.Trans[i, j, p] for p in PROD) <= LIMIT * m.Use[i, j]
    )
    m.Min_Ship = pyo.Constraint(
        ORIG, DEST, rule=lambda m, i, j: sum(m.Trans[i, j, p] for p in PROD) >= MINLOAD * m.Use[i, j]
    )
    return m
