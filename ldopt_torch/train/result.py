"""What training returns: the best model, the per-epoch history and the time to the best model."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from torch import nn


@dataclass
class FitResult:
    """The trained (best) model, the per-epoch history and the time to the best model.

    ``stopped`` says why training ended: ``"epochs"``, ``"time_budget"``, ``"patience"``,
    ``"interrupted"`` (Ctrl-C) or ``"terminated"`` (SIGTERM, e.g. a batch system's time limit).
    With dynamic multipliers, ``history`` has their seconds so far
    (``dual_time``, part of ``time``) and ``dual_bounds`` each update's bounds for the true costs
    (``(B, R)``: one per decomposition, as ``DualResult.run_bounds``).

    Parameters
    ----------
    model
        The trained model (the best by validation regret, loaded).
    history
        One row per epoch: epoch, decomposition, training loss, validation regret (NaN where not validated), times.
    best_epoch
        The best model's epoch.
    best_val
        Its validation regret (a fraction).
    time_to_best
        Seconds of training to the end of the best epoch.
    wall_to_best
        The same, validation included.
    stopped
        Why training ended: ``"epochs"``, ``"patience"``, ``"time_budget"``, ``"interrupted"`` or ``"terminated"``.
    dual_bounds
        With following multipliers: each update's bounds for the true costs.
    start
        The warm start's own result (``fit(warm_start="mse")``: the MSE phase, whose best model
        this training started from; its times are not in this result's), or ``None``.
    constant_start
        Whether the loss started from the constant predictor (the training costs' mean), which
        validated better than the MSE fit (the warm start's ``best_val`` is then its regret).
    val_regrets
        The best model's validation regret per instance ``(V,)`` (absolute: the optimum's objective
        minus the decision's, in the problem's sense), or ``None`` without validation.
    """

    model: nn.Module
    history: list[dict[str, Any]] = field(default_factory=list)
    best_epoch: int = 0
    best_val: float = float("nan")
    time_to_best: float = 0.0
    wall_to_best: float = 0.0
    stopped: str = "epochs"
    dual_bounds: list[np.ndarray] = field(default_factory=list)
    start: FitResult | None = None
    constant_start: bool = False
    val_regrets: np.ndarray | None = None

    @property
    def improved(self) -> bool | None:
        """Whether training beat its warm start on validation: where it did not, the model returned
        is the start's. ``None`` where nothing was compared (no warm start, or no validation)."""
        if self.start is None or not np.isfinite(self.best_val):
            return None
        return self.best_epoch > 0

    @property
    def improvement_t(self) -> float:
        """The returned model's validation improvement over its warm start in standard errors of the
        per-instance differences (a paired t statistic): below about 2 the improvement is within the
        validation set's noise, and more validation instances would tell whether it is real. 0 where
        training did not beat its start; NaN without a warm start, without per-instance regrets, or
        with fewer than two validation instances."""
        if self.start is None or self.start.val_regrets is None or self.val_regrets is None:
            return float("nan")
        if not self.improved:
            return 0.0
        before, after = np.asarray(self.start.val_regrets, dtype=float), np.asarray(self.val_regrets, dtype=float)
        if len(before) < 2 or before.shape != after.shape:
            return float("nan")
        d = before - after
        se = float(d.std(ddof=1)) / np.sqrt(len(d))
        mean = float(d.mean())
        return mean / se if se > 0 else (np.inf if mean > 0 else 0.0)

    @property
    def train_time(self) -> float:
        """Seconds of training in all (validation excluded)."""
        return float(self.history[-1]["time"]) if self.history else 0.0

    @property
    def epochs(self) -> int:
        """The epochs trained."""
        return max((h["epoch"] for h in self.history), default=0)

    def save_history(self, path: str | Path, max_rows: int | None = None) -> Path:
        """The history as CSV (``.csv``) or JSON (any other suffix). ``max_rows`` thins a long one:
        every validated epoch is kept, plus evenly spaced others up to about ``max_rows`` rows.

        Parameters
        ----------
        path
            The file (``.csv``, or JSON for any other suffix).
        max_rows
            Thin a longer history to about this many rows (every validated epoch kept), or ``None``.
        """
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = self.history
        if max_rows is not None and len(rows) > max_rows:
            stride = -(-len(rows) // max_rows)
            rows = [
                h for i, h in enumerate(rows) if i % stride == 0 or i == len(rows) - 1 or np.isfinite(h["val_regret"])
            ]
        if path.suffix == ".csv":
            with path.open("w", newline="") as fh:
                w = csv.DictWriter(fh, fieldnames=list(rows[0]))
                w.writeheader()
                w.writerows(rows)
        else:
            path.write_text(json.dumps(rows, indent=1))
        return path
