"""Which rows form each block (``decompose(p, blocks=...)``), and which variable sides leave a
block's subproblem unbounded for some objective (the directions of its recession cone)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ldopt.errors import DecompositionError
from ldopt.model.compiled import CompiledModel, Row
from ldopt.model.problem import Problem
from ldopt.solvers.base import OPTIMAL


def groups_of(problem: Problem, blocks: Any) -> list[list[int]]:
    """The rows of each block that ``blocks=`` names (see [`ldopt.decompose()`][ldopt.decompose]): every row once."""
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
    if not isinstance(blocks, (list, tuple)):
        raise DecompositionError(
            f"blocks: expected None, 'component' or a list of groups (rows by index or name, or component "
            f"names), got {type(blocks).__name__}"
        )
    groups = []
    for g in blocks:
        if isinstance(g, (str, int, np.integer)):
            items = [g]
        elif isinstance(g, (list, tuple, set, frozenset, range)):
            items = list(g)
        else:
            raise DecompositionError(f"blocks: expected each group to be a list of rows, got {g!r}")
        idx: list[int] = []
        for it in items:
            if isinstance(it, (int, np.integer)) and not isinstance(it, bool) and 0 <= it < len(rows):
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


def unbounded_sides(cm: CompiledModel) -> list[tuple[int, str]]:
    """The variable sides (``(j, "lower" | "upper")``) along which ``max λ·x`` over ``cm`` can be
    unbounded: the directions of its recession cone (of its LP relaxation) that move ``x_j``."""
    free_lo, free_hi = ~np.isfinite(cm.var_lb), ~np.isfinite(cm.var_ub)
    if not (free_lo.any() or free_hi.any()):
        return []
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
    dirs = [(int(j), "upper") for j in np.flatnonzero(free_hi)] + [(int(j), "lower") for j in np.flatnonzero(free_lo)]
    lam = np.zeros((len(dirs), n))
    for r, (j, side) in enumerate(dirs):
        lam[r, j] = 1.0 if side == "upper" else -1.0
    sol = probe.solve(lam, solver="highs")
    return [d for r, d in enumerate(dirs) if sol.status[r] != OPTIMAL or sol.objective[r] > 1e-9]
