"""A relative regret with its certified interval, from the optima and the decisions' objectives."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ldopt.errors import InputError
from ldopt.evaluate.optima import Optima


@dataclass(frozen=True)
class RegretReport:
    """Relative regret of decisions, with a certified interval when optima are not all proven.

    ``value`` uses the best known optima; ``lower`` and ``upper`` hold whatever the true optima
    are within their bounds. ``str()`` reads ``2.310%`` when every optimum is proven, else
    ``2.310% (≤ 2.360%)``.

    Parameters
    ----------
    value
        The relative regret against the best known optima (a fraction).
    lower
        Its certified lower end.
    upper
        Its certified upper end.
    regrets
        Per-instance regrets.
    proven
        Instances whose optimum is proven.
    instances
        Instances.
    """

    value: float
    lower: float
    upper: float
    regrets: np.ndarray  # (B,) per instance, against the best known optima
    proven: int  # instances whose optimum is proven
    instances: int

    @property
    def width(self) -> float:
        """``upper − lower``: how much the unproven optima could move the figure."""
        return self.upper - self.lower

    def __float__(self) -> float:
        return self.value

    def __str__(self) -> str:
        if self.proven == self.instances:
            return f"{100 * self.value:.3f}%"
        return f"{100 * self.value:.3f}% (≤ {100 * self.upper:.3f}%)"


def report(opt: Optima, achieved: np.ndarray) -> RegretReport:
    """The relative regret of decisions whose true objectives are ``achieved`` ``(B,)``, against
    ``opt`` (a decision better than the best known value counts as the optimum's new value).

    Parameters
    ----------
    opt
        The optima (best known values and certified bounds).
    achieved
        The decisions' true objectives ``(B,)``.
    """
    if len(achieved) == 0:
        raise InputError("relative regret: expected at least one instance, got an empty batch")
    achieved = np.asarray(achieved, dtype=float)
    if achieved.shape != opt.value.shape:
        raise InputError(
            f"relative regret: expected {len(opt.value)} objectives (one per optimum), got {achieved.shape}"
        )
    # an infinite bound only leaves the upper end open; NaN (no answer) makes every figure NaN
    for what, bad_mask in (
        ("the decisions' objectives", ~np.isfinite(achieved)),
        ("the optima's bounds", np.isnan(opt.bound)),
    ):
        bad = np.flatnonzero(bad_mask)
        if len(bad):
            raise InputError(
                f"relative regret: {what} are not finite for instances {bad[:10].tolist()}"
                f"{' …' if len(bad) > 10 else ''} ({len(bad)} of {len(achieved)}); expected a feasible, bounded "
                "instance each (an infeasible or unbounded one has no regret: drop it)"
            )
    s = opt.sign
    # a decision may beat the incumbent (or be the only feasible point known: no incumbent, NaN)
    best = np.where(np.isnan(opt.value) | (s * (achieved - opt.value) > 0), achieved, opt.value)
    regrets = s * (best - achieved)
    worst = s * (opt.bound - achieved)  # the regret if the optimum sits at its bound
    lo_abs = np.where(best * opt.bound > 0, np.minimum(np.abs(best), np.abs(opt.bound)), 0.0)
    hi_abs = np.maximum(np.abs(best), np.abs(opt.bound))
    denom = float(np.abs(best).sum())
    if denom == 0:
        raise InputError("relative regret: every optimal objective is 0, so the ratio is undefined")
    lo_den, hi_den = float(lo_abs.sum()), float(hi_abs.sum())
    upper = float(worst.sum() / lo_den) if lo_den > 0 else np.inf
    lower = float(regrets.sum() / hi_den) if np.isfinite(hi_den) else 0.0
    ends = np.concatenate([best, opt.bound])
    if np.isfinite(ends).all() and ((ends > 0).all() or (ends < 0).all()):
        # every optimum has one sign: the regret is s(S − F)/|S| with S the optima's sum, monotone
        # in S, so its range over the optima's intervals is at S's two ends (exact, and tighter)
        total = float(achieved.sum())
        at = sorted(s * (S - total) / abs(S) for S in (float(best.sum()), float(opt.bound.sum())))
        lower, upper = max(lower, at[0]), min(upper, at[1])
    return RegretReport(float(regrets.sum() / denom), lower, upper, regrets, int(opt.proven.sum()), len(best))
