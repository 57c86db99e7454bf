"""The zoo of models written by others (``ldopt_experiments.zoo``): each compiles and decomposes
with no bound added by hand (the rows imply them, or an optimum does), its dual bounds the exact optima (weak
duality), and the default dual reaches the exact Lagrangian bound ``LD*`` on every one."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import ldopt
from ldopt_experiments.zoo import _SSLP, ZOO


@pytest.fixture(scope="module", params=sorted(ZOO))
def zoo_model(request):
    inst = ZOO[request.param].family().instances(4, deg=2, seed=3)
    p = inst.problem()
    return request.param, p, ldopt.decompose(p, inst.blocks), inst.costs


def test_the_rows_bound_what_the_author_left_unbounded(zoo_model):
    """Every block's subproblem has a finite optimum for any objective (the bounds it lacks came
    from the model's other rows, or from an optimum where the costs' declared sign gives one)."""
    name, p, dec, _ = zoo_model
    lam = np.random.default_rng(0).normal(size=(16, p.num_vars))
    for b in dec.blocks:
        x = b.solver("auto").argmax(lam)
        assert np.isfinite(x).all(), (name, b.index)
    cm = p.compiled
    open_ = (cm.var_type != "C") & ~(np.isfinite(cm.var_lb) & np.isfinite(cm.var_ub))
    if open_.any():  # only the whole model leaves it unbounded (cutting_stock's counts): every block bounds it
        assert name == "cutting_stock" and cm.declares_costs
        for b in dec.blocks:
            assert np.isfinite(b.compiled.var_ub[open_]).all() and np.isfinite(b.compiled.var_lb[open_]).all()


def test_the_default_dual_bounds_the_optimum_and_reaches_ld_star(zoo_model):
    name, p, dec, C = zoo_model
    opt = p.solve(C, solver="highs")
    assert (opt.status == "optimal").all(), name
    tol = 1e-6 * np.maximum(1.0, np.abs(opt.objective))
    r = dec.dual(C, progress=False)
    exact = ldopt.lagrangian_bound(dec, C, progress=False)
    assert exact.converged.all()
    if p.sense == "min":
        assert (r.bound <= opt.objective + tol).all() and (exact.bound <= opt.objective + tol).all()
    else:
        assert (r.bound >= opt.objective - tol).all() and (exact.bound >= opt.objective - tol).all()
    np.testing.assert_allclose(r.bound, exact.bound, rtol=1e-5, atol=1e-6)


def test_an_integer_variable_only_the_rows_bound_gets_their_bounds():
    p = ZOO["diet_integer"].family().instances(2, deg=2, seed=0).problem()
    cm = p.compiled
    assert np.isfinite(cm.var_ub).all()
    assert {ib.var for ib in cm.implied} == {0, 1, 2}
    assert all("nutrientConstraint" in ib.source for ib in cm.implied)
    # the inferred bounds keep every optimum: the continuous relaxation's optimum is within them
    relaxed = ZOO["diet"].family().instances(2, deg=2, seed=0).problem()
    x = relaxed.solve(ZOO["diet"].family().instances(2, deg=2, seed=0).costs, solver="highs").x
    assert (x <= cm.var_ub + 1e-9).all()


def test_a_penalised_overflow_is_bounded_by_the_demand_its_row_can_hold():
    """mpi-sppy's server location (the zoo's ``sslp``): each server's overflow, penalised per unit
    and bounded by no row above, gets by dual fixing the demand of the clients present (the others'
    allocations are 0), computed here from the data; and no optimum overflows."""
    inst = ZOO["sslp"].family().instances(4, deg=2, seed=2)
    p = inst.problem()
    dec = ldopt.decompose(p, inst.blocks)
    demand = np.array([row.split(",") for row in _SSLP.split(";")], dtype=float)
    present = [1, 3, 11, 13, 15, 16, 17, 19, 20, 21, 22]
    expected = demand[np.array(present) - 1].sum(axis=0)  # per server
    bounds = {ib.name: ib for added in dec.inferred.values() for ib in added}
    for j in range(5):
        ib = bounds[f"Dummy[{j + 1}]"]
        assert ib.side == "upper" and ib.costs is None and "DemandConstraint" in ib.source
        assert expected[j] <= ib.value <= expected[j] * (1 + 1e-12)
    x = p.solve(inst.costs, solver="highs").x
    dummy = [k for k, n in enumerate(p.var_names) if n.startswith("Dummy")]
    assert np.all(x[:, dummy] <= 1e-9)


def test_the_guides_step_table_is_the_committed_run():
    """docs/guide.md's table of step rules shows benchmarks/results/zoo/dual_steps.json."""
    root = Path(__file__).resolve().parents[1]
    rows = json.loads((root / "benchmarks/results/zoo/dual_steps.json").read_text())["rows"]
    guide = (root / "docs/guide.md").read_text()
    for r in rows:
        line = f"| {r['model']} | {r['polyak_gap']:.3%} | {r['auto_rule']}, {r['auto_gap']:.3%} |"
        assert line in guide, line
    assert sum(r["auto_gap"] <= 1e-6 for r in rows) == len(rows) == 23


