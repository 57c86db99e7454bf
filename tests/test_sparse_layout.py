"""The sparse layout (`ldopt.dual.support`): multipliers and copies on each block's support.

At the same multipliers the sparse forms give the dense forms' bounds and subgradients (the
multiplier of a copy off its block's support is zero); the stored result gives the same dense
arrays through its methods, bounds that the blocks' own solves reproduce, and weak duality."""

from __future__ import annotations

import random

import numpy as np
import pyomo.environ as pyo
import pytest
import torch
from models import bound_from_multipliers, linear_model

import ldopt
import ldopt_torch as lt
from ldopt.dual import DualResult
from ldopt.dual.forms import Joint, Shared
from ldopt.dual.memory import check_memory, multiplier_bytes, physical_memory
from ldopt.dual.settings import DualSettings
from ldopt.dual.sparse_forms import SparseJoint, SparseShared, box_argmax
from ldopt.dual.support import Support, box_of, resolve_layout
from ldopt.errors import InputError
from ldopt.oracles.row_groups import LinearRows, MixedRows, row_groups
from ldopt_experiments.zoo import _location


def _p_median(sites: int = 4, customers: int = 6, open_: int = 2):
    rng = random.Random(7)
    N, M = list(range(sites)), list(range(customers))
    d = {(n, k): rng.uniform(1.0, 2.0) for n in N for k in M}
    m = _location(N, M, d, open_, exact=True)
    return ldopt.Problem.from_pyomo(m, m.c), np.array(list(d.values()))


@pytest.fixture(scope="module")
def pmedian():
    p, base = _p_median()
    costs = base * np.random.default_rng(0).uniform(0.5, 1.5, (5, len(base)))
    return p, ldopt.decompose(p), costs


def _both(dec, sparse_form, dense_form, theta, q):
    """Bounds and subgradients of a sparse form at ``theta`` and of the dense form at ``theta``
    laid out densely (zero off the supports)."""
    solvers = dec.block_solvers()
    obj = sparse_form.objectives(theta, q)
    X = sparse_form.buffer(len(q), q.shape[1])
    values = sparse_form.evaluate(solvers, obj, X)
    sup = sparse_form.sup
    dense_theta = sup.to_dense(theta)
    dobj = dense_form.objectives(dense_theta, q)
    DX = dense_form.buffer(len(q), q.shape[1])
    dvalues = dense_form.evaluate(solvers, dobj, DX)
    return (
        sparse_form.bounds(values),
        dense_form.bounds(dvalues),
        sparse_form.subgradient(X),
        dense_form.subgradient(DX)[:, sup.owner, sup.indices],
    )


