"""The experiment runner end to end on a tiny configuration, and its table and CI arithmetic."""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the runner trains torch models (pip install 'ldopt[torch]')")
pytest.importorskip("pyepo", reason="full-problem baselines run through PyEPO (pip install 'ldopt[torch]')")

import ldopt  # noqa: E402
import ldopt.evaluate.optima as optima_module  # noqa: E402
import ldopt_experiments as experiment  # noqa: E402
import ldopt_torch as lt  # noqa: E402
from ldopt.evaluate.regret import RegretReport, decisions, evaluate, optima  # noqa: E402
from ldopt_experiments import cli, runner  # noqa: E402


def test_mean_ci_matches_a_hand_computed_case():
    # values 1, 2, 3: mean 2, s = 1, t_{0.975, 2} = 4.302652729749464 -> half-width 4.3027 / sqrt(3)
    m, h = experiment.mean_ci([1.0, 2.0, 3.0])
    assert m == 2.0
    assert h == pytest.approx(4.302652729749464 / math.sqrt(3), rel=1e-9)
    assert experiment.mean_ci([5.0]) == (5.0, 0.0)


def test_method_names_parse_and_reject():
    assert experiment.label("ld:imle:multiple:L2") == "LD(IMLE, multiple, L2)"
    assert experiment.parse_method("spo+").kind == "spo+"
    with pytest.raises(ldopt.InputError, match="surrogates: spo\\+, imle, fy, exact"):
        experiment.parse_method("ld:spo:static:L1")
    assert experiment.parse_method("ld:imle:multiple:L1:scaled").scale == "costs"
    unit = experiment.parse_method("ld:imle:static:L2:unit")
    assert (unit.scale, unit.label) == ("unit", "LD(IMLE, static, L2, unit)")
    assert experiment.label("ld:imle:multiple:L1:scaled") == "LD(IMLE, multiple, L1, scaled)"
    with pytest.raises(ldopt.InputError):
        experiment.parse_method("ld:imle:multiple:L1:big")
    # I-MLE's λ: ':lam<λ>' after the scale; the reference's 10 otherwise, only for imle
    lam = experiment.parse_method("ld:imle:multiple:L2:unit:lam100")
    assert (lam.scale, lam.lambd, lam.label) == ("unit", 100.0, "LD(IMLE, multiple, L2, unit, λ=100)")
    assert experiment.parse_method("ld:imle:static:L1").lambd == 10.0
    assert experiment.parse_method("ld:imle:static:L1:lam30").label == "LD(IMLE, static, L1, λ=30)"
    bad_names = ("ld:spo+:static:L1:lam100", "ld:imle:static:L1:lam0", "ld:imle:static:L1:lamx")
    bad_names += ("ld:imle:static:L1:lam1:unit",)
    for bad in bad_names:
        with pytest.raises(ldopt.InputError, match="lam only with imle"):
            experiment.parse_method(bad)
    assert experiment.paper("knapsack", 100, "ld:imle:multiple:L2:lam100") == (2.376, 5293)
    # I-MLE's two-sided difference: ':two' after the scale, before λ; only for imle
    two = experiment.parse_method("ld:imle:multiple:L2:unit:two:lam100")
    assert (two.scale, two.two_sides, two.lambd) == ("unit", True, 100.0)
    assert two.label == "LD(IMLE, multiple, L2, unit, two-sided, λ=100)"
    assert not experiment.parse_method("ld:imle:multiple:L2:lam100").two_sides
    for bad in ("ld:spo+:multiple:L1:two", "ld:imle:multiple:L2:two:unit", "ld:imle:multiple:L2:two:two"):
        with pytest.raises(ldopt.InputError, match=":two and :lam only with imle"):
            experiment.parse_method(bad)
    from ldopt_experiments.methods import loss_for  # noqa: PLC0415
    from ldopt_experiments.protocol import knapsack_setup  # noqa: PLC0415

    setup = knapsack_setup(8, train=4, val=2, test=2)
    loss, mode = loss_for(two, setup, "highs")
    imle = loss.surrogate
    assert isinstance(imle, lt.IMLE)
    assert (mode, imle.two_sides, imle.lambd, loss.scale) == ("multiple", True, 100, "unit")
    # the paper's Table 1 (regret %, time to best s); a scaled variant is compared with its plain row
    assert experiment.paper("knapsack", 100, "ld:imle:multiple:L2") == (2.376, 5293)
    assert experiment.paper("knapsack", 100, "ld:imle:multiple:L1:scaled") == (2.807, 4813)
    assert experiment.paper("portfolio", 400, "ld:exact:static:L2") == (1.992, 3614)
    assert experiment.paper("portfolio", 50, "cave") == (None, None)


