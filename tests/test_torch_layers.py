"""ldopt_torch layers and losses: SPO+/I-MLE against PyEPO, the exact layer against closed forms
and finite differences, L1/L2 identities, and the errors."""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
import pytest

torch = pytest.importorskip("torch", reason="ldopt_torch needs torch (pip install 'ldopt[torch]')")
pyepo_func = pytest.importorskip("pyepo.func", reason="the PyEPO comparisons need pyepo (pip install 'ldopt[torch]')")

from models import linear_model  # noqa: E402
from pyepo.func.utils import sumGammaDistribution  # noqa: E402

import ldopt  # noqa: E402
import ldopt_torch as lt  # noqa: E402
from ldopt.problems import knapsack, portfolio  # noqa: E402


def mkp(n: int = 12, m: int = 3, seed: int = 0):
    d = knapsack.protocol_data(8, n, dim=m, seed=seed)
    model = knapsack.build_model(d.weights, d.capacities)
    return ldopt.decompose(ldopt.Problem.from_pyomo(model, model.c)), d


def covering(n: int = 10, m: int = 4, seed: int = 0):
    """A minimisation: ``min c·x  s.t.  A x >= 1``, binary x (every block a covering row)."""
    r = np.random.default_rng(seed)
    A = (r.random((m, n)) < 0.4).astype(float)
    A[np.arange(m), r.integers(0, n, m)] = 1.0
    model = linear_model(A, np.ones(m), np.full(m, np.inf), np.zeros(n), np.ones(n), sense=pyo.minimize)
    return ldopt.decompose(ldopt.Problem.from_pyomo(model, model.c))


DECS = {"max-knapsack": lambda: mkp()[0], "min-covering": covering}


@pytest.mark.parametrize("which", list(DECS))
@pytest.mark.parametrize("d", [0, 2])
def test_spo_plus_matches_pyepo(which, d):
    dec = DECS[which]()
    g = torch.Generator().manual_seed(d)
    B, n = 6, dec.num_vars
    pred = torch.randn(B, n, generator=g, dtype=torch.float64)
    true = torch.rand(B, n, generator=g, dtype=torch.float64) * 4 - 1
    argopt = lt.BlockArgopt(dec, d)
    w = argopt(true)
    z = (true * w).sum(-1)
    a = pred.clone().requires_grad_(True)
    ours = lt.spo_plus(a, true, w, z, argopt)
    ours.sum().backward()
    b = pred.clone().requires_grad_(True)
    ref = pyepo_func.SPOPlus(lt.PyEPOModel(dec, block=d), reduction="none")(b, true, w, z)
    ref.sum().backward()
    np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), atol=1e-9)
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), atol=1e-9)
    assert (ours.detach() >= -1e-9).all()  # SPO+ upper-bounds the regret ≥ 0


@pytest.mark.parametrize("which", list(DECS))
@pytest.mark.parametrize("two_sides", [False, True])
def test_imle_matches_pyepo(which, two_sides):
    dec = DECS[which]()
    d = 1
    g = torch.Generator().manual_seed(3)
    B, n = 5, dec.num_vars
    pred = torch.randn(B, n, generator=g, dtype=torch.float64)
    upstream = torch.randn(B, n, generator=g, dtype=torch.float64)
    kw = dict(n_samples=3, sigma=1.0, lambd=10.0, two_sides=two_sides)
    a = pred.clone().requires_grad_(True)
    xa = lt.imle(a, lt.BlockArgopt(dec, d), distribution=sumGammaDistribution(kappa=5, seed=11), **kw)
    (xa * upstream).sum().backward()
    b = pred.clone().requires_grad_(True)
    layer = pyepo_func.implicitMLE(
        lt.PyEPOModel(dec, block=d), distribution=sumGammaDistribution(kappa=5, seed=11), **kw
    )
    xb = layer(b)
    (xb * upstream).sum().backward()
    np.testing.assert_allclose(xa.detach().numpy(), xb.detach().numpy(), atol=1e-12)
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), atol=1e-9)
    assert a.grad.abs().sum() > 0


