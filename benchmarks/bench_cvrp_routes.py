"""Exact CVRP routes with today's rules against a baseline, in one process.

Today's rules: the capacity cuts of every union of components, rounds of fractional cuts on the LP
relaxation (HiGHS: before its first MILP; Gurobi: once an instance has taken ``_CUTS_AFTER``
seconds), the enumeration of tight packings, and PyVRP's routes as a start once an instance has
taken ``_START_AFTER`` seconds. ``--against previous`` (the default) is the previous rule: a cut for
each violating component alone, nothing else; ``--against no-start`` is today's rules without
PyVRP's start; ``--against no-root-cuts`` without the LP relaxation's cuts on Gurobi;
``--against cut-loop`` is today's cut loop, and the new side VRPSolver's branch, cut and price
(``solver="vrpsolver"``, ``routes()``'s default where the ``routing`` extra installs it);
``--against vrpsolver-previous`` is VRPSolver as it was before 2026-12-01 (VRPSolverEasy's default
parameters; an instance whose routes serve a customer alone left to the cut loop), and the new
side VRPSolver today (rank-1 cuts of at most 3 rows, ``cvrp_vrpsolver._CONFIG``; such an instance
given to the cut loop for ``cvrp_routes._CUT_FIRST`` seconds, then solved again by VRPSolver with
those customers kept from routes of their own, ``cvrp_routes._ALONE``); ``--against
resolve-first`` is today's without the cut loop's seconds first (``_CUT_FIRST = 0``: VRPSolver
solves such an instance again at once).

CaVE's CVRP (capacity 30, ``np.random.rand(nodes - 1) * 10`` demands of seed ``s``; CVRP20: 21
nodes and 5 vehicles, CVRP30: 31 nodes and 8) on the first instances of PyEPO's costs for seed
``s``; each solver (Gurobi where licensed, HiGHS) solves the same instances both ways, one thread,
one instance at a time. Prints the seconds per instance (today's include its one check of the
packings per demand vector, about 0.3 s), the ratio, and that the optimal values agree; saves
``benchmarks/results/cvrp_routes.json`` (with each instance's seconds).

    python benchmarks/bench_cvrp_routes.py                        # seeds 42-46, 40 + 2 instances
    python benchmarks/bench_cvrp_routes.py --seeds 44 49 --gurobi 100 --highs 10
    python benchmarks/bench_cvrp_routes.py --seeds 47 --gurobi 4 --highs 0 --limit 60 --out seed47.json
    python benchmarks/bench_cvrp_routes.py --against no-start --nodes 31 --vehicles 8 --seeds 42 43 \\
        --gurobi 24 --highs 0 --out benchmarks/results/cvrp30_routes_start.json
    python benchmarks/bench_cvrp_routes.py --against cut-loop --nodes 31 --vehicles 8 --seeds 43 47 \\
        --gurobi 10 --highs 0 --out benchmarks/results/cvrp30_routes_vrpsolver.json
    python benchmarks/bench_cvrp_routes.py --against vrpsolver-previous --nodes 31 --vehicles 8 \\
        --seeds 43 44 47 48 --gurobi 10 --highs 0 --out benchmarks/results/cvrp30_routes_vrpsolver_config.json
    python benchmarks/bench_cvrp_routes.py --against resolve-first --nodes 31 --vehicles 8 \\
        --seeds 44 48 50 --gurobi 10 --highs 0 --out benchmarks/results/cvrp30_routes_cut_first.json

``--limit`` caps the baseline's seconds per instance; an instance it leaves unsolved counts
the limit, so its ratio is then a lower bound (the third line: seed 47, whose demands three
vehicles carry only just; its run is ``benchmarks/results/cvrp_routes_seed47.json``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Literal, get_args

import numpy as np

from ldopt.errors import SolverError
from ldopt.problems import cvrp, cvrp_packings, cvrp_routes, cvrp_vrpsolver, tsp
from ldopt.runtime import cache
from ldopt.solvers.registry import backend

OUT = Path(__file__).parent / "results" / "cvrp_routes.json"


Rules = Literal["today", "previous", "no-start", "no-root-cuts", "cut-loop", "vrpsolver-previous", "resolve-first"]
TODAY = (
    cvrp_routes._UNIONS, cvrp_routes._ROOT_ROUNDS, cvrp_packings._MOST, cvrp_routes._START_AFTER,
    cvrp_routes._CUTS_AFTER, cvrp_vrpsolver._CONFIG, cvrp_routes._ALONE, cvrp_routes._CUT_FIRST,
)  # fmt: skip


def use(rules: Rules) -> None:
    """Set ``cvrp_routes``'s and ``cvrp_vrpsolver``'s rules."""
    unions, rounds, most, start, cuts, config, alone, cut_first = TODAY
    if rules == "previous":
        unions, rounds, most, start, cuts = 0, 0, 0, None, None
    elif rules == "no-start":
        start = None
    elif rules == "no-root-cuts":
        cuts = None
    elif rules == "vrpsolver-previous":
        config, alone, cut_first = None, False, 0.0
    elif rules == "resolve-first":
        cut_first = 0.0
    (
        cvrp_routes._UNIONS, cvrp_routes._ROOT_ROUNDS, cvrp_packings._MOST, cvrp_routes._START_AFTER,
        cvrp_routes._CUTS_AFTER, cvrp_vrpsolver._CONFIG, cvrp_routes._ALONE, cvrp_routes._CUT_FIRST,
    ) = (unions, rounds, most, start, cuts, config, alone, cut_first)  # fmt: skip


def timed(
    costs: np.ndarray, demand: np.ndarray, vehicles: int, solver: str, rules: Rules, limit: float | None
) -> tuple[list[float], np.ndarray]:
    """Each instance's seconds and the optimal values (NaN where the limit stopped a solve) under ``rules``."""
    use(rules)
    nodes = len(demand) + 1
    seconds, z = [], []
    for c in costs:
        t = time.perf_counter()
        try:
            x = cvrp_routes.routes(c[None], nodes, demand, vehicles=vehicles, solver=solver, time_limit=limit)
            z.append(float(c @ x[0]))
        except SolverError:  # the limit
            z.append(np.nan)
        seconds.append(time.perf_counter() - t)
    return seconds, np.array(z)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[42, 43, 44, 45, 46])
    ap.add_argument("--gurobi", type=int, default=40, help="instances per seed for Gurobi (0: none)")
    ap.add_argument("--highs", type=int, default=2, help="instances per seed for HiGHS (0: none)")
    ap.add_argument("--limit", type=float, default=None, help="seconds per instance for the baseline")
    baselines = [r for r in get_args(Rules) if r != "today"]
    ap.add_argument("--against", choices=baselines, default="previous", help="the baseline's rules")
    ap.add_argument("--nodes", type=int, default=21, help="nodes, the depot included")
    ap.add_argument("--vehicles", type=int, default=cvrp.VEHICLES, help="the most vehicles")
    ap.add_argument("--out", type=Path, default=OUT, help="the JSON file to write")
    a = ap.parse_args()
    rows = []
    gurobi_ok = backend("gurobi").installed().ok  # installed and licensed
    for seed in a.seeds:
        demand = cvrp.demands(seed, a.nodes - 1)
        _, costs = tsp.gen_data(max(a.gurobi, a.highs), 10, a.nodes, 4, 0.5, seed)
        vrpsolver = a.against in ("cut-loop", "vrpsolver-previous", "resolve-first")
        if vrpsolver:  # VRPSolver's workers start once, outside the timing
            cvrp_routes.routes(costs[:1].astype(float), a.nodes, demand, vehicles=a.vehicles, solver="vrpsolver")
        for solver, count in (("gurobi", a.gurobi), ("highs", a.highs)):
            if count == 0:
                continue
            C = costs[:count].astype(float)
            if solver == "gurobi" and not gurobi_ok:
                print(f"seed {seed} gurobi: skipped (gurobipy is not installed or has no licence)")
                continue
            baseline = "vrpsolver" if a.against in ("vrpsolver-previous", "resolve-first") else solver
            each0, z0 = timed(C, demand, a.vehicles, baseline, a.against, a.limit)
            each1, z1 = timed(C, demand, a.vehicles, "vrpsolver" if vrpsolver else solver, "today", None)
            before, after = float(np.mean(each0)), float(np.mean(each1))
            solved = ~np.isnan(z0)
            same = bool(np.allclose(z0[solved], z1[solved], atol=1e-6))
            unsolved = int((~solved).sum())
            rows.append(dict(seed=seed, solver=solver, instances=count, baseline=a.against, baseline_s=before,
                             new_s=after, ratio=before / after, baseline_unsolved=unsolved, same_optima=same,
                             baseline_each=each0, new_each=each1))  # fmt: skip
            print(f"seed {seed} {solver:6s} {count:3d} instances: {a.against} {before:.3f} s ({unsolved} "
                  f"stopped by the limit), today {after:.3f} s per instance, {before / after:.1f}x; "
                  f"optima agree: {same}", flush=True)  # fmt: skip
    use("today")
    for solver in ("gurobi", "highs"):
        mine = [r for r in rows if r["solver"] == solver]
        if mine:
            total = sum(r["baseline_s"] * r["instances"] for r in mine) / sum(r["new_s"] * r["instances"] for r in mine)
            print(f"{solver}: {total:.1f}x faster over {sum(r['instances'] for r in mine)} instances")
    cache.write_text(a.out, json.dumps(dict(rows=rows, args={k: str(v) for k, v in vars(a).items()}), indent=1))
    print(f"saved {a.out}")


if __name__ == "__main__":
    main()
