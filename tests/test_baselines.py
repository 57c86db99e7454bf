"""CaVE's binding normals against PyEPO's Gurobi extraction; LAVA's adjacent vertices against
their definition; both losses train."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the baselines are torch losses (pip install 'ldopt[torch]')")
pytest.importorskip("pyepo", reason="CaVE runs through PyEPO (pip install 'ldopt[torch]')")

import ldopt  # noqa: E402
import ldopt_torch as lt  # noqa: E402
from ldopt.problems import knapsack  # noqa: E402
from ldopt_torch.data.structure import adjacent_steps, tight_normals  # noqa: E402


@pytest.fixture(scope="module")
def mkp():
    d = knapsack.protocol_data(30, 15, dim=3, seed=2)
    m = knapsack.build_model(d.weights, d.capacities)
    p = ldopt.Problem.from_pyomo(m, m.c)
    return p, d, p.solve(d.costs, solver="highs").x


def _rows(a):
    return sorted(map(tuple, np.round(a, 9)))


def test_tight_normals_match_pyepos_gurobi_extraction(mkp):
    p, d, x = mkp
    avail = ldopt.solvers.registry.availability(p.compiled, "gurobi")
    if not avail:
        pytest.skip(f"PyEPO's extraction needs Gurobi: {avail.reason}")
    from pyepo.data.dataset import _extract_tight_normals  # noqa: PLC0415 - needs a Gurobi licence
    from pyepo.model.grb import knapsackModel  # noqa: PLC0415

    native = knapsackModel(d.weights, d.capacities)
    for i in range(10):
        native.setObj(d.costs[i])
        sol, obj = native.solve()
        assert obj == pytest.approx(float(d.costs[i] @ x[i]))  # same optimum (ties may pick another x)
        sol = np.asarray(sol, dtype=float)
        assert _rows(tight_normals(p, sol)[0]) == _rows(_extract_tight_normals(native, sol))


def test_adjacent_steps_are_maximal_feasible_moves(mkp):
    p, _, x = mkp
    steps = adjacent_steps(p, x)
    assert (steps != 0).any()
    for i in range(len(x)):
        for j in np.flatnonzero(steps[i]):
            z = x[i].copy()
            z[j] += steps[i, j]
            # feasible for the LP relaxation, and one step further is not (or the bound is reached)
            A = p.compiled.linear_matrix().toarray()
            hi = np.array([r.hi for r in p.compiled.rows])
            assert (A @ z <= hi + 1e-9).all() and 0 <= z[j] <= 1
            further = z.copy()
            further[j] += 1e-6 * np.sign(steps[i, j])
            assert (A @ further > hi + 1e-12).any() or not 0 <= further[j] <= 1


def test_lava_refuses_interior_points():
    d = knapsack.protocol_data(2, 6, dim=2, seed=1)
    m = knapsack.build_model(d.weights, d.capacities)
    prob = ldopt.Problem.from_pyomo(m, m.c)
    with pytest.raises(ldopt.InputError, match="at a bound"):
        adjacent_steps(prob, np.full((1, 6), 0.5))


@pytest.mark.parametrize(
    "make", [lambda p: lt.CaVELoss(p, plus=True), lambda p: lt.CaVELoss(p, plus=False), lambda p: lt.LAVALoss(p)]
)
def test_solver_free_losses_train(mkp, make):
    p, d, _ = mkp
    F = (d.features - d.features.mean(0)) / d.features.std(0)
    data = lt.OptDataset(p, F[:20], d.costs[:20], solver="highs", structure=True)
    torch.manual_seed(0)
    out = lt.fit(
        torch.nn.Linear(F.shape[1], 15),
        data,
        make(p),
        epochs=30,
        val=(F[20:], d.costs[20:]),
        lr=5e-2,
        progress=False,
        schedule=lt.Schedule(eval_every=10),
        options=lt.FitOptions(solver="highs"),
    )
    assert out.best_val < out.history[0]["val_regret"]


def test_lava_relative_margin_scales_with_the_costs(mkp):
    """With margin="relative" the hinge sits at ε·mean|c|: scaling costs and predictions by k
    scales the loss by k (the same training whatever the costs' units); an absolute margin does not."""
    p, d, _ = mkp
    data = lt.OptDataset(p, d.features[:6], d.costs[:6], solver="highs", structure=True)
    batch = next(iter(data.batches(6, shuffle=False)))
    torch.manual_seed(1)
    pred = torch.as_tensor(d.costs[:6], dtype=torch.float64) + torch.randn(6, 15, dtype=torch.float64) * 3
    scaled = dict(batch, costs=batch["costs"] * 7.0)
    rel, ab = lt.LAVALoss(p), lt.LAVALoss(p, epsilon=1.0, margin="absolute")
    assert float(rel(7.0 * pred, scaled)) == pytest.approx(7.0 * float(rel(pred, batch)), rel=1e-9)
    assert float(ab(7.0 * pred, scaled)) != pytest.approx(7.0 * float(ab(pred, batch)), rel=1e-3)
    # at the margin: a relative ε of e equals an absolute ε of e·mean|c| over the batch
    eps = 0.5 * float(np.abs(d.costs[:6]).mean())
    want = lt.LAVALoss(p, epsilon=eps, margin="absolute")(pred, batch)
    assert float(lt.LAVALoss(p, epsilon=0.5)(pred, batch)) == pytest.approx(float(want), rel=1e-9)
    with pytest.raises(ldopt.InputError, match="margin"):
        lt.LAVALoss(p, margin="scaled")


def test_full_loss_imle_draws_from_the_surrogates_law(mkp):
    """``FullLoss(p, lt.IMLE(...))`` hands PyEPO the IMLE's λ and its sum-of-gamma law (κ, terms),
    also after ``fit`` re-seeds it; ``"imle"`` is ``lt.IMLE()``'s (λ 100, κ 5, 10 terms)."""
    p = mkp[0]
    default = lt.FullLoss(p, "imle").layer
    assert (default.lambd, vars(default.distribution)["κ"], default.distribution.n_iterations) == (100.0, 5.0, 10)
    tuned = lt.FullLoss(p, lt.IMLE(lambd=10, distribution=lt.SumOfGamma(kappa=3, n_iterations=4)))
    tuned.reseed(7)
    law = tuned.layer.distribution
    assert (tuned.layer.lambd, vars(law)["κ"], law.n_iterations, law.seed) == (10, 3.0, 4, 7)
    with pytest.raises(ldopt.InputError, match="sum-of-gamma noise"):
        lt.FullLoss(p, lt.IMLE(distribution=lt.Gaussian()))
