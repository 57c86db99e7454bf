"""Routing: the TSP and CVRP rows of the CaVE paper's table (Tang & Khalil, CPAIOR 2024),
reproduced with ldopt, and PyEPO's shortest path on the same protocol.

The protocol of CaVE's experiments on PyEPO's generator: for seed ``42 + i``,
``pyepo.data.tsp.genData(2100, num_features=10, num_nodes, deg, noise_width=0.5, seed)`` (ldopt's
``tsp.gen_data`` gives identical arrays), ``train_test_split(test_size=1000, random_state=135)``,
then 100 of the rest for validation and 1000 for training; a linear model, Adam at 5e-2, batch 32;
10 epochs (20 for the two-stage model, as CaVE's ``config.py``; ``--epochs``, ``--epochs-2s``). Test
regret is the normalized regret of exact solutions, as CaVE measures with Gurobi: tours by the
subtour cut loop on HiGHS (``tsp_tours.tours``), routes by the capacity cut loop (``cvrp_routes
.routes``: Gurobi's lazy cuts where gurobipy is installed, else HiGHS). The CVRP (``--problem
cvrp``, 21 nodes: the depot and 20 customers) has CaVE's demands ``np.random.rand(20) * 10`` after
``np.random.seed(seed)``, capacity 30 and at most 5 vehicles (``--vehicles``: CaVE's CVRP30, 31
nodes, has 8). The shortest path (``--problem sp``,
``--grid 5``) is ``pyepo.data.shortestpath.genData(2100, 5 features, (5, 5), deg, 0.5, seed)``
(``shortest_path.gen_data``) on the same split, decided by exact shortest paths.

ldopt trains through Lagrangian decompositions with a structured block and its oracle, brought to
``ldopt.decompose(..., oracles=)``: for the TSP, Held and Karp's (``tsp_oracle.block_oracles``: a
block per degree row and the 1-tree block, an exact batched Prim); for the CVRP, a block per
customer's degree row and the routes' block with a relaxation oracle (``--relaxation``:
``k-forest``, the default, ``cvrp_oracle.KForest``: a forest of customer edges and the depot's
edges, capacity ignored; ``q-routes``, ``cvrp_oracle.QRoutes``: the best q-routes carrying every
demand, capacity kept: tighter bounds, worse training on validation, docs/results.md); for the
shortest path, a block per node (``multiple`` only) or ``--bands k`` bands of grid rows, each a
min-cost flow (``--bands 1``: the whole grid, one block). The
multipliers are solved once per training instance (``mode="shared"``: they price the flows, arcs
and loads at zero, so the oracles answer in closed form). A training step costs one oracle call
per instance, not a solve.

Methods (``--methods``): ``bayes`` (no model: the decisions for the generator's expected costs
``E[c | x]``, its distances plus the cost map without noise (``tsp.gen_data`` with
``noise_width=0``: the noise is multiplicative with mean 1 and drawn last); no predictor beats its
regret on average, up to the generator's rounding to 4 decimals); ``2s`` (two-stage MSE);
``spo+`` (PyEPO's SPO+ on the whole problem: one exact solution per instance and step,
``solver="auto"`` being the cut loop that each model declares: ``oracles=[tsp_tours.Tours]``, ``[cvrp_exact.Routes]``);
``ld:<spo+|imle|fy|fy@σ>:<L1|L2>:<static|multiple>[:mse]`` (``fy@2``: Fenchel–Young with noise
σ = 2; ``static``: the structured block is the main block; ``:mse`` starts from the two-stage
fit, whose seconds its training time includes; a suffix ``/<epochs>[/<lr>]`` overrides
``--epochs`` and the learning rate 5e-2 for that method, e.g. ``ld:fy@8:L1:static:mse/40/0.1``).
The predictor (``--model``) is CaVE's linear model, ``mlp:<width>`` (two layers with a ReLU
between them) or ``index:<width>`` (``PerCostIndex``: each cost a learned function of its own
projection of the features), the same network for every method (the ``2s`` row is then the
MSE-trained network of that shape; ``--epochs-2s`` and ``--lr-2s`` set its epochs and learning
rate). The 100 validation instances are split off as the protocol does; with ``--patience k``
every method is validated on them every ``--eval-every`` epochs (exact decisions) and stops after
``k`` validations without a better regret, returning the best (otherwise the last model is
tested). ``--report validation`` measures every method's regret on the validation instances
instead of the test set, a column per seed: the settings in docs/results.md were chosen on such
runs (``benchmarks/results/routing/validation``), the test set untouched.
A rerun with the same settings and more seeds or methods keeps the (seed, method) rows it finished
and the test optima it solved (``<out>/optima``); its table shows its methods, then the earlier
runs' that have every seed. The test optima and the true costs of each method's test decisions
are saved every ``CHUNK`` instances as they are solved (``<out>/optima``, ``<out>/decisions``), so a
run stopped inside a seed resumes at the first instance it had not finished, and each row's
per-instance costs stay beside it (the row's ``decisions``). Each row of ``results.json`` records
its seconds: training, the training set's multipliers, the test optima and the method's test
decisions.

    python examples/routing.py --nodes 20 --seeds 10 --out benchmarks/results/routing/tsp20
    python examples/routing.py --nodes 50 --seeds 3 --out benchmarks/results/routing/tsp50
    python examples/routing.py --problem cvrp --nodes 21 --seeds 10 --out benchmarks/results/routing/cvrp20
    python examples/routing.py --problem cvrp --nodes 31 --vehicles 8 --out benchmarks/results/routing/cvrp30
    python examples/routing.py --problem sp --bands 1 --deg 6 --out benchmarks/results/routing/sp5deg6
    python examples/routing.py --report validation --nodes 50 --seeds 1 --methods ld:fy@1:L1:static ld:fy@2:L1:static
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch
from sklearn.model_selection import train_test_split

import ldopt
import ldopt_torch as lt
from ldopt.problems import cvrp, cvrp_exact, cvrp_oracle, cvrp_routes, shortest_path, tsp, tsp_oracle, tsp_tours
from ldopt.runtime import cache
from ldopt_experiments.arguments import integer_at_least, positive_number

PUBLISHED: dict[tuple[str, int, int], dict[str, tuple[float, float | None]]] = {
    # CaVE (Tang & Khalil, CPAIOR 2024): test normalized regret %, mean training s (their machine; None: not known)
    ("cvrp", 21, 4): {"2-stage": (10.10, 2), "SPO+": (5.94, 7020), "PFYL": (6.32, 3773), "CaVE+": (6.44, 154),
                      "CaVE-Hybrid": (7.92, 45)},
    ("cvrp", 31, 4): {"CaVE+": (9.13, None)},  # one seed (42), 8 vehicles; SPO+ never finished
    ("tsp", 20, 4): {"2-stage": (12.12, 2), "SPO+": (5.95, 175), "PFYL": (6.56, 220), "CaVE+": (6.20, 107),
              "CaVE-Hybrid": (7.69, 27)},
    ("tsp", 50, 4): {"2-stage": (28.16, 2), "SPO+": (7.57, 1221), "PFYL": (8.03, 1329), "CaVE+": (7.69, 518),
              "CaVE-Hybrid": (9.59, 197)},
    ("tsp", 50, 6): {"2-stage": (52.61, 1), "SPO+": (10.26, 1191), "PFYL": (9.00, 1456), "CaVE+": (8.57, 574),
              "CaVE-Hybrid": (11.28, 254)},
}  # fmt: skip
SURROGATES = {"spo+": "SPO+", "imle": "IMLE", "fy": "FY"}
LR = 5e-2  # CaVE's learning rate: every method's unless it says otherwise
ITERATIONS = 100  # the dual steps per training instance of the multipliers, unless --iterations says otherwise


def settings(method: str) -> tuple[str, int | None, float]:
    """``(method without its suffix, its epochs or None, its learning rate)`` of ``method[/epochs[/lr]]``."""
    name, *rest = method.split("/")
    return name, int(rest[0]) if rest else None, float(rest[1]) if len(rest) > 1 else LR


def from_two_stage(method: str) -> bool:
    """Whether ``method`` starts from the two-stage fit (``…:mse``, with or without its suffix)."""
    return settings(method)[0].endswith(":mse")


def label(method: str, a: argparse.Namespace | None = None) -> str:
    """A method's name in the table (``a``: the run's arguments, for the structured block's name)."""
    method, epochs, lr = settings(method)
    own = f" ({epochs} epochs" + (f", lr {lr:g})" if lr != LR else ")") if epochs else ""
    if method == "bayes":
        return "Bayes floor: decisions for E[c given x] (no model)"
    if method == "2s":
        return "two-stage (MSE)"
    if method == "spo+":
        exact = {"cvrp": "routes", "sp": "paths"}.get(a.problem, "tours") if a else "tours"
        return f"SPO+ (whole problem, exact {exact} each step)"
    _, surrogate, target, mode, *start = method.split(":")
    name, _, sigma = surrogate.partition("@")
    structured = "the 1-tree block"
    if a and a.problem == "cvrp":
        structured = f"the routes block ({a.relaxation})"
    elif a and a.problem == "sp":
        structured = "the grid's one block" if a.bands == 1 else f"the last of {a.bands} bands"
    main = structured if mode == "static" else "every block"
    noise = f" σ={sigma}" if sigma else ""
    start_text = " from the two-stage fit" if start else ""
    return f"LD({SURROGATES[name]}{noise}, {target}, main: {main}){start_text}{own}"