@pytest.mark.parametrize("blocks", [None, "component"])
def test_sparse_joint_is_the_dense_joint_at_the_same_penalties(pmedian, blocks):
    p, _, costs = pmedian
    dec = ldopt.decompose(p, blocks)
    sup = Support.of(dec)
    rng = np.random.default_rng(1)
    q = p.sign * p.objective_coefficients(costs)
    theta = rng.normal(scale=0.5, size=(len(q), sup.nnz))
    bounds, dense_bounds, g, dense_g = _both(dec, SparseJoint(sup, *box_of(dec)), Joint(dec.num_blocks), theta, q)
    scale = np.abs(q).sum() + np.abs(theta).sum()
    np.testing.assert_allclose(bounds, dense_bounds, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(g, dense_g, rtol=0, atol=1e-9)


@pytest.mark.parametrize("blocks", [None, "component"])
def test_sparse_shared_bound_is_the_dense_shared_bound_at_the_same_multipliers(pmedian, blocks):
    p, _, costs = pmedian
    dec = ldopt.decompose(p, blocks)
    sup = Support.of(dec)
    form = SparseShared(sup, *box_of(dec))
    q = p.sign * p.objective_coefficients(costs)
    lam = form.project(np.random.default_rng(2).normal(size=(len(q), sup.nnz)), q)
    np.testing.assert_allclose(sup.scatter_sum(lam), q, atol=1e-12)  # Σ_k λ_k = q on the supports
    bounds, dense_bounds, g, _ = _both(dec, form, Shared(dec.num_blocks), lam, q)
    np.testing.assert_allclose(bounds, dense_bounds, rtol=0, atol=1e-12 * (np.abs(q).sum() + np.abs(lam).sum()))
    np.testing.assert_allclose(sup.scatter_sum(g), 0.0, atol=1e-12)  # the step keeps Σ_k λ_k = q


@pytest.mark.parametrize(("mode", "step"), [("joint", "polyak"), ("shared", "polyak"), ("shared", "master")])
def test_a_sparse_result_gives_the_dense_arrays_and_its_bounds(pmedian, mode, step):
    p, dec, costs = pmedian
    r = dec.dual(costs, DualSettings(layout="sparse"), iterations=40, mode=mode, step=step, progress=False)
    assert r.layout == "sparse" and r.lam.shape == (len(costs), Support.of(dec).nnz)
    q = p.objective_coefficients(costs)
    opt = p.solve(costs, solver="highs").objective
    assert np.all(r.bound <= opt + 1e-7 * np.abs(opt))  # a minimisation: lower bounds
    for d in (0, 3, dec.num_blocks - 1):
        lam = r.lambdas_of(d)
        np.testing.assert_allclose(lam.sum(axis=1), q, atol=1e-9)
        np.testing.assert_array_equal(lam[:, d], r.main_objective(d))
        keep = [k for k in range(dec.num_blocks) if k != d]
        np.testing.assert_array_equal(r.multipliers(d), -lam[:, keep])
        np.testing.assert_array_equal(r.main_objective(d, [1, 3]), r.main_objective(d)[[1, 3]])
        # the main solution is optimal for the main block at its objective (min: max of −λ_d)
        sol = r.main_solution(d)
        best = -dec.block(d).problem.solve(-r.main_objective(d), solver="highs").objective
        np.testing.assert_allclose((r.main_objective(d) * sol).sum(axis=1), best, atol=1e-7)
        assert np.all(dec.block(d).problem.violation(sol) <= 1e-9)
        # the stored bound is what the blocks' own solves give at these multipliers
        np.testing.assert_allclose(r.bound_of(d), bound_from_multipliers(dec, r, d, "min"), atol=1e-7)


def test_column_generation_on_the_supports_reaches_the_dense_runs_bound(pmedian):
    """The master prices on the supports in both layouts; stored either way it is the same optimum."""
    _, dec, costs = pmedian
    sparse = dec.dual(costs, DualSettings(layout="sparse"), iterations=200, step="master", progress=False)
    dense = dec.dual(costs, DualSettings(layout="dense"), iterations=200, step="master", progress=False)
    ld = ldopt.lagrangian_bound(dec, costs, progress=False)
    assert ld.converged.all() and sparse.layout == "sparse" and dense.layout == "dense"
    for r in (sparse, dense):
        np.testing.assert_allclose(r.bound, ld.bound, rtol=1e-5)
    for d in (0, 7):
        np.testing.assert_allclose(sparse.lambdas_of(d), dense.lambdas_of(d), atol=1e-9)


def test_the_exact_bound_returns_its_multipliers_on_the_supports(pmedian):
    """``lagrangian_bound`` in the sparse layout: ``lam`` on the supports ``(B, nnz)``, the same bound
    and dense multipliers as the dense layout, summing to the costs, and the blocks' own HiGHS solves
    at those multipliers give the bound back (``Σ_k min_{x∈X_k} λ_k·x``)."""
    p, dec, costs = pmedian
    sparse = ldopt.lagrangian_bound(dec, costs, progress=False)
    dense = ldopt.lagrangian_bound(dec, costs, ldopt.dual.EXACT.merged(layout="dense"), progress=False)
    nnz = Support.of(dec).nnz
    assert sparse.layout == "sparse" and sparse.lam.shape == (len(costs), nnz) and nnz < dec.num_blocks * p.num_vars
    assert dense.layout == "dense" and dense.lam.shape == (len(costs), dec.num_blocks, p.num_vars)
    np.testing.assert_array_equal(sparse.bound, dense.bound)
    np.testing.assert_allclose(sparse.lambdas, dense.lam, atol=1e-12)
    np.testing.assert_allclose(sparse.lambdas.sum(axis=1), p.objective_coefficients(costs), atol=1e-9)
    lam = sparse.lambdas
    blocks = sum(-dec.block(k).problem.solve(-lam[:, k], solver="highs").objective for k in range(dec.num_blocks))
    offset = p.compiled.k0 + costs @ p.compiled.r
    np.testing.assert_allclose(blocks + offset, sparse.bound, rtol=1e-7, atol=1e-7)
    with pytest.raises(InputError, match="layout"):
        ldopt.lagrangian_bound(dec, costs, ldopt.dual.EXACT.merged(layout="flat"), progress=False)


def test_a_dual_whose_multipliers_outgrow_the_machine_is_refused_before_it_runs(pmedian):
    """The independent mode stores ``B·m²·n`` multipliers: asked for more instances than this
    machine's memory holds, ``dec.dual`` and ``LDDataset`` refuse at once, naming the size and the
    joint mode (which fits); the same instances in the joint mode pass the check."""
    p, dec, costs = pmedian
    total = physical_memory()
    if total is None:
        pytest.skip("this system does not report its physical memory (os.sysconf)")
    m, n = dec.num_blocks, p.num_vars
    assert multiplier_bytes(dec, 3, "independent", "dense") == 8 * 3 * m * m * n
    assert multiplier_bytes(dec, 3, "joint", "sparse") == 8 * 3 * (Support.of(dec).nnz + n)
    count = total // (8 * m * m * n) + 1  # just more than the machine holds
    many = np.resize(costs, (count, costs.shape[1]))
    with pytest.raises(InputError, match=r"mode='independent'.*GB\), more than this machine's.*mode='joint'"):
        dec.dual(many, iterations=1, mode="independent", progress=False)
    with pytest.raises(InputError, match="more than this machine's"):
        lt.LDDataset(
            dec, np.zeros((count, 1)), many, lt.DEFAULTS.dual.merged(iterations=1, mode="independent"), progress=False
        )
    check_memory(dec, count, DualSettings(mode="joint", layout="sparse"))  # fits: no error


def test_the_sparse_layout_is_saved_chunked_and_continued(pmedian, tmp_path):
    _, dec, costs = pmedian
    r = dec.dual(costs, DualSettings(layout="sparse"), iterations=20, mode="joint", step="polyak", progress=False)
    again = DualResult.from_arrays(*r.to_arrays())
    assert again.layout == "sparse" and again.support.same(r.support)
    for d in (0, 5):
        np.testing.assert_array_equal(again.main_solution(d), r.main_solution(d))
        np.testing.assert_array_equal(again.main_objective(d), r.main_objective(d))
    chunked = dec.dual(
        costs,
        DualSettings(layout="sparse"),
        iterations=20,
        mode="joint",
        step="polyak",
        progress=False,
        checkpoint=tmp_path,
        chunk_size=2,
    )
    np.testing.assert_array_equal(chunked.lam, r.lam)
    np.testing.assert_array_equal(chunked.box_x, r.box_x)
    priced = dec.dual(costs, iterations=1, mode="joint", step="polyak", warm=r, progress=False)  # auto: the warm layout
    assert priced.layout == "sparse"
    np.testing.assert_allclose(priced.run_bounds, r.run_bounds, rtol=1e-12)
    with pytest.raises(InputError, match="layout"):
        dec.dual(costs, DualSettings(layout="dense"), iterations=1, mode="joint", step="polyak", warm=r, progress=False)


def test_auto_keeps_dense_rows_dense_and_refuses_what_sparse_cannot_run(pmedian):
    _, dec, _ = pmedian
    assert resolve_layout(dec, "auto", "joint") == "sparse"
    assert resolve_layout(dec, "auto", "independent") == "dense"
    assert resolve_layout(dec, "auto", "shared") == "sparse"  # the master too
    with pytest.raises(InputError, match="independent"):
        resolve_layout(dec, "sparse", "independent")
    A = np.random.default_rng(0).integers(1, 9, (3, 12)).astype(float)  # dense knapsack rows
    m = linear_model(A, np.full(3, -np.inf), A.sum(1) / 2, np.zeros(12), np.ones(12))
    mkp = ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c))
    assert Support.of(mkp).share == 1.0 and resolve_layout(mkp, "auto", "joint") == "dense"


