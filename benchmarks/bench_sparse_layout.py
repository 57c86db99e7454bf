"""Memory and time of the training sets in the sparse layout (each block's multipliers and copies on
its support) against the dense layout (``m × n`` per instance), measured in one run.

* p-median (Pyomo gallery's formulation): 20 sites × 30 customers, 5 open — 620 variables, 631
  one-row blocks — with ``LDDataset``'s defaults for 200 instances (target: under 2 GB and a
  minute on 2 cores), against the dense layout on ``--dense-instances`` of them (per instance);
  the bound of both against HiGHS's optimum on those instances.
* a sparse LP with 5,000 rows and 5,000 variables in ``[0, 1]``, every row touching at most 20 of
  them (fractional-knapsack rows), with 1,000 instances (target: under 8 GB).
* the MKP's dense rows (``layout="auto"`` keeps them dense: the same path as before).

Every case runs in its own process, whose peak resident memory is reported.

    python benchmarks/bench_sparse_layout.py
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import random
import resource
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyomo.environ as pyo

import ldopt
import ldopt_torch as lt
from ldopt.dual.settings import Layout
from ldopt.dual.support import Support
from ldopt.problems import knapsack
from ldopt_experiments.zoo import _location

OUT = Path(__file__).parent / "results" / "sparse_layout"


def p_median(sites: int = 20, customers: int = 30, open_: int = 5) -> tuple[ldopt.Problem, np.ndarray]:
    """The p-median model and its base distances (uniform in [1, 2], seeded)."""
    rng = random.Random(1000)
    N, M = list(range(sites)), list(range(customers))
    d = {(n, k): rng.uniform(1.0, 2.0) for n in N for k in M}
    m = _location(N, M, d, open_, exact=True)
    return ldopt.Problem.from_pyomo(m, m.c), np.array(list(d.values()))


def sparse_lp(rows: int, n: int, width: int, seed: int = 0) -> ldopt.Problem:
    """``max c·x  s.t.  a_i·x <= b_i`` (each row on ``width`` random variables), ``0 <= x <= 1``."""
    rng = np.random.default_rng(seed)
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, n - 1)
    m.c = pyo.Param(m.I, mutable=True, initialize=1.0)
    m.x = pyo.Var(m.I, bounds=(0, 1))
    m.obj = pyo.Objective(expr=sum(m.c[j] * m.x[j] for j in m.I), sense=pyo.maximize)
    m.rows = pyo.ConstraintList()
    for _ in range(rows):
        cols = rng.choice(n, size=width, replace=False)
        a = rng.integers(1, 10, width)
        m.rows.add(sum(int(a[t]) * m.x[int(j)] for t, j in enumerate(cols)) <= float(a.sum()) / 2)
    return ldopt.Problem.from_pyomo(m, m.c)


def _peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6


def _dataset(dec: ldopt.Decomposition, costs: np.ndarray, layout: Layout) -> tuple[lt.LDDataset, float]:
    F = np.random.default_rng(0).normal(size=(len(costs), 5))
    t0 = time.perf_counter()
    data = lt.LDDataset(dec, F, costs, lt.DEFAULTS.dual.merged(layout=layout), progress=False)
    return data, time.perf_counter() - t0


def case_p_median(instances: int, layout: str, exact: int) -> dict[str, Any]:
    p, base = p_median()
    costs = base * np.random.default_rng(0).uniform(0.5, 1.5, (instances, len(base)))
    dec = ldopt.decompose(p)
    data, seconds = _dataset(dec, costs, layout=layout)
    opt = p.solve(costs[:exact], solver="highs").objective
    gap = (opt - data.bound[:exact]) / np.abs(opt)  # a minimisation: bounds below the optimum
    return dict(
        case="p-median 20x30", layout=data.result.layout, instances=instances, seconds=seconds,
        peak_gb=_peak_gb(), median_gap=float(np.median(gap)), nnz=Support.of(dec).nnz,
        dense_size=dec.num_blocks * dec.num_vars,
    )  # fmt: skip


def case_sparse_lp(instances: int, rows: int, n: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    p = sparse_lp(rows, n, 20)
    compile_s = time.perf_counter() - t0
    dec = ldopt.decompose(p)
    costs = np.random.default_rng(1).uniform(0, 1, (instances, n))
    data, seconds = _dataset(dec, costs)
    return dict(
        case=f"sparse LP {rows}x{n}", layout=data.result.layout, instances=instances, seconds=seconds,
        compile_seconds=compile_s, peak_gb=_peak_gb(), nnz=Support.of(dec).nnz,
        dense_size=dec.num_blocks * dec.num_vars,
    )  # fmt: skip


def case_mkp(instances: int, layout: str) -> dict[str, Any]:
    d = knapsack.protocol_data(instances, 200, deg=4, seed=0)
    model = knapsack.build_model(d.weights, d.capacities)
    dec = ldopt.decompose(ldopt.Problem.from_pyomo(model, model.c))
    data, seconds = _dataset(dec, d.costs, layout=layout)
    return dict(case="MKP 200x10", layout=data.result.layout, instances=instances, seconds=seconds, peak_gb=_peak_gb())


def _run(fn: Any, *args: Any) -> dict[str, Any]:
    """``fn(*args)`` in a fresh process (its own peak memory)."""
    with mp.get_context("spawn").Pool(1) as pool:
        out = pool.apply(fn, args)
    print(json.dumps(out))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=int, default=200)
    ap.add_argument("--dense-instances", type=int, default=10)
    ap.add_argument("--lp-instances", type=int, default=1000)
    ap.add_argument("--lp-size", type=int, default=5000)
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    rows = [
        _run(case_p_median, args.instances, "auto", args.dense_instances),
        _run(case_p_median, args.dense_instances, "sparse", args.dense_instances),
        _run(case_p_median, args.dense_instances, "dense", args.dense_instances),
        _run(case_mkp, 200, "auto"),
        _run(case_sparse_lp, args.lp_instances, args.lp_size, args.lp_size),
    ]
    sparse, dense = rows[1], rows[2]
    print(
        f"p-median, {args.dense_instances} instances: dense/sparse time {dense['seconds'] / sparse['seconds']:.1f}x, "
        f"stored numbers {dense['dense_size'] / sparse['nnz']:.0f}x; median gap of the bound "
        f"sparse {100 * sparse['median_gap']:.2f}% dense {100 * dense['median_gap']:.2f}%"
    )
    (OUT / "sparse_layout.json").write_text(json.dumps(rows, indent=1))
    print(f"saved {OUT / 'sparse_layout.json'}")


if __name__ == "__main__":
    main()
