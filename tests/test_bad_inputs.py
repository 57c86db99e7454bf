"""Every public entry point, every argument, every kind of bad value: a call either works or raises
an ``ldopt.LdoptError`` that names the argument — never a traceback from deep inside numpy, Pyomo or
torch. The audit's cases and more: each case replaces one argument of a valid call."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ldopt
from ldopt.dual import DualSettings
from ldopt.problems import knapsack

torch = pytest.importorskip("torch", reason="ldopt_torch needs torch (pip install 'ldopt[torch]')")
import ldopt_torch as lt  # noqa: E402


class Opaque:
    """An object of no type the library knows."""


BAD: list[Any] = [
    None,
    math.nan,
    math.inf,
    -math.inf,
    -1,
    0,
    -0.5,
    2.5,
    "abc",
    "",
    [],
    [[1.0, 2.0], [3.0]],
    1 + 2j,
    True,
    False,
    {"k": 1},
    Opaque(),
    (1, 2),
    np.array([]),
    np.ones((2, 2, 2)),
    np.array(["x", "y"]),
    np.array([1 + 1j, 2.0]),
    torch.ones(3),
]


def _setup() -> dict[str, Any]:
    d = knapsack.protocol_data(12, 8, dim=2, seed=1)
    m = knapsack.build_model(d.weights, d.capacities)
    p = ldopt.Problem.from_pyomo(m, m.c)
    dec = ldopt.decompose(p)
    data = lt.LDDataset(dec, d.features[:8], d.costs[:8], iterations=5, progress=False)
    r = dec.dual(d.costs[:3], iterations=3, progress=False)
    return dict(d=d, m=m, p=p, dec=dec, data=data, r=r)


S = _setup()
d, p, dec, data, r = S["d"], S["p"], S["dec"], S["data"], S["r"]
C, F = d.costs, d.features


def _fit(**kw: Any) -> Any:
    args = dict(
        model=torch.nn.Linear(12, 8),
        data=data,
        loss=lt.LDLoss(dec, "spo+"),
        mode="static",
        epochs=1,
        val=(F[8:], C[8:]),
        progress=False,
    )
    args.update(kw)
    return lt.fit(**args)


# entry point: (the call, its valid keyword arguments)
ENTRIES: dict[str, tuple[Callable[..., Any], dict[str, Any]]] = {
    "Problem": (ldopt.Problem, dict(compiled=p.compiled)),
    "Problem.from_pyomo": (ldopt.Problem.from_pyomo, dict(model=S["m"], cost=S["m"].c)),
    "Problem.solve": (
        p.solve,
        dict(costs=C[:2], solver="highs", time_limit=None, gap=0.0, threads=None, options=None, start=None),
    ),
    "Problem.objective": (p.objective, dict(x=np.zeros(8), costs=C[:2])),
    "Problem.violation": (p.violation, dict(x=np.zeros((2, 8)))),
    "decompose": (ldopt.decompose, dict(problem=p, blocks=None)),
    "Decomposition.block": (dec.block, dict(k=0)),
    "Decomposition.dual": (
        dec.dual,
        dict(
            costs=C[:2],
            settings=None,
            iterations=3,
            mode="shared",
            step="polyak",
            solver="auto",
            chunk_size=None,
            checkpoint=None,
            progress=False,
            executor=None,
            warm=None,
        ),
    ),
    "DualSettings": (
        lambda **kw: dec.dual(C[:2], DualSettings(**kw), progress=False),
        dict(
            iterations=3, mode="shared", step="polyak", mu0=1.0, tol=1e-6, time_limit=None, solver="auto", layout="auto"
        ),
    ),
    "lagrangian_bound": (
        ldopt.lagrangian_bound,
        dict(dec=dec, costs=C[:2], settings=ldopt.dual.EXACT, iterations=3, solver="auto", progress=False),
    ),
    "parallel.local_pool": (ldopt.runtime.parallel.local_pool, dict(workers=1, threads_per_worker=1)),
    "Validator": (
        lt.Validator,
        dict(problem=p, features=F[8:10], costs=C[8:10], solver="highs", time_limit=None, gap=0.0, executor=None),
    ),
    "DualResult.multipliers": (r.multipliers, dict(d=0, index=None)),
    "DualResult.main_objective": (r.main_objective, dict(d=1)),
    "DualResult.bound_of": (r.bound_of, dict(d=1)),
    "regret.relative_regret": (
        ldopt.evaluate.regret.relative_regret,
        dict(problem=p, pred_costs=C[:2], costs=C[:2], solver="highs", optima=None),
    ),
    "regret.optima": (
        ldopt.evaluate.regret.optima,
        dict(problem=p, costs=C[:2], solver="highs", time_limit=None, gap=0.0, bound=None),
    ),
    "regret.evaluate": (
        ldopt.evaluate.regret.evaluate,
        dict(
            problem=p, pred_costs=C[:2], costs=C[:2], solver="highs", optima=None, time_limit=None, gap=0.0, start=None
        ),
    ),
    "threads.configure": (ldopt.runtime.threads.configure, dict(threads=None)),
    "parallel.chunks": (ldopt.runtime.parallel.chunks, dict(total=10, chunk_size=3)),
    "knapsack.build_model": (knapsack.build_model, dict(weights=d.weights, capacities=d.capacities)),
    "knapsack.protocol_data": (knapsack.protocol_data, dict(num_data=3, num_items=5, dim=2, deg=8)),
    "LDDataset": (
        lt.LDDataset,
        dict(
            dec=dec,
            features=F[:4],
            costs=C[:4],
            dual=None,
            iterations=3,
            decompositions="all",
            cache=None,
            executor=None,
            progress=False,
            dynamic=None,
        ),
    ),
    "OptDataset": (lt.OptDataset, dict(problem=p, features=F[:4], costs=C[:4], solver="highs", time_limit=None)),
    "LDDataset.view": (data.view, dict(d=1)),
    "LDDataset.batches": (lambda **kw: list(data.batches(**kw)), dict(batch_size=4, shuffle=True, generator=None)),
    "LDLoss": (
        lt.LDLoss,
        dict(dec=dec, surrogate="spo+", target="L1", solver="auto", scale="none"),
    ),
    "IMLE": (
        lambda **kw: lt.LDLoss(dec, lt.IMLE(**kw)),
        dict(n_samples=1, sigma=1.0, lambd=10.0, distribution=None, two_sides=False),
    ),
    "FenchelYoung": (lambda **kw: lt.LDLoss(dec, lt.FenchelYoung(**kw)), dict(n_samples=2, sigma=1.0, noise=None)),
    "SumOfGamma": (lt.SumOfGamma, dict(kappa=5.0, n_iterations=10, seed=None)),
    "fit": (
        _fit,
        dict(mode="static", main=None, epochs=1, lr=1e-3, seed=0, progress=False, schedule=None, options=None),
    ),
    "Schedule": (
        lambda **kw: _fit(schedule=lt.Schedule(**kw)),
        dict(patience=None, time_budget=None, eval_every=1, eval_interval=None, eval_times=None, on_validate=None),
    ),
    "FitOptions": (
        lambda **kw: _fit(options=lt.FitOptions(**kw)),
        dict(optimizer=None, batch_size=4, solver="auto", threads=1, executor=None),
    ),
    "lt.relative_regret": (
        lt.relative_regret,
        dict(problem=p, pred_costs=torch.as_tensor(C[:2]), costs=C[:2], solver="highs"),
    ),
}


def _call(entry: str, key: str, value: Any) -> str | None:
    """Call ``entry`` with ``key`` replaced by ``value``: ``None`` where it works or raises an
    ``LdoptError`` with a message, else what went wrong."""
    fn, kw = ENTRIES[entry]
    args = dict(kw)
    args[key] = value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a warning is an answer too; only exceptions are judged
        try:
            fn(**args)
        except ldopt.LdoptError as exc:
            if not str(exc):
                return f"{entry}({key}={value!r}): an LdoptError without a message"
        except Exception as exc:  # the very thing this test looks for: reported, not raised
            return f"{entry}({key}={value!r}"[:120] + f"): {type(exc).__name__}: {exc}"[:200]
        finally:
            ldopt.runtime.threads.configure(None)
    return None


@pytest.mark.parametrize("entry", list(ENTRIES))
def test_a_bad_argument_gives_an_ldopt_error_or_works(entry, tmp_path, monkeypatch):
    """Every argument of ``entry`` replaced by every bad value (one test per entry point, the
    failures listed together)."""
    monkeypatch.chdir(tmp_path)  # a path-like value that works (checkpoint="abc") writes here
    failures = [f for key in ENTRIES[entry][1] for value in BAD if (f := _call(entry, key, value))]
    assert not failures, f"{len(failures)} calls escaped with another exception:\n" + "\n".join(failures)


def test_the_audit_cases_are_caught_with_their_argument_named():
    """A few of the audit's findings, by their messages."""
    with pytest.raises(ldopt.InputError, match="complex"):
        p.solve(C[:1] + 1j)
    with pytest.raises(ldopt.InputError, match=r"got ConcreteModel; compile a Pyomo model with .*from_pyomo"):
        ldopt.Problem(S["m"])  # the Pyomo model itself, not its compilation
    with pytest.raises(ldopt.InputError, match=r"got torch's MSELoss.*use lt.MSELoss\(\)"):
        _fit(loss=torch.nn.MSELoss())
    with pytest.raises(ldopt.InputError, match=r"model: expected a model that takes \(batch, 12\) features"):
        _fit(model=torch.nn.Linear(7, 8))
    with pytest.raises(ldopt.InputError, match=r"val: expected features with 12 columns .* got 5"):
        _fit(val=(F[8:, :5], C[8:]))
    with pytest.raises(ldopt.DecompositionError, match="neither a row index"):
        ldopt.decompose(p, blocks=[[True], [1]])
    with pytest.raises(ldopt.InputError, match="workers"):
        ldopt.runtime.parallel.local_pool(0)
    with pytest.raises(ldopt.InputError, match="time_limit"):
        dec.dual(C[:2], DualSettings(time_limit=0))
    with pytest.raises(ldopt.InputError, match="mu0"):
        dec.dual(C[:2], DualSettings(mu0=float("nan")))
    with pytest.raises(ldopt.InputError, match="at least one cost vector"):
        dec.dual(C[:0], checkpoint="unused")
    with pytest.raises(ldopt.InputError, match="batch_size"):
        list(data.batches(0))
    with pytest.raises(ldopt.InputError, match="HiGHS refused no_such_option"):
        p.solve(C[:1], solver="highs", options={"no_such_option": 1})
    with pytest.raises(ldopt.InputError, match="HiGHS refused time_limit='abc'"):
        p.solve(C[:1], solver="highs", options={"time_limit": "abc"})


