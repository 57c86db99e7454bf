"""The experiment runner: the paper's protocol (DESIGN.md) for the MKP and the portfolio, every
method through the one trainer, results as JSON/CSV, a Table-1-style Markdown table and plots.

    python -m ldopt_torch.experiment knapsack --size 100 --methods mse spo+ ld:spo+:multiple:L1 \
        --seeds 0 1 2 --budget 60 --solver highs --out benchmarks/results/mkp100

Methods: ``mse``; ``spo+`` and ``imle`` on the full problem (PyEPO losses over our adapter);
``cave``, ``cave+`` and ``lava`` (solver-free, over the true optima; linear problems);
``ld:<spo+|imle|exact>:<static|multiple>:<L1|L2>`` — the paper's LD methods (a ``:scaled``
suffix rescales the main subproblem, :class:`LDLoss` ``scale="costs"``). A run's budget bounds
training time; for LD methods the multiplier construction is reported beside it
(``multipliers_s``) and, with ``--count-construction``, counted inside the budget (the paper's "=").
``--dual independent`` trains on the paper's m dual runs from μ = 1 instead of the shared solve:
they leave λ_d at the scale of the costs and train markedly better (README, "Which multipliers").
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

import ldopt
from ldopt.errors import InputError
from ldopt.problems import knapsack, portfolio
from ldopt.regret import optimal_objectives, relative_regret

from .baselines import CaVELoss, LAVALoss
from .dataset import LDDataset, OptDataset
from .losses import FullLoss, LDLoss, MSELoss
from .train import Validator, fit

# The paper's Table 1 (budget ∞): (test regret %, time to the best validation model in s), one core, Gurobi.
PAPER: dict[tuple[str, int], dict[str, tuple[float, float]]] = {
    ("knapsack", 100): {"mse": (7.796, 270), "cave": (3.680, 68), "cave+": (3.686, 1177), "lava": (4.509, 4346),
                        "spo+": (3.049, 4692), "ld:spo+:static:L1": (2.887, 41), "ld:spo+:multiple:L1": (2.621, 8),
                        "imle": (4.234, 5836), "ld:imle:static:L1": (3.401, 3715), "ld:imle:static:L2": (3.809, 5339),
                        "ld:imle:multiple:L1": (2.807, 4813), "ld:imle:multiple:L2": (2.376, 5293)},
    ("knapsack", 200): {"mse": (5.518, 383), "cave": (3.617, 107), "cave+": (3.553, 874), "lava": (4.552, 6198),
                        "spo+": (2.975, 4350), "ld:spo+:static:L1": (2.562, 42), "ld:spo+:multiple:L1": (2.496, 1825),
                        "imle": (3.285, 6489), "ld:imle:static:L1": (3.309, 1087), "ld:imle:static:L2": (3.438, 1148),
                        "ld:imle:multiple:L1": (2.801, 610), "ld:imle:multiple:L2": (2.189, 5905)},
    ("knapsack", 300): {"mse": (6.774, 387), "cave": (3.466, 182), "cave+": (3.265, 217), "lava": (4.558, 5878),
                        "spo+": (3.072, 1904), "ld:spo+:static:L1": (2.628, 107), "ld:spo+:multiple:L1": (2.179, 2485),
                        "imle": (3.933, 5988), "ld:imle:static:L1": (3.329, 4504), "ld:imle:static:L2": (3.712, 64),
                        "ld:imle:multiple:L1": (2.382, 6049), "ld:imle:multiple:L2": (2.235, 6401)},
    ("portfolio", 50): {"mse": (2.325, 12), "spo+": (2.095, 58), "ld:spo+:static:L1": (2.122, 101),
                        "imle": (2.064, 1450), "ld:imle:static:L1": (2.285, 67), "ld:imle:static:L2": (2.026, 282),
                        "ld:exact:static:L1": (2.159, 712), "ld:exact:static:L2": (2.040, 14)},
    ("portfolio", 200): {"mse": (2.070, 993), "spo+": (2.092, 4408), "ld:spo+:static:L1": (14.833, 6685),
                         "imle": (2.032, 5586), "ld:imle:static:L1": (11.028, 6339), "ld:imle:static:L2": (2.101, 6465),
                         "ld:exact:static:L1": (2.075, 69), "ld:exact:static:L2": (1.969, 1309)},
    ("portfolio", 400): {"mse": (2.324, 4648), "spo+": (2.087, 10277), "ld:spo+:static:L1": (16.84, 11698),
                         "imle": (2.026, 11327), "ld:imle:static:L1": (12.31, 11469), "ld:imle:static:L2": (2.114, 11640),
                         "ld:exact:static:L1": (2.360, 1975), "ld:exact:static:L2": (1.992, 3614)},
}


def paper(problem: str, size: int, method: str) -> tuple[float | None, float | None]:
    """The paper's (regret %, time to best s) for a method, or ``(None, None)``; a ``:scaled``
    variant is compared with its plain row."""
    return PAPER.get((problem, int(size)), {}).get(method.removesuffix(":scaled"), (None, None))


BASELINES = ("mse", "spo+", "imle", "cave", "cave+", "lava")


@dataclass
class Setup:
    """One problem instance set: the problem, its decomposition and standardised splits."""

    name: str
    size: int
    problem: ldopt.Problem
    dec: ldopt.Decomposition
    train: tuple[np.ndarray, np.ndarray]
    val: tuple[np.ndarray, np.ndarray]
    test: tuple[np.ndarray, np.ndarray]
    lr: float


def _standardise(F: np.ndarray, n_train: int) -> np.ndarray:
    mu, sd = F[:n_train].mean(0), F[:n_train].std(0)
    return (F - mu) / np.where(sd > 0, sd, 1.0)


def _splits(F: np.ndarray, C: np.ndarray, n: tuple[int, int, int]) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    F = _standardise(F, n[0])
    a, b = n[0], n[0] + n[1]
    return (F[:a], C[:a]), (F[a:b], C[a:b]), (F[b : b + n[2]], C[b : b + n[2]])


def knapsack_setup(items: int = 100, dim: int = 10, train: int = 200, val: int = 100, test: int = 1000,
                   deg: int = 8, seed: int = 42) -> Setup:
    """The MKP protocol (PyEPO data, integer weights 3..7, capacity half the row sum)."""
    d = knapsack.protocol_data(train + val + test, items, dim=dim, deg=deg, seed=seed)
    model = knapsack.build_model(d.weights, d.capacities)
    p = ldopt.Problem.from_pyomo(model, model.c)
    tr, va, te = _splits(d.features, d.costs, (train, val, test))
    return Setup("knapsack", items, p, ldopt.decompose(p), tr, va, te, lr=1e-2)


def portfolio_setup(assets: int = 50, train: int = 100, val: int = 25, test: int = 1000, deg: int = 8,
                    seed: int = 42) -> Setup:
    """The portfolio protocol (PyEPO data, γ = 2.25); blocks: budget (0) and risk (1)."""
    cov, feats, ret = portfolio.gen_data(train + val + test, 5, assets, deg=deg, seed=seed)
    model = portfolio.build_model(cov)
    p = ldopt.Problem.from_pyomo(model, model.c)
    tr, va, te = _splits(feats, ret.astype(float), (train, val, test))
    return Setup("portfolio", assets, p, ldopt.decompose(p), tr, va, te, lr=2e-3)


def parse_method(name: str) -> dict[str, Any]:
    """``"mse"``, ``"spo+"``, ``"imle"`` or ``"ld:<method>:<mode>:<L1|L2>"`` as a dictionary."""
    if name in BASELINES:
        return dict(kind=name)
    parts = name.split(":")
    if len(parts) not in (4, 5) or parts[0] != "ld" or parts[1] not in ("spo+", "imle", "exact") \
            or parts[2] not in ("static", "multiple") or parts[3] not in ("L1", "L2") \
            or (len(parts) == 5 and parts[4] != "scaled"):
        raise InputError(f"method: expected one of {BASELINES} or "
                         f"ld:<spo+|imle|exact>:<static|multiple>:<L1|L2>[:scaled], got {name!r}")
    return dict(kind="ld", method=parts[1], mode=parts[2], loss=parts[3],
                scale="costs" if len(parts) == 5 else "none")


def label(name: str) -> str:
    """``ld:spo+:multiple:L1`` → ``LD(SPO+, multiple, L1)``."""
    spec = parse_method(name)
    if spec["kind"] != "ld":
        return {"mse": "MSE", "spo+": "SPO+", "imle": "IMLE", "cave": "CaVE", "cave+": "CaVE+", "lava": "LAVA"}[spec["kind"]]
    m = {"spo+": "SPO+", "imle": "IMLE", "exact": "Exact"}[spec["method"]]
    extra = ", scaled" if spec["scale"] != "none" else ""
    return f"LD({m}, {spec['mode']}, {spec['loss']}{extra})"


def run(setup: Setup, methods: list[str], seeds: list[int], *, solver: str = "highs", budget: float = 60.0,
        epochs: int = 100000, eval_every: int = 0, evaluations: int = 12, iterations: int = 300, lr: float | None = None,
        count_construction: bool = False, curve_instances: int = 200, dual: dict[str, Any] | None = None,
        out: str | Path | None = None, progress: bool = True) -> list[dict]:
    """Train every method for every seed; return (and save under ``out``) one row per run.

    ``dual``: options of the LD training sets' dual solve (:class:`LDDataset`), e.g.
    ``dict(independent=True)`` for the paper's one run per decomposition from μ = 1.

    Validation runs ``evaluations`` times per budget at training times doubling up to the budget
    (``eval_every=k``: every k epochs instead), so slow and fast methods get the same number of
    model selections and fast ones are seen early.
    """
    specs = {m: parse_method(m) for m in methods}
    out = Path(out) if out else None
    cache_dir = out / "cache" if out else None
    t0 = time.perf_counter()
    validator = Validator(setup.problem, *setup.val, solver=solver)
    test_opt = optimal_objectives(setup.problem, setup.test[1], solver)
    setup_s = time.perf_counter() - t0
    ld_data = None
    if any(s["kind"] == "ld" for s in specs.values()):
        ld_data = LDDataset(setup.dec, *setup.train, iterations=iterations, cache=cache_dir, progress=progress,
                            **(dual or {}))
    opt_data = None
    if any(s["kind"] in ("spo+", "imle", "cave", "cave+", "lava") for s in specs.values()):
        structure = any(s["kind"] in ("cave", "cave+", "lava") for s in specs.values())
        opt_data = OptDataset(setup.problem, *setup.train, solver=solver, cache=cache_dir, structure=structure)
    rows: list[dict] = []
    curves: list[dict] = []
    for seed in seeds:
        for name, spec in specs.items():
            torch.manual_seed(seed)
            model = torch.nn.Linear(setup.train[0].shape[1], setup.problem.num_costs)
            construction = ld_data.construction_seconds if (spec["kind"] == "ld" and ld_data) else 0.0
            if spec["kind"] == "mse":
                data = ld_data or opt_data or OptDataset(setup.problem, *setup.train, solver=solver)
                loss, mode = MSELoss(), "static"
            elif spec["kind"] in ("spo+", "imle"):
                loss, data, mode = FullLoss(setup.problem, spec["kind"], solver=solver), opt_data, "static"
            elif spec["kind"] in ("cave", "cave+"):
                loss, data, mode = CaVELoss(setup.problem, plus=spec["kind"] == "cave+"), opt_data, "static"
            elif spec["kind"] == "lava":
                loss, data, mode = LAVALoss(setup.problem), opt_data, "static"
            else:
                loss = LDLoss(setup.dec, spec["method"], spec["loss"], scale=spec["scale"])
                data, mode = ld_data, spec["mode"]
            train_budget = budget - construction if count_construction else budget
            if train_budget <= 0:
                raise InputError(f"budget {budget} s is spent on multiplier construction ({construction:.1f} s)")
            snaps: list[tuple[float, int, int, dict]] = []  # (time, epochs, best epoch, best state)
            keep = lambda row, best: snaps.append((row["time"], row["epoch"], id(best), best))  # noqa: E731
            result = fit(model, data, loss, mode=mode, epochs=epochs, time_budget=train_budget, val=validator,
                         on_validate=keep,
                         eval_every=eval_every or 1, eval_times=None if eval_every else checkpoints(train_budget, evaluations),
                         lr=lr or setup.lr, seed=seed, solver=solver, progress=progress)
            test = relative_regret(setup.problem, result.model(torch.as_tensor(setup.test[0], dtype=torch.float32)),
                                   setup.test[1], solver, optimum=test_opt)
            curve = budget_curve(setup, model, snaps, solver, curve_instances, test_opt)
            curves.extend(dict(problem=setup.name, size=setup.size, method=name, seed=seed, **c) for c in curve)
            ref, ref_time = paper(setup.name, setup.size, name)
            row = dict(problem=setup.name, size=setup.size, method=name, label=label(name), seed=seed,
                       test_regret=100 * test, val_regret=100 * result.best_val, time_to_best=result.time_to_best,
                       wall_to_best=result.wall_to_best, multipliers_s=construction,
                       epochs=result.epochs, epochs_per_s=result.history[-1]["epochs_per_s"], budget=budget,
                       solver=solver, paper=ref, paper_time=ref_time)
            rows.append(row)
            if out:
                name_ = stem(setup.name, setup.size, name, seed)
                result.save_history(out / "histories" / f"{name_}.csv", max_rows=400)
                (out / "runs").mkdir(parents=True, exist_ok=True)
                (out / "runs" / f"{name_}.json").write_text(json.dumps(row, indent=1))
            if progress:
                print(f"  {label(name):28s} seed {seed}: test regret {100 * test:.3f}%  "
                      f"time to best {result.time_to_best:.1f} s  ({result.epochs} epochs)", flush=True)
    if out:
        merged = merge_rows(out / "results.csv", rows)
        save_rows(merged, out / "results.csv")
        if curves:
            save_rows(merge_rows(out / "curves.csv", curves), out / "curves.csv")
        (out / "table.md").write_text(table(merged))
        meta = dict(setup_s=setup_s, train=len(setup.train[1]), val=len(setup.val[1]), test=len(setup.test[1]),
                    iterations=iterations, dual=dual or {}, budget=budget, solver=solver, seeds=seeds)
        (out / "meta.json").write_text(json.dumps(meta, indent=1))
    return rows


def checkpoints(budget: float, evaluations: int) -> list[float]:
    """``evaluations`` training times doubling up to ``budget``: ``budget / 2^k``, k = n-1 … 0."""
    return [budget / 2**k for k in range(max(1, evaluations) - 1, -1, -1)]


def stem(problem: str, size: int, method: str, seed: int) -> str:
    """The file-name stem of one run's saved history and row."""
    return f"{problem}{int(size)}-{method.replace(':', '_').replace('+', 'p')}-seed{int(seed)}"


