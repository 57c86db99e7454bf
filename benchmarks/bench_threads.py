"""All cores by default: speed-up of calls made without an executor, one run.

``dec.dual`` (shared and joint) on the MKP protocol and ``ldopt.evaluate.regret.solve_many`` (HiGHS) split
their instances over ``ldopt.runtime.threads`` — one chunk per thread; the oracles are GIL-free kernels
and the solvers release the GIL. Each is timed on 1, 2, 4, … threads up to the cores here (best of
``--repeat``), the answers are checked identical to the 1-thread answer, and the speed-up and the
efficiency (speed-up / threads) are printed. Targets: ≥ 1.8× on 2 cores; ≥ 0.7 × cores on a
many-core machine.

    python benchmarks/bench_threads.py [--items 1000] [--rows 30] [--instances 200]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

import ldopt
from ldopt.evaluate.regret import solve_many
from ldopt.problems import knapsack


def best_of(fn, repeat: int):
    out, best = None, np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return out, best


def counts(cores: int) -> list[int]:
    ks, k = [], 1
    while k < cores:
        ks.append(k)
        k *= 2
    return [*ks, cores]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--items", type=int, default=1000)
    ap.add_argument("--rows", type=int, default=30)
    ap.add_argument("--instances", type=int, default=200)
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--solve-items", type=int, default=200, help="MKP size for the solve_many timing (m = 10)")
    ap.add_argument("--solve-instances", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--out", default="benchmarks/results/threads.json")
    a = ap.parse_args()
    cores = ldopt.runtime.threads.num_threads()
    d = knapsack.protocol_data(a.instances, a.items, dim=a.rows)
    model = knapsack.build_model(d.weights, d.capacities)
    dec = ldopt.decompose(ldopt.Problem.from_pyomo(model, model.c))
    s = knapsack.protocol_data(a.solve_instances, a.solve_items, dim=10)
    sm = knapsack.build_model(s.weights, s.capacities)
    small = ldopt.Problem.from_pyomo(sm, sm.c)
    dec.dual(d.costs[:2], iterations=2, progress=False)  # compile the kernels outside the timings
    jobs = {
        "dual shared": lambda: dec.dual(d.costs, iterations=a.iterations, progress=False),
        "dual joint": lambda: dec.dual(d.costs, iterations=a.iterations, mode="joint", progress=False),
        "solve_many highs": lambda: solve_many(small, s.costs, "highs"),
    }
    rows = []
    for name, job in jobs.items():
        base = None
        for k in counts(cores):
            ldopt.runtime.threads.configure(k)
            out, t = best_of(job, a.repeat)
            ref = out.bound if hasattr(out, "bound") else out.objective
            if base is None:
                base, base_ref = t, ref
            assert np.array_equal(ref, base_ref), f"{name}: {k} threads changed the answer"
            rows.append(dict(job=name, threads=k, seconds=t, speedup=base / t, efficiency=base / t / k))
            print(
                f"{name:18s} {k:3d} threads: {t:7.2f} s  speed-up {base / t:5.2f}×  efficiency {base / t / k:.2f}",
                flush=True,
            )
    ldopt.runtime.threads.configure(None)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(
        json.dumps(
            dict(
                cores=cores, items=a.items, rows_m=a.rows, instances=a.instances, iterations=a.iterations, results=rows
            ),
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
