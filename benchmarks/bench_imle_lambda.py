"""I-MLE's settings (λ, σ, samples, noise scale, two-sided, L1/L2) against test regret, on epoch budgets.

LD(IMLE, multiple, L2 unless a setting says ``loss=L1``): a linear model, at most ``--epochs``
epochs with early stopping (validating every ``--eval-every`` epochs, ``--patience``
validations), for each setting and seed. MKP n = 100 (200/50/200, the default LD multipliers)
and the other families (300 shared dual steps, as ``examples/families.py``). Prints one line per
setting (mean test regret over the seeds, then each seed's) and, with ``--out``, writes every run
to ``<out>/runs.csv`` and the means to ``<out>/summary.md`` (runs of other settings already there
are kept).

    python benchmarks/bench_imle_lambda.py knapsack set_cover --lambd 10 30 100 300
    python benchmarks/bench_imle_lambda.py facility --settings lambd=100 lambd=1000,sigma=0.1 \\
        lambd=100,n_samples=8 --seeds 0 1 2 --epochs 500 --eval-every 5
"""

from __future__ import annotations

import argparse
import csv
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import ldopt_torch as lt
from ldopt.evaluate.regret import optima
from ldopt_experiments.protocol import FAMILIES, knapsack_setup
from ldopt_experiments.runner import linear_run


def _flag(text: str) -> bool:
    if text.lower() not in ("true", "false"):
        raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")
    return text.lower() == "true"


KEYS: dict[str, Callable[[str], Any]] = dict(
    loss=str, lambd=float, sigma=float, n_samples=int, scale=str, two_sides=_flag
)
LOSS_KEYS = ("loss", "scale")
"""The settings of ``LDLoss`` (its target and its noise's scale); the others are ``IMLE``'s."""


def loss_of(dec: Any, kw: dict[str, Any]) -> lt.LDLoss:
    """``LDLoss(dec, IMLE(…), loss, scale=…)`` for one setting (``loss`` L2 unless it says L1)."""
    imle = lt.IMLE(**{k: v for k, v in kw.items() if k not in LOSS_KEYS})
    return lt.LDLoss(dec, imle, kw.get("loss", "L2"), scale=kw.get("scale", "none"))


def setting(text: str) -> dict[str, Any]:
    """``"lambd=100,sigma=0.1"`` as ``LDLoss`` keyword arguments."""
    out: dict[str, Any] = {}
    for part in text.split(","):
        key, eq, value = part.partition("=")
        if not eq or key not in KEYS:
            raise argparse.ArgumentTypeError(f"expected key=value with a key among {sorted(KEYS)}, got {part!r}")
        out[key] = KEYS[key](value)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("problems", nargs="+", choices=["knapsack", *sorted(FAMILIES)])
    ap.add_argument("--lambd", nargs="+", type=float, default=None, help="λ values (default 10 30 100 300)")
    ap.add_argument("--settings", nargs="+", type=setting, default=[], help="LDLoss settings: key=value,…")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--eval-every", type=int, default=2)
    ap.add_argument("--patience", type=int, default=4)
    ap.add_argument("--seeds", nargs="+", type=int, default=[0])
    ap.add_argument("--out", default=None, help="folder for runs.csv and summary.md")
    a = ap.parse_args()
    lambdas = a.lambd if a.lambd is not None else ([] if a.settings else [10.0, 30.0, 100.0, 300.0])
    settings = [dict(lambd=lam) for lam in lambdas] + a.settings
    rows: list[dict[str, Any]] = []
    schedule = lt.Schedule(patience=a.patience, eval_every=a.eval_every)
    for name in a.problems:
        s = knapsack_setup(100, train=200, val=50, test=200) if name == "knapsack" else FAMILIES[name](train=200)
        dual = lt.DEFAULTS.dual if name == "knapsack" else lt.DEFAULTS.dual.merged(iterations=300, mode="shared")
        data = lt.LDDataset(s.dec, *s.train, dual, progress=False)
        val = lt.Validator(s.problem, *s.val, solver="highs")
        test_opt = optima(s.problem, s.test[1], "highs")
        for kw in settings:
            label = ",".join(f"{k}={v}" for k, v in kw.items())
            tests = []
            for seed in a.seeds:
                loss = loss_of(s.dec, kw)
                out, percent = linear_run(s, data, loss, "multiple", seed, val, schedule, test_opt, a.epochs)
                test = percent / 100
                tests.append(test)
                rows.append(
                    dict(problem=name, setting=label, seed=seed, val=out.best_val, test=test, stopped=out.stopped)
                )
            each = " ".join(f"{t:.2%}" for t in tests)
            print(f"{name} {label}: test {np.mean(tests):.2%} ({each})", flush=True)
    if a.out:
        _save(Path(a.out), rows, a)


def _save(out: Path, rows: list[dict[str, Any]], a: argparse.Namespace) -> None:
    """Write the runs, keeping those of other settings already in ``runs.csv`` (numbers as text)."""
    out.mkdir(parents=True, exist_ok=True)
    if (out / "runs.csv").exists():
        new = {(r["problem"], r["setting"]) for r in rows}
        with open(out / "runs.csv", newline="") as f:
            old = [r for r in csv.DictReader(f) if (r["problem"], r["setting"]) not in new]
        rows = [*({**r, "seed": int(r["seed"]), "val": float(r["val"]), "test": float(r["test"])} for r in old), *rows]
    with open(out / "runs.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    lines = [
        f"LD(IMLE, multiple), ≤ {a.epochs} epochs validated every {a.eval_every}, patience {a.patience}, "
        f"seeds {' '.join(map(str, a.seeds))}: test relative regret % (mean, then each seed)",
        "",
        "| problem | setting | mean | seeds |",
        "|---|---|---|---|",
    ]
    keys = dict.fromkeys((r["problem"], r["setting"]) for r in rows)
    for problem, label in keys:
        t = [100 * r["test"] for r in rows if (r["problem"], r["setting"]) == (problem, label)]
        lines.append(f"| {problem} | {label} | {np.mean(t):.2f} | {' '.join(f'{x:.2f}' for x in t)} |")
    (out / "summary.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
