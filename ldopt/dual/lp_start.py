"""Multipliers from the LP relaxation: a start at the cost of one warm LP solve per instance.

The LP relaxation ``max q·x  s.t.  lo ≤ A x ≤ hi,  lb ≤ x ≤ ub`` has row duals ``y`` and reduced
costs ``r = q − Aᵀy``. Splitting ``q`` by the rows' blocks,

    λ_k = A_kᵀ y_k + r / c   on block k's support (c_j: the blocks that touch x_j),

gives multipliers with ``Σ_k λ_k = q`` whose bound ``B(λ)`` is at most the LP's optimum: ``y_k``
with the reduced costs ``r / c`` is a feasible dual of block ``k``'s own LP relaxation, and those
duals' objectives add up to the LP's dual objective. With integer blocks solved exactly, ``B(λ)``
lies between the Lagrangian dual ``LD*`` and the LP bound, after one LP solve instead of tens of
subgradient steps; the μ-forms start from the same ``λ`` (``μ_k = −λ_k``). Giving each main
block the reduced costs whole instead (``μ_k = −A_kᵀ y_k``) leaves the other blocks objectives
proportional to their weights (``y_k A_k``): subset-sum problems, on which the knapsack oracle's
core does not shrink (a hundred times slower on the 10,000-item MKP). The LP's
point, rounded, repaired and improved
([`offer_lp_point()`][ldopt.evaluate.lp_relaxation.offer_lp_point]), is also a first primal value.
"""

from __future__ import annotations

import numpy as np

from ldopt.decomposition.blocks import Blocks
from ldopt.dual.support import Support
from ldopt.evaluate.lp_relaxation import LPRelaxation, solve_relaxation


def lp_multipliers(dec: Blocks, q: np.ndarray, sparse: bool, lp: LPRelaxation | None = None) -> np.ndarray:
    """The symmetric multipliers of the LP relaxation's duals (see the module docstring), in the
    max form: ``(b, nnz)`` on the supports (``sparse``) or ``(b, m, n)``. An instance whose LP is
    not optimal gets the symmetric start ``q / c``.

    Parameters
    ----------
    dec
        The decomposition.
    q
        Objectives ``(b, n)`` in the max form.
    sparse
        Lay the multipliers out on the supports.
    lp
        The LP relaxation of these objectives (solved here when ``None``).
    """
    lp = solve_relaxation(dec.problem, q) if lp is None else lp
    ok = lp.optimal
    A = dec.problem.compiled.linear_matrix()
    sup = Support.of(dec)
    count = sup.count
    y = np.where(ok[:, None], lp.duals, 0.0)
    r = np.where(ok[:, None], lp.reduced, q)  # no LP: the whole cost split evenly
    lam = sup.gather(r / np.maximum(count, 1))  # each block's share of r, on its support
    for k, block in enumerate(dec.blocks):
        at = sup.variables(k)
        lam[:, sup.block(k)] += np.asarray(A[block.rows][:, at].T @ y[:, block.rows].T).T  # A_kᵀ y_k
    if sparse:
        return lam
    # every block's share where no block touches x_j (the sparse layout keeps that cost in its box)
    return sup.to_dense(lam, np.where(count == 0, r / dec.num_blocks, 0.0))
