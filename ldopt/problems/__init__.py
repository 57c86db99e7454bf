"""Problem builders and data generators: the paper's benchmarks, PyEPO's shortest path, and facility
location, shift scheduling and set covering."""

from . import facility, knapsack, portfolio, set_cover, shift_scheduling, shortest_path

__all__ = ["facility", "knapsack", "portfolio", "set_cover", "shift_scheduling", "shortest_path"]
