"""The largest public DFL knapsack: PyEPO's MPAX example (10,000 items × 50 rows) on two CPU cores.

The instance of PyEPO's notebook 09 ("Solving on MPAX with PDHG"): ``pyepo.data.knapsack.genData(
num_data=2000, num_features=5, num_items=10000, dim=50, deg=4, noise_width=0.5, seed=42)``,
capacity 500 on every row, ``train_test_split(test_size=1000, random_state=42)``, a linear model,
Adam at 1e-2, batch 32, 10 epochs. The notebook solves only the LP relaxation (PDHG on a GPU);
ldopt trains through the decomposition with exact knapsack oracles and takes integer decisions:

* multipliers: the LP relaxation's row duals split over the 50 rows (``mu0="lp"``: one warm
  HiGHS LP solve per instance, then ``--iterations`` joint steps; 1 evaluates the split);
* decisions for predicted costs and the true costs' optima: ``ldopt.lp_optima`` — the LP point
  rounded, repaired and improved by swaps (feasible, integer), with the LP's optimum as a
  certified bound on every true optimum, so the test regret is reported with a certified
  interval (``24.1% (≤ 24.8%)``) instead of after 1000 MILP solves HiGHS does not finish;
* the notebook's own protocol beside it: decisions and optima of the LP relaxation;
* methods (``--methods``): MSE, LD losses from scratch or from the MSE fit (``…:mse``, the
  common DFL practice that ``lt.fit`` applies by default when given a validation set; the
  notebook has none), and ``spo+:lp``, the notebook's own SPO+ over the LP relaxation (PyEPO's
  loss, one warm HiGHS LP per instance and step), each for ``--epochs`` epochs;
* ``bayes``, a floor rather than a method: decisions for the generator's expected costs
  ``E[c | x]`` (``knapsack.expected_costs``), the decision that minimises the expected regret
  given the features, so no model of these features can expect to do better; it shows how much of
  the regret is the noise (half-width 0.5) and how much is left to learn.

The data is ``ldopt.problems.knapsack.gen_data``'s, which draws PyEPO's ``genData`` stream (the
same arrays, tested). Prints ldopt's rows (measured here) beside the notebook's published rows
(quoted: their GPU) and saves ``results.json``, ``table.md`` and ``stages.png`` (seconds per
stage) to ``--out``. A rerun into the same ``--out`` with the same settings keeps the rows it
finished (each is saved as it ends) and trains only the methods it lacks; the test optima are
kept in ``<out>/cache``, so a run stopped anywhere resumes without solving them again. A folder of
other settings is refused.

    python examples/pyepo_large_knapsack.py                       # about 10 minutes on 2 cores
    python examples/pyepo_large_knapsack.py --train 200 --test 200 --epochs 3   # quicker
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from sklearn.model_selection import train_test_split

import ldopt
import ldopt_torch as lt
from ldopt.evaluate.lp_relaxation import relaxed_problem
from ldopt.evaluate.regret import report
from ldopt.problems import knapsack
from ldopt.runtime import cache
from ldopt_experiments.arguments import integer_at_least
from ldopt_experiments.plots import plot_stages

PUBLISHED = [  # PyEPO notebook 09 (MPAX, PDHG on the LP relaxation, one GPU): test regret %, seconds
    ("SPO+ (PyEPO, MPAX/PDHG, GPU)", 24.89, 1116.0),
    ("PFYL (PyEPO, MPAX/PDHG, GPU)", 25.75, 4312.0),
    ("pointwise LTR, 5% pool (PyEPO, GPU)", 33.22, 105.0),
]
SURROGATES = {"spo+": "SPO+", "imle": "IMLE", "fy": "FY"}
FLOOR = "floor: "  # the stage of the bayes row, a reference left out of the end-to-end time


def label(method: str) -> str:
    """A method's name in the table: ``mse`` or ``ld:<surrogate>:<L1|L2>[:mse]``."""
    if method == "mse":
        return "MSE (two-stage)"
    if method == "spo+:lp":
        return "SPO+ on the LP relaxation (the notebook's method)"
    if method == "bayes":
        return "the generator's expected costs given the features (the floor)"
    _, surrogate, target, *start = method.split(":")
    return f"LD({SURROGATES[surrogate]}, multiple, {target})" + (" from the MSE fit" if start else "")


def method_name(text: str) -> str:
    """``--methods``'s entries: ``mse``, ``spo+:lp``, ``bayes`` or ``ld:<spo+|imle|fy>:<L1|L2>[:mse]``."""
    parts = text.split(":")
    ok = text in ("mse", "spo+:lp", "bayes") or (
        len(parts) in (3, 4) and parts[0] == "ld" and parts[1] in SURROGATES and parts[2] in ("L1", "L2")
        and parts[3:] in ([], ["mse"])
    )  # fmt: skip
    if not ok:
        expected = "mse, spo+:lp, bayes or ld:<spo+|imle|fy>:<L1|L2>[:mse]"
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return text


