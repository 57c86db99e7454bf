"""One subgradient run over a chunk of instances, for any `form` (max form).

Every instance has its own step sizes and stops on its own (its bound within ``tol`` of the best
primal value, or a zero subgradient), so the result does not depend on how instances are batched
or spread over threads and executors.

Step rules: ``"polyak"`` — ``t = α (score − target) / ||g||²`` with the best primal value as the
target (``runs`` times it for a joint run); without one yet, below the best score by 5% of the
larger of its magnitude and the block values' (a bound near 0 is no scale: the sum of terms of
both signs can vanish far from the optimum, as on minimisations with no feasible point). α starts at
the step scale and halves when the score stalls for ``max(5, iterations/20)`` iterations.
``"adam"`` — the reference code's rule, per instance.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ldopt.dual.forms import Form
from ldopt.dual.settings import Adam, DualSettings, Polyak
from ldopt.errors import InputError
from ldopt.model.primal import PrimalHeuristic


class _Polyak:
    """``t = α (score − target) / ||g||²``; ``α`` halves after ``patience`` iterations without a better
    score. The target is the best primal value (``runs`` times it for a joint run), or, while there is
    none, below the best score by 5% of the larger of its magnitude and the block values'."""

    project = False  # a Polyak step along the subgradient stays on the multipliers' domain

    def __init__(self, B: int, scale: float, patience: int) -> None:
        self.alpha = np.full(B, scale)
        self.stall = np.zeros(B, dtype=int)
        self.patience = patience

    def update(
        self,
        g: np.ndarray,
        idx: np.ndarray,
        better: np.ndarray,
        score: np.ndarray,
        best: np.ndarray,
        target_p: np.ndarray,
        gn2: np.ndarray,
        magnitude: np.ndarray,
    ) -> np.ndarray:
        """The step to subtract (``g`` scaled in place) for instances ``idx``; ``magnitude`` is the
        sum of the block values' absolute values (the scale of the bound's terms)."""
        self.stall[idx] = np.where(better, 0, self.stall[idx] + 1)
        stalled = self.stall[idx] >= self.patience
        a = np.where(stalled, self.alpha[idx] * 0.5, self.alpha[idx])
        self.stall[idx[stalled]] = 0
        self.alpha[idx] = a
        target = np.where(np.isfinite(target_p), target_p, best - 0.05 * np.maximum(np.abs(best), magnitude))
        t = a * np.maximum(score - target, 0.0) / np.maximum(gn2, 1e-18)
        g *= t.reshape((-1,) + (1,) * (g.ndim - 1))
        return g


class _Adam:
    """The reference code's rule, per instance (its moments follow each instance's iterations)."""

    project = True  # Adam's steps leave the hyperplane Σλ = q; the form projects back

    def __init__(self, shape: tuple[int, ...], lr: float) -> None:
        self.m = np.zeros(shape)
        self.v = np.zeros(shape)
        self.t = np.zeros(shape[0])
        self.lr = lr

    def update(self, g: np.ndarray, idx: np.ndarray, *_: Any) -> np.ndarray:
        """The step to subtract for instances ``idx`` (``g`` holds their subgradients)."""
        b1, b2, eps = 0.9, 0.999, 1e-8
        self.t[idx] += 1
        self.m[idx] = b1 * self.m[idx] + (1 - b1) * g
        self.v[idx] = b2 * self.v[idx] + (1 - b2) * g**2
        t = self.t[idx].reshape((-1,) + (1,) * (g.ndim - 1))
        return self.lr * (self.m[idx] / (1 - b1**t)) / (np.sqrt(self.v[idx] / (1 - b2**t)) + eps)


class _Kept:
    """Per instance, the multipliers of the best score so far, their bounds and solutions."""

    def __init__(self, B: int) -> None:
        self.best = np.full(B, np.inf)
        self.bounds = np.full((B, 1), np.inf)
        self.arrays: list[np.ndarray] = []

    def offer(
        self, form: Form, idx: np.ndarray, score: np.ndarray, bnd: np.ndarray, parts: tuple[np.ndarray, ...]
    ) -> np.ndarray:
        """Keep ``parts`` (θ, q, objectives, solutions) where ``score`` beats the best; the mask."""
        if not self.arrays:  # the first iteration sets the shapes
            self.arrays = [np.zeros((len(self.best), *a.shape[1:])) for a in form.keep(*parts)]
            self.bounds = np.full((len(self.best), bnd.shape[1]), np.inf)
        better = score < self.best[idx]
        if better.any():
            bi = idx[better]
            self.best[bi] = score[better]
            self.bounds[bi] = bnd[better]
            for store, a in zip(self.arrays, form.keep(*(p[better] for p in parts)), strict=True):
                store[bi] = a
        return better


