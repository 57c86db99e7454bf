"""The second audit's defects, each reproduced: wrong answers reported as right, a crash, hangs,
lost work and obscure errors. Every test fails on the code before its fix."""

from __future__ import annotations

import json
import os
import signal
import warnings

import numpy as np
import pyomo.environ as pyo
import pytest
from pyomo.gdp import Disjunction

import ldopt
from ldopt.dual import DualSettings
from ldopt.problems import knapsack
from ldopt.runtime import jit
from ldopt.solvers import registry
from ldopt.solvers.checked import CheckedSession, FeasibilityCheck

torch = pytest.importorskip("torch", reason="the training checks need torch (pip install 'ldopt[torch]')")
import ldopt_experiments as experiment  # noqa: E402
import ldopt_torch as lt  # noqa: E402


def _knap(bounds: tuple[float, float], cap: float = 4.5, domain=pyo.Integers, sense=pyo.maximize) -> pyo.ConcreteModel:
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, 2)
    m.c = pyo.Param(m.I, mutable=True, initialize={0: 4.0, 1: 3.0, 2: 1.0})
    m.x = pyo.Var(m.I, domain=domain, bounds=bounds)
    m.k = pyo.Constraint(expr=sum(m.x[i] for i in m.I) <= cap)
    m.o = pyo.Objective(expr=sum(m.c[i] * m.x[i] for i in m.I), sense=sense)
    return m


def _problem(m: pyo.ConcreteModel) -> ldopt.Problem:
    return ldopt.Problem.from_pyomo(m, m.c)


def _solvers(p: ldopt.Problem) -> list[str]:
    return [s for s in ("auto", "oracle", "highs", "gurobi") if registry.availability(p.compiled, s)]


# 1. fractional bounds of integer variables ---------------------------------------------------
def test_integer_bounds_are_rounded_inward_for_every_solver_and_bound():
    """Integer x in (0.5, 3) and Σx ≤ 4.5: x ≥ 1, so the optimum is 4·2 + 3 + 1 = 12 (the knapsack
    oracle read the bounds as given and returned x = (2.5, 1.5, 0.5), 15, as 'optimal')."""
    p = _problem(_knap((0.5, 3)))
    np.testing.assert_array_equal(p.compiled.var_lb, [1, 1, 1])
    np.testing.assert_array_equal(p.compiled.var_ub, [3, 3, 3])
    assert "oracle" in _solvers(p)
    for s in _solvers(p):
        sol = p.solve([4.0, 3.0, 1.0], solver=s)
        assert sol.status[0] == "optimal" and sol.objective[0] == pytest.approx(12.0), s
        assert p.violation(sol.x)[0] <= 1e-9
    # a minimisation with integer bounds (0, 2.5): the Lagrangian bounds stay below the optimum
    m = _knap((0, 2.5), cap=-np.inf, sense=pyo.minimize)
    m.k.deactivate()
    m.k2 = pyo.Constraint(expr=sum(m.x[i] for i in m.I) >= 3.5)
    q = ldopt.Problem.from_pyomo(m, m.c)
    costs = np.array([[4.0, 3.0, 1.0], [1.0, 1.0, 5.0]])
    opt = q.solve(costs, solver="highs").objective
    dec = ldopt.decompose(q)
    for mode in ("shared", "independent", "joint"):
        r = dec.dual(costs, iterations=30, mode=mode, progress=False)
        assert (r.bound <= opt + 1e-9).all(), mode
    assert (ldopt.lagrangian_bound(dec, costs, progress=False).bound <= opt + 1e-9).all()


def test_an_integer_variable_whose_bounds_hold_no_integer_is_refused():
    m = _knap((0.2, 0.8))
    with pytest.raises(ldopt.VariableError, match=r"x\[0\]'.*bounds that hold an integer"):
        ldopt.Problem.from_pyomo(m, m.c)


# 2. untransformed disjunctions and logical constraints -------------------------------------
def _scheduling() -> pyo.ConcreteModel:
    """Two jobs (lengths 6 and 10) on one machine, one before the other: minimise the makespan."""
    m = pyo.ConcreteModel()
    m.c = pyo.Param([0], mutable=True, initialize=1.0)
    m.s = pyo.Var([0, 1], bounds=(0, 100))
    m.t = pyo.Var(bounds=(0, 100))
    m.ends = pyo.Constraint([0, 1], rule=lambda m, j: m.t >= m.s[j] + (6, 10)[j])
    m.order = Disjunction(expr=[[m.s[0] + 6 <= m.s[1]], [m.s[1] + 10 <= m.s[0]]])
    m.o = pyo.Objective(expr=m.c[0] * m.t, sense=pyo.minimize)
    return m


