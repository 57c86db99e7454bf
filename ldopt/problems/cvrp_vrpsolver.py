"""Exact CVRP routes by VRPSolver's branch, cut and price, checked on the edge model.

VRPSolver (BaPCod with COIN-OR CLP; Pessoa, Sadykov, Uchoa and Vanderbeck, Math. Prog. 2020; the
``routing`` extra installs ``VRPSolverEasy`` 0.1.3, the last release that ships the library)
prices elementary routes, a stronger bound than the capacity cuts of
[`cvrp_routes`][ldopt.problems.cvrp_routes]: on CaVE's CVRP30 it solves instances 3 to 11 times
sooner (``benchmarks/bench_cvrp_routes.py --against cut-loop``). Its model relaxes CaVE's edge
model in two ways: a route may serve one customer (using the depot's edge twice), and it takes
integer demands, here ``⌊q·S⌋`` with the capacity ``⌊Q·S⌋`` (every route within ``Q`` stays
within it). So its optimum is a lower bound, and its routes, where they are routes of the edge
model (checked here: every customer once, no route of one customer, every route within ``Q``, at
most ``V`` routes), are optimal there. [`routes()`][ldopt.problems.cvrp_vrpsolver.routes] reports
the customers that an instance's routes serve alone; given them, it solves again with those
customers kept from routes of their own (depots split by vehicle type, so that each of them may
only start or only end a type's routes), until none is. PyVRP's routes give VRPSolver
its first upper bound; where it proves that no better routes exist, they are the optimum.
VRPSolver stops within a relative gap of 1e-7 or an absolute one of 1e-6, the tolerance of its
optima.

Each solve runs in a worker process with a private working folder: VRPSolver writes files into
its working folder and keeps global state, and a crash there costs only that instance, which the
cut loop then solves; so does an instance during whose solve BaPCod writes an error (e.g.
"BranchingAlgorithm::run() the master solution should have been detected as integer error code
= 1", once in a CVRP30 run of some 3,000 instances), whose status is then not trusted.
"""

from __future__ import annotations

import atexit
import contextlib
import math
import os
import pickle
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from importlib.util import find_spec
from pathlib import Path
from typing import IO, Any

import numpy as np

from ldopt.problems import cvrp, cvrp_pyvrp
from ldopt.problems.tsp import edges

_SCALE = 10**4  # units of demand per unit: integer demands ⌊q·S⌋, capacity ⌊Q·S⌋
# BaPCod's parameters (VRPSolverEasy's CLP set-up, quiet) with rank-1 cuts of at most 3 rows: the
# separation of the default's 4- and 5-row cuts took most of its time on CaVE's CVRP30 (seed 44's
# first 8 test instances: 40.4 s against 8.1 s); None: VRPSolverEasy's defaults
_CONFIG: str | None = """\
MaxNbOfStagesInColGenProcedure = 3
colGenSubProbSolMode = 3
MipSolverMultiThread = 1
solverName = CLP_SOLVER
DEFAULTPRINTLEVEL = -2
RCSPrankOneCutsMaxNumRows = 3
"""
_ERROR = "error"  # in a line BaPCod writes during a solve (lower case): the instance goes to the cut loop
_NO_LIMIT = 1e8  # VRPSolver's time limit where there is none
_LOCK = threading.Lock()
_WORKERS: list[_Worker] = []  # started once per process, in one private working folder
_FOLDER: list[str] = []


def available() -> bool:
    """Whether ``VRPSolverEasy`` is installed with its library (0.1.4 and later ship without it)."""
    spec = find_spec("VRPSolverEasy")
    if spec is None or spec.origin is None:
        return False
    folder = Path(spec.origin).parent / "lib"
    return any((folder / system / name).exists() for system, name in _LIBRARIES)


_LIBRARIES = (("Linux", "libbapcod-shared.so"), ("Darwin", "libbapcod-shared.dylib"), ("Windows", "bapcod-shared.dll"))


