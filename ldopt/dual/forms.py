"""The three parametrisations of the multipliers that a subgradient run optimises (max form).

A form says which block subproblems an iteration solves and with which objectives, how their
optimal values make the bounds, the subgradient of what the run minimises, and what to keep. All
arrays carry the instances of a chunk in their first axis (``b``).

* `Shared` — the symmetric ``λ`` with ``Σ_k λ_k = q``: one bound serves every
  decomposition; subgradient ``x_k − mean_j x_j``.
* `MuForm` — the paper's run for one main block ``d``: ``λ_k = −μ_k`` (``k ≠ d``) and
  ``λ_d = q + Σ_k μ_k``; subgradient ``x_d − x_k``.
* `Joint` — penalties ``ν_k`` shared by every decomposition: decomposition ``d`` has
  ``λ_k = −ν_k`` (``k ≠ d``) and ``λ_d = q + Σ_{k≠d} ν_k``. One iteration solves every main
  block once and every block once with ``−ν_k`` (``2m`` solves, against ``m²`` for ``m``
  independent runs) and minimises the sum of the ``m`` bounds; its subgradient in ``ν_k`` is
  ``Σ_{d≠k} x_d^main − (m−1) x_k``. With two blocks it is exactly the paper's two runs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from ldopt.model.primal import PrimalHeuristic


def _mu_start(q: np.ndarray, m: int, count: int, mu0: float | str) -> np.ndarray:
    """``count`` penalties per instance: all ``mu0``, or ``−q/m`` for ``"symmetric"``, which gives
    every block the objective ``q/m`` (``λ_k = −μ_k`` and ``λ_d = q + Σ_k μ_k = q/m``)."""
    if isinstance(mu0, str):  # "symmetric", the one start by name
        return np.repeat(-q[:, None, :] / m, count, axis=1)
    return np.full((q.shape[0], count, q.shape[1]), float(mu0))


class Form(ABC):
    """One parametrisation ``θ`` of the multipliers (see the module docstring)."""

    def __init__(self, m: int) -> None:
        self.m = m

    @abstractmethod
    def start(self, q: np.ndarray, mu0: float | str) -> np.ndarray:
        """The initial ``θ`` for objectives ``q`` ``(b, n)``."""

    @abstractmethod
    def resume(self, lam: np.ndarray, q: np.ndarray) -> np.ndarray:
        """``θ`` from the multipliers a run kept (``keep``'s first array, max form), for objectives
        ``q``: the warm start of a run that continues them, also on other costs."""

    @abstractmethod
    def solves(self) -> list[int]:
        """The block of each subproblem an iteration solves, in order."""

    @abstractmethod
    def objectives(self, theta: np.ndarray, q: np.ndarray) -> np.ndarray:
        """The objective of each solve: ``(b, S, n)``."""

    def buffer(self, b: int, n: int) -> np.ndarray:
        """An array for the solutions of ``b`` instances (`evaluate` writes into it)."""
        return np.empty((b, len(self.solves()), n))

    def evaluate(self, solvers: list[Any], obj: np.ndarray, X: np.ndarray) -> np.ndarray:
        """Solve every subproblem for ``obj`` (the block solvers of the decomposition), writing the
        solutions into ``X``; their optimal values ``(b, S)`` (a solver's proven bound where it
        exceeds its point's value)."""
        excess = np.zeros(X.shape[:2])
        for s, k in enumerate(self.solves()):
            solvers[k].argmax(obj[:, s], out=X[:, s], excess=excess[:, s])
        return np.einsum("bsn,bsn->bs", obj, X) + excess

    def offer_primal(
        self, heuristic: PrimalHeuristic, q: np.ndarray, X: np.ndarray, p_val: np.ndarray, p_x: np.ndarray,
        idx: np.ndarray,
    ) -> None:  # fmt: skip
        """Improve the best primal values ``p_val[idx]`` (points ``p_x``) from the solutions ``X``."""
        heuristic.update(q, X, p_val, p_x, idx)

    @abstractmethod
    def bounds(self, values: np.ndarray) -> np.ndarray:
        """Bounds ``(b, R)`` from the solves' optimal values ``(b, S)``."""

    def score(self, bounds: np.ndarray) -> np.ndarray:
        """What the run minimises, per instance: the bound (or the sum of the bounds)."""
        return bounds.sum(axis=1)

    def runs(self) -> int:
        """How many bounds the score adds up (its target is that many times the primal value)."""
        return 1

    @abstractmethod
    def subgradient(self, X: np.ndarray) -> np.ndarray:
        """The subgradient of the score in ``θ`` from the solutions ``X`` ``(b, S, n)``."""

    def project(self, theta: np.ndarray, q: np.ndarray) -> np.ndarray:
        """``θ`` back onto its domain after a step that may have left it."""
        return theta

    @abstractmethod
    def keep(self, theta: np.ndarray, q: np.ndarray, obj: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, ...]:
        """What the result stores: ``(lam, main, main_x)`` for these instances."""


class Shared(Form):
    def start(self, q: np.ndarray, mu0: float | str) -> np.ndarray:
        return np.repeat(q[:, None, :] / self.m, self.m, axis=1)

    def resume(self, lam: np.ndarray, q: np.ndarray) -> np.ndarray:
        # on other costs the kept λ no longer sums to q: spread the difference over the blocks
        return self.project(np.array(lam, dtype=float), q)

    def solves(self) -> list[int]:
        return list(range(self.m))

    def objectives(self, theta: np.ndarray, q: np.ndarray) -> np.ndarray:
        return theta

    def bounds(self, values: np.ndarray) -> np.ndarray:
        return values.sum(axis=1, keepdims=True)

    def subgradient(self, X: np.ndarray) -> np.ndarray:
        return X - X.mean(axis=1, keepdims=True)

    def project(self, theta: np.ndarray, q: np.ndarray) -> np.ndarray:
        return theta - (theta.sum(axis=1, keepdims=True) - q[:, None, :]) / self.m

    def keep(self, theta, q, obj, X):
        return theta, theta, X


class MuForm(Form):
    def __init__(self, m: int, main: int) -> None:
        super().__init__(m)
        self.main = main
        self.others = [k for k in range(m) if k != main]

    def start(self, q: np.ndarray, mu0: float | str) -> np.ndarray:
        return _mu_start(q, self.m, self.m - 1, mu0)

    def resume(self, lam: np.ndarray, q: np.ndarray) -> np.ndarray:
        return -np.array(lam[:, self.others], dtype=float)  # λ_k = −μ_k; μ does not depend on q

    def solves(self) -> list[int]:
        return list(range(self.m))

    def objectives(self, theta: np.ndarray, q: np.ndarray) -> np.ndarray:
        lam = np.empty((theta.shape[0], self.m, theta.shape[2]))
        lam[:, self.others] = -theta
        lam[:, self.main] = q + theta.sum(axis=1)
        return lam

    def bounds(self, values: np.ndarray) -> np.ndarray:
        return values.sum(axis=1, keepdims=True)

    def subgradient(self, X: np.ndarray) -> np.ndarray:
        return X[:, self.main][:, None, :] - X[:, self.others]

    def keep(self, theta, q, obj, X):
        return obj, obj[:, self.main], X[:, self.main]


class Joint(Form):
    def start(self, q: np.ndarray, mu0: float | str) -> np.ndarray:
        return _mu_start(q, self.m, self.m, mu0)

    def resume(self, lam: np.ndarray, q: np.ndarray) -> np.ndarray:
        return -np.array(lam, dtype=float)  # the kept λ_k = −ν_k

    def solves(self) -> list[int]:
        return list(range(self.m)) * 2  # every main block, then every block with −ν_k

    def objectives(self, theta: np.ndarray, q: np.ndarray) -> np.ndarray:
        main = (q + theta.sum(axis=1))[:, None, :] - theta
        return np.concatenate([main, -theta], axis=1)

    def bounds(self, values: np.ndarray) -> np.ndarray:
        m = self.m
        light = values[:, m:]
        return values[:, :m] + light.sum(axis=1, keepdims=True) - light

    def runs(self) -> int:
        return self.m

    def subgradient(self, X: np.ndarray) -> np.ndarray:
        m = self.m
        main, light = X[:, :m], X[:, m:]
        return main.sum(axis=1, keepdims=True) - main - (m - 1) * light

    def keep(self, theta, q, obj, X):
        m = self.m  # main objective d is q + Σν − ν_d: kept as q + Σν (b, n) beside λ = −ν
        return obj[:, m:], q + theta.sum(axis=1), X[:, :m]