def test_untransformed_disjunctions_are_refused_and_transformed_ones_solve():
    m = _scheduling()
    with pytest.raises(ldopt.ConstraintError, match=r"'order' is an untransformed disjunction.*gdp.bigm"):
        ldopt.Problem.from_pyomo(m, m.c)
    pyo.TransformationFactory("gdp.bigm").apply_to(m)
    p = ldopt.Problem.from_pyomo(m, m.c)
    assert p.solve([1.0], solver="highs").objective[0] == pytest.approx(16.0)  # not 10 (the rows ignored)


def test_logical_constraints_are_refused_naming_the_transformation():
    m = _knap((0, 1), domain=pyo.Binary)
    m.Y = pyo.BooleanVar([0, 1])
    m.logic = pyo.LogicalConstraint(expr=m.Y[0].implies(m.Y[1]))
    with pytest.raises(ldopt.ConstraintError, match=r"'logic' is a LogicalConstraint.*logical_to_linear"):
        ldopt.Problem.from_pyomo(m, m.c)


# 3. Params frozen at compile time ------------------------------------------------------------
def test_the_cost_in_a_variable_bound_is_refused():
    m = _knap((0, 3))
    m.x[0].setub(m.c[0])
    with pytest.raises(ldopt.CostParamError, match=r"bounds of variable 'x\[0\]'"):
        ldopt.Problem.from_pyomo(m, m.c)


@pytest.mark.parametrize("where", ["row", "side", "bound", "objective"])
def test_a_mutable_param_changed_after_compilation_is_refused(where):
    m = _knap((0, 3))
    m.w = pyo.Param(mutable=True, initialize=2.0)
    if where == "row":
        m.r = pyo.Constraint(expr=m.w * m.x[0] <= 10)
    elif where == "side":
        m.r = pyo.Constraint(expr=m.x[0] <= m.w)
    elif where == "bound":
        m.x[1].setub(m.w)
    else:
        m.o.deactivate()
        m.o2 = pyo.Objective(expr=sum(m.c[i] * m.x[i] for i in m.I) + m.w * m.x[2], sense=pyo.maximize)
    p = ldopt.Problem.from_pyomo(m, m.c)
    p.solve([1.0, 1.0, 1.0])
    m.w = 3.0
    for call in (lambda: p.solve([1.0, 1.0, 1.0]), lambda: ldopt.decompose(p)):
        with pytest.raises(ldopt.ModelError, match=r"Param 'w' changed from 2 to 3 after compilation"):
            call()
    m.w = 2.0  # back as compiled: fine again
    p.solve([1.0, 1.0, 1.0])


# 4. NaN and inf in the model's data ------------------------------------------------------------
@pytest.mark.parametrize(
    ("where", "error", "match"),
    [
        ("coef", ldopt.ConstraintError, r"constraint 'k': the coefficient of 'x\[1\]' is nan"),
        ("inf_coef", ldopt.ConstraintError, r"constraint 'k': the coefficient of 'x\[1\]' is inf"),
        ("rhs", ldopt.ConstraintError, r"constraint 'k': expected finite sides"),
        ("bound", ldopt.VariableError, r"variable 'x\[1\]': expected numbers or None as bounds"),
        ("objective", ldopt.ObjectiveError, r"objective: the coefficient of 'x\[1\]' is nan"),
    ],
)
def test_nan_or_inf_in_the_model_data_is_refused_at_compile_time(where, error, match):
    """Before: HiGHS answered infeasible, Gurobi and 'auto' optimal with the row ignored, and the
    knapsack oracle crashed the process with a segmentation fault on a NaN weight."""
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, 2)
    m.c = pyo.Param(m.I, mutable=True, initialize=1.0)
    bad = {"coef": np.nan, "inf_coef": np.inf}.get(where, 1.0)
    m.w = pyo.Param(m.I, initialize={0: 1.0, 1: bad, 2: 2.0}, within=pyo.Any)
    m.x = pyo.Var(m.I, domain=pyo.Binary)
    m.k = pyo.Constraint(expr=sum(m.w[i] * m.x[i] for i in m.I) <= (np.nan if where == "rhs" else 2.0))
    k1 = np.nan if where == "objective" else 0.0
    m.o = pyo.Objective(expr=sum(m.c[i] * m.x[i] for i in m.I) + k1 * m.x[1], sense=pyo.maximize)
    if where == "bound":
        m.x[1].domain = pyo.Reals
        m.x[1].setub(np.nan)
    with pytest.raises(error, match=match):
        ldopt.Problem.from_pyomo(m, m.c)


