"""Problem builders and data generators: the paper's benchmarks, PyEPO's shortest path, and facility
location, shift scheduling, set covering and lot sizing; each module registers its
[`Family`][ldopt.problems.family.Family] (``ldopt.problems.FAMILIES``, `family.family()`)."""

from . import facility, knapsack, lot_sizing, portfolio, set_cover, shift_scheduling, shortest_path
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
]
