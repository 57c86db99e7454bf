"""Executors: a local process pool and a Dask LocalCluster give exactly the serial answer, a
killed worker loses nothing, and an interrupted chunked run resumes without recomputing."""

from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import ldopt
from ldopt.evaluate.regret import solve_many
from ldopt.problems import knapsack
from ldopt.runtime import parallel

FIELDS = ("lam", "main", "main_x", "run_bounds", "history", "primal_objective", "primal_x")


@pytest.fixture(scope="module")
def setup():
    d = knapsack.protocol_data(24, 30, dim=4, seed=3)
    m = knapsack.build_model(d.weights, d.capacities)
    dec = ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c))
    serial = dec.dual(d.costs, iterations=60, progress=False)
    return dec, d.costs, serial


def same(a, b):
    for k in FIELDS:
        np.testing.assert_array_equal(getattr(a, k), getattr(b, k), err_msg=k)


def test_local_process_pool_equals_serial(setup):
    dec, costs, serial = setup
    with parallel.local_pool(2) as ex:
        r = dec.dual(costs, iterations=60, executor=ex, chunk_size=5, progress=False)
        s = solve_many(dec.problem, costs[:6], "highs", executor=ex, chunk_size=2)
    same(serial, r)
    assert r.chunks_computed == 5
    np.testing.assert_array_equal(s.objective, dec.problem.solve(costs[:6], solver="highs").objective)


class Flaky(ThreadPoolExecutor):
    """Fails every task after the first ``ok`` ones, as a crash in the middle of a run would."""

    def __init__(self, ok: int) -> None:
        super().__init__(1)
        self.ok, self.calls = ok, 0

    def submit(self, fn, *args, **kwargs):
        self.calls += 1
        if self.calls > self.ok:

            def boom(*_a, **_k):
                raise RuntimeError("worker lost")

            return super().submit(boom)
        return super().submit(fn, *args, **kwargs)


def test_an_interrupted_run_resumes_from_its_saved_chunks(setup, tmp_path):
    dec, costs, serial = setup
    with Flaky(3) as ex, pytest.raises(RuntimeError, match="worker lost"):
        dec.dual(costs, iterations=60, executor=ex, chunk_size=4, checkpoint=tmp_path, progress=False)
    saved = sorted(tmp_path.glob("chunk-*.npz"))
    assert len(saved) == 3
    stamps = {p: p.stat().st_mtime_ns for p in saved}
    r = dec.dual(costs, iterations=60, chunk_size=4, checkpoint=tmp_path, progress=False)
    assert (r.chunks_loaded, r.chunks_computed) == (3, 3)  # nothing computed twice
    assert all(p.stat().st_mtime_ns == t for p, t in stamps.items())
    same(serial, r)
    again = dec.dual(costs, iterations=60, chunk_size=4, checkpoint=tmp_path, progress=False)
    assert (again.chunks_loaded, again.chunks_computed) == (6, 0)
    same(serial, again)


def test_foreign_chunks_are_reported_and_torn_ones_computed_again(setup, tmp_path):
    dec, costs, _ = setup
    dec.dual(costs, iterations=10, chunk_size=12, checkpoint=tmp_path, progress=False)
    with pytest.raises(ldopt.CacheError, match="other costs"):
        dec.dual(costs + 1.0, iterations=10, chunk_size=12, checkpoint=tmp_path, progress=False)
    with pytest.raises(ldopt.CacheError, match="other settings"):
        dec.dual(costs, iterations=11, chunk_size=12, checkpoint=tmp_path, progress=False)
    # a torn chunk is not used: it is computed again (with a warning), the others are loaded
    victim = sorted(tmp_path.glob("chunk-*.npz"))[0]
    victim.write_bytes(victim.read_bytes()[:-40])
    with pytest.warns(UserWarning, match=r"(corrupt|unreadable).*computing it again"):
        again = dec.dual(costs, iterations=10, chunk_size=12, checkpoint=tmp_path, progress=False)
    assert (again.chunks_computed, again.chunks_loaded) == (1, len(list(tmp_path.glob("chunk-*.npz"))) - 1)
    same(dec.dual(costs, iterations=10, progress=False), again)


dask = pytest.importorskip(
    "dask.distributed", reason="the Dask tests need dask[distributed] (pip install 'ldopt[dask]')"
)


def test_dask_local_cluster_equals_serial(setup):
    dec, costs, serial = setup
    with parallel.dask_executor(workers=2) as ex:
        r = dec.dual(costs, iterations=60, executor=ex, chunk_size=5, progress=False)
        s = solve_many(dec.problem, costs[:6], "highs", executor=ex, chunk_size=2)
    same(serial, r)
    np.testing.assert_array_equal(s.objective, dec.problem.solve(costs[:6], solver="highs").objective)


