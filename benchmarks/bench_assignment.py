"""Assignment blocks at the speed of their own algorithm (issue 49).

A generalised-assignment-like model: ``n`` tasks each assigned to exactly one of ``n`` agents
(``= 1`` rows), each agent taking at most one (``≤ 1`` rows), with a budget row; the block of the
assignment rows is solved for a batch of objectives by (1) SciPy's ``linear_sum_assignment``
called directly on the weight matrices (the baseline), (2) ldopt's assignment oracle
(``dec.block(0).solver("auto")``), (3) the same block on HiGHS, one persistent session. Prints
each one's milliseconds per instance and the ratios (target: the oracle within 3× of the direct
calls); saves ``benchmarks/results/assignment/assignment.json``.

    python benchmarks/bench_assignment.py                 # n = 20, 50, 100; 20 instances
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pyomo.environ as pyo
from scipy.optimize import linear_sum_assignment

import ldopt

OUT = Path(__file__).parent / "results" / "assignment" / "assignment.json"


def _decomposition(n: int) -> ldopt.Decomposition:
    m = pyo.ConcreteModel()
    m.T, m.A = pyo.RangeSet(0, n - 1), pyo.RangeSet(0, n - 1)
    m.c = pyo.Param(m.T, m.A, mutable=True, initialize=1.0)
    m.x = pyo.Var(m.T, m.A, domain=pyo.Binary)
    m.task = pyo.Constraint(m.T, rule=lambda m, t: sum(m.x[t, a] for a in m.A) == 1)
    m.agent = pyo.Constraint(m.A, rule=lambda m, a: sum(m.x[t, a] for t in m.T) <= 1)
    m.budget = pyo.Constraint(expr=sum((t + a) % 7 * m.x[t, a] for t in m.T for a in m.A) <= 3 * n)
    m.obj = pyo.Objective(expr=sum(m.c[t, a] * m.x[t, a] for t in m.T for a in m.A), sense=pyo.maximize)
    return ldopt.decompose(ldopt.Problem.from_pyomo(m, m.c), [["task", "agent"], ["budget"]])


def _ms(fn, count: int) -> float:
    t0 = time.perf_counter()
    fn()
    return 1000 * (time.perf_counter() - t0) / count


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[20, 50, 100])
    ap.add_argument("--instances", type=int, default=20)
    a = ap.parse_args()
    rows = []
    for n in a.sizes:
        dec = _decomposition(n)
        block = dec.block(0)
        oracle, highs = block.solver("auto"), block.solver("highs")
        assert oracle.name == "assignment", oracle.name
        lam = np.random.default_rng(n).normal(size=(a.instances, dec.problem.num_vars))
        W = lam.reshape(a.instances, n, n)  # x[t, a] in row-major order
        oracle.argmax(lam[:1])  # warm: first-use verification and imports
        highs.argmax(lam[:1])
        direct = _ms(lambda: [linear_sum_assignment(w, maximize=True) for w in W], a.instances)  # noqa: B023
        mine = _ms(lambda: oracle.argmax(lam), a.instances)  # noqa: B023
        x = oracle.argmax(lam)
        ref = highs.argmax(lam)
        assert np.allclose((lam * x).sum(1), (lam * ref).sum(1), atol=1e-9)
        theirs = _ms(lambda: highs.argmax(lam), a.instances)  # noqa: B023
        rows.append(dict(n=n, direct_ms=direct, oracle_ms=mine, highs_ms=theirs))
        print(
            f"n = {n:4d} ({n * n} variables): direct {direct:8.3f} ms, oracle {mine:8.3f} ms "
            f"({mine / direct:.2f}× direct), HiGHS {theirs:9.2f} ms ({theirs / mine:.0f}× the oracle)",
            flush=True,
        )
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
