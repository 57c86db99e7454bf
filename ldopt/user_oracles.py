"""Block oracles that users bring: ``decompose(p, blocks, oracles={k: MyOracle(...)})``.

A block whose rows have a structure ldopt does not know (a spanning tree, a route, a schedule)
can be solved by an algorithm of the user's: a subclass of [`Oracle`][ldopt.oracles.base.Oracle]
whose ``argmax(lam, out=None)`` returns, for every row of ``lam`` ``(B, n)`` (the block's objective
over all ``n`` variables, maximised), an optimal point of the block. It is used wherever the block
is solved with ``solver="auto"`` (the default) or ``"oracle"``: ``dec.dual``,
``lagrangian_bound``, ``LDDataset``, the losses and the executors (pickled to worker processes,
and called from several threads at once, as the built-in oracles are).

An oracle that solves a *relaxation* of the block (a superset of its points: a 1-tree for the
tours through a node, routes without capacity) sets ``relaxation = True``: its values bound the
block's from above, so every bound stays valid, but its points may violate the block (the primal
heuristic checks every point before using it). [`check_oracle()`][ldopt.user_oracles.check_oracle]
tests an oracle against an exact solve of its block on random objectives; ``dec.describe()``
names it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from . import checks
from .errors import DecompositionError, InputError, SolverError
from .oracles.base import Oracle


class OracleMismatch(SolverError):
    """An oracle's answer that an exact solve of its block contradicts."""


def attach(dec: Any, oracles: Any) -> dict[int, Oracle]:
    """Give the blocks of ``dec`` the oracles ``{block index: Oracle}`` (checked); returns them.

    Parameters
    ----------
    dec
        The decomposition (its blocks).
    oracles
        ``None`` or ``{block index: an Oracle instance}``.
    """
    if oracles is None:
        return {}
    what = "{block index: an ldopt.oracles.Oracle instance}"
    if not isinstance(oracles, dict):
        raise DecompositionError(f"oracles: expected {what}, got {type(oracles).__name__}")
    m = len(dec.blocks)
    out: dict[int, Oracle] = {}
    for k, oracle in oracles.items():
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k < m:
            raise DecompositionError(f"oracles: expected block indices in [0, {m}), got {k!r}")
        if not isinstance(oracle, Oracle):
            raise DecompositionError(
                f"oracles[{k}]: expected an instance of an ldopt.oracles.Oracle subclass "
                f"(with argmax(lam, out=None)), got {type(oracle).__name__}"
            )
        dec.blocks[int(k)].user_oracle = oracle
        out[int(k)] = oracle
    return out


def label(oracle: Oracle, yours: bool) -> str:
    """How ``dec.describe()`` names a block's oracle (``yours``: one a user gave)."""
    if not yours:
        return f"{oracle.name}: {oracle.describe()}"
    kind = "your oracle, a relaxation: bounds valid, points may violate the block"
    return (
        f"{oracle.name or type(oracle).__name__}: {oracle.describe()} ({kind if oracle.relaxation else 'your oracle'})"
    )


@dataclass(frozen=True)
class OracleCheck:
    """What [`check_oracle()`][ldopt.user_oracles.check_oracle] measured.

    Parameters
    ----------
    block
        The block checked.
    instances
        Random objectives solved.
    relaxation
        Whether the oracle was checked as a relaxation (values ≥ the block's optimum).
    max_gap
        The largest ``|oracle value − exact value|`` relative to ``max(1, |exact|)``.
    max_violation
        The largest violation of the block's rows and bounds by the oracle's points.
    """

    block: int
    instances: int
    relaxation: bool
    max_gap: float
    max_violation: float


def check_oracle(
    dec: Any, k: int, instances: int = 32, *, seed: int = 0, solver: str = "highs", tol: float = 1e-6,
    objectives: Any = None,
) -> OracleCheck:  # fmt: skip
    """Check block ``k``'s oracle (yours or ldopt's) against an exact solve of the block on random
    objectives: standard normal, and the same rescaled by 1e3, with some coordinates zero (or on
    the ``objectives`` you give, e.g. the ones your oracle solves in closed form).

    An exact oracle must return points of the block (violation ≤ ``tol``) worth the block's optimum
    (within ``tol`` relative); a relaxation (``relaxation = True``) must return values at least the
    optimum. Raises [`OracleMismatch`][ldopt.user_oracles.OracleMismatch] naming the first instance
    that fails, with both values.

    Parameters
    ----------
    dec
        The decomposition.
    k
        The block.
    instances
        Random objectives to solve.
    seed
        Their random seed.
    solver
        The exact solver of the block (``"highs"``, ``"gurobi"``, ...).
    tol
        Relative tolerance on values, absolute on violations.
    objectives
        Objectives ``(B, num_vars)`` (max form) to check on instead of random ones, or ``None``.
    """
    block = dec.block(k)
    oracle = block.solver("oracle").oracle
    instances = checks.positive_int("instances", instances)
    rng = np.random.default_rng(checks.nonnegative_int("seed", seed))
    n = dec.num_vars
    if objectives is None:
        lam = rng.normal(size=(instances, n))
        lam[instances // 2 :] *= 1e3
        lam[rng.random((instances, n)) < 0.2] = 0.0
    else:
        lam = checks.real_array("objectives", objectives)
        if lam.ndim != 2 or lam.shape[1] != n or not len(lam):
            raise InputError(f"objectives: expected (B, {n}) objectives over the problem's variables, got {lam.shape}")
        instances = len(lam)
    x = np.asarray(oracle.argmax(lam.copy()), dtype=float)
    if x.shape != lam.shape:
        raise OracleMismatch(f"block {k}: the oracle returned shape {x.shape} for objectives {lam.shape}")
    exact = block.problem.solve(lam, solver=solver)
    if not (exact.status == "optimal").all():
        bad = int(np.flatnonzero(exact.status != "optimal")[0])
        raise SolverError(f"block {k}: {solver} could not solve instance {bad} exactly ({exact.status[bad]})")
    value = np.einsum("bn,bn->b", lam, x)
    gap = (value - exact.objective) / np.maximum(1.0, np.abs(exact.objective))
    violation = block.problem.violation(x)
    relaxation = bool(oracle.relaxation)
    for i in range(instances):
        if relaxation and gap[i] < -tol:
            raise OracleMismatch(
                f"block {k}, instance {i}: the relaxation's value {value[i]:.9g} is below the block's optimum "
                f"{exact.objective[i]:.9g}: it does not contain the block"
            )
        if not relaxation and (abs(gap[i]) > tol or violation[i] > tol):
            raise OracleMismatch(
                f"block {k}, instance {i}: expected a point of the block worth {exact.objective[i]:.9g}, got "
                f"one worth {value[i]:.9g} that violates the block by {violation[i]:.3g} (a relaxation? set "
                "relaxation = True)"
            )
    top = float(np.abs(gap).max()) if not relaxation else float(max(0.0, -gap.min()))
    return OracleCheck(int(k), instances, relaxation, top, float(violation.max()))
