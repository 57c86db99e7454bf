"""Lagrangian decomposition of a compiled problem.

Glossary
--------
block ``k``
    A group of constraint rows ``C_k``. By default every row is a block; ``"component"`` makes one
    block per Pyomo constraint component; an explicit list of groups (row indices, row names or
    component names) gives any partition. Every row belongs to exactly one block.
copy ``x_k``
    The duplicate of *all* variables that block ``k`` constrains: ``x_k ∈ D, C_k(x_k)``.
subproblem ``k``
    ``max λ_k · x_k`` over block ``k`` (``min`` for a minimisation): one constraint block, the full
    variable domain. Solved by an exact oracle when the structure allows, else by a solver.
symmetric multipliers ``λ``
    ``λ_1, …, λ_m`` with ``Σ_k λ_k = q(c)``; ``B(λ) = Σ_k opt_k(λ_k)`` bounds the optimum (weak
    duality) for every such ``λ``.
decomposition ``d``
    The paper's view with main block ``d``: multipliers ``μ^(d)_k = -λ_k`` for ``k ≠ d`` and main
    objective ``q(c) + Σ_{k≠d} μ^(d)_k = λ_d``. One symmetric ``λ`` serves every ``d`` at once.
main solution
    ``x_d*`` — the optimum of subproblem ``d`` at the multipliers found.

Every quantity a user sees is in the user's sense: bounds are upper bounds for a maximisation and
lower bounds for a minimisation; ``λ`` sum to the user's ``q(c)``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import scipy.sparse as sp

from ldopt.decomposition.grouping import unbounded_sides
from ldopt.decomposition.user_oracles import attach, checked_argmax, label
from ldopt.errors import DecompositionError, InputError, SolverUnavailableError
from ldopt.model.compiled import CompiledModel
from ldopt.model.implied_bounds import (
    InferredBound,
    domain_note,
    held_for,
    implied_bounds,
    interval,
    into,
    listing,
    with_bounds,
)
from ldopt.model.optimal_bounds import optimal_bounds
from ldopt.model.problem import Problem
from ldopt.model.pyomo_build import linear_objective_model
from ldopt.oracles import fit_oracle
from ldopt.oracles.base import Oracle
from ldopt.solvers.base import OPTIMAL


def _objective(n: int) -> tuple[np.ndarray, sp.csr_matrix, list]:
    """A block subproblem's objective arrays over ``n`` variables: zeros, the identity, the cost keys."""
    return np.zeros(n), sp.identity(n, format="csr"), list(range(n))


def _block_model(
    problem: Problem, rows: list[int], objective: tuple[np.ndarray, sp.csr_matrix, list] | None = None
) -> CompiledModel:
    """Block subproblem ``max λ·x`` over ``rows`` (``Q = I``). The variables' arrays and the
    objective's (``objective``) are shared with the parent and the other blocks, not copied."""
    cm = problem.compiled
    n = cm.num_vars
    zeros, identity, keys = objective or _objective(n)
    return CompiledModel(
        var_names=cm.var_names,
        var_lb=cm.var_lb,
        var_ub=cm.var_ub,
        var_type=cm.var_type,
        sense="max",
        q0=zeros,
        Q=identity,
        k0=0.0,
        r=zeros,
        rows=[cm.rows[k] for k in rows],
        cost_keys=keys,
        oracles=cm.oracles,
    )


