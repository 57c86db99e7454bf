"""The ``ldopt experiment`` command's arguments: every option with its help, in one place."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

import ldopt
from ldopt_torch import DynamicMultipliers

from .methods import GRAMMAR
from .protocol import FAMILIES

EPILOG = f"""\
methods: {GRAMMAR}
  mse            two-stage: mean squared error of the predicted costs
  spo+, imle     SPO+ / I-MLE on the full problem (PyEPO's losses over ldopt's solvers)
  cave, cave+    cone-aligned vectors (solver-free; linear problems)
  lava           adjacent-vertex alignment (solver-free; linear problems)
  ld:...         the paper's LD losses: a registered surrogate (spo+ | imle | fy | exact,
                 the closed form of a quadratic main block, or yours), mode static | multiple,
                 loss L1 | L2; ':scaled' rescales the
                 main subproblem to the costs' scale, ':unit' to its own (I-MLE's noise
                 relative to the main objective); ':lam100' sets I-MLE's λ (default 10,
                 the reference's)
budgets: without --budget every run trains at most --epochs epochs, validated every
  --eval-every epochs, and stops after --patience validations without improvement: the
  same seed gives the same numbers whatever the machine's load. --budget S bounds the
  training seconds of each run instead (validation time excluded; the results then depend
  on the load): use it for budget figures. Multiplier construction is reported beside
  (multipliers_s), and counted inside --budget with --count-construction.
sizes: defaults are the paper's protocol — knapsack: 200 train / 100 validation / 1000
  test instances, m = 10 rows; portfolio: 100 / 25 / 1000. Validation solves every
  validation instance once per validation; test evaluation solves every test instance
  once per run.
"""


def integer_at_least(minimum: int) -> Callable[[str], int]:
    """An argparse type (for the runner and the examples): an integer ≥ ``minimum``; argparse names
    the option in its error."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected an integer ≥ {minimum}, got {text!r}")
        return value

    return parse


