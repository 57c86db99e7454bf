"""Pluggable surrogates: Fenchel–Young against PyEPO, the registry, a user's surrogate end to end
(LDLoss, fit, the harness's method names); LDLoss's older keywords are gone."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="ldopt_torch needs torch (pip install 'ldopt[torch]')")
pyepo_func = pytest.importorskip("pyepo.func", reason="the PyEPO comparisons need pyepo (pip install 'ldopt[torch]')")

from test_torch_layers import DECS, mkp  # noqa: E402

import ldopt  # noqa: E402
import ldopt_torch as lt  # noqa: E402
from ldopt_torch.losses.surrogates import MainBlock, regret  # noqa: E402


@pytest.mark.parametrize("which", list(DECS))
@pytest.mark.parametrize("d", [0, 2])
def test_fenchel_young_matches_pyepo(which, d):
    """Same Gaussian stream (seed 135): the same loss values and gradients as PyEPO's PFYL, in
    both senses; the value is ≥ 0 up to the noise (Fenchel–Young's inequality per draw)."""
    dec = DECS[which]()
    g = torch.Generator().manual_seed(d + 1)
    B, n = 6, dec.num_vars
    pred = torch.randn(B, n, generator=g, dtype=torch.float64)
    argopt = lt.BlockArgopt(dec, d)
    true_sol = argopt(torch.randn(B, n, generator=g, dtype=torch.float64))
    a = pred.clone().requires_grad_(True)
    ours = lt.fenchel_young(a, true_sol, argopt, n_samples=4, sigma=0.7, noise=lt.Gaussian(seed=135))
    ours.sum().backward()
    b = pred.clone().requires_grad_(True)
    layer = pyepo_func.perturbedFenchelYoung(lt.PyEPOModel(dec, block=d), n_samples=4, sigma=0.7, reduction="none")
    ref = layer(b, true_sol)
    ref.sum().backward()
    np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), atol=1e-9)
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), atol=1e-12)
    assert (ours.detach() >= -1e-9).all()  # each draw's max(θ·x) ≥ θ·x_true, and x_true is feasible


def test_fenchel_young_gradient_is_the_expected_decision_gap():
    """∂/∂ĉ = s (E[x*(ĉ+σZ)] − x): with σ → 0 the expectation is the unperturbed decision."""
    dec = DECS["min-covering"]()
    argopt = lt.BlockArgopt(dec, 1)
    g = torch.Generator().manual_seed(0)
    pred = torch.rand(3, dec.num_vars, generator=g, dtype=torch.float64) + 0.5
    x = torch.zeros_like(pred)
    a = pred.clone().requires_grad_(True)
    lt.fenchel_young(a, x, argopt, n_samples=2, sigma=1e-9, noise=lt.Gaussian(seed=1)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), -(argopt(pred) - x).numpy(), atol=1e-12)


def test_registry_names_and_errors():
    assert {"spo+", "imle", "fy", "exact"} <= set(lt.SURROGATES)
    assert isinstance(lt.LDLoss(mkp()[0], "fy").surrogate, lt.FenchelYoung)
    with pytest.raises(ldopt.InputError, match="surrogate name 'spo\\+': expected a new name"):
        type("Clash", (lt.Surrogate,), {"name": "spo+", "__call__": lambda *a: None})


@pytest.fixture
def identity():
    """A user's surrogate, registered for one test (the registry is global)."""

    class NegativeIdentity(lt.Surrogate):
        """The straight-through regret of the main decision."""

        name, label = "test-identity", "Identity"

        def __call__(self, main: MainBlock, w, lam, xd, target):
            x = main.argopt(w)
            return regret(main, x + main.sign * (w - w.detach()), xd, target)

    yield NegativeIdentity
    lt.SURROGATES.pop("test-identity", None)


def test_a_user_surrogate_trains_through_ldloss_and_the_harness(identity):
    from ldopt_experiments.methods import loss_for, parse_method  # noqa: PLC0415
    from ldopt_experiments.protocol import knapsack_setup  # noqa: PLC0415

    spec = parse_method("ld:test-identity:multiple:L2")
    assert spec.label == "LD(Identity, multiple, L2)"
    setup = knapsack_setup(10, dim=3, train=16, val=8, test=8)
    loss, mode = loss_for(spec, setup, "highs")
    assert isinstance(loss.surrogate, identity) and mode == "multiple"
    data = lt.LDDataset(setup.dec, *setup.train, iterations=10, progress=False)
    batch = next(iter(data.batches(16, shuffle=False)))
    pred = torch.zeros(16, setup.problem.num_costs, dtype=torch.float64, requires_grad=True)
    loss(pred, batch).backward()
    # the straight-through gradient of s·(q·x_d − q·x) is −q/B: it raises every value's prediction
    q = torch.as_tensor(setup.problem.objective_coefficients(batch["costs"].numpy()))
    np.testing.assert_allclose(pred.grad.numpy(), -q.numpy() / 16, atol=1e-12)
    torch.manual_seed(0)
    model = torch.nn.Linear(data.num_features, setup.problem.num_costs).double()
    out = lt.fit(model, data, loss, mode="multiple", epochs=2, val=setup.val, progress=False)
    assert out.epochs == 2 and np.isfinite(out.best_val)


def test_the_older_ldloss_keywords_are_gone():
    """A surrogate's settings live on its object (``lt.IMLE(lambd=...)``); ``method=``, ``loss=``
    and the I-MLE keywords of ``LDLoss`` are refused by Python itself."""
    dec = mkp()[0]
    for old in (dict(method="imle"), dict(loss="L2"), dict(lambd=100)):
        with pytest.raises(TypeError, match="unexpected keyword argument"):
            lt.LDLoss(dec, "imle", **old)
    tuned = lt.LDLoss(dec, lt.IMLE(lambd=100, two_sides=True), "L2")
    assert tuned.method == "imle" and tuned.surrogate.lambd == 100 and tuned.target == "L2"
