"""VRPSolver's CVRP30 optima against the cut loop's, on the test instances the routing runs kept.

``examples/routing.py`` keeps each seed's exact test optima (``<out>/optima/seed<s>.npz``), solved
by the capacity cut loop before VRPSolver became the default: CVRP30 seed 42's 1000
(``cvrp30_full``) and the first 200 of seeds 43–51 (``cvrp30``). This
solves the same instances with ``cvrp_routes.routes(..., solver="vrpsolver")`` on the two cores
and reports, per seed, how many optimal values are equal to the last digit, the largest
difference, the instances that differ, how many instances the cut loop solved (VRPSolver's routes
did not fit, served a customer alone, or BaPCod wrote an error during the solve), and the seconds;
saves ``benchmarks/results/cvrp30_vrpsolver_optima.json`` after each seed (a rerun skips the seeds
saved). ``--run`` checks another run's kept optima instead (VRPSolver's own, solved again), from
test instance ``--start``; with ``--floor``, the true costs of its kept Bayes-floor decisions (the
routes for E[c | x] solved again).

    python benchmarks/bench_cvrp_vrpsolver_optima.py                  # seed 42's 1000, then 43-51's 200
    python benchmarks/bench_cvrp_vrpsolver_optima.py --seeds 42 --count 200
    python benchmarks/bench_cvrp_vrpsolver_optima.py --count 20 \\
        --out benchmarks/results/cvrp30_vrpsolver_optima_cut_first.json
    python benchmarks/bench_cvrp_vrpsolver_optima.py --run cvrp30_full --seeds 45 --start 250 \\
        --out benchmarks/results/cvrp30_full_seed45_optima_again.json   # VRPSolver's own kept optima, again
    python benchmarks/bench_cvrp_vrpsolver_optima.py --run cvrp30_full --seeds 45 --floor \\
        --out benchmarks/results/cvrp30_full_seed45_floor_again.json    # the floor's kept decisions, again

``cvrp30_vrpsolver_optima.json`` holds VRPSolver's check as it was before 2026-12-01 (an instance
whose routes served a customer alone went to the cut loop), ``cvrp30_vrpsolver_optima_alone.json``
as it was on 2026-12-01 (such an instance solved again by VRPSolver at once; seeds 42–47),
``cvrp30_vrpsolver_optima_cut_first.json`` as it is (such an instance given to the cut loop for
``cvrp_routes._CUT_FIRST`` seconds first).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from ldopt.problems import cvrp, cvrp_routes
from ldopt.runtime import cache

sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
import routing

RUNS = Path(__file__).parent / "results" / "routing"
OUT = Path(__file__).parent / "results" / "cvrp30_vrpsolver_optima.json"


def kept(seed: int, run: str | None = None) -> np.ndarray:
    """``run``'s kept test optima of ``seed``; by default the cut loop's: seed 42's 1000
    (``cvrp30_full``), the first 200 of the others (``cvrp30``)."""
    run = run or ("cvrp30_full" if seed == 42 else "cvrp30")
    with np.load(RUNS / run / "optima" / f"seed{seed}.npz") as z:
        return z["optima"]


def kept_floor(seed: int, run: str) -> tuple[np.ndarray, routing.Split]:
    """The true costs of ``run``'s kept Bayes-floor test decisions of ``seed``, and the seed's data
    (its test set as large as the run's)."""
    d = routing.split(31, 4, seed, 1000, 100, len(kept(seed, run)), "cvrp")
    path = routing.decisions_file(argparse.Namespace(out=RUNS / run), seed, "bayes", d.e_test)
    with np.load(path) as z:
        return z["realized"], d


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=list(range(42, 52)))
    ap.add_argument("--count", type=int, default=None, help="the most instances a seed (default: all kept)")
    ap.add_argument("--run", default=None, help="the run whose kept figures to check (default: the cut loop's optima)")
    ap.add_argument("--start", type=int, default=0, help="the first test instance")
    ap.add_argument("--floor", action="store_true", help="check the run's Bayes-floor decisions, not its optima")
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args()
    if a.floor and a.run is None:
        ap.error("expected --run with --floor (the run whose floor decisions to check), got none")
    rows = json.loads(a.out.read_text())["rows"] if a.out.exists() else []
    cut_loop: list[int] = []  # instances each call of the cut loop solved
    loop = cvrp_routes._cut_loop

    def counted(c: np.ndarray, *args: Any, **kwargs: Any) -> np.ndarray:
        x = loop(c, *args, **kwargs)
        cut_loop.append(int((~np.isnan(x).any(1)).sum()))
        return x

    cvrp_routes._cut_loop = counted
    for seed in a.seeds:
        if any(r["seed"] == seed for r in rows):
            continue
        if a.floor:
            ref, d = kept_floor(seed, a.run)
            ref = ref[a.start :][: a.count]
        else:
            ref = kept(seed, a.run)[a.start :][: a.count]
            d = routing.split(31, 4, seed, 1000, 100, a.start + len(ref), "cvrp")
        costs, q = d.c_test[a.start :][: len(ref)], cvrp.demands(seed, 30)
        routed = d.e_test[a.start :][: len(ref)] if a.floor else costs  # the floor's routes are for E[c | x]
        cut_loop.clear()
        t = time.perf_counter()
        x = cvrp_routes.routes(routed, 31, q, cvrp.CAPACITY, 8, solver="vrpsolver")
        z = (costs * x).sum(1)
        seconds = time.perf_counter() - t
        diff = np.abs(z - ref)
        differ = [a.start + int(i) for i in np.flatnonzero(z != ref)]  # the test instances whose optima differ
        rows.append(dict(seed=seed, start=a.start, instances=len(ref), equal=int((z == ref).sum()), differ=differ,
                         cut_loop=sum(cut_loop),
                         max_abs_diff=float(diff.max()),
                         max_rel_diff=float((diff / np.abs(ref)).max()), seconds=seconds))  # fmt: skip
        what = "floor decisions' true costs" if a.floor else "optima"
        print(f"seed {seed}: {len(ref)} instances, {rows[-1]['equal']} {what} equal to the last digit, largest "
              f"difference {diff.max():.2e}, {sum(cut_loop)} by the cut loop, {seconds:.0f} s on the two cores",
              flush=True)  # fmt: skip
        cache.write_text(a.out, json.dumps(dict(rows=rows), indent=1))
    print(f"saved {a.out}")


if __name__ == "__main__":
    main()
