"""Write ``constraints.txt`` from the active environment: the versions CI and the README's set-up
install. Run it in a fresh environment after ``pip install torch==2.13.0`` and
``pip install -U -e ".[all]"`` (that is ``LDOPT_NEWEST=1 bash .ci/run``'s install) once the suite
passes there."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HEADER = """\
# The versions CI and the README's set-up install (pip install -c constraints.txt ...): a new release
# of a dependency cannot turn a fresh install red until this file changes. torch is pinned in the
# command itself (its CPU build's version carries a local tag). Regenerate: python .ci/freeze.py
"""
SKIP = ("torch==", "nvidia-", "triton==")


def main() -> None:
    frozen = subprocess.run(
        [sys.executable, "-m", "pip", "freeze", "--exclude-editable"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    pins = [line for line in frozen if line and not line.lower().startswith(SKIP)]
    out = Path(__file__).resolve().parents[1] / "constraints.txt"
    out.write_text(HEADER + "\n".join(pins) + "\n")
    print(f"{out}: {len(pins)} pins")


if __name__ == "__main__":
    main()
