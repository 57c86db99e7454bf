"""I-MLE's noise scale: the reference's fixed σ against σ relative to the main objective, on epoch budgets.

LD(IMLE, ·, L2) with ``LDLoss(scale=...)``: ``none`` is the reference (σ = 1 whatever the
objective's scale), ``costs`` rescales the main subproblem to the costs' scale, ``unit`` makes σ
relative to the main objective (``σ·mean|λ_d|``). MKP n = 100 (200/50/200, multiple mode, the
default multipliers) and the portfolio n = 50 (100/25/1000, static on the risk block, the
protocol's multipliers). Each run: at most ``--epochs`` epochs, validated every
``--eval-every`` epochs, stopped after ``--patience`` validations without improvement, Gurobi
where licensed. Prints one line per run and a summary (mean ± 95% CI over seeds); saves
``runs.csv`` and ``summary.md`` under ``--out``, keeping the runs of problems not rerun.

    python benchmarks/bench_imle_noise.py --problems knapsack
    python benchmarks/bench_imle_noise.py --problems portfolio
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import torch

import ldopt_torch as lt
from ldopt_experiments.protocol import Setup, knapsack_setup, portfolio_setup
from ldopt_experiments.results import mean_ci

CONFIGS = ["none:1", "costs:1", "unit:0.1", "unit:0.3", "unit:1"]


def _setup(name: str) -> tuple[Setup, str]:
    if name == "knapsack":
        return knapsack_setup(100, train=200, val=50, test=200), "multiple"
    return portfolio_setup(50), "static"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--problems", nargs="+", default=["knapsack", "portfolio"], choices=["knapsack", "portfolio"])
    ap.add_argument("--configs", nargs="+", default=CONFIGS, help="SCALE:SIGMA, SCALE one of none, costs, unit")
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    ap.add_argument("--epochs", type=int, default=300)
    ap.add_argument("--eval-every", type=int, default=5)
    ap.add_argument("--patience", type=int, default=4)
    ap.add_argument("--out", default="benchmarks/results/imle_noise")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, object]] = []
    for name in a.problems:
        s, mode = _setup(name)
        data = lt.LDDataset(s.dec, *s.train, progress=False)  # mu0="auto": symmetric (a quadratic row)
        val = lt.Validator(s.problem, *s.val, solver="auto")
        for config in a.configs:
            scale, sigma = config.split(":")
            for seed in a.seeds:
                torch.manual_seed(seed)
                model = torch.nn.Linear(s.train[0].shape[1], s.problem.num_costs)
                loss = lt.LDLoss(s.dec, lt.IMLE(sigma=float(sigma)), "L2", scale=scale)
                fit = lt.fit(
                    model,
                    data,
                    loss,
                    mode=mode,
                    main=s.main if mode == "static" else None,
                    epochs=a.epochs,
                    val=val,
                    lr=s.lr,
                    seed=seed,
                    progress=False,
                    schedule=lt.Schedule(patience=a.patience, eval_every=a.eval_every),
                )
                pred = fit.model(torch.as_tensor(s.test[0], dtype=torch.float32))
                test = 100 * float(lt.relative_regret(s.problem, pred, s.test[1], solver="auto"))
                row = dict(problem=name, config=config, seed=seed, test_regret=test, epochs=fit.epochs)
                rows.append(row)
                print(f"{name} {config} seed {seed}: test {test:.3f}% ({fit.epochs} epochs)", flush=True)
    save(out, [r for r in load(out) if r["problem"] not in a.problems] + rows)


def load(out: Path) -> list[dict[str, object]]:
    """The runs already saved under ``out`` (an earlier invocation's other problems are kept)."""
    if not (out / "runs.csv").exists():
        return []
    with open(out / "runs.csv", newline="") as f:
        return list(csv.DictReader(f))


def save(out: Path, rows: list[dict[str, object]]) -> None:
    """``runs.csv`` and ``summary.md`` (mean ± 95% CI per problem and setting) under ``out``."""
    with open(out / "runs.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["problem", "config", "seed", "test_regret", "epochs"])
        w.writeheader()
        w.writerows(rows)
    lines = ["| problem | scale:σ | test regret % (mean ± 95% CI) | seeds |", "|---|---|---|---|"]
    for name in dict.fromkeys(str(r["problem"]) for r in rows):
        for config in dict.fromkeys(str(r["config"]) for r in rows if r["problem"] == name):
            vals = [float(str(r["test_regret"])) for r in rows if r["problem"] == name and r["config"] == config]
            m, ci = mean_ci(vals)
            lines.append(f"| {name} | {config} | {m:.3f} ± {ci:.3f} | {len(vals)} |")
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
