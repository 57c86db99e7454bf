"""LAVA's margin ε against test regret on the MKP (n = 100), on an epoch budget.

``lt.LAVALoss(problem, epsilon, margin)``: the margin is ``epsilon`` times the batch's mean true
cost magnitude (``relative``, the default) or ``epsilon`` itself (``absolute``). The paper's MKP
protocol (200 training, 100 validation instances; ``--test`` test instances), a linear model,
Adam at 1e-2, at most ``--epochs`` epochs validated every ``--eval-every`` with ``--patience``,
HiGHS. Prints a line per setting (the mean test regret over the seeds, then each seed's) and
writes every run, with the costs' mean magnitude, to ``--out`` (JSON).

    python benchmarks/bench_lava_margin.py --out benchmarks/results/lava_margin.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Literal

import numpy as np

import ldopt_torch as lt
from ldopt.evaluate.regret import optima
from ldopt.runtime.cache import write_text
from ldopt_experiments.arguments import integer_at_least
from ldopt_experiments.protocol import knapsack_setup
from ldopt_experiments.runner import linear_run

ABSOLUTE = (0.01, 0.1, 1.0, 3.0, 10.0, 30.0)
RELATIVE = (0.5, 1.0, 2.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--test", type=integer_at_least(1), default=300)
    ap.add_argument("--epochs", type=integer_at_least(1), default=500)
    ap.add_argument("--eval-every", type=integer_at_least(1), default=5)
    ap.add_argument("--patience", type=integer_at_least(1), default=4)
    ap.add_argument("--seeds", nargs="+", type=integer_at_least(0), default=[0, 1, 2])
    ap.add_argument("--out", type=Path, default=None, help="a JSON file for the runs")
    a = ap.parse_args()
    s = knapsack_setup(100, train=200, val=100, test=a.test)
    data = lt.OptDataset(s.problem, *s.train, solver="highs", structure=True)
    val = lt.Validator(s.problem, *s.val, solver="highs")
    test_opt = optima(s.problem, s.test[1], "highs")
    margins: list[tuple[Literal["absolute", "relative"], float]] = [
        *(("absolute", e) for e in ABSOLUTE),
        *(("relative", e) for e in RELATIVE),
    ]
    runs = []
    schedule = lt.Schedule(patience=a.patience, eval_every=a.eval_every)
    for margin, epsilon in margins:
        tests = []
        for seed in a.seeds:
            out, test = linear_run(
                s, data, lt.LAVALoss(s.problem, epsilon, margin), "static", seed, val, schedule, test_opt, a.epochs
            )
            tests.append(test)
            runs.append(dict(margin=margin, epsilon=epsilon, seed=seed, test_regret=test, best_epoch=out.best_epoch))
        each = " ".join(f"{t:.2f}" for t in tests)
        print(f"{margin} ε = {epsilon:g}: test regret {np.mean(tests):.2f}% ({each})", flush=True)
    if a.out is not None:
        found = dict(
            cost_magnitude=float(np.abs(s.train[1]).mean()), test=a.test, epochs=a.epochs, eval_every=a.eval_every,
            patience=a.patience, seeds=a.seeds, runs=runs,
        )  # fmt: skip
        write_text(a.out, json.dumps(found, indent=1))


if __name__ == "__main__":
    main()
