"""Beyond the paper's problems: shortest path (one block per node, and two regions), facility
location, shift scheduling, set covering, lot sizing.

For each family (generated as in ``ldopt.problems``; 200 training, 50 validation and 200 test
instances, degree-4 costs, a linear model), trains MSE, SPO+ on the full problem, LD(SPO+,
multiple, L1) and LD(I-MLE, multiple, L2) with the reference's λ = 10 and with λ = 100 for up
to ``--epochs`` epochs with early stopping on the validation regret, and prints one table per
family (no full-problem SPO+ for facility location and lot sizing, whose objectives are not c·x)
and the regrets of the constant mean-cost predictor and of the Bayes floor (the decisions for the
generator's expected costs given the features). These are minimisations, where the default
joint multipliers are poor (README, "Which multipliers"): the LD training sets use the shared dual
with 300 Polyak steps. Results go to ``results/families/<family>``; ``--resume`` keeps the runs
already there.

    python examples/families.py                        # every family, 3 seeds
    python examples/families.py --family set_cover --seeds 0
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from ldopt.evaluate.regret import evaluate
from ldopt_experiments import RunOptions, cli, protocol_dual
from ldopt_experiments.arguments import integer_at_least
from ldopt_experiments.protocol import FAMILIES, Setup


def reference_regrets(setup: Setup, solver: str, out: Path) -> None:
    """Test regret (%, as results.csv) of the constant predictor (the training costs' mean: the
    bar every learned model must clear), saved to ``constant.json``, and of the decisions for the
    generator's ``E[c | features]`` (the Bayes floor, which no predictor of the features beats on
    average), saved to ``bayes.json``."""
    (_, C), (_, test) = setup.train, setup.test
    out.mkdir(parents=True, exist_ok=True)
    for name, pred, what in (
        ("constant", np.tile(C.mean(0), (len(test), 1)), "the constant mean-cost predictor"),
        ("bayes", setup.expected_test, "the decisions for E[c | features] (the Bayes floor)"),
    ):
        if pred is None:
            continue
        value = evaluate(setup.problem, pred, test, solver).value
        (out / f"{name}.json").write_text(
            json.dumps(dict(problem=setup.name, size=setup.size, test_regret=100 * value))
        )
        print(f"{setup.name} n={setup.size}: {what}: test regret {value:.3%}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--family", nargs="+", choices=sorted(FAMILIES), default=sorted(FAMILIES))
    ap.add_argument("--epochs", type=integer_at_least(1), default=40, help="at most this many epochs per method")
    ap.add_argument(
        "--patience", type=integer_at_least(1), default=4, help="validations without improvement before stopping"
    )
    ap.add_argument("--eval-every", type=integer_at_least(1), default=2, help="validate every this many epochs")
    ap.add_argument("--train", type=integer_at_least(1), default=200)
    ap.add_argument("--val", type=integer_at_least(1), default=50, help="validation instances; default 50")
    ap.add_argument("--test", type=integer_at_least(1), default=200, help="test instances; default 200")
    ap.add_argument("--solver", default="highs")
    ap.add_argument("--seeds", nargs="+", type=integer_at_least(0), default=[0, 1, 2])
    ap.add_argument("--workers", type=integer_at_least(1), default=None, help="threads (default: every core)")
    ap.add_argument("--out", default="results/families")
    ap.add_argument("--methods", nargs="+", default=None, help="methods (default: MSE, SPO+ where it fits, the two LD)")
    ap.add_argument("--resume", action="store_true", help="keep the runs already saved and train only the others")
    a = ap.parse_args()
    root = Path(a.out)
    for family in a.family:
        setup = FAMILIES[family](train=a.train, val=a.val, test=a.test)
        a.out = str(root / family)
        # PyEPO's full-problem losses need the objective c·x: facility location's is f·y + Σ d_i c_ij x_ij
        full = ["spo+"] if setup.problem.compiled.identity_costs else []
        cli.example(
            setup,
            a.methods or ["mse", *full, "ld:spo+:multiple:L1", "ld:imle:multiple:L2", "ld:imle:multiple:L2:lam100"],
            a,
            RunOptions(
                patience=a.patience,
                eval_every=a.eval_every,
                dual=protocol_dual("shared", iterations=300),
                resume=a.resume,
                curve_instances=0,
            ),
        )
        reference_regrets(setup, a.solver, Path(a.out))


if __name__ == "__main__":
    main()
