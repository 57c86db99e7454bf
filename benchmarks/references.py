"""The references of run folders made before the runner measured them: the test regret % of the
constant predictor (the training costs' mean) and of the Bayes floor (the decisions for the
generator's ``E[c | features]``), written to each folder's ``references.json`` as ``run()`` writes
it for new runs (``ldopt_experiments.runner.references``), so that ``ldopt table … --paper`` and
the folder's ``table.md`` (rewritten) show them. The setup is rebuilt from the folder's ``meta.json`` and rows (data
seed 42, the runner's; ``--rows``: the knapsack's rows, 10 unless the run chose others) and
checked against the digest the folder recorded, where it recorded one; the test optima are solved
again with the run's solver and time limit. ``--sample k`` estimates both on k test instances
drawn at random, with their standard errors; ``--gap g`` and ``--time-limit s`` stop the decisions
at relative MIP gap g or after s seconds, the floor then saved with its certified lower end (for
the MKP, whose floor decisions for fractional expected costs take the solver seconds to minutes
each).

Usage: ``python benchmarks/references.py [--rows m] [--sample k] [--gap g] [--time-limit s] FOLDER...``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ldopt.runtime.cache import write_text
from ldopt_experiments.cli import setup_from
from ldopt_experiments.results import load_rows, table
from ldopt_experiments.runner import references


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--rows", type=int, default=10, help="the knapsack's rows (examples/large_knapsack.py: 30)")
    ap.add_argument("--time-limit", type=float, default=None, help="seconds per decision (default: the run's)")
    ap.add_argument("--gap", type=float, default=0.0, help="the decisions' relative MIP gap (default: exact)")
    ap.add_argument("--sample", type=int, default=None, help="test instances to estimate on (default: every one)")
    a = ap.parse_args()
    for folder in a.folders:
        meta = json.loads((folder / "meta.json").read_text())
        rows = load_rows(folder / "results.csv")
        first = rows[0]
        spec = argparse.Namespace(
            problem=first["problem"], size=int(first["size"]), rows=a.rows, data_seed=42,
            train=meta["train"], val=meta["val"], test=meta["test"],
        )  # fmt: skip
        setup = setup_from(spec)
        recorded = meta.get("data_digest")
        if recorded is not None and recorded != setup.data_digest:
            sys.exit(f"{folder}: expected the data of digest {recorded}, got {setup.data_digest} from its settings")
        limit = a.time_limit if a.time_limit is not None else meta.get("time_limit")
        found = references(setup, meta["solver"], None, folder, limit, sample=a.sample, gap=a.gap)
        write_text(folder / "table.md", table(rows, references=found))
        print(folder, json.dumps({k: found[k] for k in ("test_regret", "standard_error") if k in found}), flush=True)


if __name__ == "__main__":
    main()