def _training_run(name: str) -> tuple[dict, str]:
    """A committed bench_zoo_training run and docs/guide.md's text."""
    root = Path(__file__).resolve().parents[1]
    return json.loads((root / "benchmarks/results/zoo" / name).read_text()), (root / "docs/guide.md").read_text()


def _training_row(r: dict) -> str:
    """A bench_zoo_training row as the guide's tables show it: the five regrets, the start LD took
    and its gain over that start in standard errors (``-`` where it did not beat it)."""
    cells = " | ".join(f"{r[k]:.2f}" for k in ("constant", "mse", "ld_paper", "ld_symmetric", "ld_default"))
    start = "constant" if r["ld_default_constant_start"] else "MSE"
    t = f"{r['ld_default_t']:.2f}" if r["ld_default_improved"] else "-"
    return f"| {r['model']} | {cells} | {start} | {t} |"


def test_the_guides_training_table_is_the_committed_run():
    """docs/guide.md's training table shows benchmarks/results/zoo/training.json."""
    run, guide = _training_run("training.json")
    rows = run["rows"]
    for r in rows:
        assert _training_row(r) in guide, r["model"]
    assert len(rows) == 17
    assert sum(r["ld_symmetric"] < r["ld_paper"] for r in rows) == 13  # the symmetric start, the default
    assert all(r["ld_default"] <= 1.05 * r["mse"] for r in rows)  # the MSE warm start: never far from MSE
    assert sum(r["ld_default"] < r["mse"] for r in rows) == 10
    assert sum(r["ld_symmetric"] < r["mse"] for r in rows) == 12
    assert sum(bool(r.get("ld_default_improved")) for r in rows) == 8
    # the constant predictor's start where it validates better: worse than it on two models, not four
    assert [r["model"] for r in rows if r["ld_default"] > r["constant"]] == ["diet", "diet_integer"]
    constant = [r["model"] for r in rows if r["ld_default_constant_start"]]
    assert constant == ["diet", "diet_integer", "warehouse", "knapsack_tools", "max_flow"]
    assert all(r["constant"] < r["mse"] for r in rows if r["model"] in constant)  # on test too
    gains = [r["ld_default_t"] for r in rows if r["ld_default_improved"]]
    assert len(gains) == 8 and all(0 < t < 2 for t in gains)  # every gain within the validation's noise


def test_the_guides_table_with_200_validation_instances_is_the_committed_run():
    """docs/guide.md's second training table (``--val 200``) shows training_val200.json: LD with the
    defaults better than MSE on 13 of 17, never worse than the constant predictor."""
    run, guide = _training_run("training_val200.json")
    rows = run["rows"]
    assert run["val"] == 200 and len(rows) == 17
    for r in rows:
        assert _training_row(r) in guide, r["model"]
    assert sum(r["ld_default"] < r["mse"] for r in rows) == 13
    assert all(r["ld_default"] <= r["mse"] and r["ld_default"] <= r["constant"] for r in rows)
    assert sum(r["ld_default_improved"] and r["ld_default_t"] >= 2 for r in rows) == 4


