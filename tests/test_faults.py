"""Fault injection: kill -9 of a pool's owner, SIGINT during training, a full disk, a kill between
the two files of a cache, a user's own files beside a cache, and concurrent writers. Nothing a user
computed is lost, nothing of the user's is deleted, and no process outlives its owner."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import ldopt
from ldopt.problems import knapsack
from ldopt.runtime import cache

torch = pytest.importorskip("torch", reason="ldopt_torch needs torch (pip install 'ldopt[torch]')")
import ldopt_torch as lt  # noqa: E402

ENV = {**os.environ, "LDOPT_PROGRESS": "0", "PYTHONUNBUFFERED": "1"}


def _script(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "victim.py"
    path.write_text(textwrap.dedent(body))
    return path


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split()[2] == "Z")  # a zombie is gone


@pytest.mark.skipif(not Path("/proc").exists(), reason="needs /proc to list a process's children")
def test_kill_9_of_the_owner_ends_every_pool_process(tmp_path):
    """The owner of a local pool is killed with SIGKILL mid-run: its workers and the resource
    tracker end within 10 s instead of lingering (the audit saw them alive after 15 minutes)."""
    victim = _script(
        tmp_path,
        """
        import os, signal, time
        from pathlib import Path
        from ldopt import parallel

        def work(s):
            time.sleep(s)
            return os.getpid()

        if __name__ == "__main__":
            ex = parallel.local_pool(2)
            futures = [ex.submit(work, 120) for _ in range(4)]
            time.sleep(4)  # the workers are up and busy
            me = str(os.getpid())
            kids = [p.name for p in Path("/proc").iterdir() if p.name.isdigit()
                    and (p / "stat").exists() and (p / "stat").read_text().split()[3] == me]
            print(" ".join(kids), flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
        """,
    )
    out = subprocess.run([sys.executable, str(victim)], env=ENV, capture_output=True, text=True, timeout=60)
    assert out.returncode == -signal.SIGKILL
    kids = [int(p) for p in out.stdout.split()]
    assert len(kids) >= 2, out.stdout + out.stderr  # two workers (and the resource tracker)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(p) for p in kids):
        time.sleep(0.2)
    left = [p for p in kids if _alive(p)]
    for p in left:  # do not leave them behind for the next test
        os.kill(p, signal.SIGKILL)
    assert not left, f"processes {left} outlived their owner by more than 10 s"


def test_sigint_during_fit_returns_the_best_model(tmp_path):
    """A real Ctrl-C (SIGINT) in the middle of training: fit returns the best model and the history."""
    victim = _script(
        tmp_path,
        """
        import json, numpy as np, torch
        import ldopt, ldopt_torch as lt
        from ldopt.problems import knapsack

        d = knapsack.protocol_data(100, 30, dim=3, seed=2)
        m = knapsack.build_model(d.weights, d.capacities)
        dec = ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c))
        data = lt.LDDataset(dec, d.features[:60], d.costs[:60], iterations=20, progress=False)

        class Loud(lt.LDLoss):  # says when a few steps (two epochs of 2 batches) are done
            steps = 0

            def forward(self, pred, batch):
                Loud.steps += 1
                if Loud.steps == 5:
                    print("stepping", flush=True)
                return super().forward(pred, batch)

        out = lt.fit(torch.nn.Linear(12, 30), data, Loud(dec, "spo+"), mode="multiple", epochs=10**6,
                     val=(d.features[60:], d.costs[60:]), lr=1e-2, progress=False, schedule=lt.Schedule(eval_every=5),
                     options=lt.FitOptions(solver="highs", warm_start="none"))
        print(json.dumps(dict(stopped=out.stopped, epochs=out.epochs, best=out.best_val,
                              first=out.history[0]["val_regret"])), flush=True)
        """,
    )
    proc = subprocess.Popen(
        [sys.executable, str(victim)], env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    try:
        lines = iter(proc.stdout.readline, "")  # a solver may print a banner first (HiGHS >= 1.16 does)
        assert "stepping" in (line.strip() for line in lines)  # however slow the machine, epochs are done
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()  # never leave a trainer running on a failure
    assert proc.returncode == 0, err
    res = json.loads(out.strip().splitlines()[-1])
    assert res["stopped"] == "interrupted" and res["epochs"] > 0
    assert res["best"] <= res["first"]


def test_a_full_disk_loses_nothing_computed(tmp_path):
    """Writes fail as on a full disk (a file-size limit): the training set is still built and used,
    a clear warning says why it is not cached, and no partial file is left."""
    victim = _script(
        tmp_path,
        """
        import resource, signal, sys, warnings
        import numpy as np
        import ldopt, ldopt_torch as lt
        from ldopt.problems import knapsack

        d = knapsack.protocol_data(40, 30, dim=3, seed=2)
        m = knapsack.build_model(d.weights, d.capacities)
        dec = ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            data = lt.LDDataset(dec, d.features, d.costs, iterations=15, cache=sys.argv[1], progress=False)
        print(len(data), np.isfinite(data.bound).all(), data.loaded_from_cache)
        print("|".join(str(w.message) for w in seen))
        """,
    )
    folder = tmp_path / "cache"
    out = subprocess.run(
        [sys.executable, str(victim), str(folder)], env=ENV, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    first, warned = out.stdout.strip().splitlines()[:2]
    assert first == "40 True False"
    assert "cannot write cache" in warned and "without being cached" in warned
    left = [p.name for p in folder.rglob("*") if p.is_file() and p.stat().st_size > 0 and p.suffix == ".tmp"]
    assert not left, left


@pytest.fixture(scope="module")
def small():
    d = knapsack.protocol_data(24, 20, dim=3, seed=5)
    m = knapsack.build_model(d.weights, d.capacities)
    return ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c)), d


def test_a_kill_between_the_cache_files_recovers_from_the_chunks(tmp_path, monkeypatch, small):
    """Killed after writing the arrays but before the header: the next run rebuilds the cache from
    the chunks on disk and recomputes nothing."""
    dec, d = small
    real = cache._atomic_write

    def dies_on_the_final_header(path, write):
        if path.name.endswith(".npz.json") and "chunk-" not in path.name:
            raise KeyboardInterrupt  # as a kill would stop the process here
        real(path, write)

    monkeypatch.setattr(cache, "_atomic_write", dies_on_the_final_header)
    with pytest.raises(KeyboardInterrupt):
        lt.LDDataset(dec, d.features, d.costs, iterations=10, cache=tmp_path, progress=False)
    monkeypatch.setattr(cache, "_atomic_write", real)
    with pytest.warns(UserWarning, match="is unreadable .*computing it again"):  # the torn entry is said, not hidden
        again = lt.LDDataset(dec, d.features, d.costs, iterations=10, cache=tmp_path, progress=False)
    assert again.chunks_loaded == 8 and again.chunks_computed == 0  # about eight chunks by default
    third = lt.LDDataset(dec, d.features, d.costs, iterations=10, cache=tmp_path, progress=False)
    assert third.loaded_from_cache
    np.testing.assert_array_equal(again.result.main, third.result.main)


def test_a_users_files_beside_the_cache_are_kept(tmp_path, small):
    """The audit's data loss: a user's own ``results.chunks/`` folder next to ``cache="results.npz"``."""
    dec, d = small
    mine = tmp_path / "results.chunks"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    lt.LDDataset(dec, d.features, d.costs, iterations=5, cache=tmp_path / "results.npz", progress=False)
    assert (mine / "notes.txt").read_text() == "mine"
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]  # the run's own chunk files are gone


def test_concurrent_writers_never_yield_a_wrong_pair(tmp_path):
    """Two writers of different contents and a reader on one path: the reader gets one writer's
    complete entry or a TornCacheError, never one's arrays under the other's header."""
    path = tmp_path / "entry.npz"
    payloads = [{"a": np.full(2000, float(k))} for k in range(2)]
    stop = threading.Event()
    errors: list[BaseException] = []

    def writer(k: int) -> None:
        while not stop.is_set():
            cache.save(path, payloads[k], {"writer": k})

    def reader() -> None:
        while not stop.is_set():
            try:
                hit = cache.load(path)
            except ldopt.TornCacheError:
                continue
            except BaseException as exc:  # anything else is a defect
                errors.append(exc)
                return
            if hit is not None:
                arrays, header = hit
                if not np.all(arrays["a"] == header["writer"]):
                    errors.append(AssertionError(f"writer {header['writer']}'s header on other arrays"))

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(2)] + [threading.Thread(target=reader)]
    for t in threads:
        t.start()
    time.sleep(3)
    stop.set()
    for t in threads:
        t.join()
    assert not errors, errors
    try:  # the writers may have stopped mid-pair: a torn pair is reported, never read as data
        hit = cache.load(path)
    except ldopt.TornCacheError:
        hit = None
    if hit is not None:
        assert np.all(hit[0]["a"] == hit[1]["writer"])
