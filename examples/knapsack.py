"""The main job: decision-focused learning on the multi-dimensional knapsack, on HiGHS.

Generates an MKP set by the paper's protocol (n = 100 items, m = 10 knapsack rows, degree-8
misspecified costs; 200 training, 50 validation and 200 test instances), trains a linear model with
MSE (two-stage), SPO+ on the full problem (PyEPO's loss over our adapter, one HiGHS solve per
instance per step), LD(SPO+, multiple, L1) and LD(IMLE, multiple, L2) under the same training-time
budget, and prints a Table-1-style table: test relative regret, time to the best validation model,
epochs per second. Results, training histories, the table and a plot go to ``results/knapsack``.

The LD multipliers are ``LDDataset``'s default: one joint μ-form run of 30 Polyak steps that
serves every decomposition (README, "Which multipliers to train on").

    python examples/knapsack.py              # about five minutes on 2 cores
    python examples/knapsack.py --budget 20  # quicker
"""

from __future__ import annotations

import argparse

from ldopt_experiments.cli import integer_at_least, positive_number
from ldopt_torch import experiment


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--items", type=integer_at_least(1), default=100)
    ap.add_argument("--budget", type=positive_number, default=30.0, help="training seconds per method")
    ap.add_argument("--solver", default="highs")
    ap.add_argument("--seeds", nargs="+", type=integer_at_least(0), default=[0])
    ap.add_argument("--workers", type=integer_at_least(1), default=None, help="threads (default: every core)")
    ap.add_argument("--out", default="results/knapsack")
    a = ap.parse_args()
    setup = experiment.knapsack_setup(a.items, train=200, val=50, test=200)
    experiment.example(
        setup,
        ["mse", "spo+", "ld:spo+:multiple:L1", "ld:imle:multiple:L2"],
        a,
    )


if __name__ == "__main__":
    main()
