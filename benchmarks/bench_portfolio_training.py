"""LD training time on the portfolio, where the risk row is the main block: pivoting vs the NNLS dual.

LD(IMLE, static, L2) and LD(SPO+, static, L1) at n = 400 (the protocol's 100 training
instances, batch 32, its multipliers), a few epochs each, twice in the same process: the risk
block's oracle with block principal pivoting (``QuadraticRowOracle``'s default) and with its
nonnegative least-squares dual alone (the method it used before). Same seed, same model, same
data: the two runs train the same model (the largest weight difference is printed), only the time
differs.
Prints seconds per run and the ratio; saves ``portfolio_training.json``.

Target: pivoting >= 5x faster per LD(IMLE) epoch at n = 400.

    python benchmarks/bench_portfolio_training.py [--assets 400] [--epochs 5]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch

import ldopt_torch as lt
from ldopt.oracles import QuadraticRowOracle
from ldopt_experiments.protocol import portfolio_setup

RESULTS = Path(__file__).parent / "results"
LOSSES = (("imle", "L2"), ("spo+", "L1"))


def train(s, data, kind: str, variant: str, epochs: int, active_set: bool) -> tuple[float, torch.Tensor, int]:
    """Seconds, the trained weights, and the supports pivoted for one run."""
    oracle = s.dec.block(s.main).solver("auto").oracle
    if not isinstance(oracle, QuadraticRowOracle):
        raise SystemExit(f"expected the risk block's QuadraticRowOracle, got {type(oracle).__name__}")
    oracle.use_active_set = active_set
    oracle.pivots = 0
    torch.manual_seed(0)
    model = torch.nn.Linear(s.train[0].shape[1], s.problem.num_costs)
    loss = lt.LDLoss(s.dec, kind, variant)
    t0 = time.perf_counter()
    try:
        fit = lt.fit(model, data, loss, mode="static", main=s.main, epochs=epochs, lr=s.lr, seed=0, progress=False)
    finally:
        oracle.use_active_set = True
    seconds = time.perf_counter() - t0
    return seconds, torch.nn.utils.parameters_to_vector(fit.model.parameters()).detach(), oracle.pivots


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--assets", type=int, default=400)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--out", default=str(RESULTS / "portfolio_training.json"))
    a = ap.parse_args()
    torch.set_num_threads(1)
    s = portfolio_setup(a.assets, test=10)
    data = lt.LDDataset(s.dec, *s.train, progress=False)  # mu0="auto": symmetric (a quadratic row)
    rows = []
    for kind, variant in LOSSES:
        train(s, data, kind, variant, 1, True)  # compile and warm up outside the timing
        t_act, w_act, pivots = train(s, data, kind, variant, a.epochs, True)
        t_nnls, w_nnls, _ = train(s, data, kind, variant, a.epochs, False)
        gap = float((w_act - w_nnls).abs().max())
        row = dict(
            method=f"LD({kind.upper()}, static, {variant})",
            assets=a.assets,
            epochs=a.epochs,
            active_set_s=t_act,
            nnls_s=t_nnls,
            ratio=t_nnls / t_act,
            supports_pivoted=pivots,
            max_weight_diff=gap,
        )
        rows.append(row)
        print(
            f"{row['method']:24s} n = {a.assets}, {a.epochs} epochs: pivoting {t_act:6.2f} s, "
            f"NNLS dual {t_nnls:6.2f} s, {row['ratio']:.1f}x; weights apart by {gap:.1e}",
            flush=True,
        )
    Path(a.out).write_text(json.dumps(rows, indent=1) + "\n")
    print(f"target: LD(IMLE) >= 5x with pivoting; saved {a.out}")


if __name__ == "__main__":
    main()