def surrogate_of(token: str) -> str | lt.Surrogate:
    """``spo+``, ``imle``, ``fy`` or ``fy@σ`` (Fenchel–Young with noise scale σ) as ``LDLoss``'s surrogate."""
    name, _, sigma = token.partition("@")
    return lt.FenchelYoung(sigma=float(sigma)) if sigma else name


def method_name(text: str) -> str:
    """``--methods``'s entries (see the module docstring)."""
    name, *rest = text.split("/")
    parts = name.split(":")
    suffix_ok = len(rest) <= 2 and all(_number(v, integer=i == 0) for i, v in enumerate(rest))
    ld_ok = (
        len(parts) in (4, 5) and parts[0] == "ld" and _surrogate_ok(parts[1]) and parts[2] in ("L1", "L2")
        and parts[3] in ("static", "multiple") and parts[4:] in ([], ["mse"])
    )  # fmt: skip
    if not (text in ("bayes", "2s", "spo+") or (ld_ok and suffix_ok)):
        raise argparse.ArgumentTypeError(
            "expected bayes, 2s, spo+ or ld:<spo+|imle|fy|fy@σ>:<L1|L2>:<static|multiple>[:mse][/epochs[/lr]], "
            f"got {text!r}"
        )
    return text


def _number(text: str, integer: bool) -> bool:
    """Whether ``text`` is a positive integer (or number)."""
    try:
        return (int(text) if integer else float(text)) > 0
    except ValueError:
        return False