GENERATOR = dict(num_data=2000, num_features=5, num_items=10000, dim=50, deg=4, noise_width=0.5, seed=42)
"""The notebook's ``genData`` call."""


def instance(train: int, test: int) -> tuple[ldopt.Problem, tuple[np.ndarray, ...]]:
    """The notebook's data and split, the MKP with capacity 500 on every row, and the test
    instances' expected costs ``E[c | x]``."""
    weights, x, c = knapsack.gen_data(**GENERATOR)
    expected = knapsack.expected_costs(**GENERATOR)
    x_train, x_test, c_train, c_test, _, e_test = train_test_split(x, c, expected, test_size=1000, random_state=42)
    model = knapsack.build_model(weights, np.full(50, 500.0))
    split = (
        x_train[:train], c_train[:train].astype(float), x_test[:test], c_test[:test].astype(float), e_test[:test]
    )  # fmt: skip
    return ldopt.Problem.from_pyomo(model, model.c), split


def train(
    method: str,
    training: tuple[np.ndarray, np.ndarray],
    data: Callable[[], lt.LDDataset],
    dec: ldopt.Decomposition,
    epochs: int,
    seed: int,
    start: torch.nn.Module | None,
) -> torch.nn.Module:
    """One method's linear model, trained as the notebook trains (no validation set) on the
    ``training`` features and costs (``data()``: with their multipliers); from a copy of ``start``
    (the MSE fit) where the method says so."""
    torch.manual_seed(seed)
    model = torch.nn.Linear(training[0].shape[1], dec.problem.num_costs)
    if method.endswith(":mse"):
        if start is None:
            raise SystemExit(f"{method}: expected 'mse' in --methods too (it starts from the MSE fit)")
        model = copy.deepcopy(start)
    if method == "spo+:lp":  # PyEPO's SPO+ over the LP relaxation, one warm HiGHS LP per instance and step
        relaxed = relaxed_problem(dec.problem)
        full = lt.OptDataset(relaxed, *training, solver="highs")
        loss_lp = lt.FullLoss(relaxed, "spo+", solver="highs")
        return lt.fit(model, full, loss_lp, epochs=epochs, lr=1e-2, seed=seed, progress=False).model
    if method == "mse":
        loss: torch.nn.Module = lt.MSELoss()
    else:
        _, surrogate, target, *_ = method.split(":")
        loss = lt.LDLoss(dec, surrogate=surrogate, target=target)
    out = lt.fit(
        model,
        data(),
        loss,
        mode="static" if method == "mse" else "multiple",
        epochs=epochs,
        lr=1e-2,
        seed=seed,
        progress=False,
    )
    return out.model


SETTINGS = ("train", "test", "epochs", "iterations", "seed")
"""The arguments a finished row depends on: a rerun keeps the rows of a folder that matches them."""


class Run:
    """One invocation's rows and stage seconds, with those a run of the same settings left in
    ``--out`` (``results.json``), saved after every row."""

    def __init__(self, a: argparse.Namespace) -> None:
        self.a, self.out = a, Path(a.out)
        self.saved = self.out / "results.json"
        self.rows: list[dict] = []
        self.stages: dict[str, float] = {}
        if self.saved.exists():
            old = json.loads(self.saved.read_text())
            diff = [f"--{k} {old['args'].get(k)} there, {getattr(a, k)} here" for k in SETTINGS
                    if old["args"].get(k) != getattr(a, k)]  # fmt: skip
            if diff:  # never overwrite another run's results
                raise SystemExit(f"{self.saved}: expected a run with these settings, got one with others "
                                 f"({', '.join(diff)}); choose another --out")  # fmt: skip
            self.rows, self.stages = old["rows"], dict(old["stages"])
        self.out.mkdir(parents=True, exist_ok=True)

    def todo(self) -> list[str]:
        """The methods asked for whose rows are not kept."""
        done = {r["method"] for r in self.rows}
        return [m for m in self.a.methods if label(m) not in done]

    def stage(self, name: str, seconds: float, first: bool = False) -> None:
        """Record a stage's seconds (``first``: unless a resumed run's first invocation did)."""
        if first and name in self.stages:
            return
        self.stages[name] = seconds
        print(f"{name}: {seconds:.1f} s", flush=True)

    def total(self) -> float:
        """Data to table: every stage's seconds but the floor's."""
        return sum(sec for name, sec in self.stages.items() if not name.startswith(FLOOR))

    def save(self) -> None:
        meta = dict(
            rows=self.rows, stages=list(self.stages.items()), total_seconds=self.total(), published=PUBLISHED,
            args=vars(self.a),
        )  # fmt: skip
        cache.write_text(self.saved, json.dumps(meta, indent=1))

    def table(self) -> list[str]:
        """This run's methods' rows, then the kept others', beside the notebook's published rows."""
        order = {label(m): i for i, m in enumerate(self.a.methods)}
        rows = sorted(self.rows, key=lambda r: order.get(r["method"], len(order)))
        width = float(np.mean([r["upper"] - r["lower"] for r in rows]))
        floor = any(r["train_seconds"] is None for r in rows)
        a = self.a
        return [
            f"PyEPO MPAX knapsack, 10,000 items × 50 rows, {a.train} train / {a.test} test, {a.epochs} epochs",
            "| method | test regret %, integer decisions (certified interval) | test regret %, LP protocol "
            "| training s |",
            "|---|---|---|---|",
            *(
                f"| {r['method']}{'' if r['train_seconds'] is None else ' (ldopt, 2 CPU cores)'} | {r['regret']:.2f} "
                f"({r['lower']:.2f} – {r['upper']:.2f}) | {r['lp_regret']:.2f} | "
                f"{'–' if r['train_seconds'] is None else format(r['train_seconds'], '.0f')} |"
                for r in rows
            ),
            *(f"| {name} (published) | – | {regret:.2f} | {seconds:.0f} |" for name, regret, seconds in PUBLISHED),
            "",
            f"ldopt end to end (data to table): {self.total():.0f} s{' (the floor left out)' if floor else ''}; "
            f"certified interval width {width:.2f} points on average",
        ]


