"""The dual's step rule on models written by others (``ldopt_experiments.zoo``) and on the problem
families: how far each rule's bound stays from the exact Lagrangian bound ``LD*``
(``ldopt.lagrangian_bound``), and its time, over the same instances.

Usage: ``python benchmarks/bench_zoo.py [--instances 8] [--out benchmarks/results/zoo] [--models NAME
...]``; prints a table and writes ``dual_steps.json`` (with ``--models``, only those rows are measured
again, the others kept from the saved file). Times are this machine's; the gaps do not depend on it.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

import ldopt
from ldopt.problems import family
from ldopt.runtime.cache import write_text
from ldopt_experiments.zoo import ZOO

FAMILIES = {"shortest_path": 4, "facility": 6, "set_cover": 16, "lot_sizing": 2, "shift_scheduling": 4}


def measure(name: str, inst: ldopt.problems.Instances) -> dict:
    """One model's row: its size, the bounds inferred, and each step rule's gap to LD* and time."""
    p = inst.problem()
    dec = ldopt.decompose(p, inst.blocks)
    C = inst.costs
    exact = ldopt.lagrangian_bound(dec, C, progress=False)
    scale = np.maximum(1e-9, np.abs(exact.bound))
    row = dict(
        model=name,
        vars=p.num_vars,
        rows=p.num_constraints,
        blocks=dec.num_blocks,
        inferred=sum(len(v) for v in dec.inferred.values()) + len(p.compiled.implied),
        ld_converged=bool(exact.converged.all()),
    )
    for step in ("polyak", "auto"):
        t0 = time.perf_counter()
        r = dec.dual(C, step=step, progress=False)
        row[f"{step}_gap"] = float(np.median(np.abs(r.bound - exact.bound) / scale))
        row[f"{step}_seconds"] = time.perf_counter() - t0
        row[f"{step}_rule"] = r.step
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", type=int, default=8)
    ap.add_argument("--out", default="benchmarks/results/zoo")
    ap.add_argument(
        "--models",
        nargs="+",
        choices=[*ZOO, *FAMILIES],
        help="measure only these, keeping the saved rows of the others",
    )
    a = ap.parse_args()
    out = Path(a.out)
    kept = {}
    if a.models and (out / "dual_steps.json").exists():
        saved = json.loads((out / "dual_steps.json").read_text())
        if saved["instances"] != a.instances:
            ap.error(f"--models: the saved rows are of {saved['instances']} instances, not {a.instances}")
        kept = {r["model"]: r for r in saved["rows"]}

    def row(name: str, inst: ldopt.problems.Instances) -> dict:
        return measure(name, inst) if not a.models or name in a.models or name not in kept else kept[name]

    rows = [row(name, z.family().instances(a.instances, deg=2, seed=1)) for name, z in ZOO.items()]
    rows += [row(name, family(name).instances(a.instances, size, deg=2, seed=1)) for name, size in FAMILIES.items()]
    print("| model | vars | rows | bounds inferred | polyak: gap to LD* (s) | auto: rule, gap (s) |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['model']} | {r['vars']} | {r['rows']} | {r['inferred']} | {r['polyak_gap']:.3%} "
            f"({r['polyak_seconds']:.2f}) | {r['auto_rule']}, {r['auto_gap']:.3%} ({r['auto_seconds']:.2f}) |"
        )
    worse = [r["model"] for r in rows if r["auto_gap"] > r["polyak_gap"] + 1e-9]
    print(f"auto's bound is at least as close to LD* as polyak's on {len(rows) - len(worse)} of {len(rows)} models")
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / "dual_steps.json", json.dumps(dict(instances=a.instances, rows=rows), indent=1))


if __name__ == "__main__":
    main()
