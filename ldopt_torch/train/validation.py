"""Validation during training: the full problem's relative regret of a model's predictions on fixed
data, with the true optima solved once and every decision started from the previous one."""

from __future__ import annotations

from concurrent.futures import Executor
from typing import Any

import numpy as np
import torch
from torch import nn

from ldopt import Problem, checks
from ldopt.errors import InputError
from ldopt.evaluate.regret import Optima, RegretReport, decisions, report
from ldopt.evaluate.regret import optima as solve_optima
from ldopt_torch.data.batches import feature_tensor, model_inputs


class Validator:
    """Relative regret of a model on fixed validation data.

    The true optima are solved once ([`ldopt.regret.optima()`][ldopt.evaluate.regret.optima], exact
    unless ``time_limit`` or ``gap`` is given); each call solves the decisions of the model's predictions under the same
    ``time_limit`` and ``gap``. Under a time limit every instance starts from its previous decision
    (predictions change little between validations, so the solver's incumbents are better within
    the limit); exact solves start cold, so that a model's regret depends on the model alone (a
    MIP solver started elsewhere may return another of the tied or tolerance-equal optima).
    ``last`` keeps the latest [`RegretReport`][ldopt.evaluate.regret.RegretReport] (with its certified interval).

    Parameters
    ----------
    problem
        The problem.
    features
        Validation features ``(B, p)``.
    costs
        Validation costs ``(B, num_costs)``.
    solver
        The decisions' and optima's solver.
    executor
        A ``concurrent.futures.Executor`` for the solves, or ``None`` (threads).
    time_limit
        Seconds per solve, or ``None``.
    gap
        Relative MIP gap (0: exact).
    optima
        The true optima, or ``None`` (solved once here).
    """

    def __init__(
        self,
        problem: Any,
        features: Any,
        costs: Any,
        solver: str = "auto",
        executor: Executor | None = None,
        *,
        time_limit: float | None = None,
        gap: float = 0.0,
        optima: Optima | None = None,
    ) -> None:
        checks.instance("problem", problem, Problem, "an ldopt.Problem (ldopt.Problem.from_pyomo(model, cost))")
        checks.solver_name("solver", solver)
        checks.executor_or_none("executor", executor)
        if optima is not None:
            checks.instance("optima", optima, Optima, "an ldopt.evaluate.regret.Optima of these costs or None")
        c, _ = problem.check_costs(costs, "val costs")
        if len(c) == 0:
            raise InputError("val: expected at least one validation instance, got none")
        self.problem, self.costs, self.features = problem, c, feature_tensor(features, len(c), "val features")
        self.solver, self.executor, self.time_limit, self.gap = solver, executor, time_limit, gap
        self.optima = optima or solve_optima(problem, c, solver, time_limit=time_limit, gap=gap, executor=executor)
        self.last: RegretReport | None = None
        self._start: np.ndarray | None = None

    @torch.no_grad()
    def __call__(self, model: nn.Module) -> float:
        was = model.training
        model.eval()
        pred = model(model_inputs(model, self.features)).double().cpu()
        model.train(was)
        if not torch.isfinite(pred).all():
            return float("inf")
        x = decisions(
            self.problem,
            pred.numpy(),
            self.solver,
            time_limit=self.time_limit,
            gap=self.gap,
            start=self._start,
            executor=self.executor,
        )
        if self.time_limit is not None:
            self._start = x
        achieved = self.problem.objective(x, self.costs)
        self.optima = self.optima.improve(x, achieved)  # every decision is a feasible solution too
        self.last = report(self.optima, achieved)
        return self.last.value
