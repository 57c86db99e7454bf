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

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import scipy.sparse as sp

from .compile import CompiledModel, Row
from .errors import DecompositionError, SolverUnavailableError
from .oracles import fit_oracle
from .oracles.base import Oracle
from .problem import Problem
from .solvers import registry
from .solvers.base import OPTIMAL


def _block_model(problem: Problem, rows: list[int]) -> CompiledModel:
    """Block subproblem ``max λ·x`` over ``rows``: objective = the cost ``λ`` (``Q = I``)."""
    cm = problem.compiled
    n = cm.num_vars
    return CompiledModel(
        var_names=list(cm.var_names),
        var_lb=cm.var_lb.copy(),
        var_ub=cm.var_ub.copy(),
        var_type=cm.var_type.copy(),
        sense="max",
        q0=np.zeros(n),
        Q=sp.identity(n, format="csr"),
        k0=0.0,
        r=np.zeros(n),
        rows=[cm.rows[k] for k in rows],
        cost_keys=list(range(n)),
    )


class BlockSolver:
    """Solves ``max λ·x`` over one block for batches of ``λ``: an oracle or a registry solver."""

    def __init__(self, block: Block, name: str) -> None:
        self.block = block
        self.oracle: Oracle | None = None
        self.name = name
        if name in ("auto", "oracle"):
            self.oracle = fit_oracle(block.compiled)
            if self.oracle is None and name == "oracle":
                raise SolverUnavailableError(
                    f"block {block.index} ({block.describe()}) has no exact oracle; "
                    "use solver='auto' or a solver name for it"
                )
        if self.oracle is not None:
            self.name = self.oracle.name
            if hasattr(self.oracle, "fallback"):
                self.oracle.fallback = lambda lam: self._registry_argmax(lam, "auto")
        else:
            self.name, _ = block.problem.session(name)

    def _registry_argmax(self, lam: np.ndarray, name: str) -> np.ndarray:
        s = self.block.problem.solve(lam, solver=name)
        if not (s.status == OPTIMAL).all():
            bad = int(np.flatnonzero(s.status != OPTIMAL)[0])
            raise DecompositionError(
                f"block {self.block.index} ({self.block.describe()}) subproblem is "
                f"{s.status[bad]} for instance {bad}; every block must be feasible and bounded"
            )
        return s.x

    def argmax(self, lam: np.ndarray) -> np.ndarray:
        """Optimal copies ``(B, n)`` for objectives ``lam`` ``(B, n)`` (maximisation form)."""
        if self.oracle is not None:
            return self.oracle.solve(lam)
        return self._registry_argmax(lam, self.name)


@dataclass
class Block:
    """Block ``index`` of a decomposition: its rows, its subproblem, its solvers."""

    index: int
    rows: list[int]
    compiled: CompiledModel
    parent: Problem = field(repr=False)
    problem: Problem = field(init=False, repr=False)
    _solvers: dict[str, BlockSolver] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self.problem = Problem(self.compiled)

    def describe(self) -> str:
        names = [r.name for r in self.compiled.rows]
        return ", ".join(names[:3]) + (f", … ({len(names)} rows)" if len(names) > 3 else "")

    def solver(self, name: str = "auto") -> BlockSolver:
        """The (cached) solver of this block's subproblem."""
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
        import pyomo.environ as pyo  # noqa: PLC0415

        cm = self.compiled
        n = cm.num_vars
        m = pyo.ConcreteModel(name=f"block {self.index}")
        m.I = pyo.RangeSet(0, n - 1)
        m.c = pyo.Param(m.I, mutable=True, initialize=0.0)
        domain = {"C": pyo.Reals, "I": pyo.Integers, "B": pyo.Binary}

        def bounds(_, j):
            lo, hi = cm.var_lb[j], cm.var_ub[j]
            return (None if not np.isfinite(lo) else float(lo), None if not np.isfinite(hi) else float(hi))

        m.x = pyo.Var(m.I, domain=lambda _, j: domain[cm.var_type[j]], bounds=bounds)
        sense = pyo.maximize if self.parent.sense == "max" else pyo.minimize
        m.obj = pyo.Objective(expr=sum(m.c[j] * m.x[j] for j in m.I), sense=sense)
        m.rows = pyo.ConstraintList()
        for row in cm.rows:
            body = sum(float(a) * m.x[int(j)] for j, a in zip(row.index, row.coef))
            if row.P is not None:
                ii, jj = np.nonzero(row.P)
                body = body + sum(float(row.P[i, j]) * m.x[int(i)] * m.x[int(j)] for i, j in zip(ii, jj))
            if row.is_equality:
                m.rows.add(body == float(row.hi))
            else:
                lo = float(row.lo) if np.isfinite(row.lo) else None
                hi = float(row.hi) if np.isfinite(row.hi) else None
                m.rows.add(pyo.inequality(lo, body, hi))
        return m