def _surrogate_ok(token: str) -> bool:
    name, at, sigma = token.partition("@")
    return name in SURROGATES if not at else name == "fy" and _number(sigma, integer=False)


class Split(NamedTuple):
    """CaVE's split of one seed's data; ``e_*`` the expected costs ``E[c | x]`` (the same draws
    without the noise)."""

    x_train: np.ndarray
    c_train: np.ndarray
    x_val: np.ndarray
    c_val: np.ndarray
    e_val: np.ndarray
    x_test: np.ndarray
    c_test: np.ndarray
    e_test: np.ndarray


def split(nodes: int, deg: int, seed: int, train: int, val: int, test: int, problem: str = "tsp") -> Split:
    """CaVE's data and split for one seed. ``nodes`` is the grid's side for the shortest path
    (``problem="sp"``: PyEPO's 5 features)."""

    def draws(noise: float) -> tuple[np.ndarray, np.ndarray]:
        if problem == "sp":
            return shortest_path.gen_data(2100, 5, (nodes, nodes), deg=deg, noise_width=noise, seed=seed)
        return tsp.gen_data(2100, 10, nodes, deg=deg, noise_width=noise, seed=seed)

    (feats, costs), (_, expected) = draws(0.5), draws(0.0)
    x_rest, x_test, c_rest, c_test, e_rest, e_test = train_test_split(
        feats, costs, expected, test_size=1000, random_state=135
    )
    x_train, x_val, c_train, c_val, _, e_val = train_test_split(x_rest, c_rest, e_rest, test_size=100, random_state=135)
    parts = (x_train[:train], c_train[:train], x_val[:val], c_val[:val], e_val[:val], x_test[:test], c_test[:test],
             e_test[:test])  # fmt: skip
    return Split(*(np.asarray(a, dtype=float) for a in parts))


class PerCostIndex(torch.nn.Module):
    """Each cost a learned function of its own projection of the features:
    ``ĉ_e = a_e + b_e · f(w_e · x + d_e)``, ``f`` one network ``1 → width → 1`` (softplus) shared by
    every cost. PyEPO's generators map each cost from its own projection ``B_e · x`` this way, which a
    hidden layer shared by every cost does not exploit (docs/results.md, "Richer models")."""

    def __init__(self, features: int, costs: int, width: int) -> None:
        super().__init__()
        self.project = torch.nn.Linear(features, costs)
        self.link = torch.nn.Sequential(torch.nn.Linear(1, width), torch.nn.Softplus(), torch.nn.Linear(width, 1))
        self.scale = torch.nn.Parameter(torch.ones(costs))
        self.shift = torch.nn.Parameter(torch.zeros(costs))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.shift + self.scale * self.link(self.project(x).unsqueeze(-1)).squeeze(-1)


