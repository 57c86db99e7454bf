"""Multipliers at the cost of an LP solve: PyEPO's MPAX knapsack (10,000 items × 50 rows).

Times, in one process and on the same instances: one warm HiGHS solve of the LP relaxation per
instance (the baseline: one session, each solve warm from the last, the fastest way), the training
set's multipliers with the defaults (``LDDataset(dec, F, C)``: ``mu0="auto"`` starts from the LP's
duals on these 10,000-wide rows and prices them once — the LP solve from ldopt's one start basis,
the split, one evaluation of the 50 blocks' bounds and the primal heuristic), and the previous
default (30 joint Polyak steps from the symmetric start). Prints each one's seconds per instance,
its ratio to the LP solve, and its bound and primal value against the LP's optimum;
saves ``benchmarks/results/pyepo_knapsack/lp_multipliers.json``.

    python benchmarks/bench_lp_multipliers.py                 # 64 instances, about 1 minute
    python benchmarks/bench_lp_multipliers.py --instances 200 --default 16
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from pyepo.data.knapsack import genData
from sklearn.model_selection import train_test_split

import ldopt
import ldopt_torch as lt
from ldopt.evaluate.lp_relaxation import relaxed_problem, solve_relaxation
from ldopt.problems import knapsack
from ldopt.solvers.base import SolverOptions
from ldopt.solvers.highs import HighsSession

OUT = Path(__file__).parent / "results" / "pyepo_knapsack" / "lp_multipliers.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--instances", type=int, default=64)
    ap.add_argument("--default", type=int, default=8, help="instances for the old default (30 joint steps)")
    a = ap.parse_args()
    weights, x, c = genData(2000, 5, 10000, dim=50, deg=4, noise_width=0.5, seed=42)
    _, _, c_train, _ = train_test_split(x, c, test_size=1000, random_state=42)
    C = c_train[: a.instances].astype(float)
    F = x[: a.instances]
    model = knapsack.build_model(weights, np.full(50, 500.0))
    p = ldopt.Problem.from_pyomo(model, model.c)
    dec = ldopt.decompose(p)
    lt.LDDataset(dec, F[:2], C[:2], progress=False)  # compile, warm up
    relaxed = HighsSession(relaxed_problem(p).compiled, SolverOptions())
    relaxed.solve(C[0], C[0])  # the baseline: one thread, warm from instance to instance (the fastest)
    t = time.perf_counter()
    for q in C:
        relaxed.solve(q, q)
    lp_s = (time.perf_counter() - t) / len(C)
    lp = solve_relaxation(p, C)  # the LP's optima to compare the bounds with
    rows = {}
    for name, dual, count in [
        ("the defaults (mu0='auto': the LP start, 1 joint evaluation)", lt.DEFAULTS.dual, len(C)),
        ("old default (30 joint steps, symmetric start)", lt.DEFAULTS.dual.merged(mu0="symmetric"), a.default),
    ]:
        t = time.perf_counter()
        data = lt.LDDataset(dec, F[:count], C[:count], dual, progress=False)
        per = (time.perf_counter() - t) / count
        r = data.result
        rows[name] = dict(
            seconds_per_instance=per,
            ratio_to_lp=per / lp_s,
            bound_over_lp=float(np.mean(r.bound / lp.value[:count])),
            primal_under_lp=float(np.mean(1 - r.primal_objective / lp.value[:count])),
            instances=count,
        )
    print(f"one warm HiGHS LP solve: {lp_s:.3f} s per instance (one thread)")
    print("| multipliers | s / instance | × LP solve | bound / LP | primal below LP |")
    print("|---|---|---|---|---|")
    for name, row in rows.items():
        print(
            f"| {name} | {row['seconds_per_instance']:.3f} | {row['ratio_to_lp']:.2f}× | "
            f"{row['bound_over_lp']:.4f} | {100 * row['primal_under_lp']:.2f}% |"
        )
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(dict(lp_seconds_per_instance=lp_s, rows=rows, args=vars(a)), indent=1))


if __name__ == "__main__":
    main()
