"""Which multipliers to train on, and what they cost: the paper's independent runs against cheaper
constructions, measured with the experiment runner in one process.

For each construction (dual mode and subgradient iterations) on the MKP protocol: its time, the
mean bound above the optimum over the decompositions (20 instances solved exactly), the scale of
the main objective ``mean|λ_d| / mean|c|``, and the test regret of LD(SPO+, multiple, L1) and
LD(IMLE, multiple, L2) trained on it (epoch budget with early stopping, so the regrets do not
depend on the machine's load). Ratios are against the paper's runs as the main job used them
(``independent``, 100 iterations).

    python benchmarks/bench_multipliers.py --size 100 --seeds 0 1 2

Each construction's summary is kept beside its runs (``entry.json``); a rerun skips those and
rebuilds the table from every construction on disk.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

import ldopt_experiments as ex

BASELINE = "independent:100"
CONFIGS = ["independent:100", "independent:10", "independent:30", "joint:10", "joint:30", "joint:100", "shared:300"]
METHODS = ["ld:spo+:multiple:L1", "ld:imle:multiple:L2"]


def construction(setup: ex.Setup, mode: str, iterations: int, solver: str) -> dict:
    """Time, bound above the optimum and main-objective scale of one construction."""
    C = setup.train[1]
    t0 = time.perf_counter()
    r = setup.dec.dual(C, iterations=iterations, mode=mode, progress=False)
    seconds = time.perf_counter() - t0
    opt = setup.problem.solve(C[:20], solver=solver).objective
    m = setup.dec.num_blocks
    gap = np.mean([np.mean((r.bound_of(d)[:20] - opt) / np.abs(opt)) for d in range(m)])
    scale = np.mean([np.abs(r.main_objective(d)).mean() / np.abs(C).mean() for d in range(m)])
    return dict(seconds=seconds, bound_gap=100 * gap, main_scale=float(scale))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=100)
    ap.add_argument("--rows", type=int, default=10)
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    ap.add_argument("--configs", nargs="+", default=CONFIGS, help="mode:iterations")
    ap.add_argument("--epochs", type=int, default=300)
    ap.add_argument("--patience", type=int, default=20)
    ap.add_argument("--eval-every", type=int, default=1)
    ap.add_argument("--solver", default="gurobi")
    ap.add_argument("--out", default="benchmarks/results/multipliers")
    ap.add_argument("--force", action="store_true", help="rerun constructions that have results")
    a = ap.parse_args()
    setup = ex.knapsack_setup(a.size, dim=a.rows)
    out = Path(a.out) / f"mkp{a.size}"
    for cfg in a.configs:
        entry_file = out / cfg.replace(":", "_") / "entry.json"
        if entry_file.exists() and not a.force:  # resumable: a finished construction is kept
            print(f"{cfg}: kept from {entry_file} (--force reruns it)", flush=True)
            continue
        mode, it = cfg.split(":")
        c = construction(setup, mode, int(it), a.solver)
        rows = ex.run(
            setup,
            METHODS,
            a.seeds,
            ex.RunOptions(
                solver=a.solver,
                epochs=a.epochs,
                patience=a.patience,
                eval_every=a.eval_every,
                dual=ex.protocol_dual(mode, iterations=int(it)),
                curve_instances=0,
                out=out / cfg.replace(":", "_"),
                progress=False,
                resume=not a.force,  # runs saved there are kept (delete one's runs/*.json to redo it)
            ),
        )
        entry = dict(config=cfg, **c)
        for method in METHODS:
            mean, half = ex.mean_ci([r["test_regret"] for r in rows if r["method"] == method])
            entry[method] = mean
            entry[method + " ci"] = half
        entry_file.write_text(json.dumps(entry, indent=1))
        print(json.dumps(entry), flush=True)
    summary = [
        json.loads(f.read_text()) for cfg in CONFIGS if (f := out / cfg.replace(":", "_") / "entry.json").exists()
    ]
    if not summary:
        return
    base = next((s for s in summary if s["config"] == BASELINE), summary[0])
    lines = [
        f"MKP n={a.size}, m={a.rows}, {len(a.seeds)} seeds, test regret % (mean ± 95% CI), "
        f"epochs ≤ {a.epochs} with patience {a.patience}",
        "| multipliers | seconds | cost vs "
        + base["config"]
        + " | bound above optimum % | mean|λ_d|/mean|c| | "
        + " | ".join(ex.label(m) for m in METHODS)
        + " |",
        "|---|---|---|---|---|" + "---|" * len(METHODS),
    ]
    for s in summary:
        cells = " | ".join(f"{s[m]:.3f} ± {s[m + ' ci']:.3f}" for m in METHODS)
        lines.append(
            f"| {s['config']} | {s['seconds']:.1f} | {s['seconds'] / base['seconds']:.2f}× | "
            f"{s['bound_gap']:.2f} | {s['main_scale']:.3f} | {cells} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.md").write_text(text)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
