"""The training loop's state: when to validate, when to stop, the history and the best model."""

from __future__ import annotations

import copy
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from ldopt.errors import LdoptError
from ldopt.runtime.interrupts import Terminated, sigterm_as_interrupt
from ldopt_torch.data.batches import model_inputs
from ldopt_torch.data.dynamic import Follower
from ldopt_torch.train.result import FitResult
from ldopt_torch.train.settings import Schedule
from ldopt_torch.train.validation import Validator


class TrainingError(LdoptError, RuntimeError):
    """Training cannot go on (NaN predictions, a loss that does not fit the data)."""


class Due:
    """When to validate under a [`Schedule`][ldopt_torch.Schedule]: every ``eval_every`` epochs,
    every ``eval_interval`` seconds of training, or once the training time passes each of
    ``eval_times``; the loop adds the last epoch."""

    def __init__(self, schedule: Schedule) -> None:
        self.every, self.interval = schedule.eval_every, schedule.eval_interval
        self.pending = None if schedule.eval_times is None else sorted(schedule.eval_times)
        self.next = schedule.eval_interval or 0.0

    def __call__(self, epoch: int, train_time: float) -> bool:
        if self.pending is not None:
            due = bool(self.pending) and train_time >= self.pending[0]
            while self.pending and train_time >= self.pending[0]:
                self.pending.pop(0)
            return due
        if self.interval is not None:
            if train_time >= self.next:
                self.next = train_time + self.interval
                return True
            return False
        return epoch % self.every == 0


@dataclass(frozen=True)
class Budget:
    """When training ends: after ``epochs`` epochs or ``seconds`` of training; ``due`` says
    when to validate."""

    epochs: int
    seconds: float | None
    due: Due

    def less(self, spent: float) -> Budget:
        """The same budget with ``spent`` seconds of training used already (by a warm start)."""
        if self.seconds is None:
            return self
        return Budget(self.epochs, max(self.seconds - spent, 1e-9), self.due)