def test_saved_rows_accumulate_across_columns(tmp_path):
    path = tmp_path / "results.csv"
    old = dict(problem="knapsack", size=10, method="mse", seed=0, test_regret=4.0)
    experiment.save_rows([old], path)
    new = dict(problem="knapsack", size=10, method="spo+", seed=0, test_regret=3.0, paper_time=4692)
    merged = experiment.merge_rows(path, [new])
    experiment.save_rows(merged, path)
    back = experiment.load_rows(path)
    assert [(r["method"], r["test_regret"], r["paper_time"]) for r in back] == [
        ("mse", 4.0, None),
        ("spo+", 3.0, 4692.0),
    ]


def test_the_paper_layout_puts_ours_beside_the_paper_and_bolds_the_lower(tmp_path):
    def row(size, method, seed, regret, time=1.0):
        return dict(problem="knapsack", size=size, method=method, seed=seed, test_regret=regret, time_to_best=time)

    rows = [row(100, "mse", s, v) for s, v in enumerate([4.0, 5.0, 6.0])]
    rows += [row(100, "ld:spo+:multiple:L1", s, 3.0) for s in range(3)]  # the paper's 2.621 is lower
    rows += [row(300, "mse", 0, 3.5, time=2.0), row(300, "ld:imle:multiple:L2:unit", 0, 2.0)]
    text = experiment.paper_table(rows, "knapsack")
    lines = text.splitlines()
    assert lines[0] == "| method | n = 100, 3 seeds | paper | n = 300, 1 seed | paper |"
    half = 4.302652729749464 / math.sqrt(3)  # t_{0.975, 2} · s / √3 with s = 1
    assert lines[2] == f"| MSE | **5.000 ± {half:.3f} (1.0 s)** | 7.796 (270 s) | **3.500 (2.0 s)** | 6.774 (387 s) |"
    spo = next(line for line in lines if line.startswith("| LD(SPO+, multiple, L1) |"))
    assert spo == "| LD(SPO+, multiple, L1) | 3.000 ± 0.000 (1.0 s) | **2.621 (8 s)** | — | 2.179 (2485 s) |"
    assert lines[-1].startswith("| LD(IMLE, multiple, L2, unit) | — | 2.376 (5293 s) | **2.000")  # others last
    assert not any(line.startswith("| CaVE |") for line in lines)  # methods never run are left out
    with pytest.raises(ldopt.InputError, match="expected runs of 'portfolio', got none"):
        experiment.paper_table(rows, "portfolio")
    # the command line: several folders into one file
    for k, part in enumerate([rows[:6], rows[6:]]):
        experiment.save_rows(part, tmp_path / f"f{k}" / "results.csv")
    cli.main(["table", str(tmp_path / "f0"), str(tmp_path / "f1"), "--paper", "--out", str(tmp_path / "t.md")])
    assert (tmp_path / "t.md").read_text() == text
    # a folder's references (constant predictor, Bayes floor) follow the methods, per size
    ref = dict(problem="knapsack", size=300, digest="d", solver="highs", test_regret=dict(constant=9.5, bayes=1.25))
    (tmp_path / "f1" / "references.json").write_text(json.dumps(ref))
    cli.main(["table", str(tmp_path / "f0"), str(tmp_path / "f1"), "--paper", "--out", str(tmp_path / "t.md")])
    assert (tmp_path / "t.md").read_text().splitlines()[-2:] == [
        f"| {experiment.REFERENCES['constant']} | — | — | 9.500 | — |",
        f"| {experiment.REFERENCES['bayes']} | — | — | 1.250 | — |",
    ]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["experiment", "knapsack", "--size", "0"], "argument --size: expected an integer ≥ 1, got '0'"),
        (["experiment", "knapsack", "--train", "0"], "argument --train: expected an integer ≥ 1, got '0'"),
        (["experiment", "knapsack", "--seeds", "0", "-1"], "argument --seeds: expected an integer ≥ 0, got '-1'"),
        (["experiment", "knapsack", "--budget", "-3"], "argument --budget: expected a number > 0, got '-3'"),
        (["experiment", "knapsack", "--lr", "nan"], "argument --lr: expected a number > 0, got 'nan'"),
        (["experiment", "knapsack", "--epochs", "x"], "argument --epochs: expected an integer ≥ 1, got 'x'"),
        (["table", "no-such-folder"], "folder: expected a folder with results.csv"),
    ],
)
def test_the_command_line_refuses_bad_options_before_running(argv, message, tmp_path, monkeypatch, capsys):
    """Before, --size 0 (or --train 0) silently ran the default size, --budget -3 failed after
    building the data, and a missing folder raised FileNotFoundError's traceback."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        cli.main(argv)
    assert exit_.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "results").exists()  # nothing ran


def test_the_command_line_reports_an_ldopt_error_without_a_traceback(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        cli.main(["experiment", "knapsack", "--size", "5", "--methods", "foo", "--quiet"])
    assert str(exit_.value.code).startswith("ldopt experiment: error: method: expected mse | spo+")
    with pytest.raises(ldopt.InputError, match="got 'foo'"):  # Python callers still get the exception
        experiment.experiment_main(["knapsack", "--size", "5", "--methods", "foo", "--quiet"])


def test_runner_end_to_end_on_a_tiny_knapsack(tmp_path):
    out = tmp_path / "run"
    rows = experiment.experiment_main(
        [
            "knapsack",
            "--size",
            "15",
            "--train",
            "30",
            "--val",
            "10",
            "--test",
            "20",
            "--methods",
            "mse",
            "spo+",
            "imle",
            "cave",
            "cave+",
            "lava",
            "ld:spo+:static:L1",
            "ld:imle:multiple:L2",
            "--budget",
            "0.5",
            "--epochs",
            "3",
            "--iterations",
            "20",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert len(rows) == 8
    for r in rows:
        assert 0 <= r["test_regret"] < 100 and r["epochs"] >= 1
    assert (out / "results.csv").exists() and (out / "table.md").exists() and (out / "regret.png").stat().st_size > 0
    assert len(list((out / "histories").glob("*.csv"))) == 8
    # the table is rebuilt from the saved results alone
    references = experiment.load_references(out)
    again = experiment.table(experiment.load_rows(out / "results.csv"), references=references)
    assert again == (out / "table.md").read_text()
    assert "LD(SPO+, static, L1)" in again and "| knapsack n=15 |" in again
    # the references, measured on the test set: the constant predictor's and the Bayes floor's
    # decisions, their regrets those of an independent evaluation (the optima solved again)
    setup = experiment.knapsack_setup(15, train=30, val=10, test=20)
    (_, C), (_, test) = setup.train, setup.test
    constant = evaluate(setup.problem, np.tile(C.mean(0), (20, 1)), test, "highs").value
    floor = evaluate(setup.problem, setup.expected_test, test, "highs").value
    assert references["test_regret"] == pytest.approx(dict(constant=100 * constant, bayes=100 * floor), abs=1e-9)
    assert references["digest"] == setup.data_digest and floor < constant
    assert f"| knapsack n=15 | {experiment.REFERENCES['bayes']} | {100 * floor:.3f} |" in again


def test_references_on_a_sample_estimate_the_test_sets_with_their_standard_error(tmp_path):
    """``sample=k``: both references measured on k test instances drawn without replacement, the
    optima solved for those alone; the regrets those of an independent evaluation of the same
    instances, saved with a standard error, and shown with it and the sample's size."""
    setup = experiment.knapsack_setup(15, train=30, val=10, test=40)
    found = runner.references(setup, "highs", None, tmp_path, sample=12)
    assert (found["instances"], found["of"]) == (12, 40)
    idx = np.sort(np.random.default_rng(0).choice(40, 12, replace=False))
    (_, C), (_, test) = setup.train, setup.test
    floor = evaluate(setup.problem, setup.expected_test[idx], test[idx], "highs").value
    constant = evaluate(setup.problem, np.tile(C.mean(0), (12, 1)), test[idx], "highs").value
    assert found["test_regret"] == pytest.approx(dict(constant=100 * constant, bayes=100 * floor), abs=1e-9)
    assert all(0 < se < found["test_regret"][k] for k, se in found["standard_error"].items())
    assert experiment.load_references(tmp_path) == found  # kept: a second call does not solve again
    cell = experiment.results.reference_cell(found, "bayes")
    assert cell == f"{100 * floor:.3f} (SE {found['standard_error']['bayes']:.3f}; 12 of 40 instances)"
    with pytest.raises(ldopt.InputError, match="expected a sample of at least 2 test instances, got 1"):
        runner.references(setup, "highs", None, sample=1)


