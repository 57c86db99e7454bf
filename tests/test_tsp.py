"""The TSP (`ldopt.problems.tsp`, `tsp_oracle`): PyEPO's data, exact tours against an exact solve
of the compact model, the 1-tree oracle against HiGHS on its block (also with priced flows), Held
and Karp's bound below every optimum, and training through the 1-tree block."""

from __future__ import annotations

import argparse

import numpy as np
import pyomo.environ as pyo
import pytest
import torch

import ldopt
import ldopt_torch as lt
from ldopt.decomposition.user_oracles import check_oracle
from ldopt.errors import CacheError, InputError
from ldopt.oracles import ORACLES, fit_oracle
from ldopt.problems import tsp, tsp_oracle, tsp_tours

N = 7  # nodes: the compact model's exact HiGHS solve takes well under a second


@pytest.fixture(scope="module")
def small():
    m = tsp.build_model(N)
    p = ldopt.Problem.from_pyomo(m, m.c, oracles=[tsp_tours.Tours])
    return p, ldopt.decompose(p, tsp.blocks(N), oracles=tsp_oracle.block_oracles(p, N))


@pytest.mark.parametrize(("nodes", "deg"), [(5, 1), (20, 4), (21, 6)])
def test_data_identical_to_pyepo(nodes, deg):
    data = pytest.importorskip("pyepo.data.tsp", reason="pyepo is not installed")
    x, c = data.genData(30, 10, nodes, deg=deg, noise_width=0.5, seed=43)
    f, d = tsp.gen_data(30, 10, nodes, deg=deg, noise_width=0.5, seed=43)
    assert np.array_equal(x, f) and np.array_equal(c, d) and d.dtype == c.dtype
    assert tsp.edges(nodes) == [tuple(e) for e in np.transpose(np.triu_indices(nodes, 1))]


def test_tours_are_optimal_and_feasible(small):
    p, _ = small
    rng = np.random.default_rng(0)
    _, c = tsp.gen_data(12, 3, N, deg=2, noise_width=0.5, seed=1)
    c = np.vstack([c, rng.normal(size=(4, c.shape[1]))])  # negative costs too
    x = tsp_tours.tours(c, N)
    assert np.all(x.sum(1) == N)
    exact = p.solve(c, solver="highs")
    assert np.allclose((c * x).sum(1), exact.objective, rtol=1e-9, atol=1e-7)
    full = tsp_tours.full_solution(p, x, N)
    assert np.all(p.violation(full) <= 1e-9)
    opt = tsp_tours.optima(p, c, N)
    assert np.allclose(opt.value, exact.objective, rtol=1e-9, atol=1e-7) and np.all(opt.proven)


def test_auto_solves_the_model_by_the_cut_loop(small):
    p, _ = small
    _, c = tsp.gen_data(10, 3, N, deg=4, noise_width=0.5, seed=5)
    auto = p.solve(c.astype(float))
    exact = p.solve(c.astype(float), solver="highs")
    assert np.allclose(auto.objective, exact.objective, rtol=1e-9) and np.all(p.violation(auto.x) <= 1e-9)
    assert isinstance(fit_oracle(p.compiled), tsp_tours.Tours)
    dec = ldopt.decompose(p, tsp.blocks(N), oracles=tsp_oracle.block_oracles(p, N))
    assert all(not isinstance(fit_oracle(b.compiled), tsp_tours.Tours) for b in dec.blocks)


def test_tours_serve_only_the_problem_that_declares_them():
    """Importing ``ldopt.problems`` registers nothing: a TSP model compiled without
    ``oracles=[Tours]`` keeps ldopt's own oracles (none fits it); a bad declaration names the fix."""
    assert tsp_tours.Tours not in ORACLES
    m = tsp.build_model(N)
    assert fit_oracle(ldopt.Problem.from_pyomo(m, m.c).compiled) is None
    assert isinstance(fit_oracle(ldopt.Problem.from_pyomo(m, m.c, oracles=tsp_tours.Tours).compiled), tsp_tours.Tours)
    with pytest.raises(InputError, match=r"oracles: expected ldopt\.oracles\.Oracle subclasses .* got OneTree"):
        ldopt.Problem.from_pyomo(m, m.c, oracles=[tsp_oracle.OneTree.on_edges(N)])