class Loop:
    """The training loop's state: history, best model, budgets (see [`fit()`][ldopt_torch.fit])."""

    def __init__(
        self,
        model: nn.Module,
        validator: Validator | None,
        on_validate: Callable | None,
        patience: int | None,
        start: FitResult | None = None,
    ) -> None:
        self.model, self.validator, self.on_validate, self.patience = model, validator, on_validate, patience
        # a warm start: the model comes trained (patience counts from epoch 0), and its validation
        # regret is known (the start's best model is this one, so epoch 0 is not validated again)
        self.trained = start is not None
        self.start_regret = start.best_val if start is not None and np.isfinite(start.best_val) else None
        self.start_regrets = start.val_regrets if start is not None else None
        self.best_regrets: np.ndarray | None = None
        self.t0 = time.perf_counter()
        self.train_time = 0.0
        self.history: list[dict[str, Any]] = []
        self.best_val, self.best_epoch = float("inf"), 0
        self.best_state = copy.deepcopy(model.state_dict())
        self.time_to_best = self.wall_to_best = 0.0
        self.since_best = 0
        self.follower: Follower | None = None

    def record(self, epoch: int, d: int | None, train_loss: float, evaluate_now: bool) -> None:
        regrets: np.ndarray | None = None
        if self.validator is None or not evaluate_now:
            v = float("nan")
        elif epoch == 0 and self.start_regret is not None:
            v, regrets = self.start_regret, self.start_regrets
        else:
            v = self.validator(self.model)
            regrets = self.validator.last.regrets.copy() if self.validator.last is not None else None
        wall = time.perf_counter() - self.t0
        self.history.append(
            dict(
                epoch=epoch,
                d=-1 if d is None else d,
                train_loss=train_loss,
                val_regret=v,
                time=self.train_time,
                wall=wall,
                epochs_per_s=epoch / self.train_time if self.train_time else 0.0,
                dual_time=self.follower.seconds if self.follower is not None else 0.0,
            )
        )
        if np.isfinite(v) and v < self.best_val:
            self.best_val, self.best_epoch, self.best_regrets = v, epoch, regrets
            self.best_state = copy.deepcopy(self.model.state_dict())
            self.time_to_best, self.wall_to_best = self.train_time, wall
            self.since_best = 0
        elif evaluate_now and self.validator is not None and (self.best_epoch > 0 or self.trained):
            # patience counts from the first model better than the untrained one: a model whose
            # decisions have not moved yet (a regret plateau at the start) is not stopped; a
            # warm-started model is trained already
            self.since_best += 1
        if self.on_validate is not None and evaluate_now and self.validator is not None:
            self.on_validate(self.history[-1], self.best_state)

    @property
    def out_of_patience(self) -> bool:
        return self.patience is not None and self.since_best >= self.patience

    def run(
        self,
        data: Any,
        loss: nn.Module,
        opt: torch.optim.Optimizer,
        ds: list[int | None],
        budget: Budget,
        batch_size: int,
        seed: int,
        bar: Any,
    ) -> FitResult:
        """Train until a budget ends (or Ctrl-C); the best model and the history."""
        rng = np.random.default_rng(seed)  # the decomposition of each epoch
        gen = torch.Generator().manual_seed(seed)  # the batches' order
        stopped = "epochs"
        policy = getattr(data, "dynamic", None)
        self.follower = Follower(data, policy) if policy is not None else None
        with sigterm_as_interrupt():
            try:
                self.record(0, None, float("nan"), True)
                for epoch in range(1, budget.epochs + 1):
                    d = ds[0] if len(ds) == 1 else ds[int(rng.integers(len(ds)))]
                    t0 = time.perf_counter()
                    if self.follower is not None and self.follower.policy.due(epoch):  # counts as training
                        data = self.follower.update(self.model)
                    train_loss = train_epoch(
                        self.model, data.view(d) if d is not None else data, loss, opt, batch_size, gen, epoch
                    )
                    spent = time.perf_counter() - t0
                    self.train_time += spent
                    out_of_time = budget.seconds is not None and self.train_time >= budget.seconds
                    self.record(
                        epoch,
                        d,
                        train_loss,
                        epoch == budget.epochs or out_of_time or budget.due(epoch, self.train_time),
                    )
                    if bar is not None:
                        bar.update(min(spent, bar.total - bar.n) if budget.seconds is not None else 1)
                        best = f"{self.best_val:.4%}" if np.isfinite(self.best_val) else "-"
                        bar.set_postfix(loss=f"{train_loss:.4g}", best_val=best, refresh=False)
                    if out_of_time or self.out_of_patience:  # both stop right after a validation
                        stopped = "time_budget" if out_of_time else "patience"
                        break
            except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (a batch system's)
                stopped = "terminated" if isinstance(exc, Terminated) else "interrupted"
                warnings.warn(f"fit: {stopped}; returning the best model so far and the history", stacklevel=3)
            finally:
                if bar is not None:
                    bar.close()
        return self.result(stopped)

    def result(self, stopped: str) -> FitResult:
        if self.validator is None or not np.isfinite(self.best_val):
            if self.validator is not None:
                warnings.warn("fit: no validation gave a finite regret; returning the last model", stacklevel=3)
            last = self.history[-1]
            self.best_epoch, self.time_to_best, self.wall_to_best = last["epoch"], self.train_time, last["wall"]
        else:
            self.model.load_state_dict(self.best_state)
        best_val = self.best_val if np.isfinite(self.best_val) else float("nan")
        return FitResult(
            self.model,
            self.history,
            self.best_epoch,
            best_val,
            self.time_to_best,
            self.wall_to_best,
            stopped,
            self.follower.bounds if self.follower is not None else [],
            val_regrets=self.best_regrets if np.isfinite(self.best_val) else None,
        )


def train_epoch(
    model: nn.Module,
    view: Any,
    loss: nn.Module,
    opt: torch.optim.Optimizer,
    batch_size: int,
    gen: torch.Generator,
    epoch: int,
) -> float:
    total, count = 0.0, 0
    model.train()
    for batch in view.batches(batch_size, shuffle=True, generator=gen):
        pred = model(model_inputs(model, batch["features"]))
        bad = ~torch.isfinite(pred.detach()).all(dim=-1)
        if bool(bad.any()):
            inst = int(batch["index"][torch.nonzero(bad)[0, 0].cpu()])
            raise TrainingError(
                f"epoch {epoch}: the model predicted NaN/inf costs for instance {inst}; "
                "lower the learning rate or standardise the features"
            )
        value = loss(pred, batch)
        opt.zero_grad()
        value.backward()
        opt.step()
        total += float(value.detach()) * len(pred)
        count += len(pred)
    return total / max(count, 1)