def test_a_run_measures_its_references_on_at_most_its_sample_under_its_cap(tmp_path):
    """``run()`` keeps the references to minutes on any test set: at most
    ``RunOptions.reference_instances`` test instances (with standard errors where that is fewer than
    the test set) and decisions of at most ``reference_time_limit`` seconds."""
    setup = experiment.knapsack_setup(12, train=16, val=6, test=20)
    opts = experiment.RunOptions(epochs=1, reference_instances=8, out=tmp_path, progress=False)
    experiment.run(setup, ["mse"], [0], opts)
    refs = experiment.load_references(tmp_path)
    assert (refs["instances"], refs["of"], refs["time_limit"]) == (8, 20, opts.reference_time_limit)
    assert set(refs["standard_error"]) == {"constant", "bayes"}
    assert "8 of 20 instances" in (tmp_path / "table.md").read_text()


def test_a_floor_stopped_at_a_gap_keeps_a_certified_lower_end():
    """Decisions for E[c] stopped at a MIP gap lose at most the solver's gap on E[c] against exact
    ones, so the floor's expected regret is at least the value less those gaps over Σ |optimum|
    (``lower``): the gaps hold what an independent exact solve of E[c] says the decisions lost."""
    setup = experiment.knapsack_setup(30, train=30, val=10, test=20)
    found = runner.references(setup, "highs", None, gap=0.3)
    E, test = setup.expected_test, setup.test[1]
    x = decisions(setup.problem, E, "highs", gap=0.3)
    opt = optima(setup.problem, test, "highs")
    lost = opt.sign * (setup.problem.solve(E, solver="highs").objective - setup.problem.objective(x, E))
    slack = (found["test_regret"]["bayes"] - found["lower"]["bayes"]) / 100 * np.abs(opt.value).sum()
    assert lost.min() >= -1e-6 and slack >= lost.sum() - 1e-6 * np.abs(opt.value).sum()
    assert found["lower"]["bayes"] <= found["test_regret"]["bayes"]
    shown = experiment.results.reference_cell(found, "bayes")
    assert shown.startswith(f"{found['test_regret']['bayes']:.3f}")


