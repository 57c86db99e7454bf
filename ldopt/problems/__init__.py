"""Problem builders and data generators: the paper's benchmarks, PyEPO's shortest path, and facility
location, shift scheduling, set covering and lot sizing."""

from . import facility, knapsack, lot_sizing, portfolio, set_cover, shift_scheduling, shortest_path

__all__ = ["facility", "knapsack", "lot_sizing", "portfolio", "set_cover", "shift_scheduling", "shortest_path"]