class Decomposition:
    """The Lagrangian decomposition of a :class:`~ldopt.Problem` into constraint blocks."""

    def __init__(self, problem: Problem, groups: list[list[int]]) -> None:
        self.problem = problem
        self.blocks = [Block(k, rows, _block_model(problem, rows), problem) for k, rows in enumerate(groups)]
        for b in self.blocks:
            _check_bounded(b)

    @property
    def key(self) -> str:
        """A content hash of the problem and the blocks (equal decompositions hash equal)."""
        if "_key" not in self.__dict__:
            from .cache import digest  # noqa: PLC0415

            self._key = digest(self.problem.compiled.fingerprint(), [b.rows for b in self.blocks])
        return self._key

    @property
    def num_blocks(self) -> int:
        return len(self.blocks)

    @property
    def num_vars(self) -> int:
        return self.problem.num_vars

    def block(self, k: int) -> Block:
        if not isinstance(k, (int, np.integer)) or not 0 <= k < self.num_blocks:
            raise DecompositionError(f"block: expected an index in [0, {self.num_blocks}), got {k!r}")
        return self.blocks[int(k)]

    def __repr__(self) -> str:
        return f"Decomposition({self.num_blocks} blocks of {self.problem!r})"

    def block_solvers(self, solver: str | Sequence[str] | dict[int, str] = "auto") -> list[BlockSolver]:
        """One solver per block: a name for all, a list with one per block, or ``{block: name}``."""
        m = self.num_blocks
        if isinstance(solver, str):
            names = [solver] * m
        elif isinstance(solver, dict):
            names = [solver.get(k, "auto") for k in range(m)]
        else:
            names = list(solver)
            if len(names) != m:
                raise DecompositionError(f"solver: expected one name per block ({m}), got {len(names)}")
        return [b.solver(nm) for b, nm in zip(self.blocks, names)]

    def dual(self, costs: Any, iterations: int = 300, **kwargs: Any):
        """Optimise the multipliers for a batch of cost vectors; see :func:`ldopt.dual.solve_dual`."""
        from .dual import solve_dual  # noqa: PLC0415

        return solve_dual(self, costs, iterations=iterations, **kwargs)


def _groups(problem: Problem, blocks: Any) -> list[list[int]]:
    rows = problem.compiled.rows
    if blocks is None:
        return [[k] for k in range(len(rows))]
    if isinstance(blocks, str):
        if blocks != "component":
            raise DecompositionError(f"blocks: expected None, 'component' or a list of groups, got {blocks!r}")
        order: dict[str, list[int]] = {}
        for k, row in enumerate(rows):
            order.setdefault(row.component, []).append(k)
        return list(order.values())
    by_name = {row.name: k for k, row in enumerate(rows)}
    comps: dict[str, list[int]] = {}
    for k, row in enumerate(rows):
        comps.setdefault(row.component, []).append(k)
    groups = []
    for g in blocks:
        items = [g] if isinstance(g, (str, int, np.integer)) else list(g)
        idx: list[int] = []
        for it in items:
            if isinstance(it, (int, np.integer)) and 0 <= it < len(rows):
                idx.append(int(it))
            elif isinstance(it, str) and it in by_name:
                idx.append(by_name[it])
            elif isinstance(it, str) and it in comps:
                idx.extend(comps[it])
            else:
                raise DecompositionError(
                    f"blocks: {it!r} is neither a row index in [0, {len(rows)}), a row name nor a "
                    f"constraint component name (components: {', '.join(comps)})"
                )
        groups.append(sorted(set(idx)))
    seen = [k for g in groups for k in g]
    dup = {k for k in seen if seen.count(k) > 1}
    if dup:
        raise DecompositionError(f"blocks: rows {sorted(rows[k].name for k in dup)} are in several blocks")
    missing = sorted(set(range(len(rows))) - set(seen))
    if missing:
        raise DecompositionError(
            f"blocks: rows {[rows[k].name for k in missing[:5]]} are in no block; every row must be in one"
        )
    if any(not g for g in groups):
        raise DecompositionError("blocks: a group is empty")
    return groups


def _check_bounded(block: Block) -> None:
    """Raise if ``max λ·x`` over the block can be unbounded: its recession cone must be {0}."""
    cm = block.compiled
    free_lo, free_hi = ~np.isfinite(cm.var_lb), ~np.isfinite(cm.var_ub)
    if not (free_lo.any() or free_hi.any()):
        return
    n = cm.num_vars
    cone: list[Row] = []
    for row in cm.rows:
        hi = 0.0 if np.isfinite(row.hi) else np.inf
        lo = 0.0 if np.isfinite(row.lo) else -np.inf
        cone.append(Row(row.name, row.component, row.index, row.coef, lo, hi))
        if row.P is not None:  # directions of recession of x'Px + a·x <= u satisfy P d = 0
            for i in range(n):
                nz = np.flatnonzero(row.P[i])
                if len(nz):
                    cone.append(Row(row.name, row.component, nz, row.P[i, nz], 0.0, 0.0))
    model = replace(
        cm,
        var_lb=np.where(free_lo, -1.0, 0.0),
        var_ub=np.where(free_hi, 1.0, 0.0),
        var_type=np.full(n, "C"),
        rows=cone,
    )
    probe = Problem(model)
    dirs = [(j, 1.0) for j in np.flatnonzero(free_hi)] + [(j, -1.0) for j in np.flatnonzero(free_lo)]
    lam = np.zeros((len(dirs), n))
    for r, (j, s) in enumerate(dirs):
        lam[r, j] = s
    sol = probe.solve(lam, solver="highs")
    for r, (j, s) in enumerate(dirs):
        if sol.status[r] != OPTIMAL or sol.objective[r] > 1e-9:
            side = "above" if s > 0 else "below"
            raise DecompositionError(
                f"block {block.index} ({block.describe()}) leaves variable '{cm.var_names[j]}' "
                f"unbounded {side}; give it a finite bound or put a row bounding it in this block"
            )


def decompose(problem: Problem, blocks: Any = None) -> Decomposition:
    """Decompose ``problem``: one block per row (default), per component, or given groups."""
    if not isinstance(problem, Problem):
        raise DecompositionError(f"problem: expected an ldopt.Problem, got {type(problem).__name__}")
    if problem.num_constraints == 0:
        raise DecompositionError("the problem has no constraints to decompose")
    return Decomposition(problem, _groups(problem, blocks))