def test_the_guides_table_of_models_bounded_at_an_optimum_is_the_committed_run():
    """docs/guide.md's table of the six models added with bounds at an optimum shows
    training_optimum.json: LD with the defaults never far from MSE (its warm start), and the
    start returned where it did not beat it; the network design's regret is 0 for every method."""
    run, guide = _training_run("training_optimum.json")
    rows = run["rows"]
    assert [r["model"] for r in rows] == ["cutting_stock", "lot_sizing_backlog", "jobshop", "sched", "netdes", "sslp"]
    for r in rows:
        assert _training_row(r) in guide, r["model"]
    assert all(r["ld_default"] <= 1.05 * r["mse"] for r in rows)
    assert [r["model"] for r in rows if r["ld_default"] < r["mse"]] == ["sched", "sslp"]  # sched: the constant start
    assert [r["model"] for r in rows if r["ld_default_constant_start"]] == ["sched"]
    assert [r["model"] for r in rows if r["ld_default_improved"]] == ["lot_sizing_backlog", "jobshop", "sslp"]
    sslp = rows[-1]  # the penalised overflow: LD well below MSE, a gain on validation beyond its noise
    assert sslp["ld_default"] < 0.7 * sslp["mse"] and sslp["ld_default_t"] > 2
    netdes = rows[-2]
    assert max(netdes[k] for k in ("constant", "mse", "ld_paper", "ld_symmetric", "ld_default")) < 0.005


# the default suite trains the quick ones (2 s or less); these take 5-45 s (HiGHS solving the blocks)
SLOW_TO_TRAIN = ("fixed_charge", "multi_commodity", "p_median", "network_flow", "max_flow", "sslp")


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_TO_TRAIN else n for n in sorted(ZOO)]
)
def test_the_getting_started_calls_train_on_every_zoo_model_with_no_settings_but_the_mode(name):
    """docs/getting-started.md's calls with their defaults on each model written by others:
    ``ldopt.check``, the default multipliers and ``fit(mode="multiple")``, which starts from the MSE
    fit and so never returns a model worse on validation than it."""
    torch = pytest.importorskip("torch", reason="ldopt_torch needs torch (pip install 'ldopt[torch]')")
    import ldopt_torch as lt  # noqa: PLC0415

    inst = ZOO[name].family().instances(40, deg=2, seed=5)
    p = inst.problem()
    dec = ldopt.decompose(p)
    F, C = inst.features, inst.costs
    report = ldopt.check(dec, C[:2])
    assert np.isfinite(report.dual_bound).all() and len(report.blocks) == dec.num_blocks
    train = lt.LDDataset(dec, F[:28], C[:28], progress=False)
    torch.manual_seed(0)
    model = torch.nn.Linear(F.shape[1], p.num_costs)
    if p.compiled.declares_costs:  # its bounds need costs in the Param's domain: predict inside it
        model = torch.nn.Sequential(model, torch.nn.Softplus())
    out = lt.fit(model, train, lt.LDLoss(dec, "spo+", "L1"), mode="multiple", epochs=6, val=(F[28:], C[28:]),
                 lr=0.05, progress=False, schedule=lt.Schedule(patience=2))  # fmt: skip
    assert out.start is not None and out.best_val <= out.start.best_val
    pred = model(torch.as_tensor(F[28:], dtype=torch.float32)).detach().numpy()
    assert lt.relative_regret(p, pred, C[28:]) == pytest.approx(out.best_val, abs=1e-9)


def test_the_guides_imle_table_is_the_committed_run():
    """docs/guide.md's I-MLE table shows benchmarks/results/zoo/imle.json, and λ = 100 (the default)
    is what it chose."""
    root = Path(__file__).resolve().parents[1]
    rows = json.loads((root / "benchmarks/results/zoo/imle.json").read_text())["rows"]
    guide = (root / "docs/guide.md").read_text()
    for r in rows:
        cells = " | ".join(f"{r[k]:.2f}" for k in ("mse", "lam10", "lam100", "lam100_unit"))
        assert f"| {r['model']} | {cells} |" in guide, r["model"]
    assert len(rows) == 17
    assert sum(r["lam100"] < r["lam10"] for r in rows) == 8 and sum(r["lam100"] > r["lam10"] for r in rows) == 2
    assert sum(r["lam100"] < r["mse"] for r in rows) == 10 and sum(r["lam10"] < r["mse"] for r in rows) == 4
    assert all(r["lam100"] <= 1.05 * r["mse"] for r in rows)