NETWORKS = {"mlp": "2-layer MLP (width {}, ReLU)", "index": "per-cost index network (link width {}, softplus)"}


def predictor(spec: str, features: int, costs: int) -> torch.nn.Module:
    """``--model``'s network: ``linear`` (CaVE's), ``mlp:<width>`` (two layers, a ReLU between) or
    ``index:<width>`` (``PerCostIndex``)."""
    if spec == "linear":
        return torch.nn.Linear(features, costs)
    name, _, width = spec.partition(":")
    if name == "index":
        return PerCostIndex(features, costs, int(width))
    hidden = int(width)
    return torch.nn.Sequential(torch.nn.Linear(features, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, costs))


def model_spec(text: str) -> str:
    """``--model``: ``linear``, ``mlp:<width>`` or ``index:<width>``."""
    name, colon, width = text.partition(":")
    if text == "linear" or (name in NETWORKS and colon and _number(width, integer=True)):
        return text
    raise argparse.ArgumentTypeError(
        f"expected linear, mlp:<width> or index:<width> (a positive integer), got {text!r}"
    )


def model_label(spec: str) -> str:
    """The predictor's name in the table's title."""
    name, _, width = spec.partition(":")
    return "linear model" if spec == "linear" else NETWORKS[name].format(width)


class Training(NamedTuple):
    """What every method of a run shares: the predictor, the epochs (the others', two-stage's) and
    the validation (``None``: the last model is tested)."""

    model: str
    epochs: tuple[int, int]
    val: lt.Validator | None
    patience: int | None
    eval_every: int = 1
    lr_2s: float = LR


def train_one(
    method: str, p: ldopt.Problem, data: lt.LDDataset, x_tr: np.ndarray, c_tr: np.ndarray,
    how: Training, seed: int, start: torch.nn.Module | None,
) -> torch.nn.Module:  # fmt: skip
    """One method's model (CaVE's hyperparameters unless the method says otherwise)."""
    torch.manual_seed(seed)
    epochs, two_stage_epochs = how.epochs
    model = predictor(how.model, x_tr.shape[1], p.num_costs)

    def fit(model: torch.nn.Module, data: lt.LDDataset | lt.OptDataset, loss: torch.nn.Module, epochs: int,
            lr: float, mode: str = "static", main: int | None = None) -> torch.nn.Module:  # fmt: skip
        schedule = lt.Schedule(patience=how.patience, eval_every=how.eval_every)
        options = lt.FitOptions(warm_start="none")
        return lt.fit(model, data, loss, mode, main, epochs, val=how.val, lr=lr, seed=seed, progress=False,
                      schedule=schedule, options=options).model  # fmt: skip

    if method == "2s":
        return fit(model, data, lt.MSELoss(), two_stage_epochs, how.lr_2s)
    if method == "spo+":  # PyEPO's SPO+ on the whole problem: its "auto" solver is the tours' cut loop
        full = lt.OptDataset(p, x_tr, c_tr)
        return fit(model, full, lt.FullLoss(p, "spo+"), epochs, LR)
    method, own_epochs, lr = settings(method)
    epochs = own_epochs or epochs
    if method.endswith(":mse"):
        if start is None:
            raise SystemExit(f"{method}: expected '2s' before it in --methods (it starts from the two-stage fit)")
        model = copy.deepcopy(start)
    _, surrogate, target, mode, *_ = method.split(":")
    loss = lt.LDLoss(data.dec, surrogate=surrogate_of(surrogate), target=target)
    main = data.dec.num_blocks - 1 if mode == "static" else None
    return fit(model, data, loss, epochs, lr, mode, main)


