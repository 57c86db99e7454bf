"""Network blocks with arcs to the rest of the model (issue 49): PyEPO's shortest path (5 × 5
grid, degree 4) decomposed into two bands of grid rows (``shortest_path.regions``) — each a
min-cost flow with arcs into and out of the other band, which the min-cost-flow oracle solves by
successive shortest paths — against the same blocks on a solver (what ``"auto"`` chose before the
oracle: Gurobi where licensed, else HiGHS), in one process on the same instances; and the oracle
against its kernel called directly on the same weights (the wrapper's cost).

Times the training set's multipliers and 20 epochs of LD(SPO+, static, L1) as
``bench_unit_flow.py`` does, checks that the exact Lagrangian bounds agree (the training sets'
differ where optimal flows tie and the subgradient steps go different ways), and saves
``benchmarks/results/unit_flow/min_cost_flow.json``.

    python benchmarks/bench_min_cost_flow.py             # 200 training instances
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from bench_unit_flow import compare

import ldopt
from ldopt.oracles.min_cost_flow import MinCostFlowOracle, _flows
from ldopt.problems import shortest_path

OUT = Path(__file__).parent / "results" / "unit_flow" / "min_cost_flow.json"


def _per_call(oracle: MinCostFlowOracle, lam: np.ndarray, repeat: int = 20) -> tuple[float, float]:
    """Seconds per instance of the oracle and of its kernel called directly (best of ``repeat``)."""
    cost = -np.ascontiguousarray(lam[:, oracle.arcs])
    flow = np.zeros((len(lam), len(oracle.arcs)))
    o = oracle

    def kernel() -> None:
        _flows(cost, o.tails, o.heads, o.cap, o.balance, o.out_start, o.out_arcs, o.in_start, o.in_arcs, o.tol, flow)

    times = {}
    for name, call in (("oracle", lambda: oracle.argmax(lam)), ("kernel", kernel)):
        best = np.inf
        for _ in range(repeat):
            t0 = time.perf_counter()
            call()
            best = min(best, time.perf_counter() - t0)
        times[name] = best / len(lam)
    return times["oracle"], times["kernel"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--instances", type=int, default=200)
    ap.add_argument("--epochs", type=int, default=20)
    a = ap.parse_args()
    dec, inst, before, rows = compare(shortest_path.regions((5, 5), 2), a.instances, a.epochs)
    mine, theirs = rows
    # ties between optimal flows send the subgradient steps different ways: the training sets'
    # bounds differ a little, the exact Lagrangian bound does not
    apart = float(np.max(np.abs(np.subtract(mine["bound"], theirs["bound"])) / np.abs(theirs["bound"])))
    exact = [ldopt.lagrangian_bound(dec, inst.costs[:20], solver=s, progress=False).bound for s in ("auto", before)]
    np.testing.assert_allclose(exact[0], exact[1], rtol=1e-5)  # column generation's tolerance
    print(f"training sets' bounds at most {apart:.1e} apart (relative); LD* the same on 20 instances")
    lam = np.random.default_rng(0).normal(size=(200, dec.num_vars))
    calls = []
    for b in dec.blocks:
        oracle = b.solver("auto").oracle
        assert isinstance(oracle, MinCostFlowOracle)
        ours, direct = _per_call(oracle, lam)
        solver = b.solver(before)
        t0 = time.perf_counter()
        solver.argmax(lam)
        on_solver = (time.perf_counter() - t0) / len(lam)
        calls.append(dict(block=b.index, oracle_us=1e6 * ours, kernel_us=1e6 * direct, solver_us=1e6 * on_solver))
        print(
            f"block {b.index}: oracle {1e6 * ours:.1f} µs, kernel {1e6 * direct:.1f} µs "
            f"({ours / direct:.2f}×), {before} {1e6 * on_solver:.0f} µs ({on_solver / ours:.0f}×) per instance"
        )
    OUT.parent.mkdir(parents=True, exist_ok=True)
    summary = [{k: v for k, v in r.items() if k != "bound"} for r in rows]
    result = dict(instances=a.instances, epochs=a.epochs, runs=summary, calls=calls, training_bounds_apart=apart)
    OUT.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