def routes(
    c: np.ndarray,
    num_nodes: int,
    q: np.ndarray,
    Q: float,
    V: int,
    time_limit: float | None,
    workers: int,
    lone: list[list[int]] | None = None,
) -> tuple[np.ndarray, list[list[int] | None]]:
    """Optimal routes ``(B, n(n−1)/2)`` (0/1 edges, PyEPO's edge order) for edge costs ``c``
    ``(B, n(n−1)/2)``, NaN rows where VRPSolver's routes do not fit the edge model or it failed,
    and for each instance the customers that its routes serve alone (``None`` where it failed or
    reached ``time_limit``).

    Parameters
    ----------
    c
        Edge costs, checked.
    num_nodes
        Nodes, the depot included.
    q
        The customers' demands ``(n − 1,)``.
    Q
        The vehicles' capacity.
    V
        The most vehicles.
    time_limit
        Seconds per instance, or ``None``; an instance that reaches it is left NaN (to the cut loop).
    workers
        Worker processes.
    lone
        ``None``: one solve per instance. Else for each instance the customers kept from routes of
        their own: it solves again, adding those its routes serve alone, until none is.
    """
    out = np.full(c.shape, np.nan)
    alone: list[list[int] | None] = [None] * len(c)
    idle: queue.Queue[_Worker] = queue.Queue()
    for w in _workers(workers):
        idle.put(w)

    def one(i: int) -> None:
        w = idle.get()
        try:
            tours = w.ask((c[i], num_nodes, q, Q, V, time_limit, _CONFIG, None if lone is None else lone[i]))
        finally:
            idle.put(w)
        if tours is not None:
            alone[i] = sorted(t[0] for t in tours if len(t) == 1)
            if fits(tours, num_nodes, q, Q, V):
                out[i] = cvrp_pyvrp.edges_of(tours, num_nodes)

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(one, range(len(c))))
    return out, alone


def fits(tours: list[list[int]], num_nodes: int, q: np.ndarray, Q: float, V: int) -> bool:
    """Whether ``tours`` (customers in order) are routes of the edge model: every customer once, at
    most ``V`` routes, each of two customers or more and within ``Q``."""
    seen = [v for t in tours for v in t]
    return (
        sorted(seen) == list(range(1, num_nodes))
        and len(tours) <= V
        and all(len(t) >= 2 and q[np.asarray(t) - 1].sum() <= Q for t in tours)
    )


# an instance for a worker: costs, nodes, demands, capacity, vehicles, time limit, _CONFIG, customers
# kept from routes of their own (None: one solve)
_Task = tuple[np.ndarray, int, np.ndarray, float, int, float | None, str | None, list[int] | None]


def _solve(task: _Task) -> list[list[int]] | None:
    """One instance in a worker: VRPSolver's optimal routes (customers in order), PyVRP's where
    VRPSolver proves none better, or ``None`` (not solved to optimality). Given customers kept from
    routes of their own ([`_model()`][ldopt.problems.cvrp_vrpsolver._model]), it solves again,
    adding those its routes serve alone, until no route serves one customer."""
    c, n, q, Q, V, limit, config, kept = task
    began = time.perf_counter()
    E = np.array(edges(n))
    start = cvrp_pyvrp.tours(c, n, q, Q, V, cvrp.min_vehicles(q, Q))
    pi = cvrp_pyvrp.potentials(c, n)  # every cost ≥ 0, the order of solutions kept
    d = c + pi[E[:, 0]] + pi[E[:, 1]]
    bound = {} if start is None else {"upper_bound": float(d @ cvrp_pyvrp.edges_of(start, n))}
    lone = list(kept or [])
    while True:
        left = None if limit is None else limit - (time.perf_counter() - began)
        if left is not None and left <= 0:
            return None
        model = _model(d, n, q, Q, V, lone)
        model.set_parameters(
            time_limit=float(left or _NO_LIMIT),
            solver_name="CLP",
            print_level=-2,
            config_file=_config_file(config, left),
            **bound,
        )
        said: list[str] = []
        with _stderr_read(said):
            model.solve()
        if any(_ERROR in line.lower() for line in said):
            return None  # BaPCod reported an error inside the solve: its status is not trusted
        if model.status == 2 and start is not None:  # none better than PyVRP's: they are optimal
            return start
        if model.status != 0:
            return None
        tours = [[int(p) for p in r.point_ids[1:-1]] for r in model.solution.routes]  # optimal routes
        alone = sorted({t[0] for t in tours if len(t) == 1} - set(lone))
        if not alone or kept is None:
            return tours
        lone += alone


