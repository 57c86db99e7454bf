import os

import numpy as np
import pytest
from hypothesis import settings

os.environ.setdefault("LDOPT_PROGRESS", "0")

import ldopt
from ldopt.solvers import registry

# The default run draws the same examples every time (a clean clone's CI is reproducible); explore
# new ones with HYPOTHESIS_PROFILE=explore, and pin what it finds as @example.
settings.register_profile("repeat", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeat"))

# Every registered backend plus one Pyomo-solver route; a new backend joins automatically.
ALL_SOLVERS = [*registry.registered(), "pyomo:appsi_highs"]


def require(problem: ldopt.Problem, solver: str) -> None:
    """Skip (never fail) when ``solver`` cannot run ``problem`` here, saying why."""
    avail = registry.availability(problem.compiled, solver)
    if not avail:
        pytest.skip(f"{solver} unavailable for this model: {avail.reason}")


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