def test_sum_of_gamma_is_pyepos_law():
    ours = lt.SumOfGamma(kappa=5, seed=21).sample((4, 3, 7), dtype=torch.float64)
    ref = sumGammaDistribution(kappa=5, seed=21).sample((4, 3, 7), device="cpu", dtype=torch.float64)
    np.testing.assert_allclose(ours.numpy(), ref.numpy(), atol=1e-12)


def test_pyepo_adapter_full_problem_and_rebuild():
    dec, data = mkp()
    p = dec.problem
    om = lt.PyEPOModel(p, solver="highs")
    om.setObj(data.costs[0])
    _, obj = om.solve()
    s = p.solve(data.costs[0], solver="highs")
    assert obj == pytest.approx(float(s.objective[0]))
    rebuilt = om.rebuild()
    rebuilt.setObj(data.costs[0])
    assert rebuilt.solve()[1] == pytest.approx(obj)
    assert om.num_cost == p.num_vars
    blk = lt.PyEPOModel(dec, block=1).rebuild()
    blk.setObj(data.costs[0])
    xb, _ = blk.solve()
    np.testing.assert_allclose(xb, dec.block(1).solver().argmax(data.costs[:1])[0])


def portfolio_dec(n: int = 8, seed: int = 1):
    cov, feats, ret = portfolio.gen_data(16, 5, n, deg=2, seed=seed)
    model = portfolio.build_model(cov)
    return ldopt.decompose(ldopt.Problem.from_pyomo(model, model.c)), feats, ret, cov


def test_exact_layer_closed_form_and_gradcheck():
    dec, _, ret, _ = portfolio_dec()
    loss = lt.LDLoss(dec, "exact", "L2")
    d = loss.default_main()
    assert d == 1 and not loss.fits(0)
    layer = loss.exact_layer(d)
    row = dec.block(d).compiled.rows[0]
    w = torch.as_tensor(ret[:4], dtype=torch.float64)
    x = layer(w).detach().numpy()
    # on the boundary, and KKT: 2Px = κ w with κ > 0 (the row binds, bounds dropped)
    np.testing.assert_allclose(np.einsum("bi,ij,bj->b", x, row.P, x), row.hi, rtol=1e-9)
    grad = 2 * x @ row.P
    kappa = (grad * ret[:4]).sum(1) / (ret[:4] ** 2).sum(1)
    np.testing.assert_allclose(grad, kappa[:, None] * ret[:4], rtol=1e-7, atol=1e-12)
    assert (kappa > 0).all()
    # the closed form agrees with HiGHS-free references: the ball optimum x = sqrt(R/v'P⁻¹v) P⁻¹v
    Pi = np.linalg.solve(row.P, ret[:4].T).T
    ref = np.sqrt(row.hi / (ret[:4] * Pi).sum(1))[:, None] * Pi
    np.testing.assert_allclose(x, ref, rtol=1e-9)
    wt = w.clone().requires_grad_(True)
    assert torch.autograd.gradcheck(layer, (wt,), eps=1e-7, atol=1e-6)


def test_exact_layer_with_linear_term_and_min_sense():
    P = np.array([[2.0, 0.3], [0.3, 1.0]])
    a = np.array([0.5, -1.0])
    layer = lt.QuadraticClosedForm(P, a, 3.0, minimize=True)
    w = torch.tensor([[1.0, 2.0]], dtype=torch.float64)
    x = layer(w).detach().numpy()[0]
    # brute force over a fine grid of the boundary: the minimiser of w·x
    t = np.linspace(0, 2 * np.pi, 200001)
    L = np.linalg.cholesky(np.linalg.inv(P))
    x0 = -0.5 * np.linalg.solve(P, a)
    hh = 3.0 + 0.25 * a @ np.linalg.solve(P, a)
    pts = x0 + np.sqrt(hh) * (L @ np.vstack([np.cos(t), np.sin(t)])).T
    best = pts[np.argmin(pts @ np.array([1.0, 2.0]))]
    np.testing.assert_allclose(x, best, atol=1e-4)


def _batch(dec, costs, lam, d, argopt):
    c = torch.as_tensor(costs, dtype=torch.float64)
    lam = torch.as_tensor(lam, dtype=torch.float64)
    return dict(index=torch.arange(len(c)), d=d, costs=c, main_objective=lam, main_solution=argopt(lam))


