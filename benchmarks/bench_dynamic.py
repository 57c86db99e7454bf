"""Multipliers that follow the model (``lt.DynamicMultipliers``) against the paper's fixed ones,
measured with the experiment runner in one process.

For each configuration — ``static`` (the multipliers of ``LDDataset``'s default construction, fixed)
or ``EVERY:STEPS:MIX`` (every EVERY epochs, STEPS warm-started dual steps on ``c + MIX (ĉ − c)``) —
it trains LD(SPO+, multiple, L1) and LD(IMLE, multiple, L2) with an epoch budget and early stopping
(so the regrets do not depend on the machine's load) and reports the test regret, the training time
to the best model and the whole training time, both *including the dual steps taken during
training*, and those dual seconds (means over seeds). Ratios are against ``static``.

    python benchmarks/bench_dynamic.py knapsack --size 100 --seeds 0 1 2 3 4
    python benchmarks/bench_dynamic.py portfolio --size 50 --seeds 0 1 2 3 4
    python benchmarks/bench_dynamic.py knapsack --size 300 --budget 30   # equal total time

Each configuration's runs are kept in its own folder (``entry.json``); a rerun skips those that are
there and rebuilds the table from every configuration on disk, so several processes can share the
work (``--configs``).
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

import ldopt_experiments as ex
from ldopt_experiments.arguments import dynamic_option
from ldopt_experiments.results import load_rows, stem

BASELINE = "static"
CONFIGS = [BASELINE, "10:5:0.5", "10:5:1", "10:5:0"]
METHODS = ["ld:spo+:multiple:L1", "ld:imle:multiple:L2"]


def folder(out: Path, cfg: str) -> Path:
    return out / cfg.replace(":", "_")


def training_seconds(out: Path, cfg: str, setup: ex.Setup, method: str, seed: int) -> float:
    """A run's whole training time (dual updates included), from its saved history's last row."""
    with (folder(out, cfg) / "histories" / f"{stem(setup.name, setup.size, method, seed)}.csv").open() as fh:
        return float(list(csv.DictReader(fh))[-1]["time"])


def methods_of(entry: dict) -> list[str]:
    """The methods an entry has results for, in :data:`METHODS`' order."""
    return [m for m in METHODS if f"{m} test_regret" in entry]


def add_training_seconds(entry: dict, out: Path, setup: ex.Setup) -> dict:
    """``entry`` with each method's mean training time to the end of the run."""
    for method in methods_of(entry):
        secs = [training_seconds(out, entry["config"], setup, method, s) for s in entry["seeds"]]
        entry[f"{method} train_s"], entry[f"{method} train_s ci"] = ex.mean_ci(secs)
    return entry


def measure(setup: ex.Setup, cfg: str, a: argparse.Namespace, out: Path) -> dict:
    """Train every method for every seed with configuration ``cfg``; its summary entry."""
    ex.run(
        setup,
        a.methods,
        a.seeds,
        ex.RunOptions(
            solver=a.solver,
            epochs=a.epochs if a.budget is None else 100_000,
            patience=a.patience,
            eval_every=a.eval_every if a.budget is None else 0,
            budget=a.budget,
            dynamic=None if cfg == BASELINE else dynamic_option(cfg),
            curve_instances=0,
            out=folder(out, cfg),
            progress=False,
        ),
    )
    rows = load_rows(folder(out, cfg) / "results.csv")  # this run's seeds and earlier ones (--force)
    entry: dict = dict(config=cfg, seeds=sorted({int(r["seed"]) for r in rows}))
    for method in sorted({r["method"] for r in rows}):
        mine = [r for r in rows if r["method"] == method]
        for key in ("test_regret", "time_to_best", "dual_s", "epochs"):
            mean, half = ex.mean_ci([float(r[key]) for r in mine])
            entry[f"{method} {key}"] = mean
            entry[f"{method} {key} ci"] = half
        entry[f"{method} runs"] = [float(r["test_regret"]) for r in mine]
    return entry