def test_ldopt_threads_env_is_validated(monkeypatch):
    monkeypatch.setenv("LDOPT_THREADS", "abc")
    ldopt.runtime.threads.configure(None)
    with pytest.raises(ldopt.InputError, match="LDOPT_THREADS"):
        ldopt.runtime.threads.num_threads()


def test_a_fixed_variable_keeps_its_column():
    """The audit's 'columns shift': a fixed variable is a column whose bounds are its value."""
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, 4)
    m.c = pyo.Param(m.I, mutable=True, initialize=0.0)
    m.x = pyo.Var(m.I, domain=pyo.Binary)
    m.x[2].fix(1)
    m.obj = pyo.Objective(expr=sum(m.c[i] * m.x[i] for i in m.I), sense=pyo.maximize)
    m.row = pyo.Constraint(expr=sum((i + 1) * m.x[i] for i in m.I) <= 6)
    prob = ldopt.Problem.from_pyomo(m, m.c)
    assert prob.var_names == [f"x[{i}]" for i in range(5)]
    s = prob.solve(np.array([1.0, 5.0, 0.0, 4.0, 2.0]), solver="highs")
    assert s.x[0, 2] == 1.0  # fixed at 1: capacity 6 - 3 = 3 left
    np.testing.assert_allclose(s.x[0], [1, 1, 1, 0, 0])
    np.testing.assert_allclose(s.objective, [6.0])


