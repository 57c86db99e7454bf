"""How close each dual solve comes to the best Lagrangian bound, on every family, in one process.

The MKP is left out: its dense knapsack rows make a master of ``m·n`` link rows whose simplex
takes seconds a round (one n = 100 instance: 200 rounds, about 250 s, not converged), while the
Polyak rule has a target there from the repair heuristic.

The reference is ``LD*``, the LP relaxation of the decomposition (``max q·x`` over the
intersection of the blocks' convex hulls), computed exactly by column generation with a
certificate (:func:`ldopt.dual.lagrangian_bound`). Against it, for each family of
``ldopt_experiments.protocol`` and the portfolio (the training costs of the protocol's first
instances) and each mode (shared; independent and joint from the symmetric start), the default
300 iterations of the
Polyak rule and the exact ``step="master"``: the worst and mean relative gap of the
decompositions' bounds to ``LD*``, and the seconds. Ratios are master's time over Polyak's.

    python benchmarks/bench_dual_gap.py --instances 4

Results: ``benchmarks/results/dual_gap.json`` and a table on stdout.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from ldopt.dual import DualSettings, lagrangian_bound
from ldopt_experiments import protocol

MODES = ["shared", "independent", "joint"]
STEPS = ["polyak", "master"]


def family(name: str, instances: int) -> dict:
    """Every mode and step rule of one family against its exact ``LD*``."""
    setup = protocol.portfolio_setup() if name == "portfolio" else protocol.FAMILIES[name]()
    C = setup.train[1][:instances]
    ref = lagrangian_bound(setup.dec, C, progress=False)
    out = dict(
        blocks=setup.dec.num_blocks,
        variables=setup.problem.num_vars,
        certified_gap=float(ref.gap.max()),
        reference_seconds=ref.seconds,
        runs={},
    )
    for mode in MODES:
        for step in STEPS:
            start = None if mode == "shared" or step == "master" else DualSettings(mu0="symmetric")
            t0 = time.perf_counter()
            r = setup.dec.dual(C, start, mode=mode, step=step, progress=False)
            seconds = time.perf_counter() - t0
            gap = np.abs(r.run_bounds - ref.bound[:, None]) / np.maximum(1.0, np.abs(ref.bound[:, None]))
            out["runs"][f"{mode}:{step}"] = dict(
                seconds=seconds, worst_gap=float(gap.max()), mean_gap=float(gap.mean()), iterations=r.iterations
            )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--instances", type=int, default=4)
    ap.add_argument("--families", nargs="+", default=[*protocol.FAMILIES, "portfolio"])
    ap.add_argument("--out", default="benchmarks/results/dual_gap.json")
    a = ap.parse_args()
    results = {name: family(name, a.instances) for name in a.families}
    Path(a.out).write_text(json.dumps(dict(instances=a.instances, families=results), indent=1))
    print(f"relative gap to LD* (worst over {a.instances} instances and the decompositions), seconds:")
    head = ["polyak gap", "master gap", "polyak s", "master s"]
    print(f"{'family':18s} {'mode':12s} " + " ".join(f"{h:>11s}" for h in head) + " ratio")
    for name, res in results.items():
        for mode in MODES:
            p, m = res["runs"][f"{mode}:polyak"], res["runs"][f"{mode}:master"]
            print(
                f"{name:18s} {mode:12s} {p['worst_gap']:11.2e} {m['worst_gap']:11.2e} "
                f"{p['seconds']:11.2f} {m['seconds']:11.2f} {m['seconds'] / p['seconds']:5.2f}"
            )


if __name__ == "__main__":
    main()
