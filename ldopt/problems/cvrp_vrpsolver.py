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
most ``V`` routes), are optimal there; an instance whose routes are not is left to the capacity
cut loop. PyVRP's routes give VRPSolver its first upper bound; where it proves that no better
routes exist, they are the optimum. VRPSolver stops within a relative gap of 1e-7 or an absolute
one of 1e-6, the tolerance of its optima.

Each solve runs in a worker process with a private working folder: VRPSolver writes files into
its working folder and keeps global state, and a crash there costs only that instance, which the
cut loop then solves.
"""

from __future__ import annotations

import atexit
import math
import os
import pickle
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from importlib.util import find_spec
from pathlib import Path
from typing import IO, Any

import numpy as np

from ldopt.problems import cvrp, cvrp_pyvrp
from ldopt.problems.tsp import edges

_SCALE = 10**4  # units of demand per unit: integer demands ⌊q·S⌋, capacity ⌊Q·S⌋
# BaPCod's parameters (VRPSolverEasy's CLP set-up, quiet) with rank-1 cuts of at most 3 rows: the
# default's 4- and 5-row cuts cost more time than their bound saves on CaVE's CVRP30 (3-11x the
# time: benchmarks/bench_cvrp_routes.py --against vrpsolver-defaults); None: VRPSolverEasy's defaults
_CONFIG: str | None = """\
MaxNbOfStagesInColGenProcedure = 3
colGenSubProbSolMode = 3
MipSolverMultiThread = 1
solverName = CLP_SOLVER
DEFAULTPRINTLEVEL = -2
RCSPrankOneCutsMaxNumRows = 3
"""
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
    c: np.ndarray, num_nodes: int, q: np.ndarray, Q: float, V: int, time_limit: float | None, workers: int
) -> np.ndarray:
    """Optimal routes ``(B, n(n−1)/2)`` (0/1 edges, PyEPO's edge order) for edge costs ``c``
    ``(B, n(n−1)/2)``, NaN rows where VRPSolver's routes do not fit the edge model or it failed.

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
    """
    out = np.full(c.shape, np.nan)
    idle: queue.Queue[_Worker] = queue.Queue()
    for w in _workers(workers):
        idle.put(w)

    def one(i: int) -> None:
        w = idle.get()
        try:
            tours = w.ask((c[i], num_nodes, q, Q, V, time_limit, _CONFIG))
        finally:
            idle.put(w)
        if tours is not None and fits(tours, num_nodes, q, Q, V):
            out[i] = cvrp_pyvrp.edges_of(tours, num_nodes)

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(one, range(len(c))))
    return out


def fits(tours: list[list[int]], num_nodes: int, q: np.ndarray, Q: float, V: int) -> bool:
    """Whether ``tours`` (customers in order) are routes of the edge model: every customer once, at
    most ``V`` routes, each of two customers or more and within ``Q``."""
    seen = [v for t in tours for v in t]
    return (
        sorted(seen) == list(range(1, num_nodes))
        and len(tours) <= V
        and all(len(t) >= 2 and q[np.asarray(t) - 1].sum() <= Q for t in tours)
    )


def _solve(task: tuple[np.ndarray, int, np.ndarray, float, int, float | None, str | None]) -> list[list[int]] | None:
    """One instance in a worker: VRPSolver's optimal routes (customers in order), PyVRP's where
    VRPSolver proves none better, or ``None`` (not solved to optimality)."""
    from VRPSolverEasy.src import solver  # noqa: PLC0415

    c, n, q, Q, V, limit, config = task
    E = np.array(edges(n))
    start = cvrp_pyvrp.tours(c, n, q, Q, V, cvrp.min_vehicles(q, Q))
    pi = cvrp_pyvrp.potentials(c, n)  # every cost ≥ 0, the order of solutions kept
    d = c + pi[E[:, 0]] + pi[E[:, 1]]
    model = solver.Model()
    model.add_vehicle_type(
        id=1, start_point_id=0, end_point_id=0, max_number=V, capacity=int(np.floor(Q * _SCALE)), var_cost_dist=1
    )
    model.add_depot(id=0)
    for v in range(1, n):
        model.add_customer(id=v, demand=int(np.floor(q[v - 1] * _SCALE)))
    for (a, b), cost in zip(E, d, strict=True):
        model.add_link(start_point_id=int(a), end_point_id=int(b), distance=float(cost))
    bound = {} if start is None else {"upper_bound": float(d @ cvrp_pyvrp.edges_of(start, n))}
    model.set_parameters(
        time_limit=float(limit or _NO_LIMIT),
        solver_name="CLP",
        print_level=-2,
        config_file=_config_file(config, limit),
        **bound,
    )
    model.solve()
    if model.status == 0:  # optimal routes found
        return [[int(p) for p in r.point_ids[1:-1]] for r in model.solution.routes]
    if model.status == 2 and start is not None:  # none better than PyVRP's: they are optimal
        return start
    return None


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