# 5. answers that violate the model ----------------------------------------------------------------
def test_an_answer_that_violates_a_row_is_reported_as_violated_never_optimal():
    """HiGHS drops the coefficient 1e-10 (below its small_matrix_value) and answers x = 1e12,
    violating 1e-10·x ≤ 1 by 99, as 'optimal'; the check after every solve reports it."""
    m = pyo.ConcreteModel()
    m.c = pyo.Param([0], mutable=True, initialize=1.0)
    m.x = pyo.Var(bounds=(0, 1e12))
    m.k = pyo.Constraint(expr=1e-10 * m.x <= 1)
    m.o = pyo.Objective(expr=m.c[0] * m.x, sense=pyo.maximize)
    p = ldopt.Problem.from_pyomo(m, m.c)
    s = p.solve([1.0], solver="highs")
    assert s.status[0] == "violated" and not s.ok[0] and np.isnan(s.objective[0])
    assert "row 'k' by 99" in s.messages[0]
    for other in ("gurobi", "cvxpy"):
        if registry.availability(p.compiled, other):
            t = p.solve([1.0], solver=other)
            assert t.status[0] != "optimal" or t.objective[0] == pytest.approx(1e10, rel=1e-6), other


def test_every_registered_session_is_checked():
    p = _problem(_knap((0, 3)))
    for name in [*registry.registered(), "pyomo:appsi_highs"]:
        if registry.availability(p.compiled, name):
            assert isinstance(p.session(name)[1], CheckedSession), name


def test_the_check_accepts_solver_tolerance_and_names_the_worst_violation():
    check = FeasibilityCheck(_problem(_knap((0, 3), domain=pyo.Reals)).compiled)
    assert check.worst(np.array([2.0, 1.0, 1.5]))[0] <= 1.0
    assert check.worst(np.array([2.0, 1.0, 1.5 + 1e-6]))[0] <= 1.0  # Gurobi's and HiGHS's tolerance
    worst, what = check.worst(np.array([2.0, 1.0, 1.6]))
    assert worst > 1 and "row 'k' by 0.1" in what
    check = FeasibilityCheck(_problem(_knap((0, 3))).compiled)
    worst, what = check.worst(np.array([2.0, 1.0, 0.5]))
    assert worst > 1 and "integrality of 'x[2]'" in what
    worst, what = check.worst(np.array([-1.0, 1.0, 1.0]))
    assert worst > 1 and "lower bound of 'x[0]'" in what


def test_a_coefficient_highs_cannot_take_is_named():
    m = _knap((0, 3), domain=pyo.Reals)
    m.big = pyo.Constraint(expr=1e15 * m.x[0] + m.x[1] <= 2)
    p = ldopt.Problem.from_pyomo(m, m.c)
    with pytest.raises(ldopt.SolverUnavailableError, match=r"row 'big' has the coefficient 1e\+15 on 'x\[0\]'"):
        p.solve([1.0, 1.0, 1.0], solver="highs")