def methods(run: Run, todo: list[str]) -> None:
    """Train and test the methods ``todo``, each row saved as it ends; the test optima are solved
    once and kept in ``<out>/cache``, the training set's multipliers where a method needs them
    (4 MB an instance at full size: they are not kept)."""
    a, t = run.a, time.perf_counter()
    p, (x_train, c_train, x_test, c_test, e_test) = instance(a.train, a.test)
    dec = ldopt.decompose(p)
    run.stage("data, model, decomposition", time.perf_counter() - t, first=True)
    multipliers: list[lt.LDDataset] = []

    def data() -> lt.LDDataset:
        if not multipliers:
            dual = lt.DEFAULTS.dual.merged(mu0="lp")
            multipliers.append(lt.LDDataset(dec, x_train, c_train, dual, iterations=a.iterations, progress=False))
            run.stage(f"multipliers ({a.train} instances)", multipliers[0].construction_seconds)
        return multipliers[0]

    t = time.perf_counter()
    optima, lp_true = ldopt.lp_optima(p, c_test, cache=run.out / "cache")
    lp_value = p.objective(lp_true, c_test)
    run.stage(f"test optima: LP bounds and decisions ({a.test})", time.perf_counter() - t, first=True)
    fitted: dict[str, torch.nn.Module] = {}
    for method in todo:
        train_s = None
        if method == "bayes":  # a reference, not a method: its stages are left out of the end-to-end time
            pred = e_test
        else:
            if method.endswith(":mse") and "mse" not in fitted and "mse" in a.methods:  # its row kept: fit it again
                fitted["mse"] = train("mse", (x_train, c_train), data, dec, a.epochs, a.seed, None)
            if method != "spo+:lp":
                data()  # the multipliers first: their own stage, not the training's
            t = time.perf_counter()
            model = fitted[method] = train(method, (x_train, c_train), data, dec, a.epochs, a.seed, fitted.get("mse"))
            train_s = time.perf_counter() - t
            run.stage(f"training {label(method)} ({a.epochs} epochs)", train_s)
            pred = model(torch.as_tensor(x_test, dtype=torch.float32)).detach().numpy().astype(float)
        t = time.perf_counter()
        chosen, lp_pred = ldopt.lp_optima(p, pred)
        f = p.objective(chosen.x, c_test)
        rep = report(optima.improve(chosen.x, f), f)
        lp_regret = float(np.sum(lp_value - p.objective(lp_pred, c_test)) / np.sum(lp_value))
        run.stage(f"{FLOOR if method == 'bayes' else ''}test decisions {label(method)}", time.perf_counter() - t)
        run.rows.append(
            dict(
                method=label(method), regret=100 * rep.value, lower=100 * rep.lower, upper=100 * rep.upper,
                lp_regret=100 * lp_regret, train_seconds=train_s, epochs=a.epochs,
            )
        )  # fmt: skip
        run.save()  # a run stopped later keeps this row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", type=integer_at_least(1), default=1000)
    ap.add_argument("--test", type=integer_at_least(1), default=1000)
    ap.add_argument("--epochs", type=integer_at_least(1), default=10)
    ap.add_argument("--iterations", type=integer_at_least(1), default=1, help="joint steps after the LP start")
    ap.add_argument(
        "--methods",
        nargs="+",
        type=method_name,
        default=["mse", "ld:spo+:L1", "ld:spo+:L1:mse", "ld:spo+:L2:mse", "bayes"],
    )
    ap.add_argument("--seed", type=integer_at_least(0), default=0)
    ap.add_argument("--out", default="results/pyepo_large_knapsack")
    run = Run(ap.parse_args())
    todo = run.todo()
    if todo:
        methods(run, todo)
    lines = run.table()
    print("\n".join(lines))
    cache.write_text(run.out / "table.md", "\n".join(lines) + "\n")
    run.save()  # this run's arguments
    plot_stages(list(run.stages.items()), run.out / "stages.png", title="PyEPO MPAX knapsack on 2 CPU cores")


if __name__ == "__main__":
    main()