def test_weak_duality_of_the_sparse_layout_on_random_instances():
    for seed in range(4):
        rng = np.random.default_rng(seed)
        n, rows = 10, 6
        A = np.where(rng.random((rows, n)) < 0.3, rng.integers(1, 6, (rows, n)), 0).astype(float)
        A[np.arange(rows), rng.integers(0, n, rows)] += 1.0  # every row touches a variable
        m = linear_model(A, np.full(rows, -np.inf), np.maximum(A.sum(1) / 2, 1.0), np.zeros(n), np.ones(n))
        p = ldopt.Problem.from_pyomo(m, m.c)
        dec = ldopt.decompose(p)
        C = rng.uniform(-1, 5, (4, n))
        opt = p.solve(C, solver="highs").objective
        for mode in ("joint", "shared"):
            r = dec.dual(C, DualSettings(layout="sparse"), iterations=30, mode=mode, step="polyak", progress=False)
            assert np.all(r.bound >= opt - 1e-7 * np.maximum(1, np.abs(opt))), (seed, mode)
            ok = np.isfinite(r.primal_objective)
            assert np.all(r.primal_objective[ok] <= opt[ok] + 1e-7), (seed, mode)


def test_box_argmax_takes_the_best_bound_and_a_finite_one_on_ties():
    lb, ub = np.array([0.0, -np.inf, 1.0]), np.array([2.0, 3.0, np.inf])
    np.testing.assert_array_equal(box_argmax(np.array([[1.0, -1.0, 0.0]]), lb, ub), [[2.0, -np.inf, 1.0]])
    np.testing.assert_array_equal(box_argmax(np.array([[0.0, 0.0, -2.0]]), lb, ub), [[0.0, 3.0, 1.0]])


