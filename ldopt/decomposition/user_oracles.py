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
heuristic checks every point before using it). [`check_oracle()`][ldopt.decomposition.user_oracles.check_oracle]
tests an oracle against an exact solve of its block on random objectives; ``dec.describe()``
names it.

A user's oracle is verified, not trusted: every answer must be a finite array of the batch's
shape (written into ``out=`` when one is given) and the objectives it is given are a copy, so an
oracle that changes them in place changes nothing of ldopt's. Its first use in a decomposition
solves the first few instances of that batch exactly (``"auto"``: HiGHS, Gurobi or CVXPY; a solve
that reaches ``SPOT_TIME_LIMIT`` checks the oracle against its incumbent and bound only, and
warns) and raises [`OracleMismatch`][ldopt.decomposition.user_oracles.OracleMismatch] where the oracle's point is worse
than the optimum, violates the block, or (a relaxation) is worth less than the optimum. An oracle
you have checked yourself (``check_oracle()`` on the objectives it will meet) skips this with
``verified = True``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from ldopt import checks
from ldopt.errors import DecompositionError, InputError, SolverError
from ldopt.oracles.base import Oracle
from ldopt.solvers.base import HAS_SOLUTION, Status


class OracleMismatch(SolverError):
    """An oracle's answer that an exact solve of its block contradicts, or that is no answer (a
    wrong shape, NaN, ``out=`` left unwritten)."""


SPOT_CHECKS = 3  # instances of its first batch that a user's oracle is checked on
SPOT_TIME_LIMIT = 10.0  # seconds per instance of that check; a solve stopped there checks what it found
_TOL = 1e-6  # relative on values, absolute on violations (check_oracle's default)


def _who(oracle: Oracle, k: int) -> str:
    return f"block {k}'s oracle {oracle.name or type(oracle).__name__}"


def answer(oracle: Oracle, k: int, result: Any, shape: tuple[int, ...], out: np.ndarray | None) -> np.ndarray:
    """The points a user's ``oracle`` (of block ``k``) returned, checked: a finite float array of
    ``shape``, and ``out`` written where one was given. Raises `OracleMismatch` otherwise."""
    who = _who(oracle, k)
    if out is not None and result is None:
        result = out
    if not isinstance(result, np.ndarray):
        raise OracleMismatch(f"{who}: expected a numpy array {shape} from argmax(), got {type(result).__name__}")
    if result.shape != shape:
        raise OracleMismatch(f"{who}: expected points of shape {shape} from argmax(), got {result.shape}")
    if not np.issubdtype(result.dtype, np.number) or np.issubdtype(result.dtype, np.complexfloating):
        raise OracleMismatch(f"{who}: expected real points from argmax(), got dtype {result.dtype}")
    if not np.isfinite(result).all():
        bad = int(np.flatnonzero(~np.isfinite(result).all(axis=1))[0])
        raise OracleMismatch(f"{who}: expected finite points from argmax(), got NaN or inf for instance {bad}")
    if out is not None and result is not out and not np.array_equal(out, result):
        raise OracleMismatch(
            f"{who}: argmax(lam, out=...) returned its points without writing them into out; "
            "expected out[...] = x (then return out)"
        )
    return np.asarray(result, dtype=float)


def checked_argmax(oracle: Oracle, block: Any, lam: np.ndarray, out: np.ndarray | None) -> np.ndarray:
    """A user's ``oracle`` solving ``lam`` for ``block``: given a copy of ``lam``, its answer
    checked (`answer`), and on the block's first call (unless ``oracle.verified``) its first
    `SPOT_CHECKS` instances checked against an exact solve."""
    if out is not None:
        out[...] = np.nan  # an oracle that does not write it cannot pass a stale answer off
    x = answer(oracle, block.index, oracle.argmax(lam.copy(), out), lam.shape, out)
    if not block.oracle_checked and not oracle.verified and len(lam):
        _spot_check(oracle, block, lam[:SPOT_CHECKS], x[:SPOT_CHECKS])
        block.oracle_checked = True
    return x


