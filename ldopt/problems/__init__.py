"""Problem builders and data generators of the paper's benchmarks."""

from . import knapsack, portfolio

__all__ = ["knapsack", "portfolio"]