@contextlib.contextmanager
def _stderr_read(lines: list[str]) -> Iterator[None]:
    """Within the block, what is written to the standard error (file descriptor 2, where BaPCod
    writes) goes to a private file; after it, its text is written to the standard error still and
    its lines are appended to ``lines``."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as f:
        os.dup2(f.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            f.seek(0)
            text = f.read()
            with os.fdopen(os.dup(2), "wb") as err:  # the whole text, however the descriptor takes it
                err.write(text)
            lines += text.decode(errors="replace").splitlines()


def _model(d: np.ndarray, n: int, q: np.ndarray, Q: float, V: int, lone: list[int]) -> Any:
    """VRPSolver's model of the CVRP with edge costs ``d`` ≥ 0, in which no route serves a
    customer of ``lone`` alone.

    Its routes run from a start depot to an end depot. Without ``lone``, both are the depot (node
    0) and every customer may start or end a route. Otherwise there are ``k = ⌈log2 |lone|⌉`` (at
    least 1) vehicle types, each with a start and an end point of its own at the depot's place;
    in type ``t``, a customer of ``lone`` at position ``j`` may only start routes where bit ``t``
    of ``j`` is 1 and only end them where it is 0, while the other customers may do both. A route
    of one customer of ``lone`` would start and end at it: no type allows that. A route of two
    customers or more has two ends, and some type allows it in one direction: two customers of
    ``lone`` differ in a bit of their positions. So the model allows every route of the edge
    model, at the same cost, and no route of one customer of ``lone``; at most ``V`` routes in all.
    """
    from VRPSolverEasy.src import solver  # noqa: PLC0415

    model = solver.Model()
    capacity = int(np.floor(Q * _SCALE))
    types = max(1, math.ceil(math.log2(len(lone)))) if lone else 0
    at = {v: j for j, v in enumerate(lone)}
    ends = [(0, 0)] if not lone else [(n + 2 * t, n + 2 * t + 1) for t in range(types)]
    for t, (first, last) in enumerate(ends):
        model.add_depot(id=first)
        if last != first:
            model.add_depot(id=last)
        model.add_vehicle_type(
            id=t + 1, start_point_id=first, end_point_id=last, max_number=V, capacity=capacity, var_cost_dist=1
        )
    model.max_total_vehicles_number = V
    for v in range(1, n):
        model.add_customer(id=v, demand=int(np.floor(q[v - 1] * _SCALE)))
    for (a, b), cost in zip(edges(n), d, strict=True):
        if a != 0 or not lone:
            model.add_link(start_point_id=int(a), end_point_id=int(b), distance=float(cost))
            continue
        for t, (first, last) in enumerate(ends):
            sides = (first, last) if b not in at else ((first,) if at[b] >> t & 1 else (last,))
            for side in sides:
                model.add_link(start_point_id=side, end_point_id=int(b), distance=float(cost))
    return model


def _config_file(config: str | None, limit: float | None) -> str:
    """A file of BaPCod's parameters ``config`` and the time limit in the worker's working folder,
    one per process (``""``: none, VRPSolverEasy's defaults; a file's limit replaces theirs)."""
    if config is None:
        return ""
    if limit is not None:
        config += f"GlobalTimeLimit = {math.ceil(limit)}\n"
    path = Path(f"bapcod-{os.getpid()}.cfg").resolve()
    if not path.exists() or path.read_text() != config:
        path.write_text(config)
    return str(path)


class _Worker:
    """A process that solves instances with VRPSolver, one at a time (``python -m`` this module):
    tasks and answers are pickled through its standard input and output, one caller at a time."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.proc: subprocess.Popen[bytes] | None = None
        self.lock = threading.Lock()

    def ask(self, task: tuple) -> list[list[int]] | None:
        """The worker's answer to ``task``, ``None`` where the process failed (it starts again)."""
        with self.lock:
            return self._ask(task)

    def _ask(self, task: tuple) -> list[list[int]] | None:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=self.folder
            )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            pickle.dump(task, self.proc.stdin)
            self.proc.stdin.flush()
            answer: list[list[int]] | None = pickle.load(self.proc.stdout)
        except (OSError, EOFError, pickle.UnpicklingError):
            self.stop()
            return None
        return answer

    def stop(self) -> None:
        """End the process."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


def _workers(count: int) -> list[_Worker]:
    """``count`` workers, started as they are first asked."""
    with _LOCK:
        if not _FOLDER:
            _FOLDER.append(tempfile.mkdtemp(prefix="ldopt-vrpsolver-"))  # private to the user (0700)
        _WORKERS.extend(_Worker(_FOLDER[0]) for _ in range(count - len(_WORKERS)))
        return _WORKERS[:count]


@atexit.register
def _close() -> None:
    """Stop the workers and remove their folder."""
    with _LOCK:
        for w in _WORKERS:
            w.stop()
        _WORKERS.clear()
        for folder in _FOLDER:
            shutil.rmtree(folder, ignore_errors=True)
        _FOLDER.clear()


def _serve(tasks: IO[bytes], answers: IO[bytes]) -> None:
    """The worker's loop: solve each task read from ``tasks``, until it ends."""
    while True:
        try:
            task: Any = pickle.load(tasks)
        except EOFError:
            return
        pickle.dump(_solve(task), answers)
        answers.flush()


if __name__ == "__main__":
    # the answers go through a copy of standard output; what VRPSolver prints there goes nowhere
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    _serve(sys.stdin.buffer, answers)
