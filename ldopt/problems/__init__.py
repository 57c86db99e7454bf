"""Problem builders and data generators: the paper's benchmarks, PyEPO's shortest path, facility
location, shift scheduling, set covering and lot sizing, each module registering its
[`Family`][ldopt.problems.family.Family] (``ldopt.problems.FAMILIES``, `family.family()`); and
PyEPO's TSP (`tsp`), with Held and Karp's decomposition and its 1-tree oracle (`tsp_oracle`)
and exact tours (`tsp_tours`); and the CaVE paper's CVRP (`cvrp`), with a relaxation oracle for
its routes (`cvrp_oracle`) and exact routes (`cvrp_routes`, `cvrp_exact`)."""

from ldopt.problems import (
    cvrp,
    cvrp_exact,
    cvrp_oracle,
    cvrp_routes,
    facility,
    knapsack,
    lot_sizing,
    portfolio,
    set_cover,
    shift_scheduling,
    shortest_path,
    tsp,
    tsp_oracle,
    tsp_tours,
)
from ldopt.problems.family import FAMILIES, Family, Instances, family, register

__all__ = [
    "FAMILIES",
    "Family",
    "Instances",
    "cvrp",
    "cvrp_exact",
    "cvrp_oracle",
    "cvrp_routes",
    "facility",
    "family",
    "knapsack",
    "lot_sizing",
    "portfolio",
    "register",
    "set_cover",
    "shift_scheduling",
    "shortest_path",
    "tsp",
    "tsp_oracle",
    "tsp_tours",
]