def test_a_model_with_a_row_more_is_not_taken_for_the_tsp():
    """Only the exact model is solved by tours: a side row makes it another problem (HiGHS)."""
    m = tsp.build_model(N)
    m.forced = pyo.Constraint(expr=m.x[0] + m.x[N] >= 2)  # edges (0,1) and (1,2) both in the tour
    p = ldopt.Problem.from_pyomo(m, m.c, oracles=[tsp_tours.Tours])  # declared, but not this model
    assert fit_oracle(p.compiled) is None
    _, c = tsp.gen_data(6, 3, N, deg=4, noise_width=0.5, seed=6)
    s = p.solve(c.astype(float))
    assert np.all(s.x[:, 0] > 0.5) and np.all(s.x[:, N] > 0.5)


def test_tours_oracle_sends_priced_flows_to_the_fallback(small):
    p, _ = small
    oracle = fit_oracle(p.compiled)
    _, fx = tsp.variable_index(p, N)
    lam = np.random.default_rng(8).normal(size=(2, p.num_vars))
    lam[0, fx] = 0.0
    handed = []
    oracle.fallback = lambda rows: handed.append(rows) or np.full(rows.shape, 7.0)
    x = oracle.argmax(lam)
    assert oracle.fallback_count == 1 and len(handed) == 1 and np.array_equal(handed[0], lam[1:])
    assert p.violation(x[:1])[0] <= 1e-9 and np.all(x[1] == 7.0)  # a tour, then the fallback's answer


def test_one_tree_oracle_is_exact(small):
    p, dec = small
    tree = dec.num_blocks - 1
    ex, _ = tsp.variable_index(p, N)
    lam = np.zeros((48, p.num_vars))
    rng = np.random.default_rng(3)
    lam[:, ex] = rng.normal(size=(48, len(ex))) * np.where(np.arange(48) < 24, 1.0, 1e3)[:, None]
    lam[:8, ex] = np.round(lam[:8, ex])  # ties
    report = check_oracle(dec, tree, objectives=lam)
    assert report.max_gap <= 1e-6 and report.max_violation <= 1e-6
    assert "1-tree" in dec.describe() and "(your oracle)" in dec.describe()


def test_priced_flows_go_to_the_exact_fallback(small):
    p, dec = small
    tree = dec.num_blocks - 1
    oracle = dec.blocks[tree].user_oracle
    _, fx = tsp.variable_index(p, N)
    rng = np.random.default_rng(4)
    lam = rng.normal(size=(6, p.num_vars))
    lam[:3, fx] = 0.0  # the first three price only edges: closed form
    before = oracle.fallback_count
    solver = dec.block(tree).solver("auto")
    oracle._warned = False
    with pytest.warns(UserWarning, match="mode='shared'"):
        x = solver.argmax(lam)
    assert oracle.fallback_count - before == 3
    exact = dec.block(tree).solver("highs").argmax(lam)
    assert np.allclose((lam * x).sum(1), (lam * exact).sum(1), rtol=1e-7, atol=1e-6)


def test_held_karp_bound_below_every_optimum(small):
    p, dec = small
    _, c = tsp.gen_data(10, 3, N, deg=4, noise_width=0.5, seed=2)
    c = c.astype(float)
    opt = tsp_tours.optima(p, c, N).value
    r = dec.dual(c, mode="shared", iterations=200, progress=False)
    assert np.all(r.bound <= opt + 1e-7 * np.abs(opt))
    one_tree = dec.dual(c, mode="shared", iterations=1, progress=False).bound  # the first multipliers
    assert np.all(r.bound >= one_tree - 1e-9) and np.mean(r.bound / opt) > 0.98


