"""The README as written: every code block runs.

Python blocks run in order as one script, as a reader pastes them; a block headed
``# name.py — a script of its own`` runs as that script. Shell commands run as written with
arguments appended that make them small (the last value of an option wins); the set-up's own
commands (installing, this test suite) are the ones not run, and say why. The main job runs as
written, at full size, in the ``slow`` suite."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the README's training blocks need torch (pip install 'ldopt[torch]')")
pytest.importorskip("matplotlib", reason="the README's examples save plots (pip install matplotlib)")

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"^```(\w+)\n(.*?)^```", TEXT, flags=re.S | re.M)
OWN_SCRIPT = re.compile(r"^# (\S+\.py) — a script of its own")
ENV = {**os.environ, "LDOPT_PROGRESS": "0", "PYTHONPATH": str(ROOT)}

# what each shell command gets appended to run small
SMALL = {
    "python examples/knapsack.py": "--items 20 --epochs 2",
    "python examples/portfolio.py": "--assets 10 --budget 0.5 --test 20",
    "python examples/large_knapsack.py": "--items 40 --rows 3 --train 20 --val 5 --test 10 --budget 0.5",
    "python examples/families.py": "--family set_cover --seeds 0 --epochs 2 --train 20",
    "ldopt experiment": "--size 20 --train 30 --val 10 --test 20 --epochs 3 --seeds 0 --curve-instances 0 --quiet",
    "ldopt table": "",
}
NOT_RUN = {
    "pip install": "installing is the set-up itself: CI runs it on a clean clone",
    "python -m pytest": "this is the test suite itself",
}


def _python_blocks() -> tuple[str, list[tuple[str, str]]]:
    pasted, own = [], []
    for lang, body in BLOCKS:
        if lang != "python":
            continue
        head = OWN_SCRIPT.match(body)
        if head:
            own.append((head.group(1), body))
        else:
            pasted.append(body)
    return "\n".join(pasted), own


def _shell_blocks() -> list[list[str]]:
    """Each bash block's commands: continuation lines joined, comments dropped, ``&&`` split."""
    out = []
    for lang, body in BLOCKS:
        if lang == "bash":
            commands = []
            for line in body.replace("\\\n", " ").splitlines():
                line = line.split("#", 1)[0].strip()
                commands += [c.strip() for c in line.split("&&") if c.strip()]
            out.append(commands)
    return out


def _argv(command: str) -> list[str]:
    small = [v for k, v in SMALL.items() if command.startswith(k)]
    assert small, f"{command!r}: a README command this test does not know; add it to SMALL or NOT_RUN"
    argv = shlex.split(command.replace("examples/", f"{ROOT}/examples/")) + shlex.split(small[0])
    if argv[0] == "python":
        return [sys.executable, *argv[1:]]
    script = Path(sys.executable).parent / argv[0]  # the console script installed beside python
    return [str(script), *argv[1:]] if script.exists() else [sys.executable, "-m", "ldopt_experiments.cli", *argv[1:]]


def _run(argv: list[str], cwd: Path, timeout: float = 600) -> None:
    p = subprocess.run(argv, cwd=cwd, env=ENV, capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, f"{' '.join(argv)} failed:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"


def test_the_readme_has_the_blocks_this_test_runs():
    pasted, own = _python_blocks()
    assert "import ldopt" in pasted and own, "expected pasted python blocks and a script of its own"
    assert _shell_blocks()[0] == [
        "pip install torch==2.13.0 --extra-index-url https://download.pytorch.org/whl/cpu",
        'pip install -e ".[all]" -c constraints.txt',
        "python examples/knapsack.py",
        "python -m pytest -q",
    ], "the README's first two commands are the set-up"


def test_python_blocks_run_in_order_as_pasted(tmp_path):
    pasted, _ = _python_blocks()
    (tmp_path / "readme.py").write_text(pasted)
    _run([sys.executable, "readme.py"], tmp_path)


@pytest.mark.parametrize("name", [name for name, _ in _python_blocks()[1]])
def test_a_script_of_its_own_runs(tmp_path, name):
    body = dict(_python_blocks()[1])[name]
    (tmp_path / name).write_text(body)
    _run([sys.executable, name], tmp_path)


@pytest.mark.parametrize("block", range(len(_shell_blocks())))
def test_shell_blocks_run_small(tmp_path, block):
    """Each bash block's commands in order, in one folder (``ldopt table`` reads what the
    experiment before it wrote)."""
    ran = 0
    for command in _shell_blocks()[block]:
        if any(command.startswith(prefix) for prefix in NOT_RUN):
            continue  # see NOT_RUN for why
        _run(_argv(command), tmp_path)
        ran += 1
    assert ran, "a block with nothing to run"


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_the_main_job_as_written(tmp_path):
    """The README's first command's job at full size (about 6 minutes on 2 cores)."""
    _run([sys.executable, str(ROOT / "examples" / "knapsack.py")], tmp_path, timeout=3600)
    assert (tmp_path / "results" / "knapsack" / "table.md").exists()


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_main_jobs_first_table_does_not_depend_on_the_load(tmp_path):
    """The main job (small) on an idle machine and under two busy-looping processes prints the same
    regret table: an epoch budget and early stopping decide everything in it."""
    small = ["--items", "30", "--epochs", "20", "--eval-every", "2", "--patience", "3"]
    tables = []
    for busy in (0, 2):
        hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
        try:
            p = subprocess.run(
                [sys.executable, str(ROOT / "examples" / "knapsack.py"), *small, "--out", str(tmp_path / f"b{busy}")],
                env=ENV, capture_output=True, text=True, timeout=1200, check=True,
            )  # fmt: skip
        finally:
            for h in hogs:
                h.kill()
        tables.append(p.stdout.split("Times on this machine")[0].split("\n\n", 1)[1])
    assert tables[0] == tables[1] and "| knapsack n=30 |" in tables[0]