@pytest.mark.parametrize("method", ["spo+", "imle", "exact"])
def test_l1_equals_l2_when_multipliers_are_zero(method):
    if method == "exact":
        dec, _, costs, _ = portfolio_dec()
        d = 1
    else:
        dec, data = mkp()
        costs, d = data.costs, 2
    q = dec.problem.objective_coefficients(costs)
    pred = torch.as_tensor(costs + np.random.default_rng(0).normal(0, 0.5, costs.shape), dtype=torch.float64)
    out = {}
    for L in ("L1", "L2"):
        surrogate = lt.IMLE(distribution=sumGammaDistribution(kappa=5, seed=4)) if method == "imle" else method
        loss = lt.LDLoss(dec, surrogate, L)
        batch = _batch(dec, costs, q, d, loss.argopt(d))
        a = pred.clone().requires_grad_(True)
        v = loss.per_instance(a, batch)
        v.sum().backward()
        out[L] = (v.detach().numpy(), a.grad.numpy(), loss.regret(pred, batch).numpy())
    for u, v in zip(out["L1"], out["L2"], strict=True):
        np.testing.assert_allclose(u, v, atol=1e-9)
    assert (out["L1"][2] >= -1e-9).all()


def test_ld_regret_is_zero_at_the_true_costs_and_positive_otherwise():
    dec, data = mkp()
    r = dec.dual(data.costs, iterations=50, progress=False)
    loss = lt.LDLoss(dec, "spo+", "L1")
    for d in range(dec.num_blocks):
        batch = dict(
            index=torch.arange(8),
            d=d,
            costs=torch.as_tensor(data.costs),
            main_objective=torch.as_tensor(r.main_objective(d)),
            main_solution=torch.as_tensor(r.main_solution(d)),
        )
        assert loss.regret(torch.as_tensor(data.costs), batch).abs().max() < 1e-9
        assert loss.per_instance(torch.as_tensor(data.costs), batch).abs().max() < 1e-9
        bad = loss.regret(torch.as_tensor(-data.costs), batch)
        assert (bad >= -1e-9).all() and bad.sum() > 0


