"""Exact CVRP20 routes: the capacity cuts of every union of components, HiGHS's rounds of
fractional cuts on the LP relaxation and the enumeration of tight packings, against the previous
rule (a cut for each violating component alone, nothing else), in one process.

CaVE's CVRP20 (21 nodes, capacity 30, 5 vehicles, ``np.random.rand(20) * 10`` demands of seed
``s``) on the first instances of PyEPO's costs for seed ``s``; each solver (Gurobi where licensed,
HiGHS) solves the same instances with both rules, one thread, one instance at a time. Prints the
seconds per instance (the new rule's include its one check of the packings per demand vector,
about 0.3 s), the ratio, and that the optimal values agree; saves
``benchmarks/results/cvrp_routes.json``.

    python benchmarks/bench_cvrp_routes.py                        # seeds 42-46, 40 + 2 instances
    python benchmarks/bench_cvrp_routes.py --seeds 44 49 --gurobi 100 --highs 10
    python benchmarks/bench_cvrp_routes.py --seeds 47 --gurobi 4 --highs 0 --limit 60 --out seed47.json

``--limit`` caps the previous rule's seconds per instance; an instance it leaves unsolved counts
the limit, so its ratio is then a lower bound (the last line: seed 47, whose demands three
vehicles carry only just; its run is ``benchmarks/results/cvrp_routes_seed47.json``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from ldopt.errors import SolverError
from ldopt.problems import cvrp, cvrp_packings, cvrp_routes, tsp
from ldopt.runtime import cache
from ldopt.solvers.registry import backend

OUT = Path(__file__).parent / "results" / "cvrp_routes.json"


def timed(
    costs: np.ndarray, demand: np.ndarray, solver: str, new: bool, limit: float | None
) -> tuple[float, np.ndarray]:
    """Seconds per instance and the optimal values (NaN where the limit stopped a solve), with the
    new rules or the previous one."""
    cvrp_routes._UNIONS, cvrp_routes._ROOT_ROUNDS = (10, 50) if new else (0, 0)
    cvrp_packings._MOST = 50_000 if new else 0
    t, z = time.perf_counter(), []
    for c in costs:
        try:
            z.append(float(c @ cvrp_routes.routes(c[None], 21, demand, solver=solver, time_limit=limit)[0]))
        except SolverError:  # the limit
            z.append(np.nan)
    return (time.perf_counter() - t) / len(costs), np.array(z)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[42, 43, 44, 45, 46])
    ap.add_argument("--gurobi", type=int, default=40, help="instances per seed for Gurobi (0: none)")
    ap.add_argument("--highs", type=int, default=2, help="instances per seed for HiGHS (0: none)")
    ap.add_argument("--limit", type=float, default=None, help="seconds per instance for the previous rule")
    ap.add_argument("--out", type=Path, default=OUT, help="the JSON file to write")
    a = ap.parse_args()
    rows = []
    gurobi_ok = backend("gurobi").installed().ok  # installed and licensed
    for seed in a.seeds:
        demand = cvrp.demands(seed)
        _, costs = tsp.gen_data(max(a.gurobi, a.highs), 10, 21, 4, 0.5, seed)
        for solver, count in (("gurobi", a.gurobi), ("highs", a.highs)):
            if count == 0:
                continue
            C = costs[:count].astype(float)
            if solver == "gurobi" and not gurobi_ok:
                print(f"seed {seed} gurobi: skipped (gurobipy is not installed or has no licence)")
                continue
            before, z0 = timed(C, demand, solver, False, a.limit)
            after, z1 = timed(C, demand, solver, True, None)
            solved = ~np.isnan(z0)
            same = bool(np.allclose(z0[solved], z1[solved], atol=1e-6))
            unsolved = int((~solved).sum())
            rows.append(dict(seed=seed, solver=solver, instances=count, previous_s=before, new_s=after,
                             ratio=before / after, previous_unsolved=unsolved, same_optima=same))  # fmt: skip
            print(f"seed {seed} {solver:6s} {count:3d} instances: previous {before:.3f} s ({unsolved} "
                  f"stopped by the limit), new {after:.3f} s per instance, {before / after:.1f}x; "
                  f"optima agree: {same}", flush=True)  # fmt: skip
    cvrp_routes._UNIONS, cvrp_routes._ROOT_ROUNDS, cvrp_packings._MOST = 10, 50, 50_000
    for solver in ("gurobi", "highs"):
        mine = [r for r in rows if r["solver"] == solver]
        if mine:
            total = sum(r["previous_s"] * r["instances"] for r in mine) / sum(r["new_s"] * r["instances"] for r in mine)
            print(f"{solver}: {total:.1f}x faster over {sum(r['instances'] for r in mine)} instances")
    cache.write_text(a.out, json.dumps(dict(rows=rows, args={k: str(v) for k, v in vars(a).items()}), indent=1))
    print(f"saved {a.out}")


if __name__ == "__main__":
    main()
