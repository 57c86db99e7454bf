"""What to expect from a decomposition before training on it: ``ldopt.check(dec, costs)``.

On a small sample of cost vectors it reports each block's solver (its exact oracle, or why none
fits), the bounds the decomposition inferred, and for the multipliers a training set would carry
(``LDDataset``'s, [`TRAINING`][ldopt.dual.settings.TRAINING] by default): the start and step
rule they use and why, their bound and the exact Lagrangian bound ``LD*`` against the problem's
optimum, and their time and memory per instance.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ldopt import checks
from ldopt.decomposition.blocks import Block
from ldopt.decomposition.decompose import Decomposition
from ldopt.dual import DualSettings, lagrangian_bound, solve_dual
from ldopt.dual.settings import EXACT, TRAINING
from ldopt.dual.solve import lp_start_fits, resolve_settings
from ldopt.model.implied_bounds import InferredBound, domain_note, listing
from ldopt.solvers.base import HAS_SOLUTION


def why_no_oracle(block: Block) -> str:
    """Why no exact oracle fits ``block`` (its structure against what the oracles take)."""
    cm = block.compiled
    rows = cm.rows
    quad = [r for r in rows if r.is_quadratic]
    on = np.unique(np.concatenate([r.index for r in rows])) if rows else np.zeros(0, dtype=int)
    integer = (cm.var_type[on] != "C").any() if len(on) else False
    if len(rows) > 2 or (len(rows) == 2 and len(quad) != 1):
        return (
            f"{len(rows)} rows: the oracles take one row, one positive linear row with one quadratic row, "
            "assignment rows (Σ x = 1 or ≤ 1, unit coefficients, every variable in one row of each side, "
            "bounds [0, 1]), or a flow on a network (±1 conservation equalities, every variable in at most two "
            "rows with opposite signs, finite bounds)"
        )
    if quad and integer:
        return "integer variables in a quadratic row"
    if len(rows) == 2:
        return "the linear row beside the quadratic one is not positive on every variable"
    row = rows[0]
    if integer and np.isfinite(row.lo) and np.isfinite(row.hi):
        return "a two-sided (equality or range) row over integer variables with unequal coefficients"
    if integer and (cm.var_type[on] == "C").any():
        return "a row mixing continuous variables with too many integer combinations"
    return "no oracle fits this row's coefficients and bounds"


@dataclass
class BlockReport:
    """One block: its rows, the solver that runs it, and why no exact oracle fits (if none does)."""

    index: int
    rows: str
    solver: str
    why: str = ""
    inferred: list[InferredBound] = field(default_factory=list)


@dataclass
class CheckReport:
    """What ``ldopt.check`` measured (see the module docstring); ``str(report)`` reads as a table.

    Parameters
    ----------
    blocks
        One report per block: its rows, its solver or oracle, why no oracle fits, the bounds inferred.
    optimum
        The sampled instances' optima (user's sense).
    proven
        Which of those optima are proven.
    dual_bound
        The training multipliers' bound per instance.
    ld_bound
        The exact Lagrangian bound ``LD*`` per instance (column generation's best bound where it
        did not converge within ``time_limit``).
    ld_converged
        Whether column generation converged (``ld_bound`` is ``LD*``) per instance.
    dual
        The training multipliers' settings, every ``"auto"`` resolved (mode, iterations, step rule,
        start, layout).
    start_why
        Why ``mu0="auto"`` chose that start (empty when the start was given).
    seconds_per_instance
        The training multipliers' construction time per instance.
    bytes_per_instance
        Their memory per instance.
    """

    blocks: list[BlockReport]
    optimum: np.ndarray  # the sample's optimal (or best found) objectives, user's sense
    proven: np.ndarray  # whether each optimum is proven
    dual_bound: np.ndarray  # the training multipliers' bound
    ld_bound: np.ndarray  # the exact Lagrangian bound LD*
    ld_converged: np.ndarray
    dual: DualSettings
    start_why: str
    seconds_per_instance: float
    bytes_per_instance: int

    @staticmethod
    def _gap(bound: np.ndarray, opt: np.ndarray) -> float:
        with np.errstate(invalid="ignore", divide="ignore"):
            gaps = np.abs(bound - opt) / np.maximum(np.abs(opt), 1e-12)
        return float(np.nanmedian(gaps)) if np.isfinite(gaps).any() else float("nan")

    @property
    def dual_gap(self) -> float:
        """The training multipliers' median relative distance to the optimum."""
        return self._gap(self.dual_bound, self.optimum)

    @property
    def ld_gap(self) -> float:
        """``LD*``'s median relative distance to the optimum (the best any multipliers can do)."""
        return self._gap(self.ld_bound, self.optimum)

    def __str__(self) -> str:
        lines = [f"{len(self.blocks)} blocks:"]
        lines += domain_note(ib for b in self.blocks for ib in b.inferred)
        for b in self.blocks:
            why = f" (no exact oracle: {b.why})" if b.why else ""
            lines.append(f"  block {b.index} [{b.rows}] — {b.solver}{why}")
            if b.inferred:
                lines.append(f"    {listing(b.inferred)}")
        proven = int(self.proven.sum())
        why = f" (mu0='auto': {self.start_why})" if self.start_why else ""
        lines += [
            f"bounds on {len(self.optimum)} instances ({proven} optima proven), median distance to the optimum:",
            f"  the training multipliers: {self.dual_gap:.2%}",
            f"  the exact Lagrangian bound LD*: {self.ld_gap:.2%}"
            + ("" if self.ld_converged.all() else " (column generation stopped at the time limit: LD* is below)"),
            f"training multipliers: {self.dual.mode} mode, {self.dual.iterations} {self.dual.step_name} "
            f"iteration(s) from the {self.dual.mu0!r} start{why}, {self.dual.layout} layout: "
            f"{self.seconds_per_instance * 1e3:.1f} ms and {self.bytes_per_instance / 1e3:.1f} kB per instance",
        ]
        return "\n".join(lines)


