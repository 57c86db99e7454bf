"""Gurobi's threads inside ldopt's pool: one per solve (ldopt's default) against Gurobi's own default.

``solve_many`` runs one solve per pool thread; Gurobi left to its default takes every core in each
of them (4 threads on 2 cores, 8 with two experiments side by side). ldopt gives each pool solve
one thread (``ldopt.runtime.threads.solver_threads``). This times the decisions of noisy predictions on
the MKP protocol (n = 200, m = 10) both ways, on the same instances in the same process (best of
``--repeat``), checks that the decisions are identical, and prints the speed-up.

    python benchmarks/bench_solver_threads.py [--items 200] [--instances 64] [--noise 0.5]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

import ldopt
from ldopt.problems import knapsack
from ldopt.runtime.threads import map_ranges, num_threads, split


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--items", type=int, default=200)
    ap.add_argument("--instances", type=int, default=64)
    ap.add_argument("--noise", type=float, default=0.5, help="prediction noise, times the costs' deviation")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--out", default="benchmarks/results/solver_threads.json")
    a = ap.parse_args()
    d = knapsack.protocol_data(a.instances, a.items, dim=10)
    model = knapsack.build_model(d.weights, d.capacities)
    p = ldopt.Problem.from_pyomo(model, model.c)
    avail = ldopt.solvers.registry.availability(p.compiled, "gurobi")
    if not avail:
        raise SystemExit(f"needs Gurobi: {avail.reason}")
    pred = d.costs + np.random.default_rng(0).normal(0, a.noise * d.costs.std(), d.costs.shape)

    def decisions(options: dict | None) -> np.ndarray:
        parts = map_ranges(
            lambda s, e: p.solve(pred[s:e], "gurobi", options=options).x, split(len(pred), num_threads())
        )
        return np.vstack(parts)

    timings, answers = {}, {}
    for name, options in (
        ("gurobi default (every core per solve)", {"Threads": 0}),
        ("one thread per pool solve", None),
    ):
        decisions(options)  # build every pool thread's session first
        best = np.inf
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            answers[name] = decisions(options)
            best = min(best, time.perf_counter() - t0)
        timings[name] = best
        print(f"{name:40s} {1000 * best / len(pred):7.1f} ms per instance", flush=True)
    first, second = answers.values()
    same = int((first == second).all(axis=1).sum())
    speedup = timings["gurobi default (every core per solve)"] / timings["one thread per pool solve"]
    print(f"speed-up {speedup:.2f}x on {num_threads()} pool threads; identical decisions {same}/{len(pred)}")
    result = dict(
        items=a.items,
        instances=a.instances,
        noise=a.noise,
        pool_threads=num_threads(),
        ms_per_instance={k: 1000 * v / len(pred) for k, v in timings.items()},
        speedup=speedup,
        identical=same,
    )
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(result, indent=1))
    print(f"saved {a.out}")


if __name__ == "__main__":
    main()