def test_scaled_main_subproblem_is_the_same_problem_in_other_units():
    # scale="costs" multiplies w and λ_d by s = mean|c| / mean|λ_d|: SPO+ is positively homogeneous,
    # so L1 becomes s × L1 (values and gradients), and the reported regret does not change at all.
    dec, data = mkp()
    r = dec.dual(data.costs, iterations=50, step="polyak", progress=False)  # a shared Polyak solve
    d = 2
    lam = r.main_objective(d)
    batch = dict(
        index=torch.arange(8),
        d=d,
        costs=torch.as_tensor(data.costs),
        main_objective=torch.as_tensor(lam),
        main_solution=torch.as_tensor(r.main_solution(d)),
    )
    s = np.abs(data.costs).mean(1) / np.abs(lam).mean(1)
    assert (s > 1.5).all()  # the shared solve's λ_d is smaller than the costs (m = 3 blocks here)
    pred = torch.as_tensor(data.costs + np.random.default_rng(1).normal(0, 2.0, data.costs.shape))
    out = {}
    for scale in ("none", "costs"):
        loss = lt.LDLoss(dec, "spo+", "L1", scale=scale)
        a = pred.clone().requires_grad_(True)
        v = loss.per_instance(a, batch)
        v.sum().backward()
        out[scale] = (v.detach().numpy(), a.grad.numpy(), loss.regret(pred, batch).numpy())
    assert out["none"][0].sum() > 0
    np.testing.assert_allclose(out["costs"][0], s * out["none"][0], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(out["costs"][1], s[:, None] * out["none"][1], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(out["costs"][2], out["none"][2], atol=1e-12)
    with pytest.raises(ldopt.InputError, match="scale: expected one of"):
        lt.LDLoss(dec, "imle", "L1", scale="lambda")


@pytest.mark.parametrize("loss_name", ["L1", "L2"])
def test_unit_scale_makes_imle_noise_relative_to_the_main_objective(loss_name):
    # scale="unit" divides the main subproblem (w, λ_d and L2's prices) by mean|λ_d|: the argmax
    # is scale-free, so each instance's I-MLE solutions are those of the unscaled loss with
    # σ·mean|λ_d| and the same noise, and its loss and gradient are those divided by mean|λ_d|.
    dec, data = mkp()
    r = dec.dual(data.costs, iterations=50, progress=False)
    d = 1
    pred = torch.as_tensor(data.costs + np.random.default_rng(2).normal(0, 2.0, data.costs.shape))
    for i in range(len(data.costs)):
        batch = dict(
            index=torch.arange(1),
            d=d,
            costs=torch.as_tensor(data.costs[i : i + 1]),
            main_objective=torch.as_tensor(r.main_objective(d)[i : i + 1]),
            main_solution=torch.as_tensor(r.main_solution(d)[i : i + 1]),
        )
        m = float(np.abs(r.main_objective(d)[i]).mean())
        out = []
        for scale, sigma in (("unit", 0.7), ("none", 0.7 * m)):
            imle = lt.IMLE(sigma=sigma, distribution=lt.SumOfGamma(5.0, seed=3))
            loss = lt.LDLoss(dec, imle, loss_name, scale=scale)
            a = pred[i : i + 1].clone().requires_grad_(True)
            v = loss.per_instance(a, batch)
            v.sum().backward()
            out.append((v.detach().numpy(), a.grad.numpy()))
        np.testing.assert_allclose(out[0][0], out[1][0] / m, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(out[0][1], out[1][1] / m, rtol=1e-9, atol=1e-12)


def test_mixed_decompositions_in_one_batch_use_each_main_block():
    dec, data = mkp()
    r = dec.dual(data.costs, iterations=30, progress=False)
    ds = torch.tensor([0, 1, 2, 0, 1, 2, 0, 1])
    lam = np.stack([r.main_objective(int(d))[i] for i, d in enumerate(ds)])
    xs = np.stack([r.main_solution(int(d))[i] for i, d in enumerate(ds)])
    batch = dict(
        index=torch.arange(8),
        d=ds,
        costs=torch.as_tensor(data.costs),
        main_objective=torch.as_tensor(lam),
        main_solution=torch.as_tensor(xs),
    )
    loss = lt.LDLoss(dec, "spo+", "L1")
    pred = torch.as_tensor(data.costs[::-1].copy()).requires_grad_(True)
    mixed = loss.per_instance(pred, batch)
    mixed.sum().backward()
    for d in range(3):
        sel = ds == d
        sub = {k: (v[sel] if isinstance(v, torch.Tensor) and v.ndim else v) for k, v in batch.items()}
        sub["d"] = d
        np.testing.assert_allclose(mixed.detach()[sel].numpy(), loss.per_instance(pred.detach()[sel], sub).numpy())


def test_loss_errors_say_what_fits():
    dec, data = mkp()
    with pytest.raises(ldopt.InputError, match="fits no block"):
        lt.LDLoss(dec, "exact")
    with pytest.raises(ldopt.InputError, match="surrogate: expected one of"):
        lt.LDLoss(dec, "spo")
    pdec = portfolio_dec()[0]
    loss = lt.LDLoss(pdec, "exact")
    with pytest.raises(ldopt.InputError, match=r"does not fit block 0.*\['spo\+', 'imle', 'fy'\]"):
        loss._check_fit(0)
    sl = lt.LDLoss(dec, "spo+")
    batch = dict(
        index=torch.arange(8) + 100,
        d=0,
        costs=torch.as_tensor(data.costs),
        main_objective=torch.as_tensor(data.costs),
        main_solution=torch.zeros(8, dec.num_vars),
    )
    pred = torch.as_tensor(data.costs).clone()
    pred[3, 2] = float("nan")
    with pytest.raises(ldopt.InputError, match="instance 103"):
        sl(pred, batch)
    with pytest.raises(ldopt.InputError, match=r"expected shape \(8, 12\)"):
        sl(pred[:, :5], batch)


@pytest.mark.parametrize("target", ["full", "block"])
def test_pyepo_losses_run_on_the_adapter_in_pool_workers(target):
    """Every family of pyepo.func runs on our optModel, in 2 worker processes (ModelSpec rebuild)."""
    dec, data = mkp()
    om = lt.PyEPOModel(dec.problem, solver="highs") if target == "full" else lt.PyEPOModel(dec, block=1)
    c = torch.as_tensor(data.costs[:4], dtype=torch.float32)
    sols = []
    for ci in data.costs[:4]:
        om.setObj(ci)
        sols.append(om.solve()[0])
    w = torch.as_tensor(np.array(sols), dtype=torch.float32)
    pred = (c + torch.randn(c.shape, generator=torch.Generator().manual_seed(0))).requires_grad_(True)
    dbb = pyepo_func.DBB(om, lambd=10, processes=2)
    dpo = pyepo_func.DPO(om, n_samples=2, sigma=1.0, processes=2)
    pfy = pyepo_func.PFY(om, n_samples=2, sigma=1.0, processes=1)
    try:
        outs = [dbb(pred).sum(), dpo(pred).sum(), pfy(pred, w)]
        sum(outs).backward()
    finally:  # stop the workers here: PyEPO joins its pools when they are collected, where a CI run
        for loss in (dbb, dpo):  # once waited 900 s on a worker that did not exit
            if loss.pool is not None:
                loss.pool.terminate()
                loss.pool.join()
                loss.pool.clear()
    assert torch.isfinite(pred.grad).all() and pred.grad.abs().sum() > 0


def test_spo_plus_on_the_full_problem_matches_pyepo():
    """``lt.ProblemArgopt`` (our batched full-problem argopt) under our SPO+ equals PyEPO's SPO+."""
    dec, data = mkp()
    p = dec.problem
    g = torch.Generator().manual_seed(5)
    true = torch.as_tensor(data.costs, dtype=torch.float64)
    pred = true + 2 * torch.randn(true.shape, generator=g, dtype=torch.float64)
    argopt = lt.ProblemArgopt(p, solver="highs")
    w = argopt(true)
    np.testing.assert_allclose((true * w).sum(-1).numpy(), p.solve(data.costs, solver="highs").objective)
    z = (true * w).sum(-1)
    a = pred.clone().requires_grad_(True)
    lt.spo_plus(a, true, w, z, argopt).sum().backward()
    b = pred.clone().requires_grad_(True)
    pyepo_func.SPOPlus(lt.PyEPOModel(p, solver="highs"), reduction="sum")(b, true, w, z).backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), atol=1e-9)


def test_pyepo_adapter_refuses_objectives_that_are_not_the_costs():
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, 2)
    m.c = pyo.Param(m.I, mutable=True, initialize=0.0)
    m.x = pyo.Var(m.I, domain=pyo.Binary)
    m.obj = pyo.Objective(expr=sum(2 * m.c[i] * m.x[i] for i in m.I), sense=pyo.maximize)
    m.row = pyo.Constraint(expr=sum(m.x[i] for i in m.I) <= 1)
    p = ldopt.Problem.from_pyomo(m, m.c)
    assert not p.compiled.identity_costs and mkp()[0].problem.compiled.identity_costs
    with pytest.raises(ldopt.InputError, match="each cost on a variable of its own"):
        lt.PyEPOModel(p)


def test_fit_and_the_loss_choose_the_main_block_by_one_rule():
    """``fit``'s static main block is ``LDLoss.default_main``: on the portfolio SPO+ fits both blocks,
    which are solved differently, so both refuse to guess; "exact" fits only the risk row."""
    dec, feats, ret, _ = portfolio_dec()
    data = lt.LDDataset(dec, feats, ret, iterations=3, progress=False)
    spo, exact = lt.LDLoss(dec, "spo+", "L1"), lt.LDLoss(dec, "exact", "L2")
    for ask in (lambda: spo.default_main(), lambda: spo.plan(data, "static", None)):
        with pytest.raises(ldopt.InputError, match="static mode needs main= when the blocks differ"):
            ask()
    assert exact.plan(data, "static", None) == [exact.default_main()] == [1]
