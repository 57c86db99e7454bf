"""The problem-family contract: what a family generates, and the registry that finds it by name.

A family is a [`Family`][ldopt.problems.family.Family]: a name, a generator ``(num_data, size, deg,
seed) → Instances`` and a default size. [`Instances`][ldopt.problems.family.Instances] hold the
Pyomo model (its mutable cost Param is ``model.c``), the features and the costs, and the blocks that
suit the family (decomposing is the caller's step: ``ldopt.decompose(inst.problem(),
inst.blocks)``). ``register(Family(...))`` makes it known to
[`family()`][ldopt.problems.family.family], the harness (``python -m ldopt_experiments run <name>``)
and ``examples/families.py``; ``docs/extending.md`` adds one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ldopt import checks
from ldopt.errors import InputError
from ldopt.model.problem import Problem

if TYPE_CHECKING:
    from ldopt.decomposition.decompose import Decomposition


@dataclass(frozen=True)
class Instances:
    """Generated instances of one family.

    Parameters
    ----------
    model
        The Pyomo model; its mutable cost Param is ``model.c``.
    features
        ``(N, p)`` features.
    costs
        ``(N, num_costs)`` costs, in the order of ``model.c``'s index.
    blocks
        The decomposition that suits the family: ``ldopt.decompose(instances.problem(),
        instances.blocks)`` (``None``: one block per row).
    main
        The constraint component whose block is static mode's main block, or ``None`` (the
        trainer's default).
    expected
        ``E[c | features]`` ``(N, num_costs)`` where the generator knows it (its noise is
        multiplicative with mean 1: the costs without it), else ``None``. The decisions for these
        costs are the Bayes floor: what no predictor of the features beats on average.
    """

    model: Any
    features: np.ndarray
    costs: np.ndarray
    blocks: Any = None
    main: str | None = None
    expected: np.ndarray | None = None

    def __post_init__(self) -> None:
        F, C = np.asarray(self.features, dtype=float), np.asarray(self.costs, dtype=float)
        if F.ndim != 2 or C.ndim != 2 or len(F) != len(C):
            raise InputError(
                f"Instances: expected features (N, p) and costs (N, num_costs), got {F.shape} and {C.shape}"
            )
        object.__setattr__(self, "features", F)
        object.__setattr__(self, "costs", C)
        if self.expected is not None:
            E = np.asarray(self.expected, dtype=float)
            if E.shape != C.shape:
                raise InputError(f"Instances: expected expected costs shaped as the costs {C.shape}, got {E.shape}")
            object.__setattr__(self, "expected", E)

    def problem(self) -> Problem:
        """The compiled problem (cost Param ``model.c``)."""
        cost = getattr(self.model, "c", None)
        if cost is None:
            raise InputError("Instances.model: expected a mutable cost Param named c, got a model without one")
        return Problem.from_pyomo(self.model, cost)

    def main_block(self, dec: Decomposition) -> int | None:
        """The index of the block of component ``main`` in ``dec`` (``None`` without one).

        Parameters
        ----------
        dec
            A decomposition of the instances' problem.
        """
        if self.main is None:
            return None
        for k in range(dec.num_blocks):
            if [r.component for r in dec.block(k).compiled.rows] == [self.main]:
                return k
        raise InputError(f"main: expected a block made of component {self.main!r}, got none in {dec!r}")


Generator = Callable[[int, int, int, int], Instances]  # (num_data, size, deg, seed) -> Instances


@dataclass(frozen=True)
class Family:
    """A problem family: its name, generator and default size.

    Parameters
    ----------
    name
        The registry's key (e.g. ``"facility"``).
    generate
        ``generate(num_data, size, deg, seed) -> Instances``.
    size
        The default size (what ``size`` means is the family's: items, customers, grid side, ...).
    description
        One line for listings.
    lr
        The learning rate its protocol trains with.
    """

    name: str
    generate: Generator
    size: int
    description: str = ""
    lr: float = 1e-2

    def instances(self, num_data: int, size: int | None = None, *, deg: int = 4, seed: int = 42) -> Instances:
        """``num_data`` instances of ``size`` (default: the family's), polynomial degree ``deg``.

        Parameters
        ----------
        num_data
            Instances to generate.
        size
            The family's size parameter; ``None``: its default.
        deg
            The cost map's polynomial degree.
        seed
            The random seed.
        """
        num_data = checks.positive_int("num_data", num_data)
        size = self.size if size is None else checks.positive_int("size", size)
        out = self.generate(num_data, size, checks.positive_int("deg", deg), checks.nonnegative_int("seed", seed))
        if not isinstance(out, Instances):
            raise InputError(f"family {self.name!r}: expected its generator to return Instances, got {type(out)}")
        return out


FAMILIES: dict[str, Family] = {}


def register(family: Family) -> Family:
    """Make ``family`` known by its name (a name registered again is replaced); returns it.

    Parameters
    ----------
    family
        The family.
    """
    checks.instance("family", family, Family, "an ldopt.problems.Family")
    if not family.name or not isinstance(family.name, str):
        raise InputError(f"family.name: expected a non-empty string, got {family.name!r}")
    FAMILIES[family.name] = family
    return family


def family(name: str) -> Family:
    """The registered family ``name``.

    Parameters
    ----------
    name
        A registered family's name (``FAMILIES`` lists them).
    """
    if name not in FAMILIES:
        raise InputError(f"family: expected one of {sorted(FAMILIES)}, got {name!r}")
    return FAMILIES[name]
