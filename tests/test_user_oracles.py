"""Block oracles that users bring (`ldopt.decomposition.user_oracles`): checked against exact solves, used by the
dual, the exact bound, the training sets and the losses, named by `describe()`, kept in cache keys
and pickles; a relaxation keeps every bound valid; a wrong oracle is caught."""

from __future__ import annotations

import pickle

import numpy as np
import pyomo.environ as pyo
import pytest
import torch
from models import linear_model

import ldopt
import ldopt_torch as lt
from ldopt.decomposition.user_oracles import OracleMismatch, check_oracle
from ldopt.errors import DecompositionError
from ldopt.oracles.base import Oracle

K = 3  # the cardinality row: at most K items


class TopK(Oracle):
    """``max λ·x`` over ``Σ x ≤ K``, ``x`` binary: the K largest positive objectives."""

    name = "top-k"

    def __init__(self, k: int) -> None:
        self.k = k
        self.calls = 0

    def argmax(self, lam: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        self.calls += 1
        x = np.zeros(lam.shape)
        top = np.argsort(-lam, axis=1)[:, : self.k]
        rows = np.arange(len(lam))[:, None]
        x[rows, top] = lam[rows, top] > 0
        return self.finish(lam, x, np.zeros(len(lam), dtype=bool), out)  # written into out, if given

    def describe(self) -> str:
        return f"the {self.k} best items"


class NoRow(Oracle):
    """Every positive item: the box alone, a relaxation of any packing row."""

    name = "box"

    def argmax(self, lam: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        x = (lam > 0).astype(float)
        return self.finish(lam, x, np.zeros(len(lam), dtype=bool), out)


@pytest.fixture(scope="module")
def mkp():
    rng = np.random.default_rng(5)
    n = 10
    A = np.vstack([rng.integers(2, 9, n), np.ones(n)]).astype(float)
    hi = np.array([0.5 * A[0].sum(), K])
    m = linear_model(A, np.full(2, -np.inf), hi, np.zeros(n), np.ones(n), domain=pyo.Binary)
    p = ldopt.Problem.from_pyomo(m, m.c)
    return p, rng.uniform(1, 10, (12, n))


def test_a_users_exact_oracle_passes_the_check_and_gives_the_builtin_bounds(mkp):
    p, C = mkp
    mine = TopK(K)
    dec = ldopt.decompose(p, oracles={1: mine})
    assert "top-k: the 3 best items (your oracle)" in dec.describe()
    report = check_oracle(dec, 1)
    assert report.max_gap <= 1e-9 and report.max_violation <= 1e-9 and not report.relaxation
    builtin = ldopt.decompose(p)
    calls = mine.calls
    # the same subproblem values: the same steps (ties aside), and both reach LD* (column generation's tolerance)
    ours, theirs = (d.dual(C, mode="joint", iterations=20, step="polyak", progress=False) for d in (dec, builtin))
    np.testing.assert_allclose(ours.bound, theirs.bound, rtol=1e-9)
    np.testing.assert_allclose(dec.dual(C, progress=False).bound, builtin.dual(C, progress=False).bound, rtol=1e-5)
    np.testing.assert_allclose(
        ldopt.lagrangian_bound(dec, C).bound, ldopt.lagrangian_bound(builtin, C).bound, rtol=1e-5
    )
    assert mine.calls > calls  # the dual and the exact bound called it
    opt = p.solve(C, solver="highs").objective
    assert np.all(opt <= dec.dual(C, progress=False).bound + 1e-7)


def test_a_users_oracle_trains_through_the_losses(mkp):
    p, C = mkp
    mine = TopK(K)
    dec = ldopt.decompose(p, oracles={1: mine})
    F = np.random.default_rng(0).normal(size=(len(C), 3))
    data = lt.LDDataset(dec, F, C, progress=False, decompositions=[1])
    loss = lt.LDLoss(dec, surrogate="spo+", target="L1")
    before = mine.calls
    out = lt.fit(torch.nn.Linear(3, C.shape[1]), data, loss, mode="static", main=1, epochs=2, progress=False)
    assert mine.calls > before and np.isfinite(out.history[-1]["train_loss"] if out.history else 0.0)
    r = data.result  # the main solutions are the oracle's optima (ties aside: compare their values)
    obj, x = r.main_objective(1), r.main_solution(1)
    np.testing.assert_allclose(np.einsum("bn,bn->b", obj, x), np.einsum("bn,bn->b", obj, mine.argmax(obj)), rtol=1e-12)


def test_a_relaxation_keeps_every_bound_valid_and_the_check_tells_it_from_an_exact_oracle(mkp):
    p, C = mkp
    relaxed = NoRow()
    relaxed.relaxation = True
    dec = ldopt.decompose(p, oracles={0: relaxed})
    assert "your oracle, a relaxation" in dec.describe()
    assert check_oracle(dec, 0).relaxation
    opt = p.solve(C, solver="highs").objective
    exact = ldopt.decompose(p).dual(C, progress=False).bound
    bound = dec.dual(C, progress=False).bound
    assert np.all(opt <= bound + 1e-7)
    assert np.all(exact <= bound + 1e-5 * np.abs(bound))  # a weaker dual (both LD* to the master's tolerance)
    wrong = ldopt.decompose(p, oracles={0: NoRow()})  # the same points claimed exact
    with pytest.raises(
        OracleMismatch, match=r"block 0's oracle \w+, instance \d+: expected a point of the block.*relaxation = True"
    ):
        check_oracle(wrong, 0)
    assert dec.key != ldopt.decompose(p).key and dec.key != wrong.key  # caches keep them apart


def test_oracles_are_checked_pickled_and_keep_the_old_keys(mkp):
    p, _ = mkp
    with pytest.raises(DecompositionError, match=r"oracles: expected block indices in \[0, 2\), got 5"):
        ldopt.decompose(p, oracles={5: TopK(K)})
    with pytest.raises(DecompositionError, match=r"oracles\[1\]: expected an instance of an ldopt.oracles.Oracle"):
        ldopt.decompose(p, oracles={1: lambda lam: lam > 0})
    with pytest.raises(DecompositionError, match="oracles: expected"):
        ldopt.decompose(p, oracles=[TopK(K)])
    assert ldopt.decompose(p, oracles={}).key == ldopt.decompose(p).key
    dec = pickle.loads(pickle.dumps(ldopt.decompose(p, oracles={1: TopK(K)})))
    assert isinstance(dec.block(1).user_oracle, TopK) and dec.block(1).solver().oracle is dec.block(1).user_oracle
