"""A model on a GPU trains through every LD loss: batches follow the model's device, the oracles
run on the CPU, gradients come back on the model's device. Skipped where no CUDA device exists."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="ldopt_torch needs torch (pip install 'ldopt[torch]')")
pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")

import ldopt  # noqa: E402
import ldopt_torch as lt  # noqa: E402
from ldopt.problems import knapsack  # noqa: E402


@pytest.mark.parametrize("method, loss", [("spo+", "L1"), ("imle", "L2"), ("imle", "L1")])
def test_a_cuda_model_trains_through_ld_losses(method, loss):
    d = knapsack.protocol_data(120, 30, dim=4, seed=1)
    model = knapsack.build_model(d.weights, d.capacities)
    dec = ldopt.decompose(ldopt.Problem.from_pyomo(model, model.c))
    F = (d.features - d.features.mean(0)) / d.features.std(0)
    data = lt.LDDataset(dec, F[:80], d.costs[:80], progress=False)
    torch.manual_seed(0)
    net = torch.nn.Linear(F.shape[1], 30).cuda()
    out = lt.fit(
        net,
        data,
        lt.LDLoss(dec, method, loss),
        mode="multiple",
        epochs=20,
        val=(F[80:], d.costs[80:]),
        lr=2e-2,
        progress=False,
        schedule=lt.Schedule(eval_every=5),
        options=lt.FitOptions(solver="highs"),
    )
    assert next(out.model.parameters()).is_cuda
    assert out.best_val < out.history[0]["val_regret"]
    with torch.no_grad():
        pred = out.model(torch.as_tensor(F[80:], dtype=torch.float32, device="cuda"))
    assert lt.relative_regret(dec.problem, pred, d.costs[80:], "highs") == pytest.approx(out.best_val, rel=1e-6)
    # the gradient of a loss lands on the model's device
    batch = next(data.view(0).batches(16))
    p = net(batch["features"].cuda())
    lt.LDLoss(dec, method, loss)(p, batch).backward()
    assert net.weight.grad.is_cuda and torch.isfinite(net.weight.grad).all()
    assert np.isfinite(out.best_val)
