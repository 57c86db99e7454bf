"""[`decompose()`][ldopt.decompose] and what it returns: a [`Decomposition`][ldopt.Decomposition],
the blocks of `ldopt.decomposition.blocks` with the algorithm that optimises their multipliers.

The data does not depend on the algorithm: `ldopt.dual` works on
[`Blocks`][ldopt.decomposition.blocks.Blocks], and this module, above both, joins them."""

from __future__ import annotations

from typing import Any

from ldopt.decomposition.blocks import Blocks
from ldopt.decomposition.grouping import groups_of
from ldopt.dual.solve import solve_dual
from ldopt.errors import DecompositionError
from ldopt.model.problem import Problem


class Decomposition(Blocks):
    """The Lagrangian decomposition of a [`Problem`][ldopt.Problem] into constraint blocks: its
    blocks (``dec.block(k)``, ``dec.describe()``) and ``dec.dual(costs, ...)``, which optimises the
    multipliers ([`solve_dual()`][ldopt.dual.solve_dual] with ``dec`` first: the same parameters).

    Parameters
    ----------
    problem
        The problem to decompose.
    groups
        The row indices of each block (what ``decompose(problem, blocks)`` resolves ``blocks`` to).
    oracles
        ``{block index: Oracle}``: the users' oracles (``decompose(..., oracles=)``).
    """

    dual = solve_dual


def decompose(problem: Problem, blocks: Any = None, *, oracles: Any = None) -> Decomposition:
    """Decompose ``problem`` into constraint blocks (see `ldopt.decomposition.blocks`).

    A block that leaves a variable unbounded gets the bounds the whole model implies for it
    (`ldopt.model.implied_bounds`), else, for a variable the whole model leaves unbounded, the bound
    every optimum meets where its fixed cost penalises it (`ldopt.model.optimal_bounds`: a
    penalised slack, an unmet demand); ``dec.describe()`` lists them with their sources. A variable
    that neither bounds is refused, named, with the fix.

    Parameters
    ----------
    problem
        The compiled problem ([`Problem.from_pyomo()`][ldopt.Problem.from_pyomo]).
    blocks
        ``None``: one block per row; ``"component"``: one per Pyomo constraint component; or a list
        of groups, each a list of row indices, row names or component names (every row in one group).
    oracles
        ``{block index: an Oracle}``: your algorithms for blocks whose structure ldopt does not know
        (`ldopt.decomposition.user_oracles`; ``check_oracle()`` tests one), used wherever the block is solved
        with ``"auto"`` or ``"oracle"``.

    Returns
    -------
    Decomposition
        Its blocks, their subproblems and solvers; ``dec.dual(costs)`` optimises the multipliers.
    """
    if not isinstance(problem, Problem):
        raise DecompositionError(f"problem: expected an ldopt.Problem, got {type(problem).__name__}")
    if problem.num_constraints == 0:
        raise DecompositionError("the problem has no constraints to decompose")
    problem.check_parameters()
    return Decomposition(problem, groups_of(problem, blocks), oracles)
