"""One trainer for every loss: :func:`fit`.

Static mode trains on one decomposition's main block; multiple mode draws a decomposition per
epoch from the dataset's. The baselines (MSE, full-problem SPO+/I-MLE) run through the same loop.
Validation is the full problem's relative regret (:func:`ldopt.regret.relative_regret`, true
optima solved once); the best model by validation regret is kept.

Times: ``time`` counts training only (forward, losses, backward, steps); ``wall`` adds validation.
``time_budget`` bounds ``time``; ``time_to_best`` is ``time`` at the end of the best epoch.
"""

from __future__ import annotations

import copy
import csv
import json
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from ldopt.errors import InputError, LdoptError
from ldopt.progress import progress_bar
from ldopt.regret import optimal_objectives, regrets

from .dataset import LDDataset
from .losses import LDLoss

MODES = ("static", "multiple")


class TrainingError(LdoptError, RuntimeError):
    """Training cannot go on (NaN predictions, a loss that does not fit the data)."""


@dataclass
class FitResult:
    """The trained (best) model, the per-epoch history and the time to the best model."""

    model: nn.Module
    history: list[dict[str, Any]] = field(default_factory=list)
    best_epoch: int = 0
    best_val: float = float("nan")
    time_to_best: float = 0.0
    wall_to_best: float = 0.0

    @property
    def epochs(self) -> int:
        return max((h["epoch"] for h in self.history), default=0)

    def save_history(self, path: str | Path, max_rows: int | None = None) -> Path:
        """The history as CSV (``.csv``) or JSON (any other suffix). ``max_rows`` thins a long one:
        every validated epoch is kept, plus evenly spaced others up to about ``max_rows`` rows."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = self.history
        if max_rows is not None and len(rows) > max_rows:
            stride = -(-len(rows) // max_rows)
            rows = [h for i, h in enumerate(rows)
                    if i % stride == 0 or i == len(rows) - 1 or np.isfinite(h["val_regret"])]
        if path.suffix == ".csv":
            with path.open("w", newline="") as fh:
                w = csv.DictWriter(fh, fieldnames=list(rows[0]))
                w.writeheader()
                w.writerows(rows)
        else:
            path.write_text(json.dumps(rows, indent=1))
        return path


class Validator:
    """Relative regret of a model on fixed validation data (true optima solved once)."""

    def __init__(self, problem: Any, features: Any, costs: Any, solver: str = "auto",
                 executor: Executor | None = None) -> None:
        c, _ = problem.check_costs(costs, "val costs")
        f = features.detach().cpu() if isinstance(features, torch.Tensor) else torch.as_tensor(np.asarray(features))
        if f.ndim != 2 or f.shape[0] != len(c):
            raise InputError(f"val features: expected shape ({len(c)}, num_features), got {tuple(f.shape)}")
        self.problem, self.costs, self.features = problem, c, f.to(torch.float32)
        self.solver, self.executor = solver, executor
        self.optimum = optimal_objectives(problem, c, solver, executor)
        self.denom = float(np.abs(self.optimum).sum())

    @torch.no_grad()
    def __call__(self, model: nn.Module) -> float:
        was = model.training
        model.eval()
        pred = model(self.features).double()
        model.train(was)
        if not torch.isfinite(pred).all():
            return float("inf")
        r, _ = regrets(self.problem, pred.numpy(), self.costs, self.solver, optimum=self.optimum,
                       executor=self.executor)
        return float(r.sum() / self.denom)


def _decompositions(data: Any, loss: nn.Module, mode: str, main: int | None) -> list[int | None]:
    if mode not in MODES:
        raise InputError(f"mode: expected one of {MODES}, got {mode!r}")
    if not isinstance(loss, LDLoss):
        if mode == "multiple":
            raise InputError(f"mode='multiple' needs an LDLoss, got {type(loss).__name__}")
        return [None]
    if not isinstance(data, LDDataset):
        raise InputError(f"LDLoss trains on an lt.LDDataset, got {type(data).__name__}")
    if loss.dec is not data.dec and loss.dec.num_blocks != data.dec.num_blocks:
        raise InputError(f"loss and data: expected the same decomposition, got {loss.dec!r} and {data.dec!r}")
    fit = [d for d in data.decompositions if loss.fits(d)]
    if not fit:
        raise InputError(f"method {loss.method!r} fits none of the dataset's decompositions {data.decompositions}")
    if mode == "static":
        if main is None:
            return [fit[0]]
        if main not in data.decompositions:
            raise InputError(f"main: expected one of the dataset's decompositions {data.decompositions}, got {main!r}")
        loss._check_fit(int(main))
        return [int(main)]
    return fit


def fit(
    model: nn.Module,
    data: Any,
    loss: nn.Module,
    mode: str = "static",
    main: int | None = None,
    epochs: int = 10,
    time_budget: float | None = None,
    val: tuple[Any, Any] | Validator | None = None,
    eval_every: int = 1,
    optimizer: torch.optim.Optimizer | None = None,
    *,
    eval_interval: float | None = None,
    eval_times: Sequence[float] | None = None,
    on_validate: Callable[[dict[str, Any], dict[str, Any]], None] | None = None,
    lr: float = 1e-3,
    batch_size: int = 32,
    solver: str = "auto",
    seed: int = 0,
    executor: Executor | None = None,
    progress: bool = True,
) -> FitResult:
    """Train ``model`` (features → costs) on ``data`` with ``loss``; see the module docstring.

    ``val``: ``(features, costs)`` or a :class:`Validator`; evaluated before training (epoch 0),
    every ``eval_every`` epochs — or, with ``eval_interval``, after every ``eval_interval`` seconds
    of training, or with ``eval_times``, once the training time passes each of those times — and
    after the last. ``optimizer`` defaults to Adam(``lr``). ``on_validate(row, best_state)`` is
    called after every validation with the history row and the best model's state so far.
    """
    if int(epochs) != epochs or epochs < 1:
        raise InputError(f"epochs: expected a positive integer, got {epochs!r}")
    if eval_interval is not None and not eval_interval > 0:
        raise InputError(f"eval_interval: expected seconds > 0 or None, got {eval_interval!r}")
    if time_budget is not None and not time_budget > 0:
        raise InputError(f"time_budget: expected seconds > 0 or None, got {time_budget!r}")
    ds = _decompositions(data, loss, mode, main)
    rng = np.random.default_rng(seed)
    gen = torch.Generator().manual_seed(seed)
    opt = optimizer or torch.optim.Adam(model.parameters(), lr=lr)
    problem = getattr(data, "problem", None)
    validator = val if isinstance(val, Validator) or val is None else Validator(problem, *val, solver=solver,
                                                                                executor=executor)
    t_wall0 = time.perf_counter()
    train_time = 0.0
    history: list[dict[str, Any]] = []
    best_val, best_epoch, best_state = float("inf"), 0, copy.deepcopy(model.state_dict())
    time_to_best = wall_to_best = 0.0

    def record(epoch: int, d: int | None, train_loss: float, evaluate: bool) -> None:
        nonlocal best_val, best_epoch, best_state, time_to_best, wall_to_best
        v = validator(model) if (validator is not None and evaluate) else float("nan")
        wall = time.perf_counter() - t_wall0
        history.append(dict(epoch=epoch, d=-1 if d is None else d, train_loss=train_loss, val_regret=v,
                            time=train_time, wall=wall, epochs_per_s=epoch / train_time if train_time else 0.0))
        if np.isfinite(v) and v < best_val:
            best_val, best_epoch = v, epoch
            best_state = copy.deepcopy(model.state_dict())
            time_to_best, wall_to_best = train_time, wall
        if on_validate is not None and evaluate and validator is not None:
            on_validate(history[-1], best_state)

    record(0, None, float("nan"), True)
    next_eval = eval_interval or 0.0
    pending = sorted(float(t) for t in eval_times) if eval_times is not None else []
    bar = progress_bar(range(1, int(epochs) + 1), enable=progress, desc=f"fit[{type(loss).__name__}]")
    for epoch in bar:
        d = ds[0] if len(ds) == 1 else int(rng.choice(ds))
        view = data.view(d) if d is not None else data
        t0 = time.perf_counter()
        total, count = 0.0, 0
        model.train()
        for batch in view.batches(batch_size, shuffle=True, generator=gen):
            pred = model(batch["features"])
            bad = ~torch.isfinite(pred.detach()).all(dim=-1)
            if bool(bad.any()):
                inst = int(batch["index"][torch.nonzero(bad)[0, 0]])
                raise TrainingError(f"epoch {epoch}: the model predicted NaN/inf costs for instance {inst}; "
                                    "lower the learning rate or standardise the features")
            value = loss(pred, batch)
            opt.zero_grad()
            value.backward()
            opt.step()
            total += float(value.detach()) * len(pred)
            count += len(pred)
        train_time += time.perf_counter() - t0
        out_of_time = time_budget is not None and train_time >= time_budget
        last = epoch == epochs or out_of_time
        if eval_times is not None:
            due = bool(pending) and train_time >= pending[0]
            while pending and train_time >= pending[0]:
                pending.pop(0)
        elif eval_interval is not None:
            due = train_time >= next_eval
            if due:
                next_eval = train_time + eval_interval
        else:
            due = epoch % max(1, int(eval_every)) == 0
        record(epoch, d, total / max(count, 1), last or due)
        if hasattr(bar, "set_postfix"):
            bar.set_postfix(loss=f"{total / max(count, 1):.4g}", best_val=f"{best_val:.4%}" if np.isfinite(best_val) else "-")
        if out_of_time:
            break
    if validator is None:
        best_epoch, time_to_best, wall_to_best = history[-1]["epoch"], train_time, history[-1]["wall"]
    else:
        model.load_state_dict(best_state)
    return FitResult(model, history, best_epoch, best_val, time_to_best, wall_to_best)
