"""Subgradient optimisation of the Lagrangian multipliers, batched over instances.

Shared mode (default) minimises the symmetric dual ``B(λ) = Σ_k max_{x∈X_k} λ_k·x`` over
``Σ_k λ_k = q(c)``: its subgradient is ``x_k − mean_j x_j``, and one solve gives the multipliers
of every decomposition. ``independent=True`` runs the paper's ``m`` separate solves, one per main
block ``d``, in the μ-form (``λ_d = q + Σ_{k≠d} μ_k``, ``λ_k = −μ_k``, subgradient ``x_d − x_k``).

Step rules: ``"polyak"`` — ``t = α (B − target) / ||g||²`` with the best primal value found as
target (α starts at 2 and halves when the bound stalls for ``max(5, iterations/20)`` steps);
``"adam"`` — the reference code's rule (lr 0.01, and
μ₀ = 1 in the μ-form). Every instance has its own steps, so the result does not depend on how
instances are batched or spread over an executor.

Internally everything is a maximisation (a minimisation's ``q`` is negated); results are in the
user's sense.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from . import cache, parallel
from .errors import DecompositionError, InputError
from .progress import enabled, progress_bar
from .primal import PrimalHeuristic

if TYPE_CHECKING:
    from .decomposition import BlockSolver, Decomposition

STEPS = ("polyak", "adam")


@dataclass
class DualResult:
    """Multipliers, bounds and main solutions for a batch of instances (user's sense)."""

    sense: str
    lam: np.ndarray  # (B, D, m, n): λ per run (D = 1 shared, D = m independent)
    x: np.ndarray  # (B, D, m, n): subproblem solutions at each run's best λ
    run_bounds: np.ndarray  # (B, D)
    history: np.ndarray  # (iterations, B): best bound so far, per iteration
    primal_objective: np.ndarray  # (B,) best feasible objective found (NaN if none)
    primal_x: np.ndarray  # (B, n)
    iterations: int
    seconds: float
    independent: bool
    step: str
    solvers: list[str] = field(default_factory=list)
    chunks_computed: int = 1
    chunks_loaded: int = 0

    @property
    def num_instances(self) -> int:
        return self.lam.shape[0]

    @property
    def num_blocks(self) -> int:
        return self.lam.shape[2]

    def _run(self, d: int) -> int:
        if not isinstance(d, (int, np.integer)) or not 0 <= d < self.num_blocks:
            raise InputError(f"d: expected a decomposition index in [0, {self.num_blocks}), got {d!r}")
        return int(d) if self.independent else 0

    @property
    def bound(self) -> np.ndarray:
        """The best valid bound per instance: ``(B,)``, upper for max, lower for min."""
        return self.run_bounds.min(axis=1) if self.sense == "max" else self.run_bounds.max(axis=1)

    def bound_of(self, d: int) -> np.ndarray:
        """The bound of decomposition ``d``'s multipliers: ``(B,)``."""
        return self.run_bounds[:, self._run(d)]

    @property
    def lambdas(self) -> np.ndarray:
        """Symmetric multipliers ``(B, m, n)`` of the shared solve (they sum to ``q(c)``)."""
        if self.independent:
            raise InputError("lambdas: independent runs have one λ per decomposition; use lambdas_of(d)")
        return self.lam[:, 0]

    def lambdas_of(self, d: int) -> np.ndarray:
        return self.lam[:, self._run(d)]

    def multipliers(self, d: int) -> np.ndarray:
        """μ^(d): ``(B, m-1, n)``, the blocks other than ``d`` in ascending order."""
        lam = self.lam[:, self._run(d)]
        keep = [k for k in range(self.num_blocks) if k != d]
        return -lam[:, keep]

    def main_objective(self, d: int) -> np.ndarray:
        """``q(c) + Σ_{k≠d} μ_k^(d)`` — the main subproblem's objective: ``(B, n)``."""
        return self.lam[:, self._run(d), int(d)]

    def main_solution(self, d: int) -> np.ndarray:
        """``x_d*(μ^(d), c)``: ``(B, n)``."""
        return self.x[:, self._run(d), int(d)]

    _ARRAYS = ("lam", "x", "run_bounds", "history", "primal_objective", "primal_x")

    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The result as arrays and a JSON-able header (see :mod:`ldopt.cache`)."""
        arrays = {k: getattr(self, k) for k in self._ARRAYS}
        header = dict(sense=self.sense, iterations=self.iterations, seconds=self.seconds,
                      independent=self.independent, step=self.step, solvers=list(self.solvers))
        return arrays, header

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], header: dict[str, Any]) -> DualResult:
        return cls(**{k: arrays[k] for k in cls._ARRAYS}, sense=header["sense"],
                   iterations=int(header["iterations"]), seconds=float(header["seconds"]),
                   independent=bool(header["independent"]), step=header["step"],
                   solvers=list(header["solvers"]))

    @property
    def gap(self) -> np.ndarray:
        """``|bound − primal| / max(1, |primal|)`` per instance (NaN without a primal value)."""
        return np.abs(self.bound - self.primal_objective) / np.maximum(1.0, np.abs(self.primal_objective))


def _settle_step(step: str, lr: float | None) -> float:
    if step not in STEPS:
        raise InputError(f"step: expected one of {STEPS}, got {step!r}")
    if lr is None:
        return 0.01 if step == "adam" else 2.0
    if not lr > 0:
        raise InputError(f"lr: expected a positive step scale, got {lr}")
    return float(lr)


class _Adam:
    def __init__(self, shape: tuple[int, ...], lr: float) -> None:
        self.m = np.zeros(shape)
        self.v = np.zeros(shape)
        self.t = np.zeros(shape[0])
        self.lr = lr

    def step(self, g: np.ndarray, active: np.ndarray) -> np.ndarray:
        """The update to subtract, for the active instances (others get zero)."""
        b1, b2, eps = 0.9, 0.999, 1e-8
        self.t[active] += 1
        self.m[active] = b1 * self.m[active] + (1 - b1) * g[active]
        self.v[active] = b2 * self.v[active] + (1 - b2) * g[active] ** 2
        t = self.t[active].reshape((-1,) + (1,) * (g.ndim - 1))
        mh = self.m[active] / (1 - b1**t)
        vh = self.v[active] / (1 - b2**t)
        out = np.zeros_like(g)
        out[active] = self.lr * mh / (np.sqrt(vh) + eps)
        return out


def _run(
    solvers: list[BlockSolver],
    q: np.ndarray,
    main: int | None,
    iterations: int,
    step: str,
    lr: float,
    mu0: float,
    tol: float,
    deadline: float,
    heuristic: PrimalHeuristic,
    primal: tuple[np.ndarray, np.ndarray],
    bar: Any,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """One subgradient run (max form) over all instances: shared (``main=None``) or μ-form."""
    B, n = q.shape
    m = len(solvers)
    if main is None:
        theta = np.repeat(q[:, None, :] / m, m, axis=1)  # λ itself
    else:
        theta = np.full((B, m - 1, n), float(mu0))  # μ_k, k ≠ main

    others = [k for k in range(m) if k != main] if main is not None else []

    def to_lam(th: np.ndarray, qq: np.ndarray) -> np.ndarray:
        if main is None:
            return th
        lam = np.empty((th.shape[0], m, n))
        lam[:, others] = -th
        lam[:, main] = qq + th.sum(axis=1)
        return lam

    best = np.full(B, np.inf)
    best_lam = to_lam(theta, q).copy()
    best_x = np.zeros((B, m, n))
    history = np.empty((iterations, B))
    p_val, p_x = primal
    alpha = np.full(B, lr)
    patience = max(5, iterations // 20)  # Polyak: halve α after this many steps without progress
    stall = np.zeros(B, dtype=int)
    adam = _Adam(theta.shape, lr) if step == "adam" else None
    active = np.ones(B, dtype=bool)
    done = 0
    for it in range(iterations):
        idx = np.flatnonzero(active)
        if not len(idx) or time.perf_counter() > deadline:
            break
        lam = to_lam(theta[idx], q[idx])
        X = np.stack([s.argmax(lam[:, k]) for k, s in enumerate(solvers)], axis=1)  # (b, m, n)
        val = np.einsum("bkn,bkn->b", lam, X)
        better = val < best[idx]
        bi = idx[better]
        best[bi] = val[better]
        best_lam[bi] = lam[better]
        best_x[bi] = X[better]
        stall[idx] = np.where(better, 0, stall[idx] + 1)
        heuristic.update(q[idx], X, p_val, p_x, idx)
        history[it] = best
        done = it + 1
        # subgradient in θ-space
        if main is None:
            g = X - X.mean(axis=1, keepdims=True)
        else:
            g = X[:, main][:, None, :] - X[:, others]
        gn2 = np.einsum("bkn,bkn->b", g, g)
        gap = best[idx] - p_val[idx]
        # no primal value yet (p = -inf, gap = inf): only agreement of the copies stops an instance
        close = np.isfinite(gap) & (gap <= tol * np.maximum(1.0, np.abs(p_val[idx])))
        finished = (gn2 <= 1e-18) | close
        if step == "polyak":
            a = alpha[idx]
            stalled = stall[idx] >= patience
            a = np.where(stalled, a * 0.5, a)
            stall[idx[stalled]] = 0
            alpha[idx] = a
            target = np.where(np.isfinite(p_val[idx]), p_val[idx], best[idx] - 0.05 * np.maximum(np.abs(best[idx]), 1e-6))
            t = a * np.maximum(val - target, 0.0) / np.maximum(gn2, 1e-18)
            theta[idx] -= t[:, None, None] * g
        else:
            full = np.zeros(theta.shape)
            full[idx] = g
            upd = adam.step(full, active)
            theta[idx] -= upd[idx]
            if main is None:  # back onto Σ_k λ_k = q
                theta[idx] -= (theta[idx].sum(axis=1, keepdims=True) - q[idx][:, None, :]) / m
        active[idx[finished]] = False
        if bar is not None:
            bar.update(1)
            if it % 10 == 0:
                ok = np.isfinite(p_val)
                rel = (best[ok] - p_val[ok]) / np.maximum(1.0, np.abs(p_val[ok]))
                bar.set_postfix(gap=f"{rel.mean():.2e}" if ok.any() else "n/a", active=int(active.sum()))
    return best, best_lam, best_x, history[:done], done


def _solve_chunk(
    dec: Decomposition, costs: np.ndarray, settings: dict[str, Any], progress: bool
) -> DualResult:
    t0 = time.perf_counter()
    p = dec.problem
    sign = 1.0 if p.sense == "max" else -1.0
    q = sign * p.objective_coefficients(costs)
    offset = p.compiled.k0 + costs @ p.compiled.r
    solvers = dec.block_solvers(settings["solver"])
    iterations = settings["iterations"]
    independent = settings["independent"]
    m = dec.num_blocks
    B, n = q.shape
    heuristic = PrimalHeuristic(p)
    p_val = np.full(B, -np.inf)
    p_x = np.full((B, n), np.nan)
    runs = list(range(m)) if independent else [None]
    D = len(runs)
    deadline = t0 + settings["time_limit"] if settings["time_limit"] else np.inf
    lam = np.empty((B, D, m, n))
    X = np.empty((B, D, m, n))
    bounds = np.empty((B, D))
    hist_all = []
    total = iterations * D
    bar = None
    if enabled(progress):
        from tqdm.auto import tqdm  # noqa: PLC0415

        bar = tqdm(total=total, desc=f"dual ({B} instances, {m} blocks)", leave=False, dynamic_ncols=True)
    used = 0
    for r, main in enumerate(runs):
        best, blam, bx, hist, done = _run(
            solvers, q, main, iterations, settings["step"], settings["lr"], settings["mu0"],
            settings["tol"], deadline, heuristic, (p_val, p_x), bar,
        )
        lam[:, r], X[:, r], bounds[:, r] = blam, bx, best
        hist_all.append(hist)
        used = max(used, done)
    if bar is not None:
        bar.close()
    if np.isinf(bounds).any():
        raise DecompositionError("the dual solve did not run a single iteration (time_limit too small?)")
    # history: best bound so far over all runs, per iteration
    H = np.full((used, B), np.inf)
    for h in hist_all:
        if len(h):
            H = np.minimum(H, _pad_rows(h, used))
    user = lambda v: sign * v  # noqa: E731 - max form -> user's sense
    return DualResult(
        sense=p.sense,
        lam=sign * lam,
        x=X,
        run_bounds=user(bounds) + offset[:, None],
        history=user(H) + offset[None, :],
        primal_objective=np.where(np.isfinite(p_val), user(p_val) + offset, np.nan),
        primal_x=p_x,
        iterations=used,
        seconds=time.perf_counter() - t0,
        independent=independent,
        step=settings["step"],
        solvers=[s.name for s in solvers],
    )


def _pad_rows(h: np.ndarray, rows: int) -> np.ndarray:
    """A history cut short (early stop) extended to ``rows`` iterations by its last row."""
    return np.vstack([h, np.repeat(h[-1:], rows - len(h), axis=0)]) if len(h) < rows else h


def _concat(parts: list[DualResult]) -> DualResult:
    if len(parts) == 1:
        return parts[0]
    it = max(p.iterations for p in parts)
    first = parts[0]
    return DualResult(
        sense=first.sense,
        lam=np.concatenate([p.lam for p in parts]),
        x=np.concatenate([p.x for p in parts]),
        run_bounds=np.concatenate([p.run_bounds for p in parts]),
        history=np.concatenate([_pad_rows(p.history, it) for p in parts], axis=1),
        primal_objective=np.concatenate([p.primal_objective for p in parts]),
        primal_x=np.concatenate([p.primal_x for p in parts]),
        iterations=it,
        seconds=max(p.seconds for p in parts),
        independent=first.independent,
        step=first.step,
        solvers=first.solvers,
    )


def solve_dual(
    dec: Decomposition,
    costs: Any,
    iterations: int = 300,
    *,
    step: str = "polyak",
    lr: float | None = None,
    mu0: float = 1.0,
    tol: float = 1e-6,
    time_limit: float | None = None,
    solver: Any = "auto",
    independent: bool = False,
    executor: Executor | None = None,
    chunk_size: int | None = None,
    checkpoint: str | Path | None = None,
    progress: bool = True,
) -> DualResult:
    """Optimise the multipliers of ``dec`` for each cost vector of ``costs``.

    ``iterations`` caps the subgradient steps (per run); an instance stops early once its gap to
    the best primal value is below ``tol`` (relative) or its copies agree. ``executor`` (any
    ``concurrent.futures.Executor``) spreads chunks of ``chunk_size`` instances over workers; the
    answer does not depend on it. ``checkpoint`` (a folder) saves every finished chunk atomically
    and resumes from the chunks already there (see :mod:`ldopt.parallel`).
    """
    c, _ = dec.problem.check_costs(costs)
    if int(iterations) != iterations or iterations < 1:
        raise InputError(f"iterations: expected a positive integer, got {iterations!r}")
    settings = dict(
        iterations=int(iterations),
        step=step,
        lr=_settle_step(step, lr),
        mu0=float(mu0),
        tol=float(tol),
        time_limit=time_limit,
        solver=solver,
        independent=bool(independent),
    )
    if executor is None and checkpoint is None:
        return _solve_chunk(dec, c, settings, progress)
    t0 = time.perf_counter()
    ranges = parallel.chunks(len(c), chunk_size)
    key = dec.key
    norm = json.loads(json.dumps(settings, sort_keys=True, default=repr))
    expect = lambda s, e: dict(decomposition=key, costs=cache.digest(c[s:e]), settings=norm)  # noqa: E731
    if executor is None:
        args = lambda s, e: (dec, c[s:e], settings, False)  # noqa: E731
        fn = _solve_chunk
    else:
        args = lambda s, e: (key, dec, c[s:e], settings)  # noqa: E731
        fn = _solve_chunk_in_worker
    parts, counts = parallel.run_chunks(
        fn, ranges, args, executor=executor, checkpoint=checkpoint, expect=expect,
        to_arrays=DualResult.to_arrays, from_arrays=DualResult.from_arrays, progress=progress, desc="dual chunks",
    )
    out = _concat(parts)
    out.seconds = time.perf_counter() - t0
    out.chunks_computed, out.chunks_loaded = counts["computed"], counts["loaded"]
    return out


def _solve_chunk_in_worker(key: str, dec: Decomposition, costs: np.ndarray, settings: dict[str, Any]) -> DualResult:
    """A chunk on a worker, with the worker's kept copy of ``dec`` (solvers built once per process)."""
    return _solve_chunk(parallel.worker_copy(key, dec), costs, settings, False)
