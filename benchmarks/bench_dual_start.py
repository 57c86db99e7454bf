"""Dual bounds on minimisations under Polyak's steps (``step="polyak"``; the default step rule,
``"auto"``, takes the master on these families and closes their dual): the shared solve (with the
primal repair's target) and the μ-form joint run from μ = 1 against ``mu0="symmetric"``. Median
bound / optimum (HiGHS) over 20 instances of shift scheduling (10 employees, a week of 3 shifts),
set covering (40 sets), facility location (5 sites, 10 customers: its blocks' copies never make a
feasible point) and the MKP (n = 100, m = 10, a maximisation, for contrast).

    python benchmarks/bench_dual_start.py --out benchmarks/results/dual_start.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

import ldopt
from ldopt.dual import DualSettings
from ldopt.problems import knapsack, set_cover, shift_scheduling
from ldopt.runtime.cache import write_text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=None, help="a JSON file for the rows")
    a = ap.parse_args()
    roster = shift_scheduling.gen_data(20, seed=3)
    cover = set_cover.gen_data(20, seed=3)
    mkp = knapsack.protocol_data(20, 100, dim=10, seed=3)
    facility = ldopt.problems.family("facility").instances(20, 10, deg=4, seed=3)  # 5 sites, 10 customers
    cases = {
        "shift scheduling": (
            shift_scheduling.build_model(roster.requirements, roster.most, roster.least),
            roster.costs,
        ),
        "set cover": (set_cover.build_model(cover.membership), cover.costs),
        "MKP": (knapsack.build_model(mkp.weights, mkp.capacities), mkp.costs),
        "facility location": (facility.model, facility.costs),
    }
    runs = [("shared", 1.0, 30), ("shared", 1.0, 300), ("joint", 1.0, 30), ("joint", "symmetric", 30)]
    runs += [("joint", 1.0, 100), ("joint", "symmetric", 100), ("joint", "symmetric", 300)]
    rows = []
    for name, (m, costs) in cases.items():
        p = ldopt.Problem.from_pyomo(m, m.c)
        opt = p.solve(costs, solver="highs").objective
        dec = ldopt.decompose(p)
        for mode, mu0, iterations in runs:
            r = dec.dual(costs, DualSettings(mu0=mu0, step="polyak"), mode=mode, iterations=iterations, progress=False)
            found = float(np.isfinite(r.primal_objective).mean())
            ratio = float(np.median(r.bound / opt))
            rows.append(dict(problem=name, mode=mode, mu0=mu0, iterations=iterations, ratio=ratio, feasible=found))
            print(
                f"{name:17s} {mode:6s} mu0={mu0!s:9s} {iterations:3d} steps: median bound/optimum "
                f"{ratio:8.3f}, a feasible point for {found:.0%}"
            )
    if a.out is not None:
        write_text(a.out, json.dumps(dict(instances=20, rows=rows), indent=1))


if __name__ == "__main__":
    main()