def _compare(
    oracle: Oracle, k: int, block_problem: Any, lam: np.ndarray, x: np.ndarray, optimum: np.ndarray, tol: float,
    instances: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Raise `OracleMismatch` for the first instance whose point ``x`` the block's exact ``optimum``
    contradicts (named by its number in ``instances``, default its row); else each instance's
    relative gap to it and its violation of the block."""
    value = np.einsum("bn,bn->b", lam, x)
    gap = (value - optimum) / np.maximum(1.0, np.abs(optimum))
    violation = block_problem.violation(x)
    who = _who(oracle, k)
    for i in range(len(lam)):
        number = i if instances is None else int(instances[i])
        if oracle.relaxation and gap[i] < -tol:
            raise OracleMismatch(
                f"{who}, instance {number}: the relaxation's value {value[i]:.9g} is below the block's optimum "
                f"{optimum[i]:.9g}: it does not contain the block (does it minimise instead of maximise?)"
            )
        if not oracle.relaxation and (abs(gap[i]) > tol or violation[i] > tol):
            raise OracleMismatch(
                f"{who}, instance {number}: expected a point of the block worth {optimum[i]:.9g} (maximising "
                f"lam·x), got one worth {value[i]:.9g} that violates the block by {violation[i]:.3g} (a "
                "relaxation? set relaxation = True)"
            )
    return gap, violation


def _spot_check(oracle: Oracle, block: Any, lam: np.ndarray, x: np.ndarray) -> None:
    exact = block.problem.solve(lam, solver="auto", time_limit=SPOT_TIME_LIMIT)
    who, k = _who(oracle, block.index), block.index
    status = np.asarray(exact.status)
    failed = ~np.isin(status, (*HAS_SOLUTION, Status.NO_SOLUTION.value))
    if failed.any():  # the exact solver cannot tell: say so rather than trust
        bad = int(np.flatnonzero(failed)[0])
        raise OracleMismatch(
            f"{who}: the first-use check could not solve instance {bad} of the block exactly ({status[bad]}); "
            f"check the oracle with check_oracle(dec, {k}, solver=...) and set verified = True on it"
        )
    stopped = status != Status.OPTIMAL.value
    try:
        if (~stopped).any():
            done = np.flatnonzero(~stopped)
            _compare(oracle, k, block.problem, lam[done], x[done], np.asarray(exact.objective)[done], _TOL, done)
        _compare_stopped(oracle, k, block.problem, lam, x, exact, stopped)
    except OracleMismatch as exc:
        raise OracleMismatch(
            f"{exc} — found by the first-use check against an exact solve; fix the oracle (check_oracle() tests "
            "it), or set verified = True on it if you have verified it and the exact solver is wrong"
        ) from None
    if stopped.any():
        warnings.warn(
            f"{who}: the first-use check stopped after {SPOT_TIME_LIMIT:g} s on {int(stopped.sum())} of "
            f"{len(lam)} instances, which were checked against the solver's incumbent and bound only; check the "
            f"oracle with check_oracle(dec, {k}, objectives=...) on smaller instances and set verified = True on it",
            stacklevel=4,
        )


def _compare_stopped(
    oracle: Oracle, k: int, block_problem: Any, lam: np.ndarray, x: np.ndarray, exact: Any, stopped: np.ndarray
) -> None:
    """Raise `OracleMismatch` where a solve that stopped early contradicts the oracle: its
    incumbent beats the oracle's value, or (an exact oracle) the oracle's point violates the block
    or is worth more than the solver's bound on the block's optimum."""
    value = np.einsum("bn,bn->b", lam, x)
    scale = np.maximum(1.0, np.abs(value))
    found = np.asarray(exact.status) == Status.FEASIBLE.value
    incumbent = np.where(found, np.asarray(exact.objective, dtype=float), -np.inf)
    violation = block_problem.violation(x) if not oracle.relaxation else np.zeros(len(x))
    for i in np.flatnonzero(stopped):
        if value[i] < incumbent[i] - _TOL * scale[i]:
            raise OracleMismatch(
                f"{_who(oracle, k)}, instance {i}: the oracle's value {value[i]:.9g} is below a point of the block "
                f"worth {incumbent[i]:.9g}"
            )
        if not oracle.relaxation and (violation[i] > _TOL or value[i] > exact.bound[i] + _TOL * scale[i]):
            raise OracleMismatch(
                f"{_who(oracle, k)}, instance {i}: expected a point of the block worth at most the solver's bound "
                f"{exact.bound[i]:.9g}, got one worth {value[i]:.9g} that violates the block by {violation[i]:.3g} "
                "(a relaxation? set relaxation = True)"
            )


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
    """What [`check_oracle()`][ldopt.decomposition.user_oracles.check_oracle] measured.

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
    optimum. Raises [`OracleMismatch`][ldopt.decomposition.user_oracles.OracleMismatch] naming the first instance
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
    given, out = lam.copy(), np.full(lam.shape, np.nan)
    x = answer(oracle, int(k), oracle.argmax(given, out), lam.shape, out)
    if not np.array_equal(given, lam):
        raise OracleMismatch(
            f"{_who(oracle, int(k))}: argmax() changed the objectives it was given in place; expected it to "
            "leave lam as it is (work on a copy)"
        )
    exact = block.problem.solve(lam, solver=solver)
    if not (exact.status == "optimal").all():
        bad = int(np.flatnonzero(exact.status != "optimal")[0])
        raise SolverError(f"block {k}: {solver} could not solve instance {bad} exactly ({exact.status[bad]})")
    gap, violation = _compare(oracle, int(k), block.problem, lam, x, exact.objective, tol)
    relaxation = bool(oracle.relaxation)
    top = float(np.abs(gap).max()) if not relaxation else float(max(0.0, -gap.min()))
    return OracleCheck(int(k), instances, relaxation, top, float(violation.max()))
