"""Beyond the paper's problems: shortest path (one block per node, and two regions), facility
location, shift scheduling, set covering, lot sizing.

For each family (generated as in ``ldopt.problems``; 200 training, 50 validation and 200 test
instances, degree-4 costs, a linear model), trains MSE, SPO+ on the full problem, LD(SPO+,
multiple, L1) and LD(I-MLE, multiple, L2) with the reference's λ = 10 and with λ = 100 for up
to ``--epochs`` epochs with early stopping on the validation regret, and prints one table per
family (no full-problem SPO+ for facility location and lot sizing, whose objectives are not c·x)
with the references every run measures: the constant mean-cost predictor and the Bayes floor (the
decisions for the generator's expected costs given the features; ``references.json``). These are
minimisations, where the default joint multipliers are poor (README, "Which multipliers"): the LD
training sets use the shared dual with 300 Polyak steps. Results go to
``results/families/<family>``; ``--resume`` keeps the runs already there.

    python examples/families.py                        # every family, 3 seeds
    python examples/families.py --family set_cover --seeds 0
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ldopt_experiments import RunOptions, cli, protocol_dual
from ldopt_experiments.arguments import add_resume, integer_at_least
from ldopt_experiments.protocol import FAMILIES


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
    add_resume(ap)
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


if __name__ == "__main__":
    main()