class Routing:
    """One seed's problem: the compiled model, its decomposition and its exact solver."""

    def __init__(self, a: argparse.Namespace, seed: int) -> None:
        self.kind, self.nodes = a.problem, a.nodes
        self.key = dict(problem=a.problem, nodes=size(a))  # what the exact decisions depend on, for their files
        if a.problem == "cvrp":
            self.key["vehicles"] = a.vehicles
        if a.problem == "sp":  # a block per node, or bands of grid rows (min-cost flows)
            model = shortest_path.build_model((a.grid, a.grid))
            self.p = ldopt.Problem.from_pyomo(model, model.c)
            bands = shortest_path.regions((a.grid, a.grid), a.bands) if a.bands else None
            self.dec = ldopt.decompose(self.p, bands)
        elif a.problem == "tsp":
            model = tsp.build_model(a.nodes)
            self.p = ldopt.Problem.from_pyomo(model, model.c, oracles=[tsp_tours.Tours])
            self.dec = ldopt.decompose(self.p, tsp.blocks(a.nodes), oracles=tsp_oracle.block_oracles(self.p, a.nodes))
        else:  # CaVE's demands: np.random.seed(seed); np.random.rand(20) * 10
            self.demand, self.vehicles = cvrp.demands(seed, a.nodes - 1), a.vehicles
            model = cvrp.build_model(a.nodes, self.demand, vehicles=a.vehicles)
            self.p = ldopt.Problem.from_pyomo(model, model.c, oracles=[cvrp_exact.Routes])
            oracles = cvrp_oracle.block_oracles(
                self.p, a.nodes, self.demand, vehicles=a.vehicles, relaxation=a.relaxation
            )
            self.dec = ldopt.decompose(self.p, cvrp.blocks(a.nodes), oracles=oracles)

    def solve(self, costs: np.ndarray) -> np.ndarray:
        """Exact tours, routes or shortest paths (0/1 edges or arcs) for their costs (minimised)."""
        if self.kind == "sp":
            paths = self.p.solve(costs)
            if not (paths.status == "optimal").all():
                raise SystemExit(f"expected optimal shortest paths, got {sorted(set(paths.status) - {'optimal'})}")
            return paths.x
        if self.kind == "tsp":
            return tsp_tours.tours(costs, self.nodes)
        return cvrp_routes.routes(costs, self.nodes, self.demand, vehicles=self.vehicles)

    def realized(
        self, costs: np.ndarray, pred: np.ndarray, saved: Path | None = None, key: dict | None = None,
        name: str = "realized",
    ) -> tuple[np.ndarray, float]:  # fmt: skip
        """The costs ``c·x̂`` of the exact decisions for ``pred`` and their seconds; ``saved``: a file
        that keeps them as they are solved (``in_chunks``, the array ``name``, its header ``key`` with
        this problem's)."""

        def values(i: int, j: int) -> np.ndarray:
            return (costs[i:j] * self.solve(pred[i:j])).sum(1)

        return in_chunks(saved, {**self.key, **(key or {})}, name, len(costs), values)

    def regret(
        self, costs: np.ndarray, pred: np.ndarray, opt: np.ndarray, saved: Path | None = None
    ) -> tuple[float, float]:
        """The normalized regret in % of the exact decisions for ``pred``, ``Σ (c·x̂ − opt) / Σ |opt|``,
        and the seconds the decisions took; ``saved``: a file that keeps their costs as they are solved
        (the seconds then add up over a stop and its resumption)."""
        key = dict(costs=cache.digest(costs), predictions=cache.digest(pred))
        values, seconds = self.realized(costs, pred, saved, key)
        return 100 * float((values - opt).sum() / np.abs(opt).sum()), seconds


CHUNK = 50  # instances solved between two saves of a seed's test optima and decisions


def in_chunks(
    path: Path | None, key: dict, name: str, count: int, values: Callable[[int, int], np.ndarray]
) -> tuple[np.ndarray, float]:
    """``values(a, b)`` (one number an instance) for every ``CHUNK`` instances of ``count``, and the
    seconds they took. With a ``path`` each chunk is saved there as the array ``name`` (the header
    ``key``, with the seconds so far), so a run stopped on a long solve (CVRP30's routes: seconds
    each) resumes at the first instance it had not finished; an entry of another ``key`` is refused."""
    found = cache.load(path, expect=key) if path else None
    done, seconds = (found[0][name], float(found[1]["seconds"])) if found else (np.zeros(0), 0.0)
    while len(done) < count:
        t = time.perf_counter()
        part = values(len(done), min(count, len(done) + CHUNK))
        done, seconds = np.concatenate([done, part]), seconds + time.perf_counter() - t
        if path:
            cache.save(path, {name: done}, dict(key, seconds=seconds))
    return done, seconds


def test_optima(a: argparse.Namespace, r: Routing, seed: int, c_te: np.ndarray) -> tuple[np.ndarray, float]:
    """The optimal values of the instances measured on (``--report``: the test or the validation
    instances) and the seconds they took, kept in ``<out>/optima`` (the costs' digest checked) as
    they are solved, so that a rerun with more methods, or after a stop, does not solve them again."""
    path = Path(a.out) / "optima" / f"seed{seed}.npz"
    return r.realized(c_te, c_te, path, dict(deg=a.deg, seed=seed, costs=cache.digest(c_te)), "optima")


