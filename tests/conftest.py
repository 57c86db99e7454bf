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


# The suite's tiers: each module's kind, one place (`pytest --markers` lists them). The README's
# command runs them all; `-m quick` (every tier but docs, torch and integration) is the tier to run
# while working. A module not named here is a unit test.
TIERS = {
    "docs": ("test_readme", "test_docs", "test_doc_pages", "test_claims", "test_layout"),
    "torch": (
        "test_torch_train", "test_torch_layers", "test_surrogates", "test_baselines", "test_dynamic",
        "test_presets", "test_cuda", "test_zoo",
    ),
    "integration": (
        "test_experiment", "test_tsp", "test_cvrp", "test_parallel", "test_faults", "test_sweep", "test_families",
        "test_progress", "test_zoo",
    ),
    "fuzz": ("test_bad_inputs", "test_second_audit", "test_third_audit"),
}  # fmt: skip
_SLOW_TIERS = ("docs", "torch", "integration")


def pytest_collection_modifyitems(config, items):
    """Mark every test with its module's tiers (`TIERS`), ``unit`` where none, and ``quick``
    where none of its tiers (its module's or its own marks) is slow to run."""
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1] if item.module else ""
        tiers = [t for t, modules in TIERS.items() if module in modules] or ["unit"]
        for t in tiers:
            item.add_marker(getattr(pytest.mark, t))
        if not any(t in item.keywords for t in (*_SLOW_TIERS, "slow")):  # a test may be marked itself
            item.add_marker(pytest.mark.quick)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
