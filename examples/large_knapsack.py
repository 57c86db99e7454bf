"""Decision-focused learning at ten times the paper's size: the MKP with n = 1000 items and m = 30 rows.

200 training, 50 validation and 200 test instances (the paper's protocol otherwise). Every method
gets the same training budget (seconds; a budget figure, so its numbers depend on the machine's
load): MSE, SPO+ on the full problem (as many epochs as fit the budget, reported), LD(SPO+,
multiple, L1) and LD(IMLE, multiple, L2). Nothing here is solved to optimality that need not be:

* full-problem solves (true optima, validation and test decisions, full SPO+'s training solves)
  stop after ``--time-limit`` seconds with their incumbent and bound; validation starts every
  instance from its previous decision;
* the test optima's bounds are tightened by an LD dual bound, so the test regret is reported with
  a certified upper end — ``2.31% (≤ 2.36%)``;
* the LD training sets come from one dual solve with the knapsack-row oracle (expanding core).

Prints a Table-1-style table and the seconds of every stage; saves them with a plot of the stages
to ``--out`` (``stages.png``).

    python examples/large_knapsack.py                 # about 25 minutes on 2 cores
    python examples/large_knapsack.py --budget 30     # quicker
    python examples/large_knapsack.py --resume        # after a stop: trains only the methods not saved
    python examples/large_knapsack.py --items 5000 --rows 50 --methods ld:spo+:multiple:L1 \
        --time-limit 5 --budget 600 --certify-iterations 0   # n = 5000, m = 50: about an hour
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from ldopt.runtime.cache import write_text
from ldopt_experiments import RunOptions, knapsack_setup, load_rows, protocol_dual
from ldopt_experiments.arguments import add_resume, integer_at_least, positive_number
from ldopt_experiments.cli import example
from ldopt_experiments.plots import plot_stages

METHODS = ["mse", "spo+", "ld:spo+:multiple:L1", "ld:imle:multiple:L2"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--items", type=integer_at_least(1), default=1000)
    ap.add_argument("--rows", type=integer_at_least(1), default=30)
    ap.add_argument("--train", type=integer_at_least(1), default=200)
    ap.add_argument("--val", type=integer_at_least(1), default=50)
    ap.add_argument("--test", type=integer_at_least(1), default=200)
    ap.add_argument("--budget", type=positive_number, default=120.0, help="training seconds per method")
    ap.add_argument("--time-limit", type=positive_number, default=1.0, help="seconds per full-problem solve")
    ap.add_argument("--dual", default="joint", choices=["shared", "independent", "joint"])
    ap.add_argument(
        "--iterations", type=integer_at_least(1), default=30, help="subgradient iterations of the multipliers"
    )
    ap.add_argument(
        "--certify-iterations",
        type=integer_at_least(0),
        default=100,
        help="dual iterations of the LD bound that tightens the test optima's bounds (0: the solver's bound alone)",
    )
    ap.add_argument("--solver", default="auto", help="full-problem solver (auto: Gurobi where licensed, else HiGHS)")
    ap.add_argument("--seeds", nargs="+", type=integer_at_least(0), default=[0])
    ap.add_argument("--workers", type=integer_at_least(1), default=None, help="threads (default: every core)")
    ap.add_argument("--methods", nargs="+", default=METHODS)
    ap.add_argument("--out", default="results/large_knapsack")
    add_resume(ap)
    a = ap.parse_args()
    t0 = time.perf_counter()
    setup = knapsack_setup(a.items, dim=a.rows, train=a.train, val=a.val, test=a.test)
    data_s = time.perf_counter() - t0
    example(
        setup,
        a.methods,
        a,
        RunOptions(
            evaluations=8,
            dual=protocol_dual(a.dual, iterations=a.iterations),
            time_limit=a.time_limit,
            certify=a.certify_iterations > 0,
            certify_iterations=max(1, a.certify_iterations),
            curve_instances=0,
            resume=a.resume,
        ),
    )
    meta = json.loads((Path(a.out) / "meta.json").read_text())
    stages = [("data, model, decomposition", data_s)] + [(s["stage"], s["seconds"]) for s in meta["stages"]]
    total = time.perf_counter() - t0
    print("\nseconds per stage:")
    for name, sec in stages:
        print(f"  {name:45s} {sec:8.1f}")
    print(f"  {'total (with tables and plots)':45s} {total:8.1f}")
    meta.update(data_s=data_s, total_s=total)
    write_text(Path(a.out) / "meta.json", json.dumps(meta, indent=1, default=str))
    plot_stages(
        stages, Path(a.out) / "stages.png", title=f"MKP n={a.items}, m={a.rows}: {a.train}/{a.val}/{a.test} instances"
    )
    for r in load_rows(Path(a.out) / "results.csv"):
        print(
            f"{r['label']:26s} seed {int(r['seed'])}: {r['test_regret']:.3f}% (≤ {r['test_upper']:.3f}%), "
            f"{int(r['epochs'])} epochs, {int(r['proven'])}/{int(r['test_instances'])} test optima proven"
        )


if __name__ == "__main__":
    main()