def decisions_file(a: argparse.Namespace, seed: int, method: str, pred: np.ndarray) -> Path:
    """Where the true costs of a method's test decisions for ``pred`` are kept as they are solved
    (``<out>/decisions``; other predictions, e.g. of a model trained again on other threads, start
    their own file)."""
    name = re.sub(r"[^A-Za-z0-9.@+]+", "_", method)
    return Path(a.out) / "decisions" / f"seed{seed}-{name}-{cache.digest(pred)[:16]}.npz"


def run_seed(a: argparse.Namespace, i: int, done: frozenset[str] = frozenset()) -> list[dict]:
    """The methods on seed ``42 + i`` that ``done`` lacks; one row per method (the two-stage fit is
    trained again, not tested, where a method from it needs it)."""
    seed = 42 + i
    d = split(size(a), a.deg, seed, a.train, a.val, a.test, a.problem)
    x_tr, c_tr = d.x_train, d.c_train
    # the instances the regret is measured on: the test set, or the validation set that settings are chosen on
    x_te, c_te, e_te = (d.x_test, d.c_test, d.e_test) if a.report == "test" else (d.x_val, d.c_val, d.e_val)
    r = Routing(a, seed)
    rows, fitted, seconds = [], {}, {}
    todo = [m for m in a.methods if m not in done]
    needed = ["2s"] if "2s" not in todo and any(map(from_two_stage, todo)) else []
    trained = [m for m in needed + todo if m != "bayes"]
    data, multipliers_s = None, None
    if trained:  # the multipliers of the training instances, solved once
        t = time.perf_counter()
        data = lt.LDDataset(
            r.dec, x_tr, c_tr, lt.DEFAULTS.dual.merged(mode="shared"), iterations=a.iterations, progress=False
        )
        multipliers_s = time.perf_counter() - t
    val = lt.Validator(r.p, d.x_val, d.c_val) if a.patience and trained else None
    how = Training(a.model, (a.epochs, a.epochs_2s), val, a.patience, a.eval_every, a.lr_2s)
    opt, optima_s = test_optima(a, r, seed, c_te)
    for method in needed + todo:
        train_s = None
        if method == "bayes":
            pred = e_te
        else:
            t = time.perf_counter()
            net = fitted[method] = train_one(method, r.p, data, x_tr, c_tr, how, seed, fitted.get("2s"))
            train_s = time.perf_counter() - t + (seconds["2s"] if from_two_stage(method) else 0.0)
            seconds[method] = train_s  # a method from the two-stage fit counts that fit's seconds too
            with torch.no_grad():
                pred = net(torch.as_tensor(x_te, dtype=torch.float32)).numpy().astype(float)
        if method not in todo:
            continue
        kept = decisions_file(a, seed, method, pred)
        regret, decisions_s = r.regret(c_te, pred, opt, kept)
        rows.append(dict(seed=seed, method=method, regret=regret, train_seconds=train_s,
                         multipliers_seconds=multipliers_s, optima_seconds=optima_s,
                         decisions_seconds=decisions_s, decisions=kept.relative_to(a.out).as_posix()))  # fmt: skip
        spent = "" if train_s is None else f", training {train_s:.0f} s"
        print(f"seed {seed} {label(method, a)}: {a.report} regret {regret:.2f}%{spent}", flush=True)
    return rows


def size(a: argparse.Namespace) -> int:
    """The problem's size: its nodes, or the shortest path grid's side."""
    return a.grid if a.problem == "sp" else a.nodes


def title(a: argparse.Namespace) -> str:
    """``TSP50`` or ``CVRP20`` (customers)."""
    if a.problem == "sp":
        return f"shortest path {a.grid}×{a.grid}"
    return f"TSP{a.nodes}" if a.problem == "tsp" else f"CVRP{a.nodes - 1}"


def shown(a: argparse.Namespace, rows: list[dict]) -> list[str]:
    """The methods a table and plot show: this run's, then those an earlier run left in the folder
    on every seed shown."""
    seeds = {r["seed"] for r in rows}
    every = [
        m for m in dict.fromkeys(r["method"] for r in rows) if {r["seed"] for r in rows if r["method"] == m} >= seeds
    ]
    return list(dict.fromkeys([*a.methods, *every]))