class BlockSolver:
    """Solves ``max λ·x`` over one block for batches of ``λ``: an oracle or a registry solver.

    A registry solver's point may be worth less than the block's optimum (a MIP solved to its
    tolerances); the amount its proven bound exceeds the point's value is added to ``excess`` where
    a caller passes one, so that Lagrangian bounds stay bounds (to the solver's tolerances, which
    an objective scaled to a largest coefficient of 1 keeps relative: about 1e-8 of
    ``Σ_j |λ_j| max|x_j|`` on the third audit's models, from HiGHS; exact oracles have none). A user's oracle
    (`ldopt.decomposition.user_oracles`) is checked on every call (shape, NaN, ``out=`` written) and, on its
    first, against an exact solve of a few instances."""

    def __init__(self, block: Block, name: str) -> None:
        self.block = block
        self.oracle: Oracle | None = None
        self.name = self.requested = name
        if name in ("auto", "oracle"):
            self.oracle = block.user_oracle or fit_oracle(block.compiled)
            if self.oracle is None and name == "oracle":
                raise SolverUnavailableError(
                    f"block {block.index} ({block.describe()}) has no exact oracle; "
                    "use solver='auto' or a solver name for it"
                )
        self.yours = self.oracle is not None and self.oracle is block.user_oracle
        self._local = threading.local()  # a call's fallback solves whose bound exceeds their point
        if self.oracle is not None:
            self.name = self.oracle.name
            oracle = self.oracle
            oracle.fallback = lambda lam: self._fallback(lam, oracle.fallback_solver)
        else:
            self.name, _ = block.problem.session(name)

    @cached_property
    def _support(self) -> np.ndarray:
        """The variables the block's rows touch (every one, where a row is quadratic): what scales
        a registry solve's objectives, the same whatever the layout (built at the first such solve)."""
        cm = self.block.compiled
        if any(r.is_quadratic for r in cm.rows):
            return np.arange(cm.num_vars)
        return np.unique(cm.linear_matrix().indices)

    def _registry_argmax(self, lam: np.ndarray, name: str, excess: np.ndarray | None = None) -> np.ndarray:
        # each objective scaled by a power of two (exact) to a largest coefficient near 1: a solver's
        # optimality tolerance is absolute, so a coefficient of 1e-6 next to others of 1e-3 would be
        # taken for 0 (Gurobi then proved an optimum 4.7e-4 below the block's, relative)
        top = np.abs(lam[:, self._support]).max(axis=1, initial=0.0)
        scale = np.exp2(-np.round(np.log2(np.where(top > 0, top, 1.0))))
        s = self.block.problem.solve(lam * scale[:, None], solver=name)
        if not (s.status == OPTIMAL).all():
            bad = int(np.flatnonzero(s.status != OPTIMAL)[0])
            raise DecompositionError(
                f"block {self.block.index} ({self.block.describe()}) subproblem is "
                f"{s.status[bad]} for instance {bad}; every block must be feasible and bounded"
            )
        if excess is not None:  # the solver's proven bound above its point's value (a MIP's tolerances)
            over = s.bound / scale - np.einsum("bn,bn->b", lam, s.x)
            excess += np.where(np.isfinite(over) & (over > 0), over, 0.0)
        return s.x

    def _fallback(self, lam: np.ndarray, name: str) -> np.ndarray:
        """An oracle's fallback solve; where its bound exceeds its point, the amounts wait (by
        objective) for `argmax` to add them to the caller's ``excess``."""
        over = np.zeros(len(lam))
        x = self._registry_argmax(lam, name, over)
        pending = getattr(self._local, "pending", None)
        if pending is not None and over.any():
            pending.append((np.array(lam), over))
        return x

    def describe(self) -> str:
        """How this block is solved: its exact oracle and method, or the solver that runs it."""
        if self.oracle is not None:
            return label(self.oracle, yours=self.yours)
        why = "no exact oracle fits this block" if self.requested == "auto" else "the solver named for this block"
        return f"{self.name}: {why}"

    def argmax(self, lam: np.ndarray, out: np.ndarray | None = None, excess: np.ndarray | None = None) -> np.ndarray:
        """Optimal copies ``(B, n)`` for objectives ``lam`` ``(B, n)`` (maximisation form), written
        into ``out`` when given; ``excess`` ``(B,)``, when given, gains what each instance's proven
        optimum exceeds ``lam·x`` by (0 for an exact oracle)."""
        if self.oracle is None:
            x = self._registry_argmax(lam, self.name, excess)
        elif self.yours:
            x = checked_argmax(self.oracle, self.block, lam, out)
        else:
            self._local.pending = [] if excess is not None else None
            try:
                x = self.oracle.argmax(lam, out)
                if excess is not None and self._local.pending:
                    _add_pending(lam, self._local.pending, excess)
            finally:
                self._local.pending = None
        if out is not None and x is not out:
            out[...] = x
            return out
        return x

    def argmax_on(self, lam: np.ndarray, support: np.ndarray, excess: np.ndarray | None = None) -> np.ndarray:
        """Optimal copies on the block's ``support`` ``(B, s)`` for objectives given there
        (``(B, s)``, zero off the support, whose copies then only meet their bounds): the oracle's
        own where it solves supports, else a whole-vector solve (``excess`` as in `argmax`)."""
        if self.oracle is not None and not self.yours:
            x = self.oracle.argmax_on(lam, support)
            if x is not None:
                return x
        dense = np.zeros((lam.shape[0], self.block.compiled.num_vars))
        dense[:, support] = lam
        return self.argmax(dense, excess=excess)[:, support]


def _add_pending(lam: np.ndarray, pending: list[tuple[np.ndarray, np.ndarray]], excess: np.ndarray) -> None:
    """Add the fallback solves' excesses to the instances of ``lam`` they solved (a fallback gets
    a subsequence of the batch's rows, in order)."""
    for sub, over in pending:
        i = 0
        for row, amount in zip(sub, over, strict=True):
            while i < len(lam) and not np.array_equal(lam[i], row):
                i += 1
            if i == len(lam):  # not this batch's rows (cannot happen): count it on every instance
                excess += amount
                break
            excess[i] += amount
            i += 1