def save_rows(rows: list[dict], path: str | Path) -> Path:
    import csv  # noqa: PLC0415

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as fh:
        fields = list(dict.fromkeys(k for r in rows for k in r))  # rows saved before a column was added
        w = csv.DictWriter(fh, fieldnames=fields, restval="")
        w.writeheader()
        w.writerows(rows)
    return path


def merge_rows(path: str | Path, rows: list[dict]) -> list[dict]:
    """The rows saved at ``path`` (if any) with ``rows`` replacing runs of the same problem, size,
    method and seed — so results of several invocations accumulate in one table (or curve file)."""
    path = Path(path)
    if not path.exists():
        return list(rows)
    key = lambda r: (r["problem"], int(r["size"]), r["method"], int(r["seed"]))  # noqa: E731
    new = {key(r) for r in rows}
    return [r for r in load_rows(path) if key(r) not in new] + list(rows)


def budget_curve(setup: Setup, model: torch.nn.Module, snaps: list, solver: str, instances: int,
                 test_opt: np.ndarray) -> list[dict]:
    """Test regret of the best-by-validation model at every validation time: the model a run with
    that training budget would have returned (the paper's Figure 2), and the epochs done by then
    (Figure 3). Evaluated on the first ``instances`` test instances, once per distinct best model."""
    if instances <= 0:
        return []
    feats = torch.as_tensor(setup.test[0][:instances], dtype=torch.float32)
    costs = setup.test[1][:instances]
    seen: dict[int, float] = {}
    out = []
    for t, epochs, ident, state in snaps:
        if ident not in seen:
            probe = copy.deepcopy(model)
            probe.load_state_dict(state)
            with torch.no_grad():
                seen[ident] = 100 * relative_regret(setup.problem, probe(feats), costs, solver,
                                                    optimum=test_opt[:instances])
        out.append(dict(time=t, epochs=epochs, test_regret=seen[ident]))
    return out



