"""The training seconds of `examples/routing.py`'s index-network rows on TSP50, one seed at a time
with nothing else running, beside the committed runs' (which shared the two cores with the test
suite and other runs), and the test regret of the retrained model against the committed one's.

For each ``deg:seed``: the shared multipliers of the 1000 training instances (100 steps, not
training), then the two-stage fit of the index network (200 epochs at 1e-2) and LD(SPO+) from it
(20 epochs at 3e-3) as the committed rows train them (`tsp50_index/`, `tsp50deg6_index/`), timed
(their sum is the rows' "training s"), then the exact test tours of its predictions against the
committed test optima. Saves ``benchmarks/results/routing/index_training_time.json``.

    python benchmarks/bench_index_training_time.py 4:42 4:45 6:42 6:43 6:45
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

import ldopt_torch as lt
from ldopt.runtime import cache

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import routing

ROOT = Path(__file__).resolve().parents[1]

FOLDERS = {4: "tsp50_index", 6: "tsp50deg6_index"}
LD = "ld:spo+:L1:static:mse/20/0.003"


def timed(deg: int, seed: int) -> dict:
    """One seed's multipliers, fit and LD seconds, and its test regret beside the committed run's."""
    folder = ROOT / "benchmarks" / "results" / "routing" / FOLDERS[deg]
    run = json.loads((folder / "results.json").read_text())
    a = argparse.Namespace(**{**run["args"], "seeds": 1, "out": str(folder)})
    x_tr, c_tr, _, _, _, x_te, c_te, _ = routing.split(50, deg, seed, a.train, a.val, a.test, "tsp")
    r = routing.Routing(a, seed)
    t = time.perf_counter()
    dual = lt.DEFAULTS.dual.merged(mode="shared")
    data = lt.LDDataset(r.dec, x_tr, c_tr, dual, iterations=a.iterations, progress=False)
    multipliers = time.perf_counter() - t
    how = routing.Training(a.model, (a.epochs, a.epochs_2s), None, None, 1, a.lr_2s)
    t = time.perf_counter()
    fit = routing.train_one("2s", r.p, data, x_tr, c_tr, how, seed, None)
    fit_s = time.perf_counter() - t
    t = time.perf_counter()
    net = routing.train_one(LD, r.p, data, x_tr, c_tr, how, seed, fit)
    ld_s = time.perf_counter() - t
    with torch.no_grad():
        pred = net(torch.as_tensor(x_te, dtype=torch.float32)).numpy().astype(float)
    assert (folder / "optima" / f"seed{seed}.npz").exists(), f"{folder}/optima has no seed {seed}"
    opt, _ = routing.test_optima(a, r, seed, c_te)  # the committed run's, its key checked
    regret, _ = r.regret(c_te, pred, opt)
    (old,) = [x for x in run["rows"] if x["seed"] == seed and x["method"] == LD]
    return dict(deg=deg, seed=seed, multipliers_s=multipliers, fit_s=fit_s, ld_s=ld_s, train_s=fit_s + ld_s,
                regret=regret, committed_regret=old["regret"], committed_train_s=old["train_seconds"])  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", help="deg:seed, e.g. 4:42 (degree 4 or 6, a seed of the committed run)")
    runs = [tuple(int(v) for v in s.split(":")) for s in ap.parse_args().runs]
    out = []
    for deg, seed in runs:
        out.append(timed(deg, seed))
        print(json.dumps(out[-1]), flush=True)
    path = ROOT / "benchmarks" / "results" / "routing" / "index_training_time.json"
    cache.write_text(path, json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
