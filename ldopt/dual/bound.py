"""The exact Lagrangian bound ``LD*`` of each instance with its certificate, by the column
generation of `ldopt.dual.master`, and the proof of infeasibility where no point exists."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ldopt import checks
from ldopt.decomposition.blocks import Blocks
from ldopt.dual.master import _FARKAS_TOL, column_generation
from ldopt.dual.settings import EXACT, DualSettings, Master
from ldopt.dual.support import Support, resolve_layout
from ldopt.errors import InputError
from ldopt.runtime.progress import counting_bar


@dataclass
class LagrangianBound:
    """The exact Lagrangian bound of each instance (user's sense), with its certificate.

    ``bound``: the best Lagrangian bound found (valid: from multipliers ``lam``). ``certificate``:
    the master's value at a slack-free optimum, a bound from the other side (``nan`` where none was
    reached), so that ``|bound − certificate|`` is the certified gap to ``LD*``. ``lam``: shared
    multipliers in the user's sense with ``Σ_k λ_k = q(c)``, ``(B, m, n)`` in the dense layout, on
    the blocks' supports ``(B, nnz)`` in the sparse one (``support`` set; ``lambdas`` gives the
    dense array in both, ``layout`` names it); ``iterations`` and
    ``columns`` per instance; ``converged``: the relative gap reached ``tol``, or infeasibility was
    proven. ``infeasible``: the instances whose decomposition has no point (``∩_k conv(X_k)`` is
    empty, so the problem is infeasible), proven by multipliers ``ρ`` with ``Σ_k ρ_k = 0`` and
    ``Σ_k max_{x∈X_k} ρ_k·x < 0``; their bound is ``-inf`` for a maximisation (``+inf`` for a
    minimisation).

    Parameters
    ----------
    bound
        The best Lagrangian bound per instance (user's sense).
    certificate
        The master's value at a slack-free optimum, a bound from the other side (``nan`` where none).
    lam
        Shared multipliers in the user's sense: ``(B, m, n)`` (dense), or ``(B, nnz)`` on the supports.
    iterations
        Pricing rounds per instance.
    columns
        Columns added per instance.
    converged
        Whether the certified gap reached ``tol`` (or infeasibility was proven).
    seconds
        Wall-clock seconds.
    infeasible
        The instances proven infeasible.
    support
        The sparse layout's supports, or ``None`` (dense).
    residual
        The sparse layout's cost that no block touches ``(B, n)`` (user's sense), or ``None``.
    """

    bound: np.ndarray
    certificate: np.ndarray
    lam: np.ndarray
    iterations: np.ndarray
    columns: np.ndarray
    converged: np.ndarray
    seconds: float
    infeasible: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    support: Support | None = None
    residual: np.ndarray | None = None

    @property
    def layout(self) -> Literal["dense", "sparse"]:
        """``"dense"`` or ``"sparse"`` (the multipliers on the blocks' supports)."""
        return "dense" if self.support is None else "sparse"

    @property
    def lambdas(self) -> np.ndarray:
        """The multipliers ``(B, m, n)`` in both layouts (they sum to ``q(c)``; sparse: the cost no
        block touches spread evenly over the blocks)."""
        if self.support is None or self.residual is None:
            return self.lam
        return self.support.spread(self.lam, self.residual)

    @property
    def gap(self) -> np.ndarray:
        """The certified relative gap ``|bound − certificate| / max(1, |bound|)`` (``inf`` without one,
        0 where infeasibility is proven)."""
        with np.errstate(invalid="ignore"):
            g = np.abs(self.bound - self.certificate) / np.maximum(1.0, np.abs(self.bound))
        g = np.where(np.isfinite(g), g, np.inf)
        return np.where(self.infeasible, 0.0, g) if len(self.infeasible) == len(g) else g


def prove_infeasible(
    dec: Blocks, count: int, solvers: list[Any], iterations: int, deadline: float = np.inf
) -> np.ndarray:
    """Whether ``∩_k conv(X_k)`` is empty: column generation on the objective 0 (phase I) either
    finds a point of it (slack 0) or multipliers ``ρ`` with ``Σ_k ρ_k = 0`` whose bound is negative,
    which by weak duality no point allows. The answer is the same for every objective, so one run
    serves ``count`` instances; ``False`` where neither was reached within ``iterations``."""
    n = dec.problem.num_vars
    run = column_generation(
        dec, np.zeros((1, n)), solvers, iterations=iterations, tol=0.0, deadline=deadline, farkas=True
    )
    scale = max(1.0, float(np.abs(run.X).max(initial=0.0)), float(np.abs(run.box_x).max(initial=0.0)))
    return np.full(count, bool(run.best[0] < -_FARKAS_TOL * scale))


def lagrangian_bound(
    dec: Blocks,
    costs: Any,
    settings: DualSettings | None = None,
    *,
    iterations: int | None = None,
    solver: Any = None,
    progress: bool = True,
) -> LagrangianBound:
    """The exact Lagrangian dual bound ``LD*`` of ``dec`` for each cost vector, by column generation.

    See the module docstring; ``dec.dual(..., step="master")`` runs the same algorithm and returns a
    [`DualResult`][ldopt.DualResult]. An instance without any point in ``∩_k conv(X_k)`` is proven
    infeasible (``LagrangianBound.infeasible``).

    Parameters
    ----------
    dec
        The decomposition.
    costs
        One cost vector ``(num_costs,)`` or a batch ``(B, num_costs)``.
    settings
        A [`DualSettings`][ldopt.dual.DualSettings] whose step is a
        [`Master`][ldopt.dual.Master] (its ``smoothing``); ``None``:
        [`EXACT`][ldopt.dual.settings.EXACT]. Used: ``iterations`` (pricing rounds at most, each
        solving every block once per instance and the master LPs), ``tol`` (the relative gap
        between the bound and the master's certificate at which an instance stops), ``time_limit``
        (seconds per instance: the batch stops after ``time_limit × B`` seconds), ``solver`` and
        ``layout`` (``"sparse"``: the multipliers on each block's support; ``"dense"`` ``(B, m,
        n)``; the bound is the same in every layout); the mode and the start are column
        generation's own (the shared form, from ``q`` shared by the blocks).
    iterations
        Pricing rounds, merged into ``settings`` where given.
    solver
        The block solvers (as for ``dec.dual``), merged into ``settings`` where given.
    progress
        Show a progress bar.

    Returns
    -------
    LagrangianBound
        The bound (user's sense), its certificate, the multipliers and the per-instance counts.
    """
    checks.instance("dec", dec, Blocks, "an ldopt.Decomposition (ldopt.decompose(problem))")
    c = dec.check_costs(costs)
    base = EXACT if settings is None else settings
    checks.instance("settings", base, DualSettings, "an ldopt.dual.DualSettings (e.g. ldopt.dual.EXACT) or None")
    s = base.merged(iterations=iterations, solver=solver)
    if not isinstance(s.step, Master):
        raise InputError(
            f"settings.step: lagrangian_bound runs column generation; expected ldopt.dual.Master(...), got {s.step!r}; "
            "dec.dual(costs, settings) runs the subgradient rules"
        )
    iterations, tol, smoothing, solver, time_limit = s.iterations, s.tol, s.step.smoothing, s.solver, s.time_limit
    progress = checks.boolean("progress", progress)
    layout = resolve_layout(dec, s.layout, "shared")
    t0 = time.perf_counter()
    p = dec.problem
    sign = p.sign
    q = sign * p.objective_coefficients(c)
    bar = counting_bar(iterations, f"Lagrangian bound ({len(c)} instances)", progress)
    try:
        run = column_generation(
            dec, q, dec.block_solvers(solver), iterations=iterations, tol=tol, smoothing=smoothing,
            deadline=t0 + time_limit * len(c) if time_limit else np.inf, bar=bar,
        )  # fmt: skip
    finally:
        if bar is not None:
            bar.close()
    offset = p.compiled.k0 + c @ p.compiled.r
    gap = run.best - run.certificate
    infeasible = np.zeros(len(c), dtype=bool)
    if not np.isfinite(run.certificate).any():  # no instance found a point of ∩ conv(X_k): is there one?
        deadline = t0 + time_limit * len(c) if time_limit else np.inf
        infeasible = prove_infeasible(dec, len(c), dec.block_solvers(solver), iterations, deadline)
    best = np.where(infeasible, -np.inf, run.best)
    return LagrangianBound(
        bound=sign * best + offset,
        certificate=np.where(np.isfinite(run.certificate), sign * run.certificate + offset, np.nan),
        lam=sign * (run.dense_lam() if layout == "dense" else run.lam),
        iterations=run.iterations,
        columns=run.columns,
        converged=infeasible | (gap <= tol * np.maximum(1.0, np.abs(run.best))),
        seconds=time.perf_counter() - t0,
        infeasible=infeasible,
        support=None if layout == "dense" else run.support,
        residual=None if layout == "dense" else sign * run.residual,
    )
