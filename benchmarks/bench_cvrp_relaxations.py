"""The CVRP routes block's two relaxations, in one process: the Lagrangian bound of the CVRP20
decomposition (a block per customer's degree row and the routes block) with the k-forest
(capacity ignored) and with the q-routes (capacity kept), against the exact optimum.

CaVE's CVRP20 (21 nodes, capacity 30, 5 vehicles, ``np.random.rand(20) * 10`` demands of seed
``s``) on the first test instances of PyEPO's costs for seed ``s`` (``examples/routing.py``'s
split); the optima by the exact cut loop (``cvrp_routes.routes``). For each relaxation and step
count, the shared multipliers' bound (``dec.dual(mode="shared")``, as ``LDDataset`` solves them)
below the optimum in % (mean over the instances) and the seconds; then the seconds of one oracle
call per instance (q-routes over k-forest). With ``--validation SEED...``, also what training
through each gives on those seeds' 100 validation instances (exact routes): the two-stage fit,
then LD(FY σ = 1) and LD(SPO+) from it, 5 epochs (``examples/routing.py``'s CVRP20 settings), with
the multipliers of the k-forest at 100 steps and the q-routes' at 100 and 300. Saves
``benchmarks/results/cvrp_relaxations.json``.

    python benchmarks/bench_cvrp_relaxations.py                       # seeds 42 43 47 48, 20 instances
    python benchmarks/bench_cvrp_relaxations.py --validation 42 47    # and training (about 20 minutes)
    python benchmarks/bench_cvrp_relaxations.py --seeds 47 --instances 50 --steps 100 300 1000
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

import ldopt
import ldopt_torch as lt
from ldopt.problems import cvrp, cvrp_exact, cvrp_oracle, cvrp_routes
from ldopt.runtime import cache

sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
import routing

OUT = Path(__file__).parent / "results" / "cvrp_relaxations.json"
TRAINED = ("ld:fy@1:L1:static:mse", "ld:spo+:L1:static:mse")  # routing.py's CVRP20 rows, from the two-stage fit
SETTINGS = (("k-forest", 100), ("q-routes", 100), ("q-routes", 300))  # (relaxation, multipliers' steps)


def validation(seed: int) -> list[dict]:
    """Validation regret (%) of training through each relaxation on seed ``seed``."""
    x_tr, c_tr, x_va, c_va, *_ = routing.split(21, 4, seed, 1000, 100, 1000)
    rows = []
    for relaxation, steps in SETTINGS:
        r = routing.Routing(
            argparse.Namespace(problem="cvrp", nodes=21, vehicles=cvrp.VEHICLES, relaxation=relaxation), seed
        )
        t = time.perf_counter()
        dual = lt.DEFAULTS.dual.merged(mode="shared")
        data = lt.LDDataset(r.dec, x_tr, c_tr, dual, iterations=steps, progress=False)
        multipliers_s = time.perf_counter() - t
        optima = (c_va * r.solve(c_va)).sum(1)
        how = routing.Training("linear", (5, 20), None, None)
        fitted: dict[str, torch.nn.Module] = {}
        for method in ("2s", *TRAINED):
            t = time.perf_counter()
            net = fitted[method] = routing.train_one(method, r.p, data, x_tr, c_tr, how, seed, fitted.get("2s"))
            train_s = time.perf_counter() - t
            with torch.no_grad():
                pred = net(torch.as_tensor(x_va, dtype=torch.float32)).numpy().astype(float)
            regret, _ = r.regret(c_va, pred, optima)
            rows.append(dict(seed=seed, relaxation=relaxation, steps=steps, method=method, val_regret=regret,
                             multipliers_s=multipliers_s, train_s=train_s))  # fmt: skip
            print(f"seed {seed} {relaxation} ({steps} steps, multipliers {multipliers_s:.0f} s) {method}: "
                  f"validation regret {regret:.2f}% (training {train_s:.0f} s)", flush=True)  # fmt: skip
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[42, 43, 47, 48])
    ap.add_argument("--instances", type=int, default=20)
    ap.add_argument("--steps", type=int, nargs="+", default=[100, 300])
    ap.add_argument("--validation", type=int, nargs="*", default=[], help="seeds to train on (validation regret)")
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args()
    rows = []
    for seed in a.seeds:
        costs = routing.split(21, 4, seed, 1000, 100, 1000).c_test[: a.instances]
        demand = cvrp.demands(seed, 20)
        optima = (costs * cvrp_routes.routes(costs, 21, demand)).sum(1)
        model = cvrp.build_model(21, demand)
        p = ldopt.Problem.from_pyomo(model, model.c, oracles=[cvrp_exact.Routes])
        calls = {}
        for relaxation in cvrp_oracle.RELAXATIONS:
            oracles = cvrp_oracle.block_oracles(p, 21, demand, relaxation=relaxation)
            dec = ldopt.decompose(p, cvrp.blocks(21), oracles=oracles)
            oracle = oracles[len(cvrp.blocks(21)) - 1]
            assert isinstance(oracle, cvrp_oracle.RoutesRelaxation)
            w = -np.repeat(costs, 5, axis=0)  # edge objectives (maximised)
            oracle.edges(w[:1])  # compiled before it is timed
            t = time.perf_counter()
            oracle.edges(w)
            calls[relaxation] = (time.perf_counter() - t) / len(w)
            for steps in a.steps:
                t = time.perf_counter()
                bound = np.asarray(dec.dual(costs, mode="shared", iterations=steps, progress=False).bound)
                seconds = time.perf_counter() - t
                if (bound > optima + 1e-6 * np.abs(optima)).any():
                    raise SystemExit(f"seed {seed} {relaxation}: a bound above its optimum")
                gap = float(100 * np.mean(1 - bound / optima))
                rows.append(dict(seed=seed, relaxation=relaxation, steps=steps, gap=gap, seconds=seconds))
                print(f"seed {seed} (demand {demand.sum():.1f}) {relaxation} {steps} steps: bound {gap:.2f}% below "
                      f"the optimum, {seconds:.1f} s", flush=True)  # fmt: skip
        ratio = calls["q-routes"] / calls["k-forest"]
        print(f"seed {seed}: one oracle call {1e3 * calls['q-routes']:.2f} ms (q-routes) against "
              f"{1e3 * calls['k-forest']:.3f} ms (k-forest): {ratio:.0f}x", flush=True)  # fmt: skip
        rows.append(dict(seed=seed, call_ms={k: 1e3 * v for k, v in calls.items()}))
        save(a, rows)
    for seed in a.validation:
        rows += validation(seed)
        save(a, rows)  # an interrupted run keeps every finished seed


def save(a: argparse.Namespace, rows: list[dict]) -> None:
    cache.write_text(a.out, json.dumps(dict(rows=rows, args={k: str(v) for k, v in vars(a).items()}), indent=1))


if __name__ == "__main__":
    main()
