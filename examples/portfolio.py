"""The quadratic portfolio of the paper: MSE, SPO+ and IMLE on the full problem, LD(IMLE, static,
L2) and LD(Exact, static, L2) on the risk block, under the same training-time budget.

Protocol (DESIGN.md): PyEPO data with 5 features, n = 50 assets, degree 8, noise level 1, γ = 2.25;
100 training / 25 validation instances; 1000 test instances (the paper uses 10000: pass
``--test 10000``). The full problem is a QCP solved by CVXPY/Clarabel; the risk block by its exact
oracle (training) and its closed form (``exact``). Results go to ``results/portfolio``.

    python examples/portfolio.py [--budget 30] [--seeds 0 1 2]
"""

from __future__ import annotations

import argparse

from ldopt_torch import experiment


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--assets", type=int, default=50)
    ap.add_argument("--budget", type=float, default=30.0, help="training seconds per method")
    ap.add_argument("--test", type=int, default=1000)
    ap.add_argument("--solver", default="cvxpy")
    ap.add_argument("--seeds", nargs="+", type=int, default=[0])
    ap.add_argument("--workers", type=int, default=None, help="threads (default: every core)")
    ap.add_argument("--out", default="results/portfolio")
    a = ap.parse_args()
    setup = experiment.portfolio_setup(a.assets, test=a.test)
    experiment.example(setup, ["mse", "spo+", "imle", "ld:imle:static:L2", "ld:exact:static:L2"], a)


if __name__ == "__main__":
    main()