TEXT_FIELDS = ("problem", "method", "label", "solver")


def load_rows(path: str | Path) -> list[dict]:
    """Rows of a saved ``results.csv`` or ``curves.csv``: every field but the text ones as a float
    (``None`` where empty)."""
    import csv  # noqa: PLC0415

    with Path(path).open() as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        for k, v in r.items():
            if k not in TEXT_FIELDS:
                r[k] = float(v) if v not in ("", "None") else None
    return rows


def mean_ci(values: list[float], level: float = 0.95) -> tuple[float, float]:
    """Mean and the half-width of its Student-t confidence interval (0 for one value)."""
    from scipy import stats  # noqa: PLC0415

    v = np.asarray(values, dtype=float)
    if len(v) < 2:
        return float(v.mean()), 0.0
    half = stats.t.ppf(0.5 + level / 2, len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v))
    return float(v.mean()), float(half)


def table(rows: list[dict]) -> str:
    """A Markdown table in Table 1's layout: regret % (mean ± 95% CI), time to best, epochs/s, paper."""
    lines = ["| problem | method | test regret % (mean ± 95% CI) | time to best (s) | multipliers (s) "
             "| epochs/s | seeds | paper regret % (time to best s) |",
             "|---|---|---|---|---|---|---|---|"]
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((r["problem"], int(r["size"]), r["method"]), []).append(r)
    for (prob, size, method), rs in groups.items():
        m, h = mean_ci([r["test_regret"] for r in rs])
        t, _ = mean_ci([r["time_to_best"] for r in rs])
        eps, _ = mean_ci([r["epochs_per_s"] for r in rs])
        pr, pt = paper(prob, size, method)
        ref = "" if pr is None else f"{pr:.3f} ({pt:g})"
        lines.append(f"| {prob} n={size} | {label(method)} | {m:.3f} ± {h:.3f} | {t:.1f} | "
                     f"{rs[0]['multipliers_s']:.1f} | {eps:.1f} | {len(rs)} | {ref} |")
    return "\n".join(lines) + "\n"


