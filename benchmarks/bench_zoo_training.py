"""Training on the zoo and the families: the test regret of MSE and of LD(SPO+, multiple, L1) with
the paper's settings (``lt.PAPER``: multipliers from ``μ = 1``, training from the model as it
comes), from the symmetric multipliers alone (``mu0="symmetric"``), and with the library's
defaults (``lt.DEFAULTS``: the symmetric multipliers and the MSE warm start, or the constant
predictor's where it validates better), against the constant predictor (the training costs'
mean). For the defaults, whether LD beat its start on validation and by how many standard errors
of the per-instance differences (``FitResult.improvement_t``). Each training validates on its
own ``Validator`` (the optima shared, no decisions carried from one training to the next).

Usage: ``python benchmarks/bench_zoo_training.py [--train 200] [--val 50] [--epochs 100] [--seed 0]
[--models NAME ...] [--file NAME.json]``; prints a table and writes
``benchmarks/results/zoo/training.json`` (``training_val<N>.json`` with ``--val N``; the instances
after the training and validation ones are the test set). A model whose cost Param declares a
domain (the costs' sign) predicts through a softplus, so its predictions stay in it. Epoch budgets
with early stopping (validated every 5 epochs, patience 4): the regrets do not depend on the
machine's load.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import torch

import ldopt
import ldopt_torch as lt
from ldopt.problems import family
from ldopt.runtime.cache import write_text
from ldopt_experiments.protocol import splits
from ldopt_experiments.zoo import ZOO

VAL = 50  # the validation instances of the committed tables (training.json, imle.json)
FAMILIES = {"shortest_path": 4, "facility": 6, "set_cover": 16, "lot_sizing": 2, "shift_scheduling": 4}


def _train(data, loss, val, mode: str, epochs: int, seed: int, outputs: int, preset) -> lt.FitResult:
    torch.manual_seed(seed)
    model: torch.nn.Module = torch.nn.Linear(data.num_features, outputs)
    if data.problem.compiled.declares_costs:  # the costs' declared domain: the predictions stay in it
        model = torch.nn.Sequential(model, torch.nn.Softplus())
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


class Case:
    """One model's instances split into training, validation and test (200/50/200 by default): the
    training arrays, a fresh validator per training (the optima solved once, no decisions carried
    between trainings) and the test regret (%)."""

    def __init__(self, name: str, inst, n: tuple[int, int, int]) -> None:
        self.name, self.problem = name, inst.problem()
        self.dec = ldopt.decompose(self.problem, inst.blocks)
        (self.Ft, self.Ct), (self.Fv, self.Cv), (Fs, self.Cs) = splits(inst.features, inst.costs, n)
        self.test = torch.as_tensor(Fs, dtype=torch.float32)
        self.test_opt = lt.Validator(self.problem, Fs, self.Cs).optima
        self.val_opt = lt.Validator(self.problem, self.Fv, self.Cv).optima

    def val(self) -> lt.Validator:
        return lt.Validator(self.problem, self.Fv, self.Cv, optima=self.val_opt)

    def regret(self, pred: np.ndarray | torch.nn.Module) -> float:
        if isinstance(pred, torch.nn.Module):
            pred = pred(self.test).detach().numpy()
        return 100 * lt.relative_regret(self.problem, pred, self.Cs, optima=self.test_opt)

    def train(self, data, loss, mode: str, epochs: int, seed: int, preset: lt.Preset) -> lt.FitResult:
        return _train(data, loss, self.val, mode, epochs, seed, self.problem.num_costs, preset)

    def mse(self, epochs: int, seed: int) -> float:
        """MSE's test regret (%)."""
        fitted = self.train(
            lt.OptDataset(self.problem, self.Ft, self.Ct), lt.MSELoss(), "static", epochs, seed, lt.PAPER
        )
        return self.regret(fitted.model)


def cases(n: tuple[int, int, int], models: list[str] | None = None) -> Iterator[Case]:
    """The zoo's models and the families, one after the other (degree 4, data seed 42); only
    ``models`` where given."""
    for name, z in ZOO.items():
        if models is None or name in models:
            yield Case(name, z.family().instances(sum(n), None, deg=4, seed=42), n)
    for name, size in FAMILIES.items():
        if models is None or name in models:
            yield Case(name, family(name).instances(sum(n), size, deg=4, seed=42), n)


def arguments(doc: str | None) -> argparse.Namespace:
    """The command line the zoo's training benchmarks share."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", type=int, default=200)
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--val", type=int, default=VAL, help=f"validation instances (<name>_val<N>.json unless {VAL})")
    ap.add_argument("--out", default="benchmarks/results/zoo")
    ap.add_argument("--models", nargs="+", choices=[*ZOO, *FAMILIES], help="only these models (default: all)")
    ap.add_argument("--file", help="the results file's name (default: the benchmark's own)")
    return ap.parse_args()


def save(a: argparse.Namespace, name: str, rows: list[dict]) -> None:
    """``rows`` as ``<out>/<name>`` (``<stem>_val<N>.json`` with other than 50 validation instances)
    with the run's settings."""
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    name = a.file or name
    settings = dict(train=a.train, epochs=a.epochs, seed=a.seed)
    if a.val != VAL:
        name, settings["val"] = f"{Path(name).stem}_val{a.val}.json", a.val
    write_text(out / name, json.dumps(dict(settings, rows=rows), indent=1))


def measure(case: Case, epochs: int, seed: int) -> dict:
    """One model's row: the test regret (%) of each method."""
    mean = np.repeat(case.Ct.mean(0, keepdims=True), len(case.Cs), axis=0)
    row = dict(model=case.name, constant=case.regret(mean), mse=case.mse(epochs, seed))
    paper = lt.LDDataset(case.dec, case.Ft, case.Ct, lt.PAPER.dual, progress=False)
    symmetric = lt.LDDataset(case.dec, case.Ft, case.Ct, progress=False)
    for label, data, preset in (
        ("ld_paper", paper, lt.PAPER),
        ("ld_symmetric", symmetric, lt.PAPER),
        ("ld_default", symmetric, lt.DEFAULTS),
    ):
        fitted = case.train(data, lt.LDLoss(case.dec, "spo+", "L1"), "multiple", epochs, seed, preset)
        row[label] = case.regret(fitted.model)
        if fitted.improved is not None:
            row[f"{label}_improved"] = bool(fitted.improved)
            row[f"{label}_constant_start"] = fitted.constant_start
            t = fitted.improvement_t  # the validation improvement in standard errors
            row[f"{label}_t"] = float(t) if np.isfinite(t) else None
    return row


def main() -> None:
    a = arguments(__doc__)
    rows = []
    head = "| model | constant | MSE | LD paper | LD symmetric | LD defaults | LD beat its start (t) | start |"
    print(head, flush=True)
    for case in cases((a.train, a.val, 200), a.models):
        rows.append(measure(case, a.epochs, a.seed))
        r = rows[-1]
        cells = " | ".join(f"{r[k]:.2f}" for k in ("constant", "mse", "ld_paper", "ld_symmetric", "ld_default"))
        start = "constant" if r["ld_default_constant_start"] else "MSE"
        t = "-" if r["ld_default_t"] is None else f"{r['ld_default_t']:.2f}"
        print(f"| {case.name} | {cells} | {r['ld_default_improved']} ({t}) | {start} |", flush=True)
    save(a, "training.json", rows)


if __name__ == "__main__":
    main()