def test_training_through_the_one_tree_beats_a_random_model():
    nodes = 8
    m = tsp.build_model(nodes)
    p = ldopt.Problem.from_pyomo(m, m.c, oracles=[tsp_tours.Tours])
    dec = ldopt.decompose(p, tsp.blocks(nodes), oracles=tsp_oracle.block_oracles(p, nodes))
    F, C = tsp.gen_data(160, 5, nodes, deg=4, noise_width=0.5, seed=7)
    F, C = F.astype(float), C.astype(float)
    data = lt.LDDataset(dec, F[:120], C[:120], lt.DEFAULTS.dual.merged(mode="shared", iterations=50), progress=False)
    torch.manual_seed(0)
    net = torch.nn.Linear(5, p.num_costs)

    def regret(model: torch.nn.Module) -> float:
        with torch.no_grad():
            pred = model(torch.as_tensor(F[120:], dtype=torch.float32)).numpy().astype(float)
        opt = (C[120:] * tsp_tours.tours(C[120:], nodes)).sum(1)
        return float(((C[120:] * tsp_tours.tours(pred, nodes)).sum(1) - opt).sum() / opt.sum())

    before = regret(net)
    loss = lt.LDLoss(dec, surrogate="spo+", target="L1")
    out = lt.fit(net, data, loss, mode="static", main=dec.num_blocks - 1, epochs=20, lr=5e-2, seed=0, progress=False)
    after = regret(out.model)
    assert after < 0.5 * before
    assert dec.blocks[-1].user_oracle.fallback_count == 0  # the shared sparse form never prices a flow


