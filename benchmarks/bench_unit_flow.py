"""Network blocks at the speed of their own algorithm (issue 49): PyEPO's shortest path (5 × 5
grid, degree 4) decomposed with ``blocks="component"`` — one block of every node's conservation
row, which the unit-flow oracle solves as a longest path on the acyclic grid — against the same
block on a solver (what ``"auto"`` chose before the oracle: Gurobi where licensed, else HiGHS),
in one process on the same instances.

Times the training set's multipliers (``LDDataset`` with the defaults but the solver) and 20
epochs of LD(SPO+, static, L1) (``LDLoss(..., solver=)``), checks that the bounds agree, and
prints the ratios (target: ≥ 10×); then the oracle against SciPy's Bellman–Ford
(``scipy.sparse.csgraph``, the longest path as the shortest on negated weights) called directly
on each instance's weights (target: within 3×); saves ``benchmarks/results/unit_flow/unit_flow.json``.

    python benchmarks/bench_unit_flow.py                 # 200 training instances
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import torch
from scipy.sparse.csgraph import bellman_ford

import ldopt
import ldopt_torch as lt
from ldopt.oracles import UnitFlowOracle
from ldopt.solvers.registry import backend

OUT = Path(__file__).parent / "results" / "unit_flow" / "unit_flow.json"


def _run(dec: ldopt.Decomposition, F: np.ndarray, C: np.ndarray, solver: str, epochs: int) -> dict:
    t0 = time.perf_counter()
    data = lt.LDDataset(dec, F, C, lt.DEFAULTS.dual.merged(solver=solver), progress=False)
    dual_s = time.perf_counter() - t0
    torch.manual_seed(0)
    model = torch.nn.Linear(F.shape[1], dec.problem.num_costs)
    loss = lt.LDLoss(dec, "spo+", "L1", solver=solver)
    t0 = time.perf_counter()
    lt.fit(model, data, loss, epochs=epochs, seed=0, progress=False)
    return dict(solver=solver, dual_s=dual_s, train_s=time.perf_counter() - t0, bound=data.bound.tolist())


def compare(blocks: object, instances: int, epochs: int) -> tuple[ldopt.Decomposition, object, str, list[dict]]:
    """PyEPO's shortest path (5 × 5, degree 4) decomposed into ``blocks``: the multipliers' and
    training's times with the blocks' oracles (``"auto"``) and on the solver ``"auto"`` chose
    before them (Gurobi where licensed, else HiGHS), printed; returns the decomposition, the
    instances, that solver's name and the two runs."""
    inst = ldopt.problems.family("shortest_path").instances(instances, deg=4, seed=0)
    dec = ldopt.decompose(inst.problem(), blocks)
    print(dec.describe())
    before = "gurobi" if backend("gurobi").installed().ok else "highs"
    F = (inst.features - inst.features.mean(0)) / inst.features.std(0)
    _run(dec, F[:16], inst.costs[:16], "auto", 1)  # warm: torch's first steps, numba's compilation
    rows = [_run(dec, F, inst.costs, s, epochs) for s in ("auto", before)]
    for r in rows:
        print(f"{r['solver']:7s}: multipliers {r['dual_s']:7.3f} s, {epochs} epochs {r['train_s']:7.2f} s")
    mine, theirs = rows
    ratio_dual, ratio_train = theirs["dual_s"] / mine["dual_s"], theirs["train_s"] / mine["train_s"]
    print(f"the oracle: {ratio_dual:.0f}× faster multipliers, {ratio_train:.1f}× faster training")
    return dec, inst, before, rows


def against_scipy(oracle: UnitFlowOracle, lam: np.ndarray, repeat: int = 5) -> tuple[float, float]:
    """Seconds per instance of the oracle and of SciPy's Bellman–Ford called directly on each
    instance's arc weights (best of ``repeat``); the two paths' weights are checked equal."""
    n = len(oracle.order)
    w = lam[:, oracle.arcs]
    best = {"oracle": np.inf, "scipy": np.inf}
    for _ in range(repeat):
        t0 = time.perf_counter()
        x = oracle.argmax(lam)
        best["oracle"] = min(best["oracle"], time.perf_counter() - t0)
        t0 = time.perf_counter()
        lengths = [
            bellman_ford(sp.csr_matrix((-w[b], (oracle.tails, oracle.heads)), shape=(n, n)), indices=oracle.source)[
                oracle.sink
            ]
            for b in range(len(lam))
        ]
        best["scipy"] = min(best["scipy"], time.perf_counter() - t0)
    np.testing.assert_allclose((lam * x).sum(1), -np.array(lengths), rtol=1e-9, atol=1e-9)
    return best["oracle"] / len(lam), best["scipy"] / len(lam)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--instances", type=int, default=200)
    ap.add_argument("--epochs", type=int, default=20)
    a = ap.parse_args()
    dec, _, _, rows = compare("component", a.instances, a.epochs)
    mine, theirs = rows
    np.testing.assert_allclose(mine["bound"], theirs["bound"], rtol=1e-7, atol=1e-7)
    print("same bounds")
    oracle = dec.block(0).solver("auto").oracle
    assert isinstance(oracle, UnitFlowOracle)
    ours, scipy_s = against_scipy(oracle, np.random.default_rng(0).normal(size=(200, dec.num_vars)))
    print(f"per instance: the oracle {1e6 * ours:.1f} µs, SciPy's Bellman–Ford {1e6 * scipy_s:.1f} µs")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    summary = [{k: v for k, v in r.items() if k != "bound"} for r in rows]
    calls = dict(oracle_us=1e6 * ours, scipy_us=1e6 * scipy_s)
    OUT.write_text(json.dumps(dict(instances=a.instances, epochs=a.epochs, runs=summary, calls=calls), indent=1))


if __name__ == "__main__":
    main()
