"""Overhead of ``Problem.solve`` over the raw highspy loop it wraps (MKP, n = 100, m = 10).

Both loops solve the same instances exactly on one persistent HiGHS model each, changing only the
column costs; chunks alternate between the two so that machine load hits both alike.

    python benchmarks/bench_solve_overhead.py --instances 1000
"""

from __future__ import annotations

import argparse
import json
import time

import highspy
import numpy as np

import ldopt
from ldopt.problems import knapsack


def raw_highs(weights: np.ndarray, capacities: np.ndarray) -> highspy.Highs:
    """A HiGHS MKP model written directly against the highspy API."""
    m, n = weights.shape
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 0.0)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n, m
    lp.col_cost_ = np.zeros(n)
    lp.col_lower_, lp.col_upper_ = np.zeros(n), np.ones(n)
    lp.row_lower_, lp.row_upper_ = np.full(m, -highspy.kHighsInf), capacities.astype(float)
    W = weights.astype(float)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.start_ = np.arange(0, m * n + 1, n, dtype=np.int32)
    lp.a_matrix_.index_ = np.tile(np.arange(n, dtype=np.int32), m)
    lp.a_matrix_.value_ = W.reshape(-1)
    lp.integrality_ = [highspy.HighsVarType.kInteger] * n
    lp.sense_ = highspy.ObjSense.kMaximize
    h.passModel(lp)
    return h


def raw_loop(h: highspy.Highs, costs: np.ndarray) -> np.ndarray:
    n = costs.shape[1]
    idx = np.arange(n, dtype=np.int32)
    out = np.empty(len(costs))
    for b, c in enumerate(costs):
        h.changeColsCost(n, idx, c)
        h.run()
        x = np.asarray(h.getSolution().col_value)
        out[b] = c @ x
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=int, default=1000)
    ap.add_argument("--items", type=int, default=100)
    ap.add_argument("--chunk", type=int, default=50)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--json", default=None, help="write the figures to this JSON file")
    args = ap.parse_args()

    d = knapsack.protocol_data(args.instances, args.items, seed=args.seed)
    model = knapsack.build_model(d.weights, d.capacities)
    p = ldopt.Problem.from_pyomo(model, model.c)
    h = raw_highs(d.weights, d.capacities)
    p.solve(d.costs[:1], solver="highs")  # build the session outside the timing
    t_raw = t_ours = 0.0
    obj_raw, obj_ours = [], []
    for s in range(0, args.instances, args.chunk):
        chunk = d.costs[s : s + args.chunk]
        t0 = time.perf_counter()
        obj_raw.append(raw_loop(h, chunk))
        t1 = time.perf_counter()
        obj_ours.append(p.solve(chunk, solver="highs").objective)
        t_ours += time.perf_counter() - t1
        t_raw += t1 - t0
    same = np.allclose(np.concatenate(obj_raw), np.concatenate(obj_ours), rtol=1e-9)
    ratio = t_ours / t_raw
    res = {
        "instances": args.instances,
        "items": args.items,
        "raw_highspy_s": round(t_raw, 3),
        "problem_solve_s": round(t_ours, 3),
        "ratio": round(ratio, 4),
        "same_objectives": bool(same),
        "target_ratio": 1.2,
    }
    print(f"raw highspy loop : {t_raw:8.2f} s  ({1e3 * t_raw / args.instances:.1f} ms/instance)")
    print(f"Problem.solve    : {t_ours:8.2f} s  ({1e3 * t_ours / args.instances:.1f} ms/instance)")
    print(f"ratio ours/raw   : {ratio:.3f}  (target <= 1.2)   same objectives: {same}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=2)


if __name__ == "__main__":
    main()
