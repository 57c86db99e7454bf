"""I-MLE's settings on the zoo and the families: the test regret of LD(IMLE, multiple, L2) with the
reference code's λ = 10, with λ = 100, and with λ = 100 and noise relative to the main objective
(``scale="unit"``), each with the library's defaults otherwise (the symmetric multipliers, the MSE
warm start), beside MSE.

Usage: ``python benchmarks/bench_zoo_imle.py [--train 200] [--epochs 100] [--seed 0]``; prints a
table and writes ``benchmarks/results/zoo/imle.json``. Epoch budgets with early stopping, as in
``bench_zoo_training.py``: the regrets do not depend on the machine's load.
"""

from __future__ import annotations

import numpy as np
from bench_zoo_training import Case, arguments, cases, save

import ldopt_torch as lt

SETTINGS = {"lam10": (10.0, "none"), "lam100": (100.0, "none"), "lam100_unit": (100.0, "unit")}


def measure(case: Case, epochs: int, seed: int) -> dict:
    """One model's row: the test regret (%) of MSE and of each I-MLE setting."""
    row = dict(model=case.name, mse=case.mse(epochs, seed))
    data = lt.LDDataset(case.dec, case.Ft, case.Ct, progress=False)
    for label, (lambd, scale) in SETTINGS.items():
        loss = lt.LDLoss(case.dec, lt.IMLE(lambd=lambd), "L2", scale=scale)
        fitted = case.train(data, loss, "multiple", epochs, seed, lt.DEFAULTS)
        row[label] = case.regret(fitted.model)
        row[f"{label}_improved"] = bool(fitted.improved)
    return row


def main() -> None:
    a = arguments(__doc__)
    print("| model | MSE | " + " | ".join(SETTINGS) + " |", flush=True)
    rows = []
    for case in cases((a.train, a.val, 200), a.models):
        rows.append(measure(case, a.epochs, a.seed))
        r = rows[-1]
        print(f"| {case.name} | {r['mse']:.2f} | " + " | ".join(f"{r[k]:.2f}" for k in SETTINGS) + " |", flush=True)
    for k in SETTINGS:
        print(f"{k}: better than MSE on {sum(r[k] < r['mse'] for r in rows)} of {len(rows)}; median "
              f"{np.median([r[k] for r in rows]):.2f}%")  # fmt: skip
    save(a, "imle.json", rows)


if __name__ == "__main__":
    main()
