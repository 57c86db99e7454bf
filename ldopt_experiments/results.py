"""Results on disk: one row per run in ``results.csv`` (runs of later invocations merged in), the
budget curves in ``curves.csv``, and Markdown tables in Table 1's layout."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ldopt.errors import InputError, OutputError
from ldopt.runtime.cache import write_text

from .methods import label
from .paper import PAPER, paper

Row = dict[str, Any]
TEXT_FIELDS = ("problem", "method", "label", "solver", "stopped", "dual")


def save_rows(rows: list[Row], path: str | Path) -> Path:
    """``rows`` as CSV at ``path``, written atomically (columns: the union of the rows' keys, in order
    of appearance).

    Parameters
    ----------
    rows
        Result rows.
    path
        The CSV file.
    """
    fh = io.StringIO(newline="")
    fields = list(dict.fromkeys(k for r in rows for k in r))  # rows saved before a column was added
    w = csv.DictWriter(fh, fieldnames=fields, restval="")
    w.writeheader()
    w.writerows(rows)
    return write_text(path, fh.getvalue())


def load_rows(path: str | Path) -> list[Row]:
    """Rows of a saved ``results.csv`` or ``curves.csv``: every field but the text ones as a float
    (``None`` where empty).

    Parameters
    ----------
    path
        The CSV file.
    """
    try:
        with Path(path).open() as fh:
            rows = list(csv.DictReader(fh))
        for r in rows:
            for k, v in r.items():
                if k not in TEXT_FIELDS:
                    r[k] = float(v) if v not in ("", "None") else None
        for r in rows:
            stem(str(r["problem"]), int(r["size"]), str(r["method"]), int(r["seed"]))  # the fields every row has
    except (OSError, csv.Error, UnicodeDecodeError, ValueError, TypeError, KeyError) as exc:
        why = f"{type(exc).__name__}: {exc}"[:200]
        raise OutputError(
            f"{path} is not a results table that ldopt wrote ({why}); move it away or choose another output folder"
        ) from None
    return rows


def merge_rows(path: str | Path, rows: list[Row]) -> list[Row]:
    """The rows saved at ``path`` (if any) with ``rows`` replacing runs of the same problem, size,
    method and seed — so results of several invocations accumulate in one table (or curve file).

    Parameters
    ----------
    path
        The saved CSV (it may not exist).
    rows
        The new rows.
    """
    path = Path(path)
    if not path.exists():
        return list(rows)
    key = lambda r: (r["problem"], int(r["size"]), r["method"], int(r["seed"]))  # noqa: E731
    new = {key(r) for r in rows}
    return [r for r in load_rows(path) if key(r) not in new] + list(rows)


def stem(problem: str, size: int, method: str, seed: int) -> str:
    """The file-name stem of one run's saved history and row.

    Parameters
    ----------
    problem
        The family.
    size
        Its size.
    method
        The method name.
    seed
        The seed.
    """
    return f"{problem}{int(size)}-{method.replace(':', '_').replace('+', 'p')}-seed{int(seed)}"


def mean_ci(values: list[float], level: float = 0.95) -> tuple[float, float]:
    """Mean and the half-width of its Student-t confidence interval (0 for one value).

    Parameters
    ----------
    values
        The values.
    level
        The confidence level.
    """
    from scipy import stats  # noqa: PLC0415

    v = np.asarray(values, dtype=float)
    if len(v) < 2:
        return float(v.mean()), 0.0
    half = stats.t.ppf(0.5 + level / 2, len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v))
    return float(v.mean()), float(half)


REFERENCES = {  # the references a run measures on its test set beside the methods (references.json)
    "constant": "constant predictor (the training costs' mean, no model)",
    "bayes": "Bayes floor: decisions for E[c given features] (no model)",
}


def load_references(out: str | Path) -> dict[str, Any] | None:
    """The references a run saved in ``out`` (``references.json``: the test regret % of each of
    ``results.REFERENCES`` it could measure), or ``None``.

    Parameters
    ----------
    out
        A run's folder.
    """
    path = Path(out) / "references.json"
    return json.loads(path.read_text()) if path.is_file() else None


def reference_cell(references: dict[str, Any], name: str) -> str:
    """One reference's test regret % as a table shows it: the value; its certified lower end where
    its decisions stopped at a gap (``≥``); where it was estimated on a random sample of the test
    set, its standard error and the sample's size."""
    v = references["test_regret"][name]
    notes = []
    lower = references.get("lower", {}).get(name)
    if lower is not None and f"{lower:.3f}" != f"{v:.3f}":  # decisions stopped at a gap
        notes.append(f"≥ {lower:.3f}")
    se = references.get("standard_error", {}).get(name)
    if se is not None:
        notes.append(f"SE {se:.3f}; {references['instances']} of {references['of']} instances")
    return f"{v:.3f} ({'; '.join(notes)})" if notes else f"{v:.3f}"