@dataclass
class Block:
    """Block ``index`` of a decomposition: its rows, its subproblem, its solvers.

    Parameters
    ----------
    index
        The block's position ``k`` in the decomposition.
    rows
        The parent problem's row indices of the block.
    compiled
        The block's subproblem: the parent's variables and bounds with these rows only.
    parent
        The decomposed problem.
    user_oracle
        The oracle a user gave this block (`ldopt.decomposition.user_oracles`), or ``None``.
    """

    index: int
    rows: list[int]
    compiled: CompiledModel
    parent: Problem = field(repr=False)
    user_oracle: Oracle | None = field(default=None, repr=False)  # `ldopt.decomposition.user_oracles`
    oracle_checked: bool = field(default=False, init=False, repr=False)  # its first-use spot check passed
    problem: Problem = field(init=False, repr=False)
    _solvers: dict[str, BlockSolver] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self.problem = Problem(self.compiled)

    def describe(self) -> str:
        """The block's rows, by name (the first three and a count)."""
        names = [r.name for r in self.compiled.rows]
        return ", ".join(names[:3]) + (f", … ({len(names)} rows)" if len(names) > 3 else "")

    def solver(self, name: str = "auto") -> BlockSolver:
        """The (cached) solver of this block's subproblem.

        Parameters
        ----------
        name
            ``"auto"`` (the exact oracle where one fits, else the registry's choice) or a solver name.
        """
        if name not in self._solvers:
            self._solvers[name] = BlockSolver(self, name)
        return self._solvers[name]

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_solvers"] = {}
        return state

    def to_pyomo(self) -> Any:
        """A standalone Pyomo model of this block's subproblem in the user's sense.

        ``model.c`` (mutable Param over ``model.I``) holds the objective coefficients ``λ_k``;
        ``model.x[j]`` is the parent problem's variable ``j`` (``parent.var_names[j]``).
        """
        return linear_objective_model(self.compiled, self.parent.sense, name=f"block {self.index}")


