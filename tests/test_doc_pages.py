"""The docs pages' worked examples run as written, each page in a fresh process (the registries
they add to are global): getting-started.md (a model of your own, decomposed and trained) and
extending.md (a solver backend, an oracle, a surrogate and a problem family)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the pages train models (pip install 'ldopt[torch]')")

DOCS = Path(__file__).resolve().parents[1] / "docs"


def blocks(page: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(encoding="utf-8"), flags=re.S)


def run_page(page: str, tail: list[str], tmp_path: Path) -> str:
    """The page's python blocks in order, then ``tail``; the script's output."""
    path = tmp_path / page.replace(".md", ".py").replace("-", "_")
    path.write_text("\n".join(blocks(page)) + "\n" + "\n".join(tail) + "\n", encoding="utf-8")
    env = {**{k: v for k, v in os.environ.items() if k != "LDOPT_PROGRESS"}, "LDOPT_PROGRESS": "0"}
    out = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_extending_covers_every_extension_point():
    code = "\n".join(blocks("extending.md"))
    for needle in ("ldopt.solvers.register(", "oracles=[AtMostK]", "(lt.Surrogate)", "register(Family("):
        assert needle in code


def test_extending_runs(tmp_path):
    """The blocks assert their own mathematics (the backend's and the oracle's optima equal
    HiGHS's); the end checks that each extension is found by name."""
    tail = [
        "import ldopt.problems, ldopt_torch",
        "assert 'scipy' in ldopt.solvers.registered()",
        "assert ldopt_torch.SURROGATES['identity'] is Identity",
        "assert ldopt.problems.family('conflicts').size == 12",
        "print('extending: ok', len(setup.dec.blocks))",
    ]
    assert "extending: ok" in run_page("extending.md", tail, tmp_path)


def test_getting_started_runs_and_trains(tmp_path):
    """The page's model decomposes with exact oracles, and training through it beats the untrained
    model on the test set."""
    tail = [
        "untrained = lt.relative_regret(problem, np.zeros_like(costs[250:]), costs[250:])",
        "trained = lt.relative_regret(problem, pred, costs[250:])",
        "assert all(s.name != 'highs' for s in dec.block_solvers())",
        "assert trained < untrained, (trained, untrained)",
        "print('getting started: ok', trained, untrained)",
    ]
    out = run_page("getting-started.md", tail, tmp_path)
    assert "getting started: ok" in out
    assert all(re.search(rf"^{name} +test regret", out, flags=re.M) for name in ("LD", "MSE", "constant"))
