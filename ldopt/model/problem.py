"""``Problem``: a Pyomo model compiled once, solved for batches of cost vectors."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from ldopt import checks
from ldopt.arrays import as_batch, broadcast_pair
from ldopt.errors import InputError
from ldopt.model.compile import compile_pyomo
from ldopt.model.compiled import CompiledModel
from ldopt.model.solution import Solution, objectives
from ldopt.model.violation import RowArrays
from ldopt.oracles.base import Oracle
from ldopt.runtime.progress import progress_bar
from ldopt.solvers import registry
from ldopt.solvers.base import HAS_SOLUTION, Availability, Session, SolverOptions


def _key(k: Any) -> str:
    return ",".join(map(str, k)) if isinstance(k, tuple) else str(k)


def _oracle_classes(oracles: Any) -> tuple[type[Oracle], ...]:
    if isinstance(oracles, type) or not isinstance(oracles, list | tuple):
        oracles = [oracles]
    for cls in oracles:
        if not (isinstance(cls, type) and issubclass(cls, Oracle)):
            raise InputError(
                f"oracles: expected ldopt.oracles.Oracle subclasses (their fit() recognises the model), got {cls!r}; "
                "an oracle made for one block goes to ldopt.decompose(..., oracles={block: oracle})"
            )
    return tuple(oracles)


class Problem:
    """``max|min (q0 + Q c)·x + k0 + r·c`` over linear and convex quadratic rows and a domain.

    Build it with `from_pyomo()`; then `solve()` batches of cost vectors with any
    registered solver, chosen by name.

    Parameters
    ----------
    compiled
        The compiled arrays ([`Problem.from_pyomo()`][ldopt.Problem.from_pyomo] makes them).
    """

    def __init__(self, compiled: CompiledModel) -> None:
        pyomo = hasattr(compiled, "component_objects")
        fix = "compile a Pyomo model with ldopt.Problem.from_pyomo(model, cost=model.<cost Param>)" if pyomo else ""
        self.compiled = checks.instance("Problem", compiled, CompiledModel, "a CompiledModel", fix)
        self._sessions: dict[tuple[str, SolverOptions, int], tuple[str, Session]] = {}

    # construction -----------------------------------------------------------------------------
    @classmethod
    def from_pyomo(cls, model: Any, cost: Any, *, oracles: Any = ()) -> Problem:
        """Compile ``model`` whose objective depends on the mutable Param ``cost``, once.

        Parameters
        ----------
        model
            A Pyomo ``ConcreteModel`` (an ``AbstractModel`` instantiated first): one active
            objective linear in the variables with coefficients affine in ``cost``; linear or convex
            quadratic constraints; integer variables (a bound nothing gives stays infinite: the
            solvers do not need it, ``ldopt.decompose`` asks for it). Apply ``gdp.bigm`` or
            ``gdp.hull`` to disjunctions and ``core.logical_to_linear`` to logical constraints first.
        cost
            The mutable ``Param`` of ``model`` that varies per instance (e.g. ``model.c``); it may
            appear in the objective only. Other mutable Params keep their values of this moment.
        oracles
            [`Oracle`][ldopt.oracles.base.Oracle] classes that know this model (e.g.
            [`tsp_tours.Tours`][ldopt.problems.tsp_tours.Tours]): tried before ldopt's own oracles
            wherever an oracle is fitted (``solver="auto"`` on the whole problem, each block of a
            decomposition); one whose ``fit`` does not recognise the model is passed over.

        Returns
        -------
        Problem
            The compiled problem; an unsupported model raises a
            [`ModelError`][ldopt.ModelError] naming the component and the fix.
        """
        compiled = compile_pyomo(model, cost)
        compiled.oracles = _oracle_classes(oracles)
        return cls(compiled)

    # shape ------------------------------------------------------------------------------------
    @property
    def num_vars(self) -> int:
        """Variables of the compiled model."""
        return self.compiled.num_vars

    @property
    def num_costs(self) -> int:
        """Entries of the cost vector ``c``."""
        return self.compiled.num_costs

    @property
    def num_constraints(self) -> int:
        """Constraint rows of the compiled model."""
        return len(self.compiled.rows)

    @property
    def sign(self) -> float:
        """+1 for a maximisation, -1 for a minimisation."""
        return self.compiled.sign

    @property
    def sense(self) -> str:
        """``"max"`` or ``"min"``."""
        return self.compiled.sense

    @property
    def var_names(self) -> list[str]:
        """The variables' Pyomo names, in the order of ``x``'s columns."""
        return list(self.compiled.var_names)

    @property
    def cost_names(self) -> list[str]:
        """The cost vector's entries by name, in the order of ``costs``' columns: the cost Param's
        index order (``"c[3]"``, ``"c[a,b]"``), which need not be the variables' order."""
        name = self.compiled.cost_name
        return [name if k is None else f"{name}[{_key(k)}]" for k in self.compiled.cost_keys]

    @property
    def is_mip(self) -> bool:
        """Whether some variable is integer or binary."""
        return bool((self.compiled.var_type != "C").any())

    @property
    def has_quadratic(self) -> bool:
        """Whether some row is a convex quadratic constraint."""
        return any(r.is_quadratic for r in self.compiled.rows)

    def __repr__(self) -> str:
        kind = "MIP" if self.is_mip else "continuous"
        quad = ", quadratic rows" if self.has_quadratic else ""
        return (
            f"Problem({self.sense}, {self.num_vars} vars ({kind}), {self.num_constraints} "
            f"constraints{quad}, {self.num_costs} costs)"
        )

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_sessions"] = {}  # solver sessions stay in their process
        return state

    # arithmetic -------------------------------------------------------------------------------
    def check_costs(self, costs: Any, name: str = "costs") -> tuple[np.ndarray, bool]:
        """``costs`` as ``(B, num_costs)`` float64, raising "expected X, got Y" otherwise.

        Parameters
        ----------
        costs
            One cost vector ``(num_costs,)`` or a batch ``(B, num_costs)``.
        name
            The argument's name in error messages.
        """
        return as_batch(costs, self.num_costs, name)

    def objective_coefficients(self, costs: Any) -> np.ndarray:
        """``q(c) = q0 + Q c`` for each cost vector: ``(B, num_vars)``.

        Parameters
        ----------
        costs
            One cost vector or a batch.
        """
        c, _ = self.check_costs(costs)
        with np.errstate(over="ignore", invalid="ignore"):
            q = self.compiled.q0[None, :] + (self.compiled.Q @ c.T).T
        if not np.isfinite(q).all():
            b = int(np.flatnonzero(~np.isfinite(q).all(axis=1))[0])
            raise InputError(
                f"costs: the objective coefficients q0 + Q·c of instance {b} overflow float64 (costs up to "
                f"{np.abs(c[b]).max():.3g}); expected costs on a scale the objective can hold: rescale them"
            )
        return q

    def objective(self, x: Any, costs: Any) -> np.ndarray:
        """``f(x, c)`` for batches of solutions and costs (either may be a single vector).

        Parameters
        ----------
        x
            Solutions ``(B, num_vars)`` or one ``(num_vars,)``.
        costs
            Cost vectors ``(B, num_costs)`` or one.
        """
        xb, _ = as_batch(x, self.num_vars, "x", allow_nan=True)
        c, _ = self.check_costs(costs)
        xb, c = broadcast_pair(xb, c, ("x", "costs"))
        q = self.compiled.q0[None, :] + (self.compiled.Q @ c.T).T
        return np.einsum("bi,bi->b", q, xb) + self.compiled.k0 + c @ self.compiled.r

    def violation(self, x: Any) -> np.ndarray:
        """Largest constraint or bound violation of each solution: ``(B,)`` (0 if feasible).

        Parameters
        ----------
        x
            Solutions ``(B, num_vars)`` or one ``(num_vars,)``.
        """
        xb, _ = as_batch(x, self.num_vars, "x", allow_nan=True)
        if "_rows" not in self.__dict__:
            self._rows = RowArrays.of(self.compiled)
        return self._rows.violation(xb)

    def check_parameters(self) -> None:
        """Raise a [`ModelError`][ldopt.errors.ModelError] if a mutable Param other than the cost changed
        since compilation: its value was frozen into the arrays then (compile the model again)."""
        self.compiled.frozen.check()

    # solving ----------------------------------------------------------------------------------
    def session(self, solver: str = "auto", options: SolverOptions | None = None) -> tuple[str, Session]:
        """This thread's cached solver session for ``solver`` and ``options`` (built on first use).

        Sessions are per thread: a solver model is never shared by two threads, so a problem may
        be solved from any number of threads at once.

        Parameters
        ----------
        solver
            A solver name or ``"auto"``.
        options
            The solver options; ``None``: the defaults.
        """
        options = options or SolverOptions()
        key = (checks.solver_name("solver", solver), options, threading.get_ident())
        if key not in self._sessions:
            self._sessions[key] = registry.open_session(self.compiled, solver, options)
        return self._sessions[key]

    def solvers(self) -> dict[str, Availability]:
        """Every registered solver's availability for this problem, with the reason if not."""
        return {name: registry.availability(self.compiled, name) for name in registry.registered()}

    def solve(
        self,
        costs: Any,
        solver: str = "auto",
        *,
        time_limit: float | None = None,
        gap: float = 0.0,
        threads: int | None = None,
        verbose: bool = False,
        options: dict[str, Any] | None = None,
        progress: bool = False,
        start: Any = None,
    ) -> Solution:
        """Solve one cost vector ``(num_costs,)`` or a batch ``(B, num_costs)``.

        Exact by default (``gap=0``). Infeasible or unbounded instances are reported in
        ``Solution.status`` (their rows of ``x`` are NaN); they do not stop the batch. Every answer
        is checked against the compiled rows and bounds (status ``"violated"`` where it fails).

        Parameters
        ----------
        costs
            One cost vector ``(num_costs,)`` or a batch ``(B, num_costs)``, in the order of
            [`cost_names`][ldopt.Problem.cost_names].
        solver
            ``"highs"``, ``"gurobi"``, ``"cvxpy"``, ``"oracle"``, ``"pyomo:<name>"`` or ``"auto"`` (an
            exact oracle where one fits the whole problem, then Gurobi where licensed, then HiGHS or
            CVXPY).
        time_limit
            Seconds per instance, or ``None``; an instance stopped with an incumbent is
            ``"feasible"`` (with its bound), without one ``"no_solution"``.
        gap
            Relative MIP gap at which to stop (0: exact).
        threads
            Solver threads, or ``None`` (the solver's default inside ldopt's pools: one).
        verbose
            Show the solver's log.
        options
            Solver-specific options passed as they are (e.g. ``{"presolve": "off"}`` for HiGHS).
        progress
            Show a progress bar over the instances.
        start
            ``(num_vars,)`` or ``(B, num_vars)``: a point per instance for MIP solvers to start from
            (NaN rows ignored), e.g. the previous solution of an instance whose costs changed a little.

        Returns
        -------
        Solution
            ``x``, ``objective`` (``f(x, c)``), the solver's ``bound``, ``status``, ``time`` and
            ``messages`` per instance.
        """
        c, _ = self.check_costs(costs)
        solver = checks.solver_name("solver", solver)
        progress = checks.boolean("progress", progress)
        self.check_parameters()
        starts = None
        if start is not None:
            starts, _ = as_batch(start, self.num_vars, "start", allow_nan=True)
            starts, _ = broadcast_pair(starts, c, ("start", "costs"))
        opts = SolverOptions.make(time_limit, gap, threads, verbose, options)
        name, session = self.session(solver, opts)
        q = self.objective_coefficients(c)
        B, n = c.shape[0], self.num_vars
        X = np.full((B, n), np.nan)
        bound = np.full(B, np.nan)
        status = np.empty(B, dtype=object)
        times = np.empty(B)
        messages = [""] * B
        for b in progress_bar(range(B), enable=progress, desc=f"solve[{name}]"):
            t0 = time.perf_counter()
            x0 = None if starts is None or np.isnan(starts[b]).any() else starts[b]
            res = session.solve(q[b], c[b], x0)
            times[b] = time.perf_counter() - t0
            status[b] = res.status
            messages[b] = res.message
            if res.status in HAS_SOLUTION and res.x is not None:
                X[b] = res.x
                bound[b] = res.bound
        offset = self.compiled.k0 + c @ self.compiled.r
        obj = objectives(q, X, offset)
        return Solution(X, obj, bound + offset, status.astype(str), times, name, messages)