# 6. an infeasible instance of the Lagrangian bound -----------------------------------------------
@pytest.mark.parametrize("sense", [pyo.maximize, pyo.minimize])
def test_lagrangian_bound_reports_an_infeasible_lp_as_infeasible(sense):
    """x0 + x1 ≤ 1 and x0 + x1 ≥ 3: no point. Before, converged=True with a 'certificate' of −1.5e9
    (the slack penalty's value)."""
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, 1)
    m.c = pyo.Param(m.I, mutable=True, initialize=1.0)
    m.x = pyo.Var(m.I, bounds=(0, 5))
    m.a = pyo.Constraint(expr=m.x[0] + m.x[1] <= 1)
    m.b = pyo.Constraint(expr=m.x[0] + m.x[1] >= 3)
    m.o = pyo.Objective(expr=sum(m.c[i] * m.x[i] for i in m.I), sense=sense)
    p = ldopt.Problem.from_pyomo(m, m.c)
    assert p.solve([1.0, 2.0], solver="highs").status[0] == "infeasible"
    r = ldopt.lagrangian_bound(ldopt.decompose(p), [[1.0, 2.0], [3.0, -1.0]], progress=False)
    assert r.infeasible.all() and r.converged.all() and np.isnan(r.certificate).all()
    assert (r.bound == (-np.inf if sense == pyo.maximize else np.inf)).all()
    assert (r.gap == 0).all()
    m.b.set_value(m.x[0] + m.x[1] >= 0.5)  # feasible again: a certificate, and no infeasibility
    q = ldopt.Problem.from_pyomo(m, m.c)
    r = ldopt.lagrangian_bound(ldopt.decompose(q), [[1.0, 2.0]], progress=False)
    assert not r.infeasible.any() and r.converged.all()
    assert r.bound[0] == pytest.approx(q.solve([1.0, 2.0], solver="highs").objective[0], abs=1e-6)


# 8. mismatched parts and bad numbers ----------------------------------------------------------------
@pytest.fixture(scope="module")
def mkp():
    d = knapsack.protocol_data(16, 12, dim=2, seed=4)
    m = knapsack.build_model(d.weights, d.capacities)
    p = ldopt.Problem.from_pyomo(m, m.c)
    dec = ldopt.decompose(p)
    data = lt.LDDataset(dec, d.features[:8], d.costs[:8], iterations=5, progress=False)
    return d, p, dec, data


def _fit(mkp, **kw):
    d, _, dec, data = mkp
    args = dict(epochs=2, val=(d.features[8:], d.costs[8:]), progress=False)
    args.update(kw)
    model = args.pop("model", torch.nn.Linear(d.features.shape[1], 12))
    return lt.fit(model, data, lt.LDLoss(dec, "spo+"), **args)


def test_a_validator_of_another_problem_is_refused(mkp):
    other = knapsack.protocol_data(16, 12, dim=2, seed=5)
    om = knapsack.build_model(other.weights, other.capacities)
    val = lt.Validator(ldopt.Problem.from_pyomo(om, om.c), other.features[8:], other.costs[8:])
    with pytest.raises(ldopt.InputError, match="val: expected a Validator of the training data's problem"):
        _fit(mkp, val=val)


def test_an_optimizer_over_another_model_is_refused(mkp):
    d = mkp[0]
    model = torch.nn.Linear(d.features.shape[1], 12)
    stray = torch.optim.Adam(torch.nn.Linear(3, 3).parameters())
    with pytest.raises(ldopt.InputError, match="optimizer: expected an optimizer over the model's parameters"):
        _fit(mkp, model=model, options=lt.FitOptions(optimizer=stray))


def test_an_overflowing_objective_is_an_error_not_an_infinite_optimum(mkp):
    p = mkp[1]
    with pytest.raises(ldopt.InputError, match="overflows float64"):
        p.solve(np.full(12, 1e308))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(workers=0), "workers: expected a positive integer"),
        (dict(workers=-1), "workers: expected a positive integer"),  # before: waited forever
        (dict(retries=-1), r"retries: expected an integer ≥ 0"),
        (dict(threads_per_worker=0), "threads_per_worker"),
        (dict(address=""), "address"),
    ],
)
def test_dask_executor_settings_are_checked(kwargs, match):
    pytest.importorskip("dask.distributed", reason="needs dask[distributed] (pip install 'ldopt[dask]')")
    with pytest.raises(ldopt.InputError, match=match), ldopt.runtime.parallel.dask_executor(**kwargs):
        pass


def test_local_pool_checks_its_threads():
    with pytest.raises(ldopt.InputError, match="threads_per_worker"):
        ldopt.runtime.parallel.local_pool(1, threads_per_worker=0)