def check(
    dec: Decomposition,
    costs: Any,
    dual: DualSettings = TRAINING,
    *,
    time_limit: float = 10.0,
    progress: bool = False,
) -> CheckReport:
    """Measure ``dec`` on a sample of cost vectors ``costs`` (a few: each is solved exactly).

    Parameters
    ----------
    dec
        The decomposition to check.
    costs
        A small sample ``(B, num_costs)`` of cost vectors (e.g. 5 training instances).
    dual
        The training set's dual settings (``LDDataset``'s ``dual``; the default is its default).
    time_limit
        Seconds per instance of the exact solve of the whole problem (an unproven optimum is reported
        as such) and of ``LD*``'s column generation (wide blocks need many rounds).
    progress
        Show progress bars.

    Returns
    -------
    CheckReport
        Per block, its solver and why no exact oracle fits; the training multipliers' settings, bound,
        time and memory per instance; ``LD*``.
    """
    checks.instance("dec", dec, Decomposition, "an ldopt.Decomposition (ldopt.decompose(problem))")
    c = dec.check_costs(costs)
    time_limit = checks.positive("time_limit", time_limit, " (seconds)")
    blocks = []
    for b, s in zip(dec.blocks, dec.block_solvers("auto"), strict=True):
        why = "" if s.oracle is not None else why_no_oracle(b)
        blocks.append(BlockReport(b.index, b.describe(), s.name, why, dec.inferred.get(b.index, [])))
    sol = dec.problem.solve(c, solver="auto", time_limit=time_limit)
    solved = np.isin(sol.status, HAS_SOLUTION)
    checks.instance("dual", dual, DualSettings, "an ldopt.dual.DualSettings (e.g. ldopt.dual.TRAINING)")
    settings = resolve_settings(dec, dual)
    ld = lagrangian_bound(dec, c, EXACT.merged(time_limit=time_limit), progress=progress)
    t0 = time.perf_counter()
    training = solve_dual(dec, c, settings, progress=progress)
    seconds = (time.perf_counter() - t0) / len(c)
    arrays, _ = training.to_arrays()
    size = sum(a.nbytes for k, a in arrays.items() if not k.startswith("support_")) // len(c)
    return CheckReport(
        blocks=blocks,
        optimum=np.where(solved, sol.objective, np.nan),
        proven=sol.status == "optimal",
        dual_bound=training.bound,
        ld_bound=ld.bound,
        ld_converged=ld.converged,
        dual=settings,
        start_why=lp_start_fits(dec)[1] if dual.mu0 == "auto" else "",
        seconds_per_instance=seconds,
        bytes_per_instance=int(size),
    )
