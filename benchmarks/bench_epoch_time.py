"""Epoch time of LD(SPO+, static, L1) against PyEPO's SPO+ on the full MKP, same data, one run.

MKP protocol n = 100, m = 10, 200 training instances, batch 32, linear model, Adam. Every method
starts from the same warm start, the converged two-stage model (least squares; random-init
predictions are near zero, so 2ĉ − c < 0 empties every knapsack and flatters the full solver),
and times whole epochs: forward, loss (solves included), backward, step.

* LD: ``lt.LDLoss(dec, "spo+", "L1")`` on ``lt.LDDataset`` (multiplier construction timed apart).
* Full problem: ``pyepo.func.SPOPlus`` over our PyEPO adapter with HiGHS, and with Gurobi where the
  size-limited license allows (n = 100 fits); PyEPO's own ``knapsackModel`` (gurobipy) as well.

Target: LD ≥ 300× faster per epoch than full-problem SPO+ with HiGHS.

    python benchmarks/bench_epoch_time.py [--items 100] [--ld-epochs 30] [--full-epochs 1]
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from pathlib import Path

import numpy as np
import torch

import ldopt
import ldopt_torch as lt
from ldopt.problems import knapsack

RESULTS = Path(__file__).parent / "results"


def epoch_seconds(model, data, loss, epochs: int, mode: str = "static") -> float:
    m = copy.deepcopy(model)
    out = lt.fit(m, data, loss, mode=mode, epochs=epochs, lr=1e-3, progress=False, options=lt.FitOptions(batch_size=32))
    return out.history[-1]["time"] / epochs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--items", type=int, default=100)
    ap.add_argument("--instances", type=int, default=200)
    ap.add_argument("--ld-epochs", type=int, default=30)
    ap.add_argument("--full-epochs", type=int, default=1)
    ap.add_argument("--out", default=str(RESULTS / "epoch_time.json"))
    args = ap.parse_args()

    d = knapsack.protocol_data(args.instances, args.items, seed=42)
    model = knapsack.build_model(d.weights, d.capacities)
    p = ldopt.Problem.from_pyomo(model, model.c)
    dec = ldopt.decompose(p)
    F = (d.features - d.features.mean(0)) / d.features.std(0)
    t0 = time.perf_counter()
    ld = lt.LDDataset(dec, F, d.costs, iterations=300, progress=False)
    construction = time.perf_counter() - t0
    warm = torch.nn.Linear(F.shape[1], args.items)
    X = np.hstack([F, np.ones((len(F), 1))])
    coef = np.linalg.lstsq(X, d.costs, rcond=None)[0]  # the converged two-stage (MSE) model
    with torch.no_grad():
        warm.weight.copy_(torch.as_tensor(coef[:-1].T))
        warm.bias.copy_(torch.as_tensor(coef[-1]))

    rows = {}
    rows["LD(SPO+, static, L1)"] = epoch_seconds(warm, ld, lt.LDLoss(dec, "spo+", "L1"), args.ld_epochs)
    print(
        f"LD(SPO+, static, L1): {rows['LD(SPO+, static, L1)'] * 1e3:.2f} ms/epoch "
        f"(multipliers built once in {construction:.1f} s)"
    )
    for solver in ("highs", "gurobi"):
        avail = ldopt.solvers.registry.availability(p.compiled, solver)
        if not avail:
            print(f"SPO+ full problem [{solver}]: skipped ({avail.reason})")
            continue
        opt = lt.OptDataset(p, F, d.costs, solver=solver)
        secs = epoch_seconds(warm, opt, lt.FullLoss(p, "spo+", solver=solver), args.full_epochs)
        rows[f"SPO+ full problem [{solver}, PyEPO + adapter]"] = secs
        print(f"SPO+ full problem [{solver}]: {secs:.2f} s/epoch")
    try:
        import pyepo.func  # noqa: PLC0415 - optional: PyEPO's own Gurobi model, where licensed
        from pyepo.model.grb import knapsackModel  # noqa: PLC0415

        native = knapsackModel(d.weights, d.capacities)
        native.setObj(d.costs[0])
        native.solve()
        opt = lt.OptDataset(p, F, d.costs, solver="highs")
        spo = pyepo.func.SPOPlus(native)

        class Native(torch.nn.Module):
            def forward(self, pred, batch):
                return spo(pred, batch["costs"], batch["solution"], batch["objective"])

        rows["SPO+ full problem [PyEPO knapsackModel, gurobipy]"] = epoch_seconds(warm, opt, Native(), args.full_epochs)
        print(f"SPO+ PyEPO knapsackModel: {rows['SPO+ full problem [PyEPO knapsackModel, gurobipy]']:.2f} s/epoch")
    except Exception as exc:
        print(f"SPO+ PyEPO knapsackModel: skipped ({type(exc).__name__}: {exc})")

    base = rows["LD(SPO+, static, L1)"]
    ratios = {k: v / base for k, v in rows.items() if not k.startswith("LD")}
    print("\nepoch time ratio (full-problem SPO+ / LD(SPO+, static, L1)):")
    for k, r in ratios.items():
        print(f"  {k}: {r:,.0f}x")
    target = ratios.get("SPO+ full problem [highs, PyEPO + adapter]")
    if target is not None:
        print(f"target >= 300x against HiGHS: {'met' if target >= 300 else 'MISSED'} ({target:,.0f}x)")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(
        json.dumps(
            dict(
                items=args.items,
                instances=args.instances,
                seconds_per_epoch=rows,
                ratios=ratios,
                multiplier_construction_s=construction,
            ),
            indent=1,
        )
    )
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