def test_a_local_dask_cluster_listens_on_localhost_only():
    pytest.importorskip("dask.distributed", reason="needs dask[distributed] (pip install 'ldopt[dask]')")
    distributed = pytest.importorskip("distributed", reason="needs dask[distributed]")

    with ldopt.runtime.parallel.dask_executor(workers=1) as ex:
        assert ex.submit(sum, [1, 2]).result() == 3
        client = distributed.get_client()
        info = client.scheduler_info()
        addresses = [info["address"], *info["workers"]]
        assert all(a.startswith("tcp://127.0.0.1:") for a in addresses), addresses
        # the dashboard's sockets (its link says 127.0.0.1 even when it listens on 0.0.0.0)
        sockets = client.cluster.scheduler.http_server._sockets.values()
        hosts = {sock.getsockname()[0] for sock in sockets}
        assert hosts == {"127.0.0.1"}, hosts


# 11. SIGTERM during training ---------------------------------------------------------------------------
def test_sigterm_during_fit_keeps_the_best_model_and_the_history(mkp):
    seen = []

    def terminate(row, best):
        seen.append(row["epoch"])
        if row["epoch"] == 2:  # a batch system's time limit
            os.kill(os.getpid(), signal.SIGTERM)

    handler = signal.getsignal(signal.SIGTERM)
    with pytest.warns(UserWarning, match="terminated"):
        out = _fit(mkp, epochs=50, schedule=lt.Schedule(on_validate=terminate))
    assert out.stopped == "terminated" and seen == [0, 1, 2] and len(out.history) == 3
    assert signal.getsignal(signal.SIGTERM) is handler  # the caller's handler is back


# 12. torn caches -------------------------------------------------------------------------------------------
def test_a_torn_dataset_cache_is_computed_again(mkp, tmp_path):
    d, _, dec, _ = mkp
    first = lt.LDDataset(dec, d.features[:8], d.costs[:8], iterations=5, cache=tmp_path, progress=False)
    first.cache_path.with_suffix(".npz.json").unlink()  # killed between the two files, no chunks left
    with pytest.warns(UserWarning, match="computing it again"):
        again = lt.LDDataset(dec, d.features[:8], d.costs[:8], iterations=5, cache=tmp_path, progress=False)
    np.testing.assert_array_equal(again.result.lam, first.result.lam)
    assert lt.LDDataset(
        dec, d.features[:8], d.costs[:8], iterations=5, cache=tmp_path, progress=False
    ).loaded_from_cache


@pytest.mark.parametrize("header", ['"just a string"', "{" * 50_000, '{"format": "ldopt-cache/1", "arrays_digest": 3}'])
def test_a_forged_or_corrupt_cache_header_is_a_torn_cache_error(tmp_path, header):
    path = ldopt.runtime.cache.save(tmp_path / "e.npz", {"a": np.ones(3)}, {"k": 1})
    path.with_suffix(".npz.json").write_text(header)
    with pytest.raises(ldopt.TornCacheError):
        ldopt.runtime.cache.load(path)


# the obscure errors -----------------------------------------------------------------------------------------
def test_a_huge_iteration_cap_under_a_time_limit_allocates_nothing_up_front(mkp):
    _, _, dec, _ = mkp
    r = dec.dual(mkp[0].costs[:2], DualSettings(time_limit=0.5), iterations=10**9, progress=False)
    assert r.iterations < 10**9 and r.history.shape[0] == r.iterations


def test_the_obscure_errors_name_what_was_expected(mkp):
    d, p, dec, _ = mkp
    with pytest.raises(ldopt.InputError, match=r"executor: expected a concurrent.futures.Executor"):
        dec.dual(d.costs[:2], iterations=2, executor="pool", progress=False)
    with pytest.raises(ldopt.InputError, match=r"executor: expected a concurrent.futures.Executor"):
        ldopt.evaluate.regret.optima(p, d.costs[:2], executor="pool")
    warm = dec.dual(d.costs[:2], iterations=2, progress=False)
    warm.lam[0, 0, 0] = np.nan
    with pytest.raises(ldopt.InputError, match="warm: expected finite multipliers"):
        dec.dual(d.costs[:2], iterations=2, warm=warm, progress=False)
    bad_val = d.features[8:].copy()
    bad_val[0, 0] = np.nan
    with pytest.raises(ldopt.InputError, match="val features: expected finite values"):
        _fit(mkp, val=(bad_val, d.costs[8:]))
    with pytest.raises(ldopt.InputError, match="expected at least one instance"):
        ldopt.evaluate.regret.evaluate(p, d.costs[:0], d.costs[:0])
    with pytest.raises(ldopt.InputError, match="expected at least one instance"):
        ldopt.evaluate.regret.relative_regret(p, d.costs[:0], d.costs[:0])
    huge = d.features[:8].astype(np.float64) * 1e300
    with pytest.raises(ldopt.InputError, match="float32's range"):
        lt.LDDataset(dec, huge, d.costs[:8], iterations=2, progress=False)
    with pytest.raises(ldopt.InputError, match=r"eval_times\[0\]: expected a finite number"):
        lt.Schedule(eval_times=["a"])
    with pytest.raises(ldopt.InputError, match="eval_times: expected a sequence"):
        lt.Schedule(eval_times="a")
    am = pyo.AbstractModel()
    am.I = pyo.Set(initialize=[0, 1])
    am.c = pyo.Param(am.I, mutable=True, initialize=1.0)
    with pytest.raises(ldopt.ModelError, match=r"uninstantiated AbstractModel.*create_instance"):
        ldopt.Problem.from_pyomo(am, am.c)