def test_a_worker_killed_mid_run_loses_nothing(setup):
    dec, costs, _ = setup
    many = np.tile(costs, (2, 1))  # 48 instances in 12 chunks of the master: long enough to kill a worker
    ref = dec.dual(many, iterations=150, progress=False)
    with parallel.dask_executor(workers=2) as ex:
        client = ex._client
        pids = list(client.run(os.getpid).values())
        killed = []

        def kill_one():
            time.sleep(1.0)
            os.kill(pids[0], signal.SIGKILL)
            killed.append(time.perf_counter())

        t = threading.Thread(target=kill_one)
        t.start()
        r = dec.dual(many, iterations=150, executor=ex, chunk_size=4, progress=False)
        done = time.perf_counter()
        t.join()
        survivors = list(client.run(os.getpid).values())
    assert killed and killed[0] < done  # the worker died while the run was going on
    assert pids[0] not in survivors
    same(ref, r)


_FORKED: list[tuple[ldopt.Problem, np.ndarray]] = []  # what a forked child inherits


def _solve_in_child(i: int) -> float:
    p, costs = _FORKED[0]
    return float(p.solve(costs[i : i + 1], solver="highs").objective[0])


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX-only")
def test_highs_solves_in_a_process_forked_after_a_solve():
    """HiGHS's global thread pool does not survive fork (a child's MIP solve waited forever, e.g. in
    PyEPO's processes=2 pools): ldopt resets it in every forked child."""
    import multiprocessing  # noqa: PLC0415

    d = knapsack.protocol_data(4, 40, dim=2, seed=1)
    m = knapsack.build_model(d.weights, d.capacities)
    p = ldopt.Problem.from_pyomo(m, m.c)
    here = p.solve(d.costs, solver="highs").objective  # the parent's pool of HiGHS threads now exists
    _FORKED.append((p, d.costs))
    pool = multiprocessing.get_context("fork").Pool(2)
    try:
        there = pool.map_async(_solve_in_child, range(4)).get(timeout=60)
    finally:
        pool.terminate()
        _FORKED.clear()
    np.testing.assert_allclose(there, here)


def test_gurobi_takes_one_thread_per_pool_solve_and_the_budget_outside_it():
    """``LDOPT_THREADS`` bounds the process: Gurobi, whose default is every core per solve, gets one
    thread in each of the pool's solves and the whole budget in a solve outside the pool; an
    explicit ``threads=`` wins. The decisions are the same either way."""
    from ldopt.runtime import threads  # noqa: PLC0415

    d = knapsack.protocol_data(8, 30, dim=4, seed=3)
    m = knapsack.build_model(d.weights, d.capacities)
    p, C = ldopt.Problem.from_pyomo(m, m.c), d.costs  # fresh: no sessions of other tests
    avail = ldopt.solvers.registry.availability(p.compiled, "gurobi")
    if not avail:
        pytest.skip(f"needs Gurobi: {avail.reason}")
    threads.configure(2)
    try:
        pooled = solve_many(p, C[:6], "gurobi")
        alone = p.solve(C[:6], "gurobi")
        explicit = p.solve(C[:1], "gurobi", threads=1)
    finally:
        threads.configure(None)
    used = {}
    for (name, opts, tid), (_, session) in p._sessions.items():
        if name == "gurobi":
            used.setdefault(tid == threading.get_ident(), []).append((opts.threads, session.inner.m.Params.Threads))
    assert used[False] and all(t == 1 for _, t in used[False])  # each pool thread that solved (one or two)
    assert sorted(used[True], key=str) == [(1, 1), (None, 2)]  # outside the pool: the budget, or as asked
    np.testing.assert_array_equal(pooled.x, alone.x)
    np.testing.assert_array_equal(explicit.x[0], alone.x[0])


def test_one_blas_thread_limits_blas_and_restores_it_after_overlapping_blocks():
    """Inside the block BLAS runs on one thread, nested blocks keep it, and blocks that overlap on
    two threads leave every BLAS library as it was once the last one ends (no limit leaks)."""
    threadpoolctl = pytest.importorskip("threadpoolctl", reason="ldopt depends on threadpoolctl")

    def counts() -> dict[str, int]:  # each loaded BLAS library (numpy's, scipy's, torch's, ...)
        return {i["filepath"]: i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"}

    np.linalg.cholesky(np.eye(3))  # BLAS loaded
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        before = counts()
        one = dict.fromkeys(before, 1)
        with ldopt.runtime.threads.one_blas_thread():
            assert counts() == one
            with ldopt.runtime.threads.one_blas_thread():
                assert counts() == one
            assert counts() == one
        assert counts() == before
        entered, leave = threading.Event(), threading.Event()

        def hold() -> None:
            with ldopt.runtime.threads.one_blas_thread():
                entered.set()
                leave.wait(5)

        other = threading.Thread(target=hold)
        other.start()
        entered.wait(5)
        with ldopt.runtime.threads.one_blas_thread():
            pass  # ends while the other thread's block is open
        leave.set()
        other.join()
        assert counts() == before and ldopt.runtime.threads._BLAS_DEPTH == 0