def summary(a: argparse.Namespace, rows: list[dict]) -> list[str]:
    """The table: ldopt's rows (mean ± sd over the seeds run) beside CaVE's published ones; with
    ``--report validation``, each seed's validation regret and their mean, the settings' choice."""
    seeds = sorted({r["seed"] for r in rows})
    if a.report == "validation":
        return validation_summary(a, rows, seeds)
    lines = [
        f"{title(a)} deg {a.deg}: {a.train} train / {a.test} test, {len(seeds)} seeds ({seeds[0]}..{seeds[-1]})"
        f"{details(a, 'validation')}",
        "| method | test regret % (mean ± sd over seeds) | training s (mean) |",
        "|---|---|---|",
    ]
    for method in shown(a, rows):
        reg = np.array([x["regret"] for x in rows if x["method"] == method])
        if method == "bayes":
            lines.append(f"| {label(method)} | {reg.mean():.2f} ± {reg.std():.2f} | — |")
            continue
        secs = np.mean([x["train_seconds"] for x in rows if x["method"] == method])
        lines.append(f"| {label(method, a)} (ldopt, 2 CPU cores) | {reg.mean():.2f} ± {reg.std():.2f} | {secs:.0f} |")
    published = PUBLISHED.get((a.problem, size(a), a.deg), {})
    lines += [
        f"| {k} (CaVE, published) | {regret:.2f} | {'—' if secs is None else f'{secs:.0f}'} |"
        for k, (regret, secs) in published.items()
    ]
    return lines


def details(a: argparse.Namespace, stopped_on: str) -> str:
    """The tables' titles' tail: the predictor, the early stopping and the dual steps where not the defaults."""
    model = "" if a.model == "linear" else f", a {model_label(a.model)}"
    stop = f", early stopped on {stopped_on} (patience {a.patience})" if a.patience else ""
    steps = f", {a.iterations} dual steps per instance" if a.iterations != ITERATIONS else ""
    return model + stop + steps


def validation_summary(a: argparse.Namespace, rows: list[dict], seeds: list[int]) -> list[str]:
    """``summary``'s table of a ``--report validation`` run: a column per seed, then the mean, for every
    method the folder holds (a method an earlier run tried on fewer seeds shows "—" on the others)."""
    lines = [
        f"{title(a)} deg {a.deg}: validation regret % on the {a.val} validation instances of seeds "
        f"{seeds[0]}..{seeds[-1]}, {a.train} train{details(a, 'them')}:",
        "",  # a table starts after a blank line in Markdown
        "| method | " + " | ".join(f"seed {s}" for s in seeds) + " | mean |",
        "|---" * (len(seeds) + 2) + "|",
    ]
    for method in dict.fromkeys([*a.methods, *(r["method"] for r in rows)]):  # every method the folder holds
        by = {x["seed"]: x["regret"] for x in rows if x["method"] == method}
        cells = [f"{by[s]:.2f}" if s in by else "—" for s in seeds]
        mean = f"{np.mean(list(by.values())):.2f}" if len(by) == len(seeds) else "—"  # over every seed, or none
        name = f"two-stage (MSE, {a.epochs_2s} epochs, lr {a.lr_2s:g})" if method == "2s" else label(method, a)
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {mean} |")
    return lines