def test_numba_gets_a_cache_folder_where_it_has_none(monkeypatch, tmp_path):
    """A read-only install without a writable home: numba finds no place for its cache and refused
    every kernel at import ("no locator available"); ldopt then points it at the temp folder."""

    def nowhere(py_func):
        raise RuntimeError(f"cannot cache function {py_func.__name__!r}: no locator available for file")

    monkeypatch.setattr(jit.caching, "FunctionCache", nowhere)
    monkeypatch.setattr(jit.config, "CACHE_DIR", "")
    monkeypatch.setattr(jit.tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "not-a-folder"))  # no user cache folder either
    (tmp_path / "not-a-folder").write_text("")
    assert not jit.has_cache_locator()
    folder = jit.ensure_cache_dir()
    assert folder is not None and folder.startswith(str(tmp_path)) and folder == jit.config.CACHE_DIR
    monkeypatch.setattr(jit.config, "CACHE_DIR", "/somewhere/the/user/chose")
    assert jit.ensure_cache_dir() is None  # NUMBA_CACHE_DIR wins


def test_cli_output_folders_that_cannot_hold_results_are_named(tmp_path):
    base = ["knapsack", "--size", "6", "--train", "6", "--val", "3", "--test", "3", "--epochs", "1"]
    base += ["--iterations", "3", "--curve-instances", "0", "--methods", "mse", "--seeds", "0", "--quiet"]
    a_file = tmp_path / "file"
    a_file.write_text("not a folder")
    with pytest.raises(ldopt.OutputError, match="out: expected a folder, got the file"):
        experiment.experiment_main([*base, "--out", str(a_file)])
    out = tmp_path / "run"
    experiment.experiment_main([*base, "--out", str(out)])
    (out / "meta.json").write_text("{ not json")
    with pytest.raises(ldopt.OutputError, match=r"meta.json cannot be read as a JSON record"):
        experiment.experiment_main([*base, "--out", str(out), "--resume"])
    (out / "meta.json").unlink()
    (out / "results.csv").write_text("problem,size\nknapsack,abc\n")
    with pytest.raises(ldopt.OutputError, match="is not a results table that ldopt wrote"):
        experiment.experiment_main([*base, "--seeds", "1", "--out", str(out), "--resume"])


# 7. resuming with other data -------------------------------------------------------------------------------------
def test_resume_with_another_data_seed_or_row_count_is_refused(tmp_path):
    base = ["knapsack", "--size", "6", "--train", "6", "--val", "3", "--test", "3", "--epochs", "1"]
    base += ["--iterations", "3", "--curve-instances", "0", "--methods", "mse", "--seeds", "0", "--quiet"]
    out = tmp_path / "run"
    experiment.experiment_main([*base, "--out", str(out)])
    meta = json.loads((out / "meta.json").read_text())
    assert {"problem_digest", "data_digest"} <= set(meta)
    for other in (["--data-seed", "7"], ["--rows", "3"]):
        with pytest.raises(ldopt.InputError, match="digest"):
            experiment.experiment_main([*base, *other, "--seeds", "1", "--out", str(out), "--resume"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        experiment.experiment_main([*base, "--seeds", "1", "--out", str(out), "--resume"])  # the same data resumes