def test_cvxpy_does_not_call_a_box_bounded_model_unbounded():
    """Coefficients 1e12 and 1e-12 over a box: Clarabel reports 'unbounded', which is impossible
    there; the instance is reported as an error that says why, never as unbounded."""
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, 1)
    m.c = pyo.Param(m.I, mutable=True, initialize=0.0)
    m.x = pyo.Var(m.I, bounds=(0, 1))
    m.obj = pyo.Objective(expr=sum(m.c[i] * m.x[i] for i in m.I), sense=pyo.maximize)
    m.r0 = pyo.Constraint(expr=-1e-12 * m.x[0] + 1e-12 * m.x[1] <= 1e12)
    m.r1 = pyo.Constraint(expr=1e-12 * m.x[0] - 1e12 * m.x[1] <= 1.0)
    prob = ldopt.Problem.from_pyomo(m, m.c)
    costs = np.array([1e12, 1e-12])
    s = prob.solve(costs, solver="cvxpy")
    assert s.status[0] != "unbounded"
    if s.status[0] == "error":
        assert "box-bounded model unbounded" in s.messages[0]
    else:  # a later Clarabel may solve it: then it must be right
        np.testing.assert_allclose(s.objective, prob.solve(costs, solver="highs").objective, rtol=1e-6)


@settings(max_examples=150, deadline=None)
@given(
    arr=hnp.arrays(
        dtype=st.sampled_from([np.float64, np.int64, np.complex128, np.bool_, np.float32]),
        shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=9),
        elements=None,
    ),
    entry=st.sampled_from(
        [
            "Problem.solve",
            "Problem.objective",
            "Decomposition.dual",
            "regret.relative_regret",
            "LDDataset",
            "OptDataset",
        ]
    ),
)
def test_random_arrays_of_any_shape_and_dtype(arr, entry):
    """Random arrays (any shape up to 3-d, any dtype, NaN and inf included) in every array argument."""
    key = {
        "Problem.solve": "costs",
        "Problem.objective": "x",
        "Decomposition.dual": "costs",
        "regret.relative_regret": "pred_costs",
        "LDDataset": "features",
        "OptDataset": "costs",
    }[entry]
    failure = _call(entry, key, arr)
    assert failure is None, failure
