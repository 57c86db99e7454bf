"""Problem builders and data generators: the paper's benchmarks and PyEPO's shortest path, facility location."""

from . import facility, knapsack, portfolio, shortest_path

__all__ = ["facility", "knapsack", "portfolio", "shortest_path"]
