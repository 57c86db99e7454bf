"""Table 1 of Eilles-Chan Way, Percot, Cappart, Guns and Rousseau, "Scaling Decision-Focused Learning
to Large Problems with Lagrangian Decomposition" (IJCAI 2026), budget ∞: test relative regret % and
the time in seconds to the best validation model, on one core with Gurobi; 10 seeds per cell."""

from __future__ import annotations

# (test regret %, time to best s) per (problem, size) and method
PAPER: dict[tuple[str, int], dict[str, tuple[float, float]]] = {
    ("knapsack", 100): {
        "mse": (7.796, 270),
        "cave": (3.680, 68),
        "cave+": (3.686, 1177),
        "lava": (4.509, 4346),
        "spo+": (3.049, 4692),
        "ld:spo+:static:L1": (2.887, 41),
        "ld:spo+:multiple:L1": (2.621, 8),
        "imle": (4.234, 5836),
        "ld:imle:static:L1": (3.401, 3715),
        "ld:imle:static:L2": (3.809, 5339),
        "ld:imle:multiple:L1": (2.807, 4813),
        "ld:imle:multiple:L2": (2.376, 5293),
    },
    ("knapsack", 200): {
        "mse": (5.518, 383),
        "cave": (3.617, 107),
        "cave+": (3.553, 874),
        "lava": (4.552, 6198),
        "spo+": (2.975, 4350),
        "ld:spo+:static:L1": (2.562, 42),
        "ld:spo+:multiple:L1": (2.496, 1825),
        "imle": (3.285, 6489),
        "ld:imle:static:L1": (3.309, 1087),
        "ld:imle:static:L2": (3.438, 1148),
        "ld:imle:multiple:L1": (2.801, 610),
        "ld:imle:multiple:L2": (2.189, 5905),
    },
    ("knapsack", 300): {
        "mse": (6.774, 387),
        "cave": (3.466, 182),
        "cave+": (3.265, 217),
        "lava": (4.558, 5878),
        "spo+": (3.072, 1904),
        "ld:spo+:static:L1": (2.628, 107),
        "ld:spo+:multiple:L1": (2.179, 2485),
        "imle": (3.933, 5988),
        "ld:imle:static:L1": (3.329, 4504),
        "ld:imle:static:L2": (3.712, 64),
        "ld:imle:multiple:L1": (2.382, 6049),
        "ld:imle:multiple:L2": (2.235, 6401),
    },
    ("portfolio", 50): {
        "mse": (2.325, 12),
        "spo+": (2.095, 58),
        "ld:spo+:static:L1": (2.122, 101),
        "imle": (2.064, 1450),
        "ld:imle:static:L1": (2.285, 67),
        "ld:imle:static:L2": (2.026, 282),
        "ld:exact:static:L1": (2.159, 712),
        "ld:exact:static:L2": (2.040, 14),
    },
    ("portfolio", 200): {
        "mse": (2.070, 993),
        "spo+": (2.092, 4408),
        "ld:spo+:static:L1": (14.833, 6685),
        "imle": (2.032, 5586),
        "ld:imle:static:L1": (11.028, 6339),
        "ld:imle:static:L2": (2.101, 6465),
        "ld:exact:static:L1": (2.075, 69),
        "ld:exact:static:L2": (1.969, 1309),
    },
    ("portfolio", 400): {
        "mse": (2.324, 4648),
        "spo+": (2.087, 10277),
        "ld:spo+:static:L1": (16.84, 11698),
        "imle": (2.026, 11327),
        "ld:imle:static:L1": (12.31, 11469),
        "ld:imle:static:L2": (2.114, 11640),
        "ld:exact:static:L1": (2.360, 1975),
        "ld:exact:static:L2": (1.992, 3614),
    },
}


def paper(problem: str, size: int, method: str) -> tuple[float | None, float | None]:
    """The paper's (regret %, time to best s) for a method, or ``(None, None)``; an LD variant
    (``:scaled``, ``:unit``, ``:lam<λ>``: further parts) is compared with its plain row.

    Parameters
    ----------
    problem
        ``"knapsack"`` or ``"portfolio"``.
    size
        Items or assets.
    method
        A method name (see [`parse_method()`][ldopt_experiments.methods.parse_method]).
    """
    return PAPER.get((problem, int(size)), {}).get(":".join(method.split(":")[:4]), (None, None))
