"""The experiment runner end to end on a tiny configuration, and its table and CI arithmetic."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch", reason="the runner trains torch models (pip install 'ldopt[torch]')")
pytest.importorskip("pyepo", reason="full-problem baselines run through PyEPO (pip install 'ldopt[torch]')")

import ldopt  # noqa: E402
from ldopt_torch import experiment  # noqa: E402


def test_mean_ci_matches_a_hand_computed_case():
    # values 1, 2, 3: mean 2, s = 1, t_{0.975, 2} = 4.302652729749464 -> half-width 4.3027 / sqrt(3)
    m, h = experiment.mean_ci([1.0, 2.0, 3.0])
    assert m == 2.0
    assert h == pytest.approx(4.302652729749464 / math.sqrt(3), rel=1e-9)
    assert experiment.mean_ci([5.0]) == (5.0, 0.0)


def test_method_names_parse_and_reject():
    assert experiment.label("ld:imle:multiple:L2") == "LD(IMLE, multiple, L2)"
    assert experiment.parse_method("spo+") == {"kind": "spo+"}
    with pytest.raises(ldopt.InputError, match="ld:<spo\\+\\|imle\\|exact>"):
        experiment.parse_method("ld:spo:static:L1")


def test_runner_end_to_end_on_a_tiny_knapsack(tmp_path):
    out = tmp_path / "run"
    rows = experiment.main(["knapsack", "--size", "15", "--train", "30", "--val", "10", "--test", "20",
                            "--methods", "mse", "spo+", "imle", "cave", "cave+", "lava", "ld:spo+:static:L1",
                            "ld:imle:multiple:L2",
                            "--budget", "0.5", "--epochs", "3", "--iterations", "20", "--out", str(out), "--quiet"])
    assert len(rows) == 8
    for r in rows:
        assert 0 <= r["test_regret"] < 100 and r["epochs"] >= 1
    assert (out / "results.csv").exists() and (out / "table.md").exists() and (out / "regret.png").stat().st_size > 0
    assert len(list((out / "histories").glob("*.csv"))) == 8
    # the table is rebuilt from the saved results alone
    again = experiment.table(experiment.load_rows(out / "results.csv"))
    assert again == (out / "table.md").read_text()
    assert "LD(SPO+, static, L1)" in again and "| knapsack n=15 |" in again


def test_runner_portfolio_exact(tmp_path):
    rows = experiment.main(["portfolio", "--size", "8", "--train", "20", "--val", "8", "--test", "20",
                            "--methods", "mse", "ld:exact:static:L2", "--budget", "0.5", "--epochs", "3",
                            "--iterations", "20", "--solver", "cvxpy", "--out", str(tmp_path), "--quiet"])
    assert [r["label"] for r in rows] == ["MSE", "LD(Exact, static, L2)"]
