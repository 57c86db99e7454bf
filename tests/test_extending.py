"""docs/extending.md's worked examples run as written: a solver backend, an oracle, a surrogate and
a problem family, each registered and used (in a fresh process: the registries are global)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the surrogate example needs torch (pip install 'ldopt[torch]')")

PAGE = Path(__file__).resolve().parents[1] / "docs" / "extending.md"


def blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)


def test_the_page_covers_every_extension_point():
    code = "\n".join(blocks())
    for needle in ("ldopt.solvers.register(", "ORACLES.insert(", "(lt.Surrogate)", "register(Family("):
        assert needle in code


def test_the_worked_examples_run(tmp_path):
    """Every block in order; the blocks assert their own mathematics (the backend's and the oracle's
    optima equal HiGHS's), and the end checks that each extension is found by name."""
    script = "\n".join(blocks()) + "\n".join(
        [
            "",
            "import ldopt.problems, ldopt_torch",
            "assert 'scipy' in ldopt.solvers.registered()",
            "assert ldopt_torch.SURROGATES['identity'] is Identity",
            "assert ldopt.problems.family('conflicts').size == 12",
            "print('extending: ok', len(setup.dec.blocks))",
        ]
    )
    path = tmp_path / "extending.py"
    path.write_text(script, encoding="utf-8")
    out = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=600, env={"LDOPT_PROGRESS": "0", **_env()}
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "extending: ok" in out.stdout


def _env() -> dict[str, str]:
    import os  # noqa: PLC0415

    return {k: v for k, v in os.environ.items() if k != "LDOPT_PROGRESS"}