class Blocks:
    """A [`Problem`][ldopt.Problem]'s constraint blocks, their subproblems and solvers: the data of a
    decomposition. [`Decomposition`][ldopt.Decomposition] (what [`decompose()`][ldopt.decompose]
    returns) adds the algorithms that run on it."""

    def __init__(self, problem: Problem, groups: list[list[int]], oracles: Any = None) -> None:
        self.problem = problem
        objective = _objective(problem.num_vars)  # one for every block
        self.blocks = [Block(k, rows, _block_model(problem, rows, objective), problem) for k, rows in enumerate(groups)]
        self.inferred: dict[int, list[InferredBound]] = {}  # block -> the bounds added to it
        self._bound_blocks()
        self.user_oracles = attach(self, oracles)  # block -> the oracle a user gave it

    def _bound_blocks(self) -> None:
        """Give every block that leaves a variable unbounded the bounds the whole model implies
        for it (`ldopt.model.implied_bounds`), else those every optimum meets
        (`ldopt.model.optimal_bounds`); refuse a variable that neither bounds."""
        needs = {b.index: unbounded_sides(b.compiled) for b in self.blocks}
        wanted = sorted({side for sides in needs.values() for side in sides})
        if not wanted:
            return
        cm = self.problem.compiled

        found = {(ib.var, ib.side): ib for ib in implied_bounds(cm, wanted)}
        open_sides = [s for s in wanted if s not in found]  # unbounded in the model: bounded at an optimum?
        at_optimum = optimal_bounds(cm, open_sides)
        found |= {(ib.var, ib.side): ib for ib in at_optimum.found}
        for j, side in wanted:
            if (j, side) not in found:
                where, call = ("above", "setub") if side == "upper" else ("below", "setlb")
                raise DecompositionError(
                    f"variable '{cm.var_names[j]}' is unbounded {where} in the whole model (its LP relaxation), so "
                    f"no block can bound it, and no bound that an optimum meets was found: "
                    f"{at_optimum.why_not[(j, side)]}; give it a bound that every optimal solution meets or a row "
                    f"that bounds it, e.g. model.{cm.var_names[j]}.{call}(...)"
                )
        for k, sides in needs.items():
            if not sides:
                continue
            added = [found[s] for s in sides]
            b = self.blocks[k]
            self.blocks[k] = Block(k, b.rows, with_bounds(b.compiled, added), self.problem)
            self.inferred[k] = added  # bounded now: a side the probe did not flag stays bounded with more bounds

    @property
    def key(self) -> str:
        """A content hash of the problem and the blocks (equal decompositions hash equal)."""
        if "_key" not in self.__dict__:
            from ldopt.runtime.cache import digest  # noqa: PLC0415

            mine = sorted((k, o.key()) for k, o in self.user_oracles.items())
            self._key = digest(
                self.problem.compiled.fingerprint(), [b.rows for b in self.blocks], *([mine] if mine else [])
            )
        return self._key

    @cached_property
    def cost_range(self) -> tuple[float, float] | None:
        """The interval every cost must lie in for the bounds added to the blocks to hold (the cost
        Param's declared domain, `ldopt.model.optimal_bounds`), or ``None`` where they hold for all
        costs (found once: the blocks' bounds do not change)."""
        return held_for(ib for added in self.inferred.values() for ib in added)

    def check_costs(self, costs: Any, name: str = "costs") -> np.ndarray:
        """``costs`` as ``(B, num_costs)`` float64 (`Problem.check_costs`), refused where a cost lies
        outside `cost_range`: the blocks' bounds, and so every bound and solution of this
        decomposition, hold only inside it.

        Parameters
        ----------
        costs
            One cost vector or a batch.
        name
            The argument's name in error messages.
        """
        c, _ = self.problem.check_costs(costs, name)
        if self.cost_range is None:
            return c
        lo, hi = self.cost_range
        bad = (c < lo) | (c > hi)
        if bad.any():
            b, k = (int(i) for i in np.argwhere(bad)[0])
            example = next(ib for added in self.inferred.values() for ib in added if ib.costs is not None)
            raise InputError(
                f"{name}: expected every cost in {interval(lo, hi)}, the cost Param's domain, got {c[b, k]:g} for "
                f"{self.problem.cost_names[k]} of instance {b} ({int(bad.any(axis=1).sum())} of {len(c)} instances "
                f"outside); the bounds added to the blocks hold only there (e.g. {example}): map the costs "
                f"(a model's predictions) into the domain, e.g. {into(lo, hi)} of a model's output z"
            )
        return c

    @property
    def num_blocks(self) -> int:
        """``m``: the number of blocks."""
        return len(self.blocks)

    @property
    def num_vars(self) -> int:
        """``n``: the problem's variables (every block has a copy of all of them)."""
        return self.problem.num_vars

    def block(self, k: int) -> Block:
        """Block ``k`` (an index in ``[0, m)``)."""
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k < self.num_blocks:
            raise DecompositionError(f"block: expected an index in [0, {self.num_blocks}), got {k!r}")
        return self.blocks[int(k)]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.num_blocks} blocks of {self.problem!r})"

    def describe(self, solver: Any = "auto") -> str:
        """One line per block: its rows, and the oracle (or solver) that ``solver`` gives it; then
        the bounds it was given because the model implies them (its own rows do not)."""
        lines = [f"{self!r}:"]
        lines += domain_note(ib for added in self.inferred.values() for ib in added)
        for b, s in zip(self.blocks, self.block_solvers(solver), strict=True):
            lines.append(f"  block {b.index} [{b.describe()}] — {s.describe()}")
            if b.index in self.inferred:
                lines.append(f"    {listing(self.inferred[b.index])}")
        return "\n".join(lines)

    def block_solvers(self, solver: Any = "auto") -> list[BlockSolver]:
        """One solver per block: a name for all, a list with one per block, or ``{block: name}``
        (also as ``(block, name)`` pairs, as [`DualSettings`][ldopt.dual.DualSettings] keeps it)."""
        m = self.num_blocks
        if isinstance(solver, str):
            names = [solver] * m
        elif isinstance(solver, dict) or (
            isinstance(solver, (list, tuple)) and solver and all(isinstance(s, tuple) and len(s) == 2 for s in solver)
        ):
            given: dict[int, str] = dict(solver)
            bad = [k for k in given if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k < m]
            if bad:
                raise DecompositionError(f"solver: expected block indices in [0, {m}), got {bad}")
            names = [given.get(k, "auto") for k in range(m)]
        elif isinstance(solver, (list, tuple)):
            names = list(solver)
            if len(names) != m:
                raise DecompositionError(f"solver: expected one name per block ({m}), got {len(names)}")
        else:
            raise DecompositionError(
                f"solver: expected a solver name, a list with one per block or {{block: name}}, got {solver!r}"[:300]
            )
        for nm in names:
            if not isinstance(nm, str) or not nm:
                raise DecompositionError(f"solver: expected solver names such as 'auto' or 'highs', got {nm!r}"[:300])
        return [b.solver(nm) for b, nm in zip(self.blocks, names, strict=True)]
