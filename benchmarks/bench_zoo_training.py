"""Training on the zoo and the families: the test regret of MSE and of LD(SPO+, multiple, L1) with
the paper's settings (``lt.PAPER``: multipliers from ``μ = 1``, training from the model as it
comes), from the symmetric multipliers alone (``mu0="symmetric"``), and with the library's
defaults (``lt.DEFAULTS``: the symmetric multipliers and the MSE warm start), against the constant
predictor (the training costs' mean). Each training validates on its own ``Validator`` (the
optima shared, no decisions carried from one training to the next).

Usage: ``python benchmarks/bench_zoo_training.py [--train 200] [--epochs 100] [--seed 0]``; prints
a table and writes ``benchmarks/results/zoo/training.json``. Epoch budgets with early stopping
(validated every 5 epochs, patience 4): the regrets do not depend on the machine's load.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch

import ldopt_torch as lt
from ldopt.cache import write_text
from ldopt.problems import family
from ldopt_experiments.protocol import splits
from ldopt_experiments.zoo import ZOO

FAMILIES = {"shortest_path": 4, "facility": 6, "set_cover": 16, "lot_sizing": 2, "shift_scheduling": 4}


def _train(data, loss, val, mode: str, epochs: int, seed: int, outputs: int, preset) -> lt.FitResult:
    torch.manual_seed(seed)
    model = torch.nn.Linear(data.num_features, outputs)
    schedule = lt.Schedule(patience=4, eval_every=5)
    return lt.fit(
        model,
        data,
        loss,
        mode,
        None,
        epochs,
        val=val(),
        lr=1e-2,
        seed=seed,
        progress=False,
        schedule=schedule,
        options=preset.fit_options(),
    )


def measure(name: str, inst, n: tuple[int, int, int], epochs: int, seed: int) -> dict:
    """One model's row: the test regret (%) of each method."""
    p = inst.problem()
    dec = inst.decompose(p)
    (Ft, Ct), (Fv, Cv), (Fs, Cs) = splits(inst.features, inst.costs, n)
    test_opt = lt.Validator(p, Fs, Cs).optima

    def regret(pred: np.ndarray) -> float:
        return 100 * lt.relative_regret(p, pred, Cs, optima=test_opt)

    row = dict(model=name, constant=regret(np.repeat(Ct.mean(0, keepdims=True), len(Cs), axis=0)))
    val_opt = lt.Validator(p, Fv, Cv).optima
    val = lambda: lt.Validator(p, Fv, Cv, optima=val_opt)  # noqa: E731
    test = torch.as_tensor(Fs, dtype=torch.float32)
    mse = _train(lt.OptDataset(p, Ft, Ct), lt.MSELoss(), val, "static", epochs, seed, p.num_costs, lt.PAPER)
    row["mse"] = regret(mse.model(test).detach().numpy())
    paper = lt.LDDataset(dec, Ft, Ct, progress=False, preset=lt.PAPER)
    symmetric = lt.LDDataset(dec, Ft, Ct, progress=False)
    for label, data, preset in (
        ("ld_paper", paper, lt.PAPER),
        ("ld_symmetric", symmetric, lt.PAPER),
        ("ld_default", symmetric, lt.DEFAULTS),
    ):
        fitted = _train(data, lt.LDLoss(dec, "spo+", "L1"), val, "multiple", epochs, seed, p.num_costs, preset)
        row[label] = regret(fitted.model(test).detach().numpy())
        if fitted.improved is not None:
            row[f"{label}_improved"] = bool(fitted.improved)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", type=int, default=200)
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="benchmarks/results/zoo")
    a = ap.parse_args()
    n = (a.train, 50, 200)
    rows = []
    print("| model | constant | MSE | LD paper | LD symmetric | LD defaults | LD beat its MSE start |", flush=True)
    models = [(name, z.family()) for name, z in ZOO.items()]
    models += [(name, family(name)) for name in FAMILIES]
    for name, fam in models:
        size = FAMILIES.get(name)
        inst = fam.instances(sum(n), size, deg=4, seed=42)
        rows.append(measure(name, inst, n, a.epochs, a.seed))
        r = rows[-1]
        cells = " | ".join(f"{r[k]:.2f}" for k in ("constant", "mse", "ld_paper", "ld_symmetric", "ld_default"))
        print(f"| {name} | {cells} | {r['ld_default_improved']} |", flush=True)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    write_text(
        out / "training.json", json.dumps(dict(train=a.train, epochs=a.epochs, seed=a.seed, rows=rows), indent=1)
    )


if __name__ == "__main__":
    main()