def plot(a: argparse.Namespace, rows: list[dict], path: Path) -> None:
    """Test regret against training seconds: ldopt's methods (every seed) and CaVE's published means."""
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    fig, ax = plt.subplots(figsize=(6.5, 4))
    for method in shown(a, rows):
        r = [x for x in rows if x["method"] == method]
        if method == "bayes":  # no training: a line at its mean
            ax.axhline(np.mean([x["regret"] for x in r]), color="black", ls=":", lw=1, label=label(method))
            continue
        ax.scatter([x["train_seconds"] for x in r], [x["regret"] for x in r], label=f"{label(method, a)} (ldopt)", s=18)
    for name, (regret, secs) in PUBLISHED.get((a.problem, size(a), a.deg), {}).items():
        if secs is None:  # its training time is not known: a line at its regret
            ax.axhline(regret, color="gray", ls="--", lw=1, label=f"{name} (CaVE, published)")
            continue
        ax.scatter([secs], [regret], marker="x", color="gray")
        ax.annotate(name, (secs, regret), fontsize=7, color="gray", xytext=(3, 3), textcoords="offset points")
    ax.set(xscale="log", xlabel="training seconds", ylabel="test normalized regret %")
    ax.set_title(f"{title(a)}, deg {a.deg}: ldopt on 2 CPU cores, CaVE published (x)", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def save(path: Path, rows: list[dict], a: argparse.Namespace) -> None:
    """Write the rows and the run's arguments atomically."""
    cache.write_text(path, json.dumps(dict(rows=rows, args=vars(a)), indent=1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--problem", choices=("tsp", "cvrp", "sp"), default="tsp", help="sp: PyEPO's shortest path")
    ap.add_argument("--grid", type=integer_at_least(2), default=5, help="the shortest path's grid side")
    ap.add_argument(
        "--bands",
        type=integer_at_least(1),
        default=None,
        help="the shortest path's blocks: bands of grid rows (1: the whole grid; default: a block per node)",
    )
    ap.add_argument("--nodes", type=integer_at_least(4), default=20, help="nodes (the CVRP's depot included)")
    ap.add_argument(
        "--vehicles",
        type=integer_at_least(1),
        default=cvrp.VEHICLES,
        help=f"the CVRP's most vehicles, of capacity {cvrp.CAPACITY:g} (CaVE: 5 for CVRP20, 8 for CVRP30)",
    )
    ap.add_argument("--deg", type=integer_at_least(1), default=4)
    ap.add_argument("--seeds", type=integer_at_least(1), default=10)
    ap.add_argument("--train", type=integer_at_least(1), default=1000)
    ap.add_argument("--val", type=integer_at_least(1), default=100)
    ap.add_argument("--test", type=integer_at_least(1), default=1000)
    ap.add_argument("--epochs", type=integer_at_least(1), default=10)
    ap.add_argument("--epochs-2s", type=integer_at_least(1), default=20, help="the two-stage model's epochs")
    ap.add_argument("--lr-2s", type=positive_number, default=LR, help="the two-stage model's learning rate")
    ap.add_argument("--iterations", type=integer_at_least(1), default=ITERATIONS, help="dual steps per instance")
    ap.add_argument("--methods", nargs="+", type=method_name, default=["2s", "ld:spo+:L1:static", "ld:fy@2:L1:static"])
    ap.add_argument("--model", type=model_spec, default="linear", help="linear, mlp:<width> or index:<width>")
    ap.add_argument(
        "--patience",
        type=integer_at_least(1),
        default=None,
        help="validate, stop after this many validations without a better regret (default: no validation)",
    )
    ap.add_argument(
        "--eval-every", type=integer_at_least(1), default=1, help="with --patience: validate every k epochs"
    )
    ap.add_argument(
        "--relaxation",
        choices=sorted(cvrp_oracle.RELAXATIONS),
        default="k-forest",
        help="the CVRP routes block's relaxation oracle (default: k-forest, capacity ignored)",
    )
    ap.add_argument(
        "--report",
        choices=("test", "validation"),
        default="test",
        help="the instances the regret is measured on: the test set (the protocol's table) or the validation "
        "set (to choose settings, the test set untouched)",
    )
    ap.add_argument("--out", default="results/routing")
    a = ap.parse_args()
    static = [m for m in a.methods if m.startswith("ld:") and settings(m)[0].split(":")[3] == "static"]
    if a.problem == "sp" and not a.bands and static:
        ap.error(f"expected 'multiple' or --bands for --problem sp (a block per node has no main one), got {static}")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    saved = out / "results.json"
    rows: list[dict] = []
    if saved.exists():  # resume: keep the (seed, method) rows a run with the same settings finished
        old = json.loads(saved.read_text())
        kept = ("seeds", "out", "methods") + (("relaxation", "vehicles") if a.problem != "cvrp" else ())  # CVRP's own
        theirs = {k: v for k, v in old["args"].items() if k not in kept}
        ours = {k: v for k, v in vars(a).items() if k not in kept}
        if theirs != ours:  # never overwrite another run's results
            diff = ", ".join(
                f"--{k.replace('_', '-')} {theirs.get(k)} there, {ours.get(k)} here"
                for k in sorted(theirs.keys() | ours.keys()) if theirs.get(k) != ours.get(k)
            )  # fmt: skip
            raise SystemExit(f"{saved}: expected a run with these settings, got one with others ({diff}); "
                             "choose another --out")  # fmt: skip
        rows = old["rows"]  # every finished (seed, method), the methods not asked for included
    for i in range(a.seeds):
        done = frozenset(r["method"] for r in rows if r["seed"] == 42 + i)
        if done >= set(a.methods):
            continue
        rows += run_seed(a, i, done)
        save(saved, rows, a)  # an interrupted run keeps every finished seed, with its table
        record(a, rows, out)
    save(saved, rows, a)  # the arguments of this run (e.g. fewer seeds than the one it resumed)
    print("\n".join(record(a, rows, out)))


def record(a: argparse.Namespace, rows: list[dict], out: Path) -> list[str]:
    """Write the table of the finished seeds (of the first ``a.seeds``) and, for the test set, the plot."""
    lines = summary(a, [r for r in rows if r["seed"] < 42 + a.seeds])
    cache.write_text(out / "table.md", "\n".join(lines) + "\n")
    if a.report == "test":  # a validation run's table is its record: a column per seed
        plot(a, rows, out / "regret_vs_seconds.png")
    return lines


if __name__ == "__main__":
    main()