@dataclass
class RunResult:
    """What one run keeps per instance (max form): the multipliers of its best score."""

    lam: np.ndarray
    main: np.ndarray
    main_x: np.ndarray
    bounds: np.ndarray  # (b, R)
    history: np.ndarray  # (done, b): the kept score per bound (the bound; a joint run's mean bound)
    done: int
    box_x: np.ndarray | None = None  # the sparse layout's main solutions off the supports (b, n)


def _step_rule(settings: DualSettings, shape: tuple[int, ...]) -> _Polyak | _Adam:
    """The step rule ``settings`` names, for multipliers of ``shape`` (instances first)."""
    rule = settings.rule
    if isinstance(rule, Adam):
        return _Adam(shape, rule.lr)
    if not isinstance(rule, Polyak):
        raise InputError(f"step: expected a subgradient rule (Polyak or Adam) here, got {rule!r}")
    return _Polyak(shape[0], rule.alpha, rule.patience or max(5, settings.iterations // 20))


def subgradient_run(
    form: Form,
    solvers: list[Any],
    q: np.ndarray,
    settings: DualSettings,
    deadline: float,
    heuristic: PrimalHeuristic,
    p_val: np.ndarray,
    p_x: np.ndarray,
    bar: Any = None,
    warm: np.ndarray | None = None,
) -> RunResult:
    """Optimise ``form``'s multipliers for objectives ``q`` ``(b, n)``; improves ``p_val``/``p_x``.
    ``warm``: multipliers a run kept (max form) to start from instead of ``settings.mu0``."""
    B, n = q.shape
    theta = form.start(q, settings.mu0) if warm is None else form.resume(warm, q)
    kept = _Kept(B)
    history: list[np.ndarray] = []  # grown per iteration: a large cap under a time limit allocates nothing
    rule = _step_rule(settings, theta.shape)
    active = np.ones(B, dtype=bool)
    runs = form.runs()
    buffer = form.buffer(B, n)  # the solutions, written in place by the block solvers
    done = 0
    for it in range(settings.iterations):
        idx = np.flatnonzero(active)
        if not len(idx) or time.perf_counter() > deadline:
            break
        every = len(idx) == B  # views, not copies, while no instance has stopped
        th, qq = (theta, q) if every else (theta[idx], q[idx])
        obj = form.objectives(th, qq)
        X = buffer[: len(idx)]
        values = form.evaluate(solvers, obj, X)
        bnd = form.bounds(values)
        score = form.score(bnd)
        better = kept.offer(form, idx, score, bnd, (th, qq, obj, X))
        form.offer_primal(heuristic, qq, X, p_val, p_x, idx)
        history.append(kept.best / runs)
        done = it + 1
        g = form.subgradient(X)  # a new array: the rule may scale it in place
        flat = g.reshape(len(g), -1)
        gn2 = np.einsum("bi,bi->b", flat, flat)
        target_p = runs * p_val[idx]
        gap = kept.best[idx] - target_p
        # no primal value yet (p = -inf, gap = inf): only agreement of the copies stops an instance
        finished = (gn2 <= 1e-18) | (np.isfinite(gap) & (gap <= settings.tol * np.maximum(1.0, np.abs(target_p))))
        step = rule.update(g, idx, better, score, kept.best[idx], target_p, gn2, np.abs(values).sum(1) / runs)
        if rule.project:
            theta[idx] = form.project(th - step, qq)
        elif every:
            theta -= step
        else:
            theta[idx] = th - step
        active[idx[finished]] = False
        if bar is not None:
            _advance(bar, it, kept.bounds, p_val, active)
    lam, main, main_x, *box = kept.arrays if kept.arrays else (np.zeros(0),) * 3
    return RunResult(lam, main, main_x, kept.bounds, np.array(history).reshape(done, B), done, *box)


def _advance(bar: Any, it: int, bounds: np.ndarray, p_val: np.ndarray, active: np.ndarray) -> None:
    bar.update(1)
    if it % 10 == 0:
        ok = np.isfinite(p_val)
        rel = (bounds.min(axis=1)[ok] - p_val[ok]) / np.maximum(1.0, np.abs(p_val[ok]))
        bar.set_postfix(gap=f"{rel.mean():.2e}" if ok.any() else "n/a", active=int(active.sum()), refresh=False)