def plot(out: str | Path) -> Path:
    """Validation regret against training time per method (the paper's Figure 2 layout), from the
    saved histories; and test regret per method with its 95% CI."""
    import csv  # noqa: PLC0415

    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    plt.rcParams["axes.prop_cycle"] = plt.cycler(color=plt.cm.tab20.colors)
    out = Path(out)
    rows = load_rows(out / "results.csv")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    first_seed = min(r["seed"] for r in rows)
    for r in rows:
        hist = out / "histories" / f"{stem(r['problem'], r['size'], r['method'], r['seed'])}.csv"
        if r["seed"] != first_seed or not hist.exists():
            continue
        with hist.open() as fh:
            h = [x for x in csv.DictReader(fh) if x["val_regret"] not in ("", "nan")]
        ax1.plot([float(x["time"]) + 1e-2 for x in h], [100 * float(x["val_regret"]) for x in h], marker=".",
                 label=label(r["method"]))
    ax1.set_xscale("log")
    ax1.set_xlabel("training time (s, log scale)")
    ax1.set_ylabel("validation relative regret (%)")
    ax1.set_title(f"validation regret vs training time (seed {int(first_seed)})")
    ax1.set_ylim(bottom=0)
    ax1.legend(fontsize=7)
    methods = list(dict.fromkeys(r["method"] for r in rows))
    stats = [mean_ci([r["test_regret"] for r in rows if r["method"] == m]) for m in methods]
    ax2.barh([label(m) for m in methods], [s[0] for s in stats], xerr=[s[1] for s in stats], color="tab:blue")
    for i, m in enumerate(methods):
        ref = paper(rows[0]["problem"], rows[0]["size"], m)[0]
        if ref is not None:
            ax2.plot(ref, i, "k|", markersize=14)
    ax2.set_xlabel("test relative regret (%)  (| = paper)")
    ax2.invert_yaxis()
    fig.tight_layout()
    path = out / "regret.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    if (out / "curves.csv").exists():
        plot_budget(out)
    return path