def test_the_ratio_estimators_standard_error_is_its_spread_over_samples():
    """The standard error saved with a sampled reference (the ratio estimator's, with the
    finite-population correction) matches the estimator's spread over many samples of a fixed
    population: 4,000 draws put the spread's relative error near 1/sqrt(2 * 4000) ~ 1.1%; 8%."""
    rng = np.random.default_rng(3)
    N, k = 300, 40
    size = rng.uniform(50, 150, N)
    regret = size * rng.gamma(2.0, 0.01, N)
    estimates, errors = [], []
    for _ in range(4000):
        idx = rng.choice(N, k, replace=False)
        value = regret[idx].sum() / size[idx].sum()
        r = RegretReport(value, value, value, regret[idx], k, k)
        estimates.append(value)
        errors.append(runner._ratio_standard_error(r, size[idx], N))
    assert np.mean(errors) == pytest.approx(np.std(estimates), rel=0.08)


def test_runner_passes_the_dual_options_to_the_training_sets(tmp_path):
    args = [
        "knapsack",
        "--size",
        "12",
        "--train",
        "16",
        "--val",
        "6",
        "--test",
        "6",
        "--methods",
        "ld:spo+:multiple:L1",
        "--budget",
        "0.3",
        "--epochs",
        "2",
        "--iterations",
        "15",
        "--quiet",
    ]
    modes = ["shared", "independent", "joint"]
    for mode in modes:
        experiment.experiment_main([*args, "--dual", mode, "--out", str(tmp_path / mode)])
    metas = [json.loads((tmp_path / k / "meta.json").read_text()) for k in modes]
    assert [m["dual"]["mode"] for m in metas] == modes
    # each run's training set was built (and cached) by its own kind of dual solve
    headers = [json.loads(next((tmp_path / k / "cache").glob("lddata-*.json")).read_text()) for k in modes]
    assert [h["settings"]["mode"] for h in headers] == modes


