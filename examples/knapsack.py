"""The main job: decision-focused learning on the multi-dimensional knapsack, on HiGHS.

Generates an MKP set by the paper's protocol (n = 100 items, m = 10 knapsack rows, degree-8
misspecified costs; 200 training, 50 validation and 200 test instances), trains a linear model with
MSE (two-stage), SPO+ on the full problem (PyEPO's loss over our adapter, one HiGHS solve per
instance per step), LD(SPO+, multiple, L1) and LD(IMLE, multiple, L2), each for at most 300 epochs
validated every 5, stopping after 4 validations without a better regret (the protocol's rule of
``ldopt experiment``, at a lower cap), and prints a
Table-1-style table: test relative regret, the best and the last epoch — the same numbers on any
machine and load — then the times, which are this machine's. Compilation (numba's, on a first
run) happens before training, outside the times. Results, training histories, the tables and a
plot go to ``results/knapsack``.

The LD multipliers are one joint μ-form run of 30 Polyak steps that serves every decomposition
(README, "Which multipliers to train on"), from the paper's ``μ = 1``: the protocol pins the
paper's settings (``lt.PAPER``: no MSE warm start either), so the table reproduces.

    python examples/knapsack.py               # about 10 minutes on 2 cores, most of it full SPO+
    python examples/knapsack.py --epochs 10   # quicker
    python examples/knapsack.py --budget 20   # 20 s of training per method instead (load-dependent)
"""

from __future__ import annotations

import argparse

import ldopt_experiments as experiment
from ldopt_experiments.arguments import integer_at_least, positive_number


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--items", type=integer_at_least(1), default=100)
    ap.add_argument("--epochs", type=integer_at_least(1), default=300, help="epochs per method at most; default 300")
    ap.add_argument("--eval-every", type=integer_at_least(1), default=5, help="validate every this many epochs")
    ap.add_argument("--patience", type=integer_at_least(1), default=4, help="validations without a better regret")
    ap.add_argument(
        "--budget", type=positive_number, default=None, help="seconds of training per method instead of epochs"
    )
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
        experiment.RunOptions(patience=a.patience, eval_every=a.eval_every, curve_instances=0),
    )


if __name__ == "__main__":
    main()