def plot_budget(out: str | Path) -> Path:
    """The paper's Figures 2–3: test regret of the model a budget buys, and epochs per budget
    (mean over seeds at each validation time)."""
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    plt.rcParams["axes.prop_cycle"] = plt.cycler(color=plt.cm.tab20.colors)
    out = Path(out)
    curves = load_rows(out / "curves.csv")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    for method in dict.fromkeys(c["method"] for c in curves):
        pts: dict[int, list[dict]] = {}
        for c in curves:
            if c["method"] == method:
                pts.setdefault(int(c["seed"]), []).append(c)
        n = min(len(v) for v in pts.values())
        t = np.mean([[p["time"] for p in v[:n]] for v in pts.values()], axis=0) + 1e-2
        ax1.plot(t, np.mean([[p["test_regret"] for p in v[:n]] for v in pts.values()], axis=0), marker=".",
                 label=label(method))
        ax2.plot(t, np.mean([[p["epochs"] for p in v[:n]] for v in pts.values()], axis=0) + 1, marker=".",
                 label=label(method))
    for ax in (ax1, ax2):
        ax.set_xscale("log")
        ax.set_xlabel("training-time budget (s, log scale)")
        ax.legend(fontsize=7)
    ax1.set_ylabel("test relative regret of the best model (%)")
    ax2.set_ylabel("epochs done (log scale)")
    ax2.set_yscale("log")
    fig.tight_layout()
    path = out / "budget.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(prog="python -m ldopt_torch.experiment", description=__doc__.split("\n")[0])
    ap.add_argument("problem", choices=["knapsack", "portfolio"])
    ap.add_argument("--size", type=int, default=100, help="items (knapsack) or assets (portfolio)")
    ap.add_argument("--methods", nargs="+", default=["mse", "spo+", "ld:spo+:multiple:L1", "ld:imle:multiple:L2"])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0])
    ap.add_argument("--budget", type=float, default=60.0, help="training seconds per run")
    ap.add_argument("--epochs", type=int, default=100000, help="epoch cap (the budget usually stops first)")
    ap.add_argument("--evaluations", type=int, default=12, help="validations per budget")
    ap.add_argument("--eval-every", type=int, default=0)
    ap.add_argument("--iterations", type=int, default=300, help="subgradient iterations for the multipliers")
    ap.add_argument("--dual", choices=["shared", "independent"], default="shared",
                    help="one shared dual solve for all decompositions, or the paper's m runs from μ = 1")
    ap.add_argument("--dual-step", choices=["polyak", "adam"], default="polyak")
    ap.add_argument("--train", type=int, default=None)
    ap.add_argument("--val", type=int, default=None)
    ap.add_argument("--test", type=int, default=None)
    ap.add_argument("--data-seed", type=int, default=42)
    ap.add_argument("--lr", type=float, default=None)
    ap.add_argument("--solver", default="highs")
    ap.add_argument("--count-construction", action="store_true")
    ap.add_argument("--curve-instances", type=int, default=200, help="test instances for the budget curves")
    ap.add_argument("--out", default="results")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    if a.problem == "knapsack":
        setup = knapsack_setup(a.size, train=a.train or 200, val=a.val or 100, test=a.test or 1000, seed=a.data_seed)
    else:
        setup = portfolio_setup(a.size, train=a.train or 100, val=a.val or 25, test=a.test or 1000, seed=a.data_seed)
    rows = run(setup, a.methods, a.seeds, solver=a.solver, budget=a.budget, epochs=a.epochs,
               eval_every=a.eval_every, evaluations=a.evaluations, iterations=a.iterations, lr=a.lr,
               count_construction=a.count_construction, curve_instances=a.curve_instances,
               dual=dict(independent=a.dual == "independent", step=a.dual_step), out=a.out, progress=not a.quiet)
    report(rows, a.out)
    return rows


def example(setup: Setup, methods: list[str], args: argparse.Namespace, *, dual: dict[str, Any] | None = None,
            iterations: int = 300) -> list[dict]:
    """An example's run: ``args`` carries seeds, solver, budget and out; 8 validations per budget,
    no budget curves (they cost test solves); then the table and the plots. ``dual`` and
    ``iterations`` set the LD training sets' dual solve (see :func:`run`)."""
    print(f"{setup.name} n={setup.size}: {len(setup.train[1])} train / {len(setup.val[1])} validation / "
          f"{len(setup.test[1])} test instances; solver {args.solver}; {args.budget:.0f} s of training per method")
    rows = run(setup, methods, args.seeds, solver=args.solver, budget=args.budget, evaluations=8, curve_instances=0,
               iterations=iterations, dual=dual, out=args.out)
    report(rows, args.out)
    return rows


def report(rows: list[dict], out: str | Path) -> None:
    """Print the table of ``rows`` and where the results and plots were saved."""
    print()
    print(table(rows))
    print(f"saved {Path(out) / 'results.csv'}, {Path(out) / 'table.md'}, {plot(out)}")


if __name__ == "__main__":
    main()
