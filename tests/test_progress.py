"""Progress bars written to a log (standard error not a terminal) stay a few lines: a bar that
redraws in place on a terminal would otherwise leave every redraw in the file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the training bar needs torch (pip install 'ldopt[torch]')")

ROOT = Path(__file__).resolve().parents[1]
JOB = """
import numpy as np, torch, ldopt, ldopt_torch as lt
from ldopt.problems import knapsack
d = knapsack.protocol_data(40, 20, dim=3, seed=1)
m = knapsack.build_model(d.weights, d.capacities)
dec = ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c))
dec.dual(d.costs, iterations=300, progress=True)  # a dual bar of 300 steps
data = lt.LDDataset(dec, d.features[:30], d.costs[:30], iterations=20, progress=True)
lt.fit(torch.nn.Linear(d.features.shape[1], 20), data, lt.LDLoss(dec, "spo+"), epochs=1500, progress=True)
"""


def test_bars_in_a_log_file_are_sparse(tmp_path):
    log = tmp_path / "job.log"
    env = {k: v for k, v in os.environ.items() if k != "LDOPT_PROGRESS"}
    with log.open("w") as fh:
        subprocess.run([sys.executable, "-c", JOB], stderr=fh, stdout=fh, env=env, cwd=ROOT, check=True, timeout=600)
    text = log.read_text()
    redraws = text.count("\r") + text.count("\n")
    assert "fit[LDLoss]" in text and "dual" in text  # the bars are there ...
    assert redraws < 20, (redraws, len(text))  # ... a few redraws each, not one per refresh (100+)