def test_runner_resumes_an_interrupted_invocation(tmp_path, monkeypatch):
    out = tmp_path / "run"
    args = ["knapsack", "--size", "10", "--train", "12", "--val", "5", "--test", "5", "--epochs", "2"]
    args += ["--iterations", "10", "--curve-instances", "0", "--out", str(out), "--quiet"]
    methods = ["--methods", "mse", "ld:spo+:multiple:L1"]
    calls = []
    one_run = runner._one_run

    def interrupted(setup, spec, seed, *rest):
        if len(calls) == 2:  # the third run of an invocation: the machine goes down
            raise KeyboardInterrupt
        calls.append((spec.name, seed))
        return one_run(setup, spec, seed, *rest)

    monkeypatch.setattr(runner, "_one_run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        experiment.experiment_main([*args, *methods, "--seeds", "0", "1"])
    # the two finished runs are saved, in results.csv and the table too
    saved = experiment.load_rows(out / "results.csv")
    assert [(r["method"], int(r["seed"])) for r in saved] == [("mse", 0), ("ld:spo+:multiple:L1", 0)]
    first = (out / "runs" / "knapsack10-mse-seed0.json").read_text()
    calls.clear()
    solved = []  # the optima's solves in the resumed invocation
    real_solve = optima_module.solve_many
    counting = lambda p, c, *a, **k: solved.append(len(c)) or real_solve(p, c, *a, **k)  # noqa: E731
    monkeypatch.setattr(optima_module, "solve_many", counting)
    rows = experiment.experiment_main([*args, *methods, "--seeds", "0", "1", "--resume"])
    assert calls == [("mse", 1), ("ld:spo+:multiple:L1", 1)]  # only the runs not saved
    assert len(rows) == 4 and len(experiment.load_rows(out / "results.csv")) == 4
    assert (out / "runs" / "knapsack10-mse-seed0.json").read_text() == first
    # the validation and test optima came from the folder's cache, solved by the first invocation
    assert solved == [] and len(list((out / "cache").glob("optima-*.npz"))) == 2
    # meta.json keeps the seconds of both invocations' runs
    recorded = [s["stage"] for s in json.loads((out / "meta.json").read_text())["stages"]]
    for method, seed in [("MSE", 0), ("LD(SPO+, multiple, L1)", 0), ("MSE", 1), ("LD(SPO+, multiple, L1)", 1)]:
        assert f"train {method} (seed {seed}), validation included" in recorded
    assert len(recorded) == len(set(recorded))
    # a resume with other settings would mix incomparable runs: refused, naming the setting, also
    # when the earlier invocation was interrupted before it finished
    (out / "meta.json").unlink()
    monkeypatch.setattr(runner, "_one_run", lambda *a: (_ for _ in ()).throw(KeyboardInterrupt))
    with pytest.raises(KeyboardInterrupt):
        experiment.experiment_main([*args, *methods, "--seeds", "2"])
    with pytest.raises(ldopt.InputError, match="epochs: 2 there, 3 now"):
        experiment.experiment_main([*[a if a != "2" else "3" for a in args], *methods, "--seeds", "2", "--resume"])


def test_a_run_restores_rows_that_a_concurrent_invocation_overwrote(tmp_path):
    out = tmp_path / "run"
    args = ["knapsack", "--size", "10", "--train", "12", "--val", "5", "--test", "5", "--epochs", "2"]
    args += ["--iterations", "10", "--curve-instances", "0", "--methods", "mse", "--out", str(out), "--quiet"]
    experiment.experiment_main([*args, "--seeds", "0", "1"])
    saved = experiment.load_rows(out / "results.csv")
    experiment.save_rows(saved[:1], out / "results.csv")  # seed 1's row lost to a concurrent writer
    experiment.experiment_main([*args, "--seeds", "2", "--resume"])
    back = experiment.load_rows(out / "results.csv")
    assert sorted(int(r["seed"]) for r in back) == [0, 1, 2]


def test_runner_portfolio_exact(tmp_path):
    rows = experiment.experiment_main(
        [
            "portfolio",
            "--size",
            "8",
            "--train",
            "20",
            "--val",
            "8",
            "--test",
            "20",
            "--methods",
            "mse",
            "ld:exact:static:L2",
            "--budget",
            "0.5",
            "--epochs",
            "3",
            "--iterations",
            "20",
            "--solver",
            "cvxpy",
            "--out",
            str(tmp_path),
            "--quiet",
        ]
    )
    assert [r["label"] for r in rows] == ["MSE", "LD(Exact, static, L2)"]


def test_portfolio_static_rows_train_through_the_risk_block(tmp_path, monkeypatch):
    """The paper's portfolio rows take the risk row as the static main block (the budget row's
    main decision is a vertex whatever the prediction) and start the multipliers at q(c)/m."""
    from ldopt_torch.losses.ld import LDLoss  # noqa: PLC0415

    setup = experiment.portfolio_setup(8, train=20, val=8, test=20)
    assert setup.dec.block(setup.main).describe() == "risk"
    seen: set[int] = set()
    per_instance = LDLoss.per_instance

    def spy(self, pred, batch):
        seen.update(int(d) for d in np.atleast_1d(np.asarray(batch["d"])))
        return per_instance(self, pred, batch)

    monkeypatch.setattr(LDLoss, "per_instance", spy)
    args = ["portfolio", "--size", "8", "--train", "20", "--val", "8", "--test", "20", "--epochs", "2"]
    experiment.experiment_main(
        [*args, "--methods", "ld:spo+:static:L1", "--solver", "cvxpy", "--out", str(tmp_path), "--quiet"]
    )
    assert seen == {setup.main}
    header = json.loads(next((tmp_path / "cache").glob("lddata-*.json")).read_text())
    assert header["settings"]["mu0"] == "symmetric"


@pytest.mark.parametrize(
    ("family", "size"),
    [("shortest_path", 3), ("facility", 6), ("shift_scheduling", 4), ("set_cover", 10), ("lot_sizing", 2)],
)
def test_runner_trains_every_new_family(tmp_path, family, size):
    """Each family of ldopt.problems runs end to end through the runner: MSE and both LD methods."""
    out = tmp_path / family
    argv = [family, "--size", str(size), "--train", "20", "--val", "8", "--test", "10", "--epochs", "3"]
    argv += ["--methods", "mse", "ld:spo+:multiple:L1", "ld:imle:multiple:L2", "--dual", "shared"]
    rows = experiment.experiment_main([*argv, "--iterations", "30", "--out", str(out), "--quiet"])
    assert [r["method"] for r in rows] == ["mse", "ld:spo+:multiple:L1", "ld:imle:multiple:L2"]
    assert all(np.isfinite(r["test_regret"]) and r["test_regret"] >= 0 for r in rows)
    assert f"{family} n={size}" in (out / "table.md").read_text()


def test_a_missing_optional_package_is_named_before_any_work(tmp_path, monkeypatch):
    """Without PyEPO, the full-problem SPO+ failed after MSE had trained; now nothing runs."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyepo" else real(name, *a))
    out = tmp_path / "run"
    args = ["knapsack", "--size", "10", "--train", "12", "--val", "5", "--test", "5", "--epochs", "1", "--quiet"]
    with pytest.raises(ldopt.InputError, match=r"SPO\+ needs pyepo"):
        experiment.experiment_main([*args, "--methods", "mse", "spo+", "--out", str(out)])
    assert not out.exists()  # not even the output folder


def test_the_library_never_imports_the_harness(tmp_path):
    """``import ldopt, ldopt_torch`` loads nothing of ``ldopt_experiments``; the harness's command
    line is ``python -m ldopt_experiments`` (the older ``ldopt_torch.experiment`` is gone)."""
    probe = "import sys, ldopt, ldopt_torch; print(any(m.startswith('ldopt_experiments') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    assert importlib.util.find_spec("ldopt_torch.experiment") is None
    cmd = [sys.executable, "-m", "ldopt_experiments", "experiment", "--help"]
    assert "--methods" in subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def test_the_pyepo_knapsack_example_resumes_to_the_rows_of_one_run(tmp_path):
    """`examples/pyepo_large_knapsack.py` on 10 training and 5 test instances of PyEPO's MPAX
    knapsack: every row's regret lies in its certified interval; a rerun with one more method keeps
    the finished rows, loads the test optima from ``<out>/cache`` instead of solving them, and
    trains only the new method, from the MSE fit fitted again: its row is the one a single run of
    all three methods gives. A rerun with other settings is refused, naming them."""
    script = Path(__file__).resolve().parents[1] / "examples" / "pyepo_large_knapsack.py"
    base = [sys.executable, str(script), "--train", "10", "--test", "5", "--epochs", "1"]
    resumed, whole = tmp_path / "resumed", tmp_path / "whole"

    def run(out, *methods):
        cmd = [*base, "--out", str(out), "--methods", *methods]
        return subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=600).stdout

    run(resumed, "mse", "bayes")
    first = json.loads((resumed / "results.json").read_text())["rows"]
    assert [r["train_seconds"] is None for r in first] == [False, True]  # the floor has no model
    (entry,) = (resumed / "cache").glob("lp_optima-*.npz")
    written = entry.stat().st_mtime_ns
    printed = run(resumed, "mse", "ld:spo+:L1:mse")
    assert "test optima" not in printed and "training MSE" not in printed and "training LD(SPO+" in printed
    assert entry.stat().st_mtime_ns == written  # loaded, not solved and written again
    rows = json.loads((resumed / "results.json").read_text())["rows"]
    assert rows[:2] == first and rows[2]["method"] == "LD(SPO+, multiple, L1) from the MSE fit"
    for r in rows:
        assert 0.0 <= r["lower"] <= r["regret"] <= r["upper"]
    table = (resumed / "table.md").read_text()  # this run's methods, then the kept floor
    assert table.index("| MSE (two-stage)") < table.index("| LD(SPO+") < table.index("| the generator's")
    run(whole, "mse", "ld:spo+:L1:mse", "bayes")
    once = {r["method"]: r for r in json.loads((whole / "results.json").read_text())["rows"]}
    for r in rows:
        for key in ("regret", "lower", "upper", "lp_regret"):
            assert r[key] == pytest.approx(once[r["method"]][key], abs=1e-9), (r["method"], key)
    cmd = [*base[:-1], "2", "--out", str(resumed), "--methods", "mse"]
    other = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert other.returncode != 0 and "--epochs 1 there, 2 here" in other.stderr


def test_the_large_knapsack_example_resumes(tmp_path):
    """`examples/large_knapsack.py --resume` keeps the runs an earlier invocation saved and trains
    only the methods it lacks."""
    script = Path(__file__).resolve().parents[1] / "examples" / "large_knapsack.py"
    base = [sys.executable, str(script), "--items", "30", "--rows", "3", "--train", "20", "--val", "5", "--test", "10"]
    base += ["--budget", "0.3", "--certify-iterations", "0", "--out", str(tmp_path), "--methods", "mse"]
    subprocess.run(base, check=True, capture_output=True, timeout=600)
    (first,) = experiment.load_rows(tmp_path / "results.csv")
    subprocess.run([*base, "ld:spo+:multiple:L1", "--resume"], check=True, capture_output=True, timeout=600)
    rows = experiment.load_rows(tmp_path / "results.csv")
    assert [r["method"] for r in rows] == ["mse", "ld:spo+:multiple:L1"] and rows[0] == first
