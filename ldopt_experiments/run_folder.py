"""A run's output folder: its rows, table and curves, ``meta.json`` (the settings and the seconds
of every stage), and the checks that let ``--resume`` go on only where the settings match."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ldopt.errors import InputError, OutputError
from ldopt.runtime.cache import write_text

from .protocol import Setup
from .results import Row, merge_rows, save_rows, table
from .run_options import RunOptions, Stages

_AWAY = "move it away or use a fresh --out"


def read_json(path: Path) -> dict[str, Any]:
    """The JSON record at ``path`` (``meta.json``, a saved run), or an [`OutputError`][ldopt.OutputError] saying
    it is not one."""
    try:
        out = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        why = f"{type(exc).__name__}: {exc}"[:200]
        raise OutputError(f"{path} cannot be read as a JSON record ({why}); {_AWAY}") from None
    if not isinstance(out, dict):
        raise OutputError(f"{path}: expected a JSON object, got {type(out).__name__}; {_AWAY}")
    return out


def output_folder(out: Path) -> None:
    """Make ``out`` (a writable folder) or say why it cannot be one."""
    if out.exists() and not out.is_dir():
        raise OutputError(f"out: expected a folder, got the file {out}; choose a folder for the results")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".ldopt-write-probe"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise OutputError(f"out: cannot write into {out} ({exc.strerror or exc}); choose a writable folder") from None


def recorded_settings(setup: Setup, opts: RunOptions) -> dict[str, Any]:
    """What ``meta.json`` records of a run's settings: the instances (their counts, and digests of the
    problem and of the data, so that another data seed, size or row count is another setting) and
    every option that changes a result."""
    kept = {k: v for k, v in asdict(opts).items() if k not in ("out", "progress", "resume")}
    instances = dict(train=len(setup.train[1]), val=len(setup.val[1]), test=len(setup.test[1]))
    fingerprints = dict(
        problem_digest=setup.dec.key,
        data_digest=setup.data_digest,
    )
    return json.loads(json.dumps(dict(**instances, **fingerprints, **kept), default=str))


def check_resumable(setup: Setup, opts: RunOptions, out: Path | None) -> None:
    """Refuse to resume without a folder, or into one whose runs used other settings."""
    if out is None:
        raise InputError("resume=True: expected an output folder (out=...) to resume from, got none")
    meta = out / "meta.json"
    if not meta.exists():
        return
    saved = read_json(meta)
    now = recorded_settings(setup, opts)
    differ = sorted(k for k in now if k in saved and saved[k] != now[k])
    if differ:
        shown = ", ".join(f"{k}: {saved[k]!r} there, {now[k]!r} now" for k in differ)
        raise InputError(
            f"resume: {out} holds runs made with other settings ({shown}); "
            "expected the same settings, or a fresh --out folder"
        )


def save(
    setup: Setup, rows: list[Row], curves: list[Row], opts: RunOptions, out: Path, stages: Stages, references: Row
) -> None:
    merged = merge_rows(out / "results.csv", rows)
    save_rows(merged, out / "results.csv")
    if curves:
        save_rows(merge_rows(out / "curves.csv", curves), out / "curves.csv")
    write_text(out / "table.md", table(merged, references=references))
    save_meta(setup, opts, out, stages)


def save_meta(setup: Setup, opts: RunOptions, out: Path, stages: Stages) -> None:
    """``meta.json``: the settings and the seconds of every stage so far, after those that earlier
    (or concurrent) invocations with the same settings recorded there (a stage run again counts
    once, with its latest seconds)."""
    settings = recorded_settings(setup, opts)
    mine = [dict(stage=s, seconds=t) for s, t in stages.items]
    earlier: list[dict[str, Any]] = []
    path = out / "meta.json"
    if path.exists():
        saved = read_json(path)
        if all(saved[k] == v for k, v in settings.items() if k in saved):  # (older folders lack the digests)
            names = {s["stage"] for s in mine}
            earlier = [s for s in saved.get("stages", []) if s["stage"] not in names]
    write_text(path, json.dumps(dict(**settings, stages=earlier + mine), indent=1))