def positive_number(text: str) -> float:
    """An argparse type (for the runner and the examples): a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text!r}")
    return value


def experiment_parser(prog: str = "ldopt experiment") -> argparse.ArgumentParser:
    """The runner's options (see ``--help``)."""
    ap = argparse.ArgumentParser(
        prog=prog,
        description=(
            "Train and compare DFL methods on the paper's benchmark problems and five more families; "
            "save results, a table and plots."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("problem", choices=["knapsack", "portfolio", *sorted(FAMILIES)])
    ap.add_argument(
        "--size",
        type=integer_at_least(1),
        default=None,
        help="items (knapsack) or assets (portfolio), default 100; grid side (shortest_path, 5), customers "
        "(facility, 10), employees (shift_scheduling, 8), sets (set_cover, 40) or items (lot_sizing, 4)",
    )
    ap.add_argument("--rows", type=integer_at_least(1), default=10, help="knapsack rows m; default 10 (the paper's)")
    ap.add_argument(
        "--methods",
        nargs="+",
        default=["mse", "spo+", "ld:spo+:multiple:L1", "ld:imle:multiple:L2"],
        help="methods to train (grammar below); default: mse spo+ ld:spo+:multiple:L1 ld:imle:multiple:L2",
    )
    ap.add_argument("--seeds", nargs="+", type=integer_at_least(0), default=[0], help="training seeds; default 0")
    ap.add_argument("--epochs", type=integer_at_least(1), default=500, help="epoch cap per run; default 500")
    ap.add_argument(
        "--patience",
        type=integer_at_least(1),
        default=20,
        help="stop after this many validations without improvement (epoch budgets); default 20",
    )
    ap.add_argument(
        "--eval-every",
        type=integer_at_least(0),
        default=0,
        help="validate every k epochs; default 1 (with --budget: --evaluations times at doubling training times)",
    )
    ap.add_argument(
        "--budget",
        type=positive_number,
        default=None,
        help="training seconds per run instead of epochs (load-dependent results); default none",
    )
    ap.add_argument("--evaluations", type=integer_at_least(1), default=12, help="validations per --budget; default 12")
    ap.add_argument("--count-construction", action="store_true", help="count the multipliers inside --budget")
    ap.add_argument(
        "--dual",
        choices=["shared", "independent", "joint"],
        default="joint",
        help="the LD training sets' multipliers: one shared symmetric solve, the paper's m runs from "
        "μ = 1, or one joint run for every decomposition; default joint (LDDataset's)",
    )
    ap.add_argument(
        "--iterations",
        type=integer_at_least(1),
        default=None,
        help="subgradient iterations of the multipliers (per run); default 30, or 300 with --dual shared",
    )
    ap.add_argument(
        "--dual-step",
        choices=["polyak", "adam", "master", "auto"],
        default="polyak",
        help="default polyak; master: exact (column generation); auto: master where every block is narrow",
    )
    ap.add_argument(
        "--dynamic",
        type=dynamic_option,
        default=None,
        metavar="EVERY:STEPS:MIX",
        help="LD multipliers that follow the model: every EVERY epochs, STEPS warm-started dual steps on "
        "c + MIX (ĉ − c), counted as training time (e.g. 20:10:1); default none (the paper's fixed μ)",
    )
    ap.add_argument(
        "--train", type=integer_at_least(1), default=None, help="training instances (default: the protocol's)"
    )
    ap.add_argument(
        "--val", type=integer_at_least(1), default=None, help="validation instances (default: the protocol's)"
    )
    ap.add_argument("--test", type=integer_at_least(1), default=None, help="test instances (default: the protocol's)")
    ap.add_argument("--data-seed", type=integer_at_least(0), default=42, help="seed of the generated data; default 42")
    ap.add_argument(
        "--lr", type=positive_number, default=None, help="Adam's learning rate (default: knapsack 1e-2, portfolio 2e-3)"
    )
    ap.add_argument(
        "--solver", default="highs", help="full-problem solver: highs, gurobi, cvxpy, auto, pyomo:<name>; default highs"
    )
    ap.add_argument(
        "--time-limit",
        type=positive_number,
        default=None,
        help="seconds per full-problem solve (evaluation on incumbents with certified bounds); default none (exact)",
    )
    ap.add_argument("--certify", action="store_true", help="tighten the test optima's bounds by an LD dual bound")
    ap.add_argument(
        "--workers",
        type=integer_at_least(1),
        default=None,
        help="threads for dual solves and evaluation; default: every core",
    )
    ap.add_argument(
        "--curve-instances",
        type=integer_at_least(0),
        default=200,
        help="test instances for the budget curves (0: none); default 200",
    )
    ap.add_argument("--out", default="results", help="output folder; default results")
    add_resume(ap)
    ap.add_argument("--quiet", action="store_true", help="no progress bars or per-run lines")
    return ap


def add_resume(ap: argparse.ArgumentParser) -> None:
    """``--resume``, for the runner's command and the examples that run through it.

    Parameters
    ----------
    ap
        The parser to add it to.
    """
    ap.add_argument(
        "--resume",
        action="store_true",
        help="keep the runs already saved in --out and train only the others (an interrupted run goes on)",
    )


def dynamic_option(text: str) -> DynamicMultipliers:
    """``EVERY:STEPS:MIX`` as a [`DynamicMultipliers`][ldopt_torch.DynamicMultipliers] (argparse's type)."""
    parts = text.split(":")
    try:
        if len(parts) != 3:
            raise ValueError
        return DynamicMultipliers(every=int(parts[0]), steps=int(parts[1]), mix=float(parts[2]))
    except (ValueError, ldopt.LdoptError) as exc:
        raise argparse.ArgumentTypeError(
            f"expected EVERY:STEPS:MIX (two positive integers and a number in [0, 1]), got {text!r}"
        ) from exc
