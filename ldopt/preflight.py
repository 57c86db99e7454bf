"""What to expect from a decomposition before training on it: ``ldopt.check(dec, costs)``.

On a small sample of cost vectors it reports each block's solver (its exact oracle, or why none
fits), the bounds the decomposition inferred, the quality of the bounds — the default dual's and
the exact Lagrangian bound ``LD*`` against the problem's optimum — and the time and memory per
instance of the training sets' default multipliers (``LDDataset``'s joint μ-form run).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import checks
from .decomposed import Decomposition
from .decomposition import Block
from .dual import lagrangian_bound, solve_dual
from .dual.settings import TRAINING
from .implied_bounds import InferredBound, listing
from .solvers.base import HAS_SOLUTION


def why_no_oracle(block: Block) -> str:
    """Why no exact oracle fits ``block`` (its structure against what the oracles take)."""
    cm = block.compiled
    rows = cm.rows
    quad = [r for r in rows if r.is_quadratic]
    on = np.unique(np.concatenate([r.index for r in rows])) if rows else np.zeros(0, dtype=int)
    integer = (cm.var_type[on] != "C").any() if len(on) else False
    if len(rows) > 2 or (len(rows) == 2 and len(quad) != 1):
        return f"{len(rows)} rows: the oracles take one row, or one positive linear row with one quadratic row"
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
        The default ``dec.dual``'s bound per instance.
    ld_bound
        The exact Lagrangian bound ``LD*`` per instance.
    dual_step
        The step rule the default dual used.
    seconds_per_instance
        The default training set's construction time per instance.
    bytes_per_instance
        The default training set's memory per instance.
    layout
        Where the default training set keeps its multipliers (``"sparse"``: each block's support).
    """

    blocks: list[BlockReport]
    optimum: np.ndarray  # the sample's optimal (or best found) objectives, user's sense
    proven: np.ndarray  # whether each optimum is proven
    dual_bound: np.ndarray  # the default dec.dual's bound
    ld_bound: np.ndarray  # the exact Lagrangian bound LD*
    dual_step: str
    seconds_per_instance: float  # LDDataset's default multipliers
    bytes_per_instance: int
    layout: str = "dense"

    @staticmethod
    def _gap(bound: np.ndarray, opt: np.ndarray) -> float:
        with np.errstate(invalid="ignore", divide="ignore"):
            gaps = np.abs(bound - opt) / np.maximum(np.abs(opt), 1e-12)
        return float(np.nanmedian(gaps)) if np.isfinite(gaps).any() else float("nan")

    @property
    def dual_gap(self) -> float:
        """The default dual's median relative distance to the optimum."""
        return self._gap(self.dual_bound, self.optimum)

    @property
    def ld_gap(self) -> float:
        """``LD*``'s median relative distance to the optimum (the best any multipliers can do)."""
        return self._gap(self.ld_bound, self.optimum)

    def __str__(self) -> str:
        lines = [f"{len(self.blocks)} blocks:"]
        for b in self.blocks:
            why = f" (no exact oracle: {b.why})" if b.why else ""
            lines.append(f"  block {b.index} [{b.rows}] — {b.solver}{why}")
            if b.inferred:
                lines.append(f"    {listing(b.inferred)}")
        proven = int(self.proven.sum())
        lines += [
            f"bounds on {len(self.optimum)} instances ({proven} optima proven), median distance to the optimum:",
            f"  dec.dual (default, step {self.dual_step!r}): {self.dual_gap:.2%}",
            f"  the exact Lagrangian bound LD*: {self.ld_gap:.2%}",
            "training sets (LDDataset's default multipliers: one joint run of 30 Polyak steps from the "
            f"symmetric start, {self.layout} layout): {self.seconds_per_instance * 1e3:.1f} ms and "
            f"{self.bytes_per_instance / 1e3:.1f} kB per instance",
        ]
        return "\n".join(lines)


def check(dec: Decomposition, costs: Any, *, time_limit: float = 10.0, progress: bool = False) -> CheckReport:
    """Measure ``dec`` on a sample of cost vectors ``costs`` (a few: each is solved exactly).

    Parameters
    ----------
    dec
        The decomposition to check.
    costs
        A small sample ``(B, num_costs)`` of cost vectors (e.g. 5 training instances).
    time_limit
        Seconds per exact solve of the whole problem (an unproven optimum is reported as such).
    progress
        Show progress bars.

    Returns
    -------
    CheckReport
        Per block, its solver and why no exact oracle fits; the bounds' distance to the optimum; the
        training sets' time and memory per instance.
    """
    checks.instance("dec", dec, Decomposition, "an ldopt.Decomposition (ldopt.decompose(problem))")
    c, _ = dec.problem.check_costs(costs)
    time_limit = checks.positive("time_limit", time_limit, " (seconds)")
    blocks = []
    for b, s in zip(dec.blocks, dec.block_solvers("auto"), strict=True):
        why = "" if s.oracle is not None else why_no_oracle(b)
        blocks.append(BlockReport(b.index, b.describe(), s.name, why, dec.inferred.get(b.index, [])))
    sol = dec.problem.solve(c, solver="auto", time_limit=time_limit)
    solved = np.isin(sol.status, HAS_SOLUTION)
    default = solve_dual(dec, c, progress=progress)
    ld = lagrangian_bound(dec, c, progress=progress)
    t0 = time.perf_counter()
    joint = solve_dual(dec, c, settings=TRAINING, progress=progress)
    seconds = (time.perf_counter() - t0) / len(c)
    arrays, _ = joint.to_arrays()
    size = sum(a.nbytes for k, a in arrays.items() if not k.startswith("support_")) // len(c)
    return CheckReport(
        blocks=blocks,
        optimum=np.where(solved, sol.objective, np.nan),
        proven=sol.status == "optimal",
        dual_bound=default.bound,
        ld_bound=ld.bound,
        dual_step=default.step,
        seconds_per_instance=seconds,
        bytes_per_instance=int(size),
        layout=joint.layout,
    )