def summary_table(entries: list[dict], title: str) -> str:
    base = next((e for e in entries if e["config"] == BASELINE), entries[0])
    lines = [title, ""]
    for method in methods_of(base):
        lines += [
            f"{ex.label(method)}",
            "",
            "| multipliers | test regret % | vs static | time to best (s) | training (s) | dual (s) | epochs |",
            "|---|---|---|---|---|---|---|",
        ]
        for e in (e for e in entries if method in methods_of(e)):
            reg, ci = e[f"{method} test_regret"], e[f"{method} test_regret ci"]
            ratio = reg / base[f"{method} test_regret"]
            lines.append(
                f"| {e['config']} | {reg:.3f} ± {ci:.3f} | {ratio:.3f}× | {e[f'{method} time_to_best']:.1f} | "
                f"{e[f'{method} train_s']:.1f} | {e[f'{method} dual_s']:.1f} | {e[f'{method} epochs']:.0f} |"
            )
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("problem", choices=["knapsack", "portfolio"])
    ap.add_argument("--size", type=int, default=100)
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    ap.add_argument("--methods", nargs="+", default=METHODS, choices=METHODS)
    ap.add_argument("--configs", nargs="*", default=CONFIGS, help="static or EVERY:STEPS:MIX (none: the table only)")
    ap.add_argument("--epochs", type=int, default=300)
    ap.add_argument("--patience", type=int, default=4, help="validations without improvement")
    ap.add_argument("--eval-every", type=int, default=5)
    ap.add_argument(
        "--budget",
        type=float,
        default=None,
        help="seconds of training per run (dual updates included) instead of epochs: equal total time, "
        "load-dependent; results go to <problem><size>_budget<S>/",
    )
    ap.add_argument("--test", type=int, default=1000)
    ap.add_argument("--solver", default="auto")
    ap.add_argument("--out", default="benchmarks/results/dynamic")
    ap.add_argument(
        "--force", action="store_true", help="run configurations that have results (their other seeds are kept)"
    )
    a = ap.parse_args()
    for cfg in a.configs:
        if cfg != BASELINE:
            dynamic_option(cfg)  # fail early on a bad configuration
    if a.problem == "knapsack":
        setup = ex.knapsack_setup(a.size, test=a.test)
    else:
        setup = ex.portfolio_setup(a.size, test=a.test)
    out = Path(a.out) / (f"{a.problem}{a.size}" + ("" if a.budget is None else f"_budget{a.budget:g}"))
    for cfg in a.configs:
        entry_file = folder(out, cfg) / "entry.json"
        if entry_file.exists() and not a.force:  # resumable: a finished configuration is kept
            print(f"{cfg}: kept from {entry_file} (--force reruns it)", flush=True)
            continue
        entry = measure(setup, cfg, a, out)
        entry_file.write_text(json.dumps(entry, indent=1))
        print(json.dumps({k: v for k, v in entry.items() if not k.endswith("runs")}), flush=True)
    entries = [add_training_seconds(json.loads(f.read_text()), out, setup) for f in sorted(out.glob("*/entry.json"))]
    entries.sort(key=lambda e: (e["config"] != BASELINE, e["config"]))
    if not entries:
        return
    seeds = sorted({s for e in entries for s in e["seeds"]})
    budget = (
        f"epochs ≤ {a.epochs}, validated every {a.eval_every} with patience {a.patience}"
        if a.budget is None
        else f"{a.budget:g} s of training per run (dual updates included; load-dependent)"
    )
    title = (
        f"{setup.name} n={setup.size}: seeds {seeds}, test regret % (mean ± 95% CI over seeds), {budget}; "
        f"{len(setup.test[1])} test instances; solver {a.solver}; starting multipliers: LDDataset's default"
    )
    text = summary_table(entries, title)
    print(text)
    (out / "summary.md").write_text(text)
    (out / "summary.json").write_text(json.dumps(entries, indent=1))


if __name__ == "__main__":
    main()
