"""The quadratic portfolio of the paper: MSE, SPO+ and IMLE on the full problem, and LD(SPO+,
static, L1), LD(IMLE, static, L2) and LD(Exact, static, L2) on the risk block.

Protocol (DESIGN.md): PyEPO data with 5 features, n = 50 assets, degree 8, noise level 1, γ = 2.25;
100 training / 25 validation instances; 1000 test instances (the paper uses 10000: pass
``--test 10000``). The full problem is a QCP solved by CVXPY/Clarabel; the risk block by its exact
oracle (training) and its closed form (``exact``). Every method trains at most ``--epochs``
epochs, validated every 5, and stops after 4 validations without improvement, so the same seed
gives the same numbers on any machine load; ``--budget S`` trains S seconds each instead (a
load-dependent budget figure). Results go to ``results/portfolio``.

    python examples/portfolio.py [--seeds 0 1 2] [--budget 30]
"""

from __future__ import annotations

import argparse

import ldopt_experiments as experiment
from ldopt_experiments.arguments import integer_at_least, positive_number


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--assets", type=integer_at_least(1), default=50)
    ap.add_argument("--epochs", type=integer_at_least(1), default=500, help="at most this many epochs per method")
    ap.add_argument(
        "--budget", type=positive_number, default=None, help="training seconds per method instead of epochs"
    )
    ap.add_argument("--test", type=integer_at_least(1), default=1000)
    ap.add_argument("--solver", default="cvxpy")
    ap.add_argument("--seeds", nargs="+", type=integer_at_least(0), default=[0])
    ap.add_argument("--workers", type=integer_at_least(1), default=None, help="threads (default: every core)")
    ap.add_argument("--out", default="results/portfolio")
    a = ap.parse_args()
    setup = experiment.portfolio_setup(a.assets, test=a.test)
    methods = ["mse", "spo+", "imle", "ld:spo+:static:L1", "ld:imle:static:L2", "ld:exact:static:L2"]
    schedule = {} if a.budget else dict(eval_every=5, patience=4)
    experiment.example(setup, methods, a, experiment.RunOptions(curve_instances=0, **schedule))


if __name__ == "__main__":
    main()
