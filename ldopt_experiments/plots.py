"""Plots of saved results (matplotlib, imported only when a plot is drawn): validation regret against
training time and test regret per method; the paper's Figures 2–3 (budget curves); time per stage."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import numpy as np

from .methods import label
from .paper import paper
from .results import load_rows, mean_ci, stem


def _pyplot() -> Any:
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    plt.rcParams["axes.prop_cycle"] = plt.cycler(color=[plt.get_cmap("tab20")(i) for i in range(20)])
    return plt


def plot(out: str | Path) -> Path:
    """Validation regret against training time per method (the paper's Figure 2 layout), from the
    saved histories; and test regret per method with its 95% CI."""
    plt = _pyplot()
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
        ax1.plot(
            [float(x["time"]) + 1e-2 for x in h],
            [100 * float(x["val_regret"]) for x in h],
            marker=".",
            label=label(r["method"]),
        )
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
    plt = _pyplot()
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
        ax1.plot(
            t,
            np.mean([[p["test_regret"] for p in v[:n]] for v in pts.values()], axis=0),
            marker=".",
            label=label(method),
        )
        ax2.plot(
            t,
            np.mean([[p["epochs"] for p in v[:n]] for v in pts.values()], axis=0) + 1,
            marker=".",
            label=label(method),
        )
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


def plot_stages(stages: list[tuple[str, float]], path: str | Path, title: str = "") -> Path:
    """A horizontal bar per stage of a pipeline (data, multipliers, training per method,
    evaluation...) with its seconds, and the total."""
    plt = _pyplot()
    names = [s for s, _ in stages]
    secs = [t for _, t in stages]
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(stages) + 1.4))
    ax.barh(names, secs, color="tab:blue")
    for i, t in enumerate(secs):
        ax.text(t, i, f" {t:.0f} s" if t >= 10 else f" {t:.1f} s", va="center", fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("seconds")
    ax.set_title(f"{title}  (total {sum(secs) / 60:.1f} min)" if title else f"total {sum(secs) / 60:.1f} min")
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
