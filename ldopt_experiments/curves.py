"""The paper's budget figures (Figures 2–3): validation times doubling up to a budget, and the test
regret of the model each budget would have returned."""

from __future__ import annotations

import copy

import torch

from ldopt.evaluate.regret import Optima, evaluate

from .protocol import Setup
from .results import Row


def checkpoints(budget: float, evaluations: int) -> list[float]:
    """``evaluations`` training times doubling up to ``budget``: ``budget / 2^k``, k = n-1 … 0.

    Parameters
    ----------
    budget
        Seconds of training.
    evaluations
        Times.
    """
    return [budget / 2**k for k in range(max(1, evaluations) - 1, -1, -1)]


def budget_curve(
    setup: Setup,
    model: torch.nn.Module,
    snaps: list,
    solver: str,
    instances: int,
    test_opt: Optima,
    time_limit: float | None = None,
) -> list[Row]:
    """Test regret of the best-by-validation model at every validation time: the model a run with
    that training budget would have returned (the paper's Figure 2), and the epochs done by then
    (Figure 3). Evaluated on the first ``instances`` test instances, once per distinct best model.

    Parameters
    ----------
    setup
        The setup.
    model
        The trained model.
    snaps
        The best models' states at every validation.
    solver
        The decisions' solver.
    instances
        Test instances evaluated.
    test_opt
        The test optima.
    time_limit
        Seconds per solve, or ``None``.
    """
    if instances <= 0:
        return []
    feats = torch.as_tensor(setup.test[0][:instances], dtype=torch.float32)
    costs = setup.test[1][:instances]
    sub = test_opt.select(slice(0, instances))
    seen: dict[int, float] = {}
    out = []
    for t, epochs, ident, state in snaps:
        if ident not in seen:
            probe = copy.deepcopy(model)
            probe.load_state_dict(state)
            with torch.no_grad():
                seen[ident] = (
                    100 * evaluate(setup.problem, probe(feats), costs, solver, optima=sub, time_limit=time_limit).value
                )
        out.append(dict(time=t, epochs=epochs, test_regret=seen[ident]))
    return out