def table(rows: list[Row], timing: bool = True, references: dict[str, Any] | None = None) -> str:
    """A Markdown table in Table 1's layout: regret % (the mean, ± its 95% CI over seeds where there
    are several; with its certified upper end where some optima are unproven), time to best,
    epochs/s, the paper's figure. ``timing=False`` leaves out what depends on the machine's speed
    and load (seconds, epochs per second) and gives the best and last epochs instead: what an epoch
    budget makes the same on every machine.

    Parameters
    ----------
    rows
        Result rows.
    timing
        Add the time columns (they vary with the load).
    references
        A run's [`load_references()`][ldopt_experiments.results.load_references], shown as rows
        after the methods', or ``None``.
    """
    certified = any(
        r.get("test_upper") not in (None, "")
        and r.get("proven") not in (None, "")
        and r["proven"] < r.get("test_instances", r["proven"])
        for r in rows
    )
    groups: dict[tuple, list[Row]] = {}
    for r in rows:
        groups.setdefault((r["problem"], int(r["size"]), r["method"]), []).append(r)
    several = any(len(rs) > 1 for rs in groups.values())
    head = f"| problem | method | test regret %{' (mean ± 95% CI)' if several else ''} |"
    head += " certified ≤ |" if certified else ""
    cols = " training s to best (no validation) | multipliers (s) | epochs/s |" if timing else " best epoch | epochs |"
    lines = [
        head + cols + " seeds | paper regret % (time to best s) |",
        "|---|---|---|" + ("---|" if certified else "") + "---|" * (cols.count("|") + 2),
    ]
    for (prob, size, method), rs in groups.items():
        m, h = mean_ci([r["test_regret"] for r in rs])
        pr, pt = paper(prob, size, method)
        ref = "" if pr is None else f"{pr:.3f} ({pt:g})"
        upper = ""
        if certified:
            ups = [float(r["test_upper"]) for r in rs if r.get("test_upper") not in (None, "")]
            upper = f" {np.mean(ups):.3f} |" if ups else " |"
        if timing:
            t, _ = mean_ci([r["time_to_best"] for r in rs])
            eps, _ = mean_ci([r["epochs_per_s"] for r in rs])
            middle = f" {t:.1f} | {rs[0]['multipliers_s']:.1f} | {eps:.1f} |"
        else:
            best = ", ".join(str(int(r["best_epoch"])) if r.get("best_epoch") not in (None, "") else "?" for r in rs)
            middle = f" {best} | {', '.join(str(int(r['epochs'])) for r in rs)} |"
        spread = f" ± {h:.3f}" if len(rs) > 1 else ""
        lines.append(f"| {prob} n={size} | {label(method)} | {m:.3f}{spread} |{upper}{middle} {len(rs)} | {ref} |")
    if references is not None:  # no model, no seeds: the other cells are empty
        empty = " – |" * (int(certified) + cols.count("|") + 2)
        where = f"{references['problem']} n={references['size']}"
        lines += [
            f"| {where} | {REFERENCES[k]} | {reference_cell(references, k)} |{empty}" for k in references["test_regret"]
        ]
    return "\n".join(lines) + "\n"


def paper_table(rows: list[Row], problem: str, references: Sequence[dict[str, Any]] = ()) -> str:
    """Table 1's layout for ``problem``: one row per method (the paper's order, then any others),
    and per size our test regret % (mean ± 95% CI over seeds, time to best) beside the paper's,
    the lower of the two in bold. A column says its seeds when every run in it has the same count;
    a cell whose count differs says its own. The references of the sizes that have them follow.

    Parameters
    ----------
    rows
        Result rows.
    problem
        ``"knapsack"`` or ``"portfolio"``.
    references
        The runs' [`load_references()`][ldopt_experiments.results.load_references] (those of
        other problems are left out).
    """
    rows = [r for r in rows if r["problem"] == problem]
    if not rows:
        raise InputError(f"paper_table: expected runs of {problem!r}, got none")
    sizes = sorted({int(r["size"]) for r in rows})
    order = [m for (prob, _), methods in PAPER.items() if prob == problem for m in methods]
    methods = list(dict.fromkeys([*order, *(r["method"] for r in rows)]))
    runs: dict[tuple[int, str], list[Row]] = {(int(r["size"]), r["method"]): [] for r in rows}
    for r in rows:
        runs[(int(r["size"]), r["method"])].append(r)
    methods = [m for m in methods if any((n, m) in runs for n in sizes)]
    seeds = {n: {len(v) for (size, _), v in runs.items() if size == n} for n in sizes}
    head, rule = ["| method |"], ["|---|"]
    for n in sizes:
        count = _seeds(next(iter(seeds[n]))) if len(seeds[n]) == 1 else ""
        head.append(f" n = {n}{count} | paper |")
        rule.append("---|---|")
    lines = ["".join(head), "".join(rule)]
    for m in methods:
        cells = [f"| {label(m)} |"]
        for n in sizes:
            pr, pt = paper(problem, n, m)
            ours = runs.get((n, m))
            if not ours:
                cells.append(" — |" + (f" {pr:.3f} ({pt:g} s) |" if pr is not None else " — |"))
                continue
            mean, half = mean_ci([float(r["test_regret"]) for r in ours])
            t, _ = mean_ci([float(r["time_to_best"]) for r in ours])
            spread = f" ± {half:.3f}" if len(ours) > 1 else ""
            own = f"{mean:.3f}{spread} ({t:.1f} s)" + ("" if len(seeds[n]) == 1 else _seeds(len(ours)))
            ref = "—" if pr is None else f"{pr:.3f} ({pt:g} s)"
            if pr is not None and round(mean, 3) < pr:
                own = f"**{own}**"
            elif pr is not None and round(mean, 3) > pr:
                ref = f"**{ref}**"
            cells.append(f" {own} | {ref} |")
        lines.append("".join(cells))
    found = {int(r["size"]): r for r in references if r["problem"] == problem}
    for name, text in REFERENCES.items():
        have = {n for n in sizes if n in found and name in found[n]["test_regret"]}
        if have:
            cells = [f" {reference_cell(found[n], name)} | — |" if n in have else " — | — |" for n in sizes]
            lines.append(f"| {text} |" + "".join(cells))
    return "\n".join(lines) + "\n"


def _seeds(k: int) -> str:
    return f", {k} seed" + ("s" if k != 1 else "")