@pytest.mark.parametrize("surrogate", ["fy", "imle"])
def test_perturbations_leave_the_flows_unpriced(small, surrogate):
    """I-MLE and Fenchel–Young perturb the variables the costs move (the edges), not the flows:
    the 1-tree oracle answers every perturbed objective in closed form."""
    p, dec = small
    oracle = dec.blocks[-1].user_oracle
    F, C = tsp.gen_data(40, 4, N, deg=4, noise_width=0.5, seed=9)
    data = lt.LDDataset(
        dec, F.astype(float), C.astype(float), lt.DEFAULTS.dual.merged(mode="shared", iterations=20), progress=False
    )
    before = oracle.fallback_count
    loss = lt.LDLoss(dec, surrogate=surrogate, target="L1")
    lt.fit(
        torch.nn.Linear(4, p.num_costs), data, loss, mode="static", main=dec.num_blocks - 1, epochs=1, progress=False
    )
    assert oracle.fallback_count == before


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: tsp.build_model(3), "at least 4 nodes"),
        (lambda: tsp_tours.tours(np.ones((2, 5)), 5), r"expected \(B, 10\) edge costs"),
        (lambda: tsp.gen_data(0, 3, 6), "num_data"),
        (lambda: tsp_tours.tree_flows(np.ones((1, 10)), 5), r"x\[0\]: expected a 1-tree"),
        (lambda: tsp_tours.tree_flows(np.ones((1, 9)), 5), r"expected \(B, 10\) edges"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(InputError, match=match):
        call()


def test_check_oracle_refuses_objectives_of_another_shape(small):
    _, dec = small
    with pytest.raises(InputError, match="objectives: expected"):
        check_oracle(dec, 0, objectives=np.ones((3, 4)))


def test_model_of_another_size_is_refused(small):
    p, _ = small
    with pytest.raises(InputError, match=r"tsp\.build_model"):
        tsp.variable_index(p, N + 1)


def test_the_routing_example_runs_and_resumes(tmp_path):
    """`examples/routing.py` on a small TSP instance: a table and results for every seed; a rerun
    with one more seed keeps the finished seed and runs only the new one, and one with one more
    method (with its own epochs and learning rate) runs only that method on every seed, with the
    test optima it kept; a rerun with fewer methods keeps and shows the others; a malformed method
    is refused by name."""
    import json  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    routing, script = _routing_example()
    args = [sys.executable, str(script), "--nodes", "6", "--train", "40", "--test", "20", "--epochs", "1"]
    args += ["--iterations", "10", "--out", str(tmp_path), "--methods", "2s", "ld:fy@2:L1:static"]
    subprocess.run([*args, "--seeds", "1"], check=True, capture_output=True, timeout=300)
    first = json.loads((tmp_path / "results.json").read_text())["rows"]
    optima = routing.cache.load(tmp_path / "optima" / "seed42.npz")
    assert optima is not None
    opt = optima[0]["optima"]
    for row in first:  # each row's per-instance costs of its decisions are kept beside it, and give its regret
        found = routing.cache.load(tmp_path / row["decisions"])
        assert found is not None and found[0]["realized"].shape == (20,)
        regret = 100 * (found[0]["realized"] - opt).sum() / np.abs(opt).sum()
        assert regret == pytest.approx(row["regret"], rel=1e-12)
    subprocess.run([*args, "--seeds", "2"], check=True, capture_output=True, timeout=300)
    rows = json.loads((tmp_path / "results.json").read_text())["rows"]
    assert rows[:2] == first and [r["seed"] for r in rows] == [42, 42, 43, 43]
    assert all(r["regret"] >= -1e-9 and r["decisions_seconds"] > 0 for r in rows)  # each method's test decisions
    table = (tmp_path / "table.md").read_text()
    assert "2 seeds (42..43)" in table and "LD(FY σ=2, L1, main: the 1-tree block)" in table
    assert (tmp_path / "regret_vs_seconds.png").stat().st_size > 0
    args[-2:] = ["2s", "ld:fy@2:L1:static", "ld:spo+:L1:static:mse/2/0.1"]  # its own epochs and learning rate
    subprocess.run([*args, "--seeds", "2"], check=True, capture_output=True, timeout=300)
    more = json.loads((tmp_path / "results.json").read_text())["rows"]
    assert more[:4] == rows and [(r["seed"], r["method"][-10:]) for r in more[4:]] == [
        (42, ":mse/2/0.1"),
        (43, ":mse/2/0.1"),
    ]
    assert [r["optima_seconds"] for r in more[4:]] == [rows[0]["optima_seconds"], rows[2]["optima_seconds"]]  # kept
    assert sorted(f.name for f in (tmp_path / "optima").glob("*.npz")) == ["seed42.npz", "seed43.npz"]
    assert "from the two-stage fit (2 epochs, lr 0.1)" in (tmp_path / "table.md").read_text()
    other = subprocess.run([*args, "--seeds", "2", "--epochs", "2"], capture_output=True, text=True, timeout=300)
    assert other.returncode != 0 and "--epochs 1 there, 2 here" in other.stderr  # another run's results are kept
    bad = subprocess.run([*args[:-3], "2s", "ld:fy@2:L1:static/0"], capture_output=True, text=True, timeout=300)
    assert bad.returncode != 0 and "[/epochs[/lr]], got 'ld:fy@2:L1:static/0'" in bad.stderr
    args[-3:] = ["2s"]
    subprocess.run([*args, "--seeds", "2"], check=True, capture_output=True, timeout=300)
    assert json.loads((tmp_path / "results.json").read_text())["rows"] == more  # fewer methods: every row kept
    lines = (tmp_path / "table.md").read_text().splitlines()  # and shown: this run's method, then the others
    ours = [line.split(" (ldopt")[0] for line in lines if "(ldopt" in line]
    assert ours == [
        "| two-stage (MSE)",
        "| LD(FY σ=2, L1, main: the 1-tree block)",
        "| LD(SPO+, L1, main: the 1-tree block) from the two-stage fit (2 epochs, lr 0.1)",
    ]


def test_full_spo_plus_on_the_costed_variables_matches_its_closed_form(small):
    """PyEPO's SPO+ on a model whose costs sit on some variables (edges beside flows): the loss
    ``−min_x (2ĉ − c)·x + 2ĉ·x*(c) − c·x*(c)`` over tours, computed here with exact tours."""
    p, _ = small
    ex, _ = tsp.variable_index(p, N)
    assert np.array_equal(p.compiled.cost_selection(), ex)
    F, C = tsp.gen_data(6, 3, N, deg=4, noise_width=0.5, seed=11)
    data = lt.OptDataset(p, F.astype(float), C.astype(float))
    batch = next(iter(torch.utils.data.DataLoader(data, batch_size=6)))
    pred = torch.as_tensor(np.random.default_rng(2).uniform(0.5, 3.0, C.shape), dtype=torch.float32)
    loss = lt.FullLoss(p, "spo+")(pred, batch)
    c, chat = C.astype(float), pred.numpy().astype(float)
    star = tsp_tours.tours(c, N)
    inner = (2 * chat - c) * tsp_tours.tours(2 * chat - c, N)
    want = (-inner.sum(1) + 2 * (chat * star).sum(1) - (c * star).sum(1)).mean()
    assert float(loss) == pytest.approx(want, rel=1e-5)


def test_the_routing_examples_floor_and_network(tmp_path):
    """`examples/routing.py --methods bayes` adds the Bayes floor's row (no training), whose
    expected costs are the costs' mean given the features (the deviations average to 0 within 4
    standard errors); `--model mlp:<width>` trains a 2-layer network and `--patience` validates;
    a malformed model is refused by name."""
    import json  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    routing, script = _routing_example()
    *_, c_te, e_te = routing.split(8, 4, 42, 40, 10, 500)
    diff = (c_te - e_te).ravel()
    assert abs(diff.mean()) <= 4 * diff.std() / np.sqrt(diff.size)
    assert isinstance(routing.predictor("mlp:8", 10, 28)[1], torch.nn.ReLU)
    args = [sys.executable, str(script), "--nodes", "6", "--train", "40", "--test", "20", "--epochs", "2"]
    args += ["--iterations", "10", "--out", str(tmp_path), "--seeds", "1", "--model", "mlp:8", "--patience", "1"]
    subprocess.run([*args, "--methods", "bayes", "2s"], check=True, capture_output=True, timeout=300)
    rows = json.loads((tmp_path / "results.json").read_text())["rows"]
    assert [(r["method"], r["train_seconds"] is None) for r in rows] == [("bayes", True), ("2s", False)]
    table = (tmp_path / "table.md").read_text()
    assert "a 2-layer MLP (width 8, ReLU), early stopped on validation (patience 1)" in table
    assert f"| Bayes floor: decisions for E[c given x] (no model) | {rows[0]['regret']:.2f} ± 0.00 | — |" in table
    bad = subprocess.run([*args[:-4], "--model", "mlp:0"], capture_output=True, text=True, timeout=300)
    assert bad.returncode != 0 and "expected linear, mlp:<width> or index:<width>" in bad.stderr


def test_the_routing_examples_validation_report(tmp_path):
    """`examples/routing.py --report validation` measures each method on the validation instances,
    not the test set: the floor's regret is that of exact tours for the validation instances'
    expected costs, the table gives each seed's figure and their mean (a method an earlier run
    tried on fewer seeds shows "—" on the others), and a run that reports on the test set is
    refused in its folder."""
    import json  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    routing, script = _routing_example()
    args = [sys.executable, str(script), "--nodes", "6", "--train", "40", "--val", "12", "--test", "20"]
    args += ["--epochs", "1", "--iterations", "10", "--out", str(tmp_path), "--report", "validation"]
    subprocess.run([*args, "--seeds", "1", "--methods", "bayes", "2s"], check=True, capture_output=True, timeout=300)
    subprocess.run([*args, "--seeds", "2", "--methods", "bayes"], check=True, capture_output=True, timeout=300)
    rows = json.loads((tmp_path / "results.json").read_text())["rows"]
    for seed in (42, 43):
        d = routing.split(6, 4, seed, 40, 12, 20)
        opt = (d.c_val * tsp_tours.tours(d.c_val, 6)).sum(1)
        floor = (d.c_val * tsp_tours.tours(d.e_val, 6)).sum(1)
        (r,) = [r for r in rows if (r["seed"], r["method"]) == (seed, "bayes")]
        assert r["regret"] == pytest.approx(100 * (floor - opt).sum() / opt.sum(), rel=1e-9, abs=1e-9)
    table = (tmp_path / "table.md").read_text().splitlines()
    assert table[0].startswith("TSP6 deg 4: validation regret % on the 12 validation instances of seeds 42..43")
    assert table[1:3] == ["", "| method | seed 42 | seed 43 | mean |"]
    floor = [r["regret"] for r in rows if r["method"] == "bayes"]
    assert table[4] == f"| {routing.label('bayes')} | {floor[0]:.2f} | {floor[1]:.2f} | {np.mean(floor):.2f} |"
    (fit,) = [r["regret"] for r in rows if r["method"] == "2s"]  # the first run's only: no mean over the seeds
    assert table[5] == f"| two-stage (MSE, 20 epochs, lr 0.05) | {fit:.2f} | — | — |"
    assert not (tmp_path / "regret_vs_seconds.png").exists()
    other = subprocess.run([*args[:-2], "--seeds", "2", "--methods", "2s"], capture_output=True, text=True,
                           timeout=300)  # fmt: skip
    assert other.returncode != 0 and "--report validation there, test here" in other.stderr


def test_the_routing_examples_solves_resume_after_a_stop(tmp_path):
    """`in_chunks`, which keeps the routing example's test optima and decisions as they are solved
    (CVRP30's exact routes take seconds each): a run stopped inside its second chunk resumes there,
    solving no finished instance again, and reaches the optimal values of a run that was not
    stopped; an entry of other costs is refused by name."""
    routing, _ = _routing_example()
    rng = np.random.default_rng(3)
    c = rng.uniform(1.0, 10.0, (2 * routing.CHUNK + 7, N * (N - 1) // 2))
    path, key = tmp_path / "optima.npz", {"costs": routing.cache.digest(c)}
    asked: list[tuple[int, int]] = []

    def optimal_values(i: int, j: int) -> np.ndarray:
        asked.append((i, j))
        if len(asked) == 2:
            raise KeyboardInterrupt  # a stop while the second chunk is solved
        return (c[i:j] * tsp_tours.tours(c[i:j], N)).sum(1)

    with pytest.raises(KeyboardInterrupt):
        routing.in_chunks(path, key, "optima", len(c), optimal_values)
    values, seconds = routing.in_chunks(path, key, "optima", len(c), optimal_values)
    chunk = routing.CHUNK
    assert asked == [(0, chunk), (chunk, 2 * chunk), (chunk, 2 * chunk), (2 * chunk, len(c))]
    whole, _ = routing.in_chunks(None, key, "optima", len(c), lambda i, j: (c[i:j] * tsp_tours.tours(c[i:j], N)).sum(1))
    np.testing.assert_allclose(values, whole, rtol=1e-12)
    assert seconds > 0 and routing.in_chunks(path, key, "optima", len(c), optimal_values)[0].shape == (len(c),)
    assert len(asked) == 4  # a finished entry is read, not solved
    with pytest.raises(CacheError, match="costs"):
        routing.in_chunks(path, {"costs": routing.cache.digest(c[1:])}, "optima", len(c) - 1, optimal_values)


def test_a_routing_run_stopped_after_a_seed_keeps_its_table(tmp_path, monkeypatch):
    """`examples/routing.py --seeds 2` stopped inside seed 43 has written seed 42's rows, table
    and plot as that seed ended."""
    import sys  # noqa: PLC0415

    routing, script = _routing_example()
    run_seed = routing.run_seed

    def stopped(a, i, done):  # seed 42 as usual, then a stop
        if i:
            raise KeyboardInterrupt
        return run_seed(a, i, done)

    monkeypatch.setattr(routing, "run_seed", stopped)
    args = ["--nodes", "6", "--train", "40", "--test", "20", "--epochs", "1", "--iterations", "10", "--seeds", "2"]
    monkeypatch.setattr(sys, "argv", [str(script), *args, "--out", str(tmp_path), "--methods", "2s"])
    with pytest.raises(KeyboardInterrupt):
        routing.main()
    table = (tmp_path / "table.md").read_text()
    assert "1 seeds (42..42)" in table and "| two-stage (MSE) (ldopt" in table
    assert (tmp_path / "regret_vs_seconds.png").stat().st_size > 0


def _routing_example():
    import importlib.util  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    script = Path(__file__).resolve().parents[1] / "examples" / "routing.py"
    spec = importlib.util.spec_from_file_location("routing_example", script)
    routing = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(routing)
    return routing, script


def test_the_per_cost_index_network_reads_each_cost_from_its_own_projection():
    """`--model index:<width>`: each cost is a function of its own projection ``w_e · x`` alone
    (moving the features across ``w_e`` leaves cost ``e`` unchanged, moving them along it does not),
    and on PyEPO's degree-6 costs its least-squares fit comes far closer to ``E[c | x]`` than the
    linear model's (the cost map is one such function per edge, the distances its shifts)."""
    routing, _ = _routing_example()
    torch.manual_seed(0)
    net = routing.predictor("index:8", 10, 28)
    x = torch.randn(5, 10, dtype=torch.float32)
    with torch.no_grad():
        w = net.project.weight  # (28, 10)
        along = x[:, None, :] + 0.7 * w[None] / w.norm(dim=1)[None, :, None]  # per cost, along its w_e
        noise = torch.randn(5, 28, 10)
        across = x[:, None, :] + noise - (noise * w).sum(-1, keepdim=True) * w / (w * w).sum(-1, keepdim=True)
        base = net(x)
        moved = torch.stack([net(across[:, e])[:, e] for e in range(28)], 1)
        pushed = torch.stack([net(along[:, e])[:, e] for e in range(28)], 1)
    assert torch.allclose(moved, base, atol=1e-4 * (1 + base.abs().max()))
    assert (pushed - base).abs().max() > 1e-3
    x_tr, c_tr, _, _, _, x_te, _, e_te = routing.split(8, 6, 42, 1000, 100, 200)
    errors = {}
    for spec in ("linear", "index:16"):
        torch.manual_seed(0)
        model = routing.predictor(spec, 10, c_tr.shape[1])
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        X, C = torch.as_tensor(x_tr, dtype=torch.float32), torch.as_tensor(c_tr, dtype=torch.float32)
        for _ in range(300):
            opt.zero_grad()
            ((model(X) - C) ** 2).mean().backward()
            opt.step()
        with torch.no_grad():
            pred = model(torch.as_tensor(x_te, dtype=torch.float32)).numpy()
        errors[spec] = float(((pred - e_te) ** 2).mean())
    assert errors["index:16"] < 0.25 * errors["linear"], errors


def test_the_routing_example_runs_the_shortest_path(tmp_path):
    """`examples/routing.py --problem sp`: PyEPO's shortest path on CaVE's protocol (5 features),
    decided by exact shortest paths (checked against Dijkstra's), with a table named after the grid;
    ``--bands 1`` trains through the whole grid as one block (a min-cost flow: ``static``), and
    without bands (a block per node, none main) ``static`` is refused by name."""
    import json  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    import networkx as nx  # noqa: PLC0415

    from ldopt.problems import shortest_path  # noqa: PLC0415

    routing, script = _routing_example()
    x_tr, c_tr, *_ = routing.split(3, 6, 42, 20, 5, 5, problem="sp")
    assert x_tr.shape == (20, 5) and c_tr.shape == (20, 12)
    r = routing.Routing(argparse.Namespace(problem="sp", nodes=20, grid=3, bands=None), 42)
    chosen = r.solve(c_tr)
    for costs, x in zip(c_tr, chosen, strict=True):
        g = nx.DiGraph()
        for i, (u, v) in enumerate(shortest_path.arcs((3, 3))):
            g.add_edge(u, v, weight=float(costs[i]))
        assert float(costs @ x) == pytest.approx(nx.dijkstra_path_length(g, 0, 8), rel=1e-9)
    args = [sys.executable, str(script), "--problem", "sp", "--grid", "3", "--train", "40", "--val", "10"]
    args += ["--test", "20", "--epochs", "2", "--epochs-2s", "3", "--lr-2s", "0.02", "--iterations", "10"]
    args += ["--out", str(tmp_path), "--seeds", "1", "--model", "index:4", "--patience", "2", "--eval-every", "2"]
    methods = ["--methods", "bayes", "2s", "ld:spo+:L1:static:mse"]
    subprocess.run([*args, "--bands", "1", *methods], check=True, capture_output=True, timeout=300)
    rows = json.loads((tmp_path / "results.json").read_text())["rows"]
    assert [r["method"] for r in rows] == ["bayes", "2s", "ld:spo+:L1:static:mse"]
    assert all(r["regret"] >= -1e-9 for r in rows)
    table = (tmp_path / "table.md").read_text()
    assert table.startswith("shortest path 3×3 deg 4: 40 train / 20 test, 1 seeds (42..42), a per-cost index")
    assert "LD(SPO+, L1, main: the grid's one block) from the two-stage fit (ldopt" in table
    bad = subprocess.run([*args, *methods], capture_output=True, text=True, timeout=300)
    assert bad.returncode != 0 and "expected 'multiple' or --bands for --problem sp" in bad.stderr
