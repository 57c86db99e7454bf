"""I-MLE's λ (the target perturbation) against test regret, on epoch budgets.

LD(IMLE, multiple, L2) from one seed: a linear model, at most ``--epochs`` epochs with patience 4
(validating every 2), for each λ. MKP n = 100 (200/50/200, the default LD multipliers) and the
other families (300 shared dual steps, as ``examples/families.py``). Prints one line per λ.

    python benchmarks/bench_imle_lambda.py knapsack set_cover --lambd 10 30 100 300
"""

from __future__ import annotations

import argparse

import torch

import ldopt_torch as lt
from ldopt_experiments.protocol import FAMILIES, knapsack_setup


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("problems", nargs="+", choices=["knapsack", *sorted(FAMILIES)])
    ap.add_argument("--lambd", nargs="+", type=float, default=[10.0, 30.0, 100.0, 300.0])
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    for name in a.problems:
        s = knapsack_setup(100, train=200, val=50, test=200) if name == "knapsack" else FAMILIES[name](train=200)
        dual = {} if name == "knapsack" else dict(iterations=300, mode="shared")
        data = lt.LDDataset(s.dec, *s.train, **dual, progress=False)
        for lam in a.lambd:
            torch.manual_seed(a.seed)
            model = torch.nn.Linear(s.train[0].shape[1], s.problem.num_costs)
            loss = lt.LDLoss(s.dec, "imle", "L2", lambd=lam)
            out = lt.fit(
                model,
                data,
                loss,
                mode="multiple",
                epochs=a.epochs,
                val=s.val,
                eval_every=2,
                patience=4,
                lr=s.lr,
                solver="highs",
                progress=False,
                seed=a.seed,
            )
            pred = out.model(torch.as_tensor(s.test[0], dtype=torch.float32))
            test = float(lt.relative_regret(s.problem, pred, s.test[1], solver="highs"))
            print(f"{name} lambd {lam:g}: validation {out.best_val:.2%}, test {test:.2%} ({out.stopped})", flush=True)


if __name__ == "__main__":
    main()