def test_a_training_set_on_the_supports_trains_like_any_other(pmedian, tmp_path):
    _, dec, _ = pmedian
    rng = np.random.default_rng(3)
    F = rng.normal(size=(24, 3))
    _, base = _p_median()
    C = base * (1 + 0.3 * np.tanh(F @ rng.normal(size=(3, len(base)))))
    data = lt.LDDataset(dec, F, C, cache=tmp_path, progress=False)
    assert data.result.layout == "sparse" and data.settings["layout"] == "sparse"
    assert lt.LDDataset(dec, F, C, lt.PAPER.dual, progress=False).result.layout == "dense"
    batch = data.view(4)._batch(torch.arange(5))
    np.testing.assert_allclose(batch["main_objective"].numpy(), data.result.main_objective(4, np.arange(5)), rtol=1e-6)
    np.testing.assert_allclose(batch["main_solution"].numpy(), data.result.main_solution(4, np.arange(5)), rtol=1e-6)
    assert "multipliers" not in batch
    assert lt.LDDataset(dec, F, C, cache=tmp_path, progress=False).loaded_from_cache
    # the same multipliers laid out densely give the same batches and the same loss
    r, m = data.result, dec.num_blocks
    dense = DualResult(
        sense=r.sense, mode=r.mode, lam=r.support.to_dense(r.lam),
        main=np.stack([r.main_objective(d) for d in range(m)], axis=1),
        main_x=np.stack([r.main_solution(d) for d in range(m)], axis=1),
        run_bounds=r.run_bounds, history=r.history, primal_objective=r.primal_objective,
        primal_x=r.primal_x, iterations=r.iterations, seconds=r.seconds, step=r.step,
    )  # fmt: skip
    as_dense = data.with_result(dense)
    loss = lt.LDLoss(dec, surrogate="spo+", target="L1")
    model = torch.nn.Linear(3, C.shape[1])
    for d in (0, 4, m - 1):
        a, b = data.view(d)._batch(torch.arange(24)), as_dense.view(d)._batch(torch.arange(24))
        for key in ("main_objective", "main_solution"):
            torch.testing.assert_close(a[key], b[key], rtol=0, atol=0)
        pred = model(a["features"])
        torch.testing.assert_close(loss(pred, a), loss(pred, b), rtol=0, atol=0)
    out = lt.fit(model, data, loss, mode="multiple", epochs=2, progress=False, seed=0)
    assert len(out.history) == 3 and np.isfinite(out.history[-1]["train_loss"])


def test_grouped_rows_are_the_blocks_own_oracles():
    """Rows of one shape solved in one call (``ldopt.oracles.row_groups``) give each block's own
    oracle's answer: closed-form rows with any coefficients and sides (both ``<=`` and ``>=``
    binding), and mixed rows (a continuous and an integer variable) with their combinations."""
    rng = np.random.default_rng(4)
    n, rows = 12, 30
    A = np.zeros((rows, n))
    for i in range(rows):
        A[i, rng.choice(n, 3, replace=False)] = rng.choice([-3.0, -1.0, 1.0, 2.0, 5.0], 3)
    mid = A.sum(1) / 2  # the middle of the row's range over the box, at least 1.5 from its ends
    lo, hi = mid - rng.uniform(0.2, 1.0, rows), mid + rng.uniform(0.0, 0.5, rows)
    m = linear_model(A, lo, hi, np.zeros(n), np.ones(n), domain=pyo.Reals)
    p = ldopt.Problem.from_pyomo(m, m.c)
    for dec in (ldopt.decompose(p), ldopt.decompose(_p_median()[0])):
        sup, solvers = Support.of(dec), dec.block_solvers()
        groups, single = row_groups(solvers, sup)
        assert groups and not single
        obj = rng.normal(size=(7, sup.nnz))
        out = np.full_like(obj, np.nan)
        for g in groups:
            g.solve(obj, out)
        for k in range(dec.num_blocks):
            at = sup.block(k)
            own = solvers[k].argmax_on(obj[:, at], sup.variables(k))
            np.testing.assert_allclose(out[:, at], own, rtol=0, atol=1e-12)
        assert {type(g) for g in groups} <= {LinearRows, MixedRows}
