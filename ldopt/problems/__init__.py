"""Problem builders and data generators: the paper's benchmarks, PyEPO's shortest path, facility
location, shift scheduling, set covering and lot sizing, each module registering its
[`Family`][ldopt.problems.family.Family] (``ldopt.problems.FAMILIES``, `family.family()`); and
PyEPO's TSP (`tsp`), with Held and Karp's decomposition and its 1-tree oracle (`tsp_oracle`)
and exact tours (`tsp_tours`)."""

from . import (
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
from .family import FAMILIES, Family, Instances, family, register

__all__ = [
    "FAMILIES",
    "Family",
    "Instances",
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
