"""The experiment runner: every method through the one trainer, for every seed, on one setup.

A run builds the shared pieces once — the true optima of the validation and test sets (with a
certified bound; tightened by an LD bound with ``certify``), the LD training sets (one dual
solve), the full problem's training optima — then trains each method and evaluates it on the test
set. Results: one row per run (JSON and ``results.csv``), the histories, a table, plots, and the
seconds spent in every stage (``meta.json``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ldopt.errors import InputError
from ldopt.evaluate.regret import Optima, RegretReport, decisions, evaluate, optima, report
from ldopt.model.batch import checked, solve_many
from ldopt.runtime.cache import write_text
from ldopt.runtime.interrupts import Terminated
from ldopt_torch import PAPER, FitOptions, FitResult, LDDataset, OptDataset, Schedule, Validator, fit, relative_regret
from ldopt_torch.losses.base import Loss, Mode

from .curves import budget_curve, checkpoints
from .methods import MethodSpec, check_packages, loss_for, parse_method
from .paper import paper
from .protocol import Setup
from .results import Row, load_references, merge_rows, save_rows, stem, table
from .run_folder import check_resumable, output_folder, read_json, save, save_meta
from .run_options import RunOptions, Stages


def run(setup: Setup, methods: list[str], seeds: list[int], options: RunOptions | None = None) -> list[Row]:
    """Train every method for every seed; return (and save under ``out``) one row per run.

    ``options`` ([`RunOptions`][ldopt_experiments.run_options.RunOptions]; ``None``: its
    defaults): without ``budget`` each run trains for at most ``epochs`` epochs, validated every
    ``eval_every`` epochs (default 1), and stops after ``patience`` validations without
    improvement — the same seed gives the same numbers on any machine load. With ``budget``
    (seconds of training; results then depend on the load) validation runs ``evaluations`` times
    at training times doubling up to the budget (``eval_every=k``: every k epochs instead), so
    slow and fast methods get the same number of model selections. ``dual``: the LD training
    sets' dual ([`DualSettings`][ldopt.dual.DualSettings], ``lt.PAPER.dual`` unless given);
    ``dynamic``: multipliers that follow the model during LD training (their seconds count as
    training time). ``time_limit``: seconds per full-problem solve (optima, validation and test
    decisions, full-problem training), so large problems are evaluated on incumbents with
    certified bounds; ``certify`` tightens the test optima's bounds by an LD dual bound.

    Every finished run is saved at once (``runs/<run>.json``, merged into ``results.csv`` and
    ``table.md``, its stages' seconds into ``meta.json``, each written atomically). Ctrl-C or
    SIGTERM during a run's training stops the whole invocation (``KeyboardInterrupt``, or its
    subclass ``ldopt.runtime.interrupts.Terminated``) without saving that run as finished.
    ``resume=True`` keeps the runs already saved under ``out`` and trains only the others, so an
    interrupted invocation goes on where it stopped; it refuses a folder whose ``meta.json``
    records other settings.

    Parameters
    ----------
    setup
        The setup.
    methods
        Method names (see [`parse_method()`][ldopt_experiments.methods.parse_method]).
    seeds
        Training seeds.
    options
        How to train and evaluate, a [`RunOptions`][ldopt_experiments.run_options.RunOptions].
    """
    opts = RunOptions() if options is None else options
    if not isinstance(opts, RunOptions):
        raise InputError(f"options: expected an ldopt_experiments.RunOptions or None, got {type(opts).__name__}")
    specs = {m: parse_method(m) for m in methods}
    check_packages(list(specs.values()))  # before any data is built or model trained
    out = Path(opts.out) if opts.out else None
    if out is not None:
        output_folder(out)
    if opts.resume:
        check_resumable(setup, opts, out)
    stages = Stages()
    if out:  # the settings first, so that a resume after an interruption is checked against them
        save_meta(setup, opts, out, stages)
    cache = out / "cache" if out else None  # optima and training sets: a resumed run loads them
    validator, test_opt = _evaluation(setup, opts, stages, cache)
    limit = opts.time_limit if opts.time_limit is not None else opts.reference_time_limit
    refs = stages.timed(
        "references: test set",
        lambda: references(setup, opts.solver, test_opt, out, limit, opts.progress, opts.reference_instances),
    )
    ld_data, opt_data = _training_sets(setup, specs, opts, cache, stages)
    stages.timed("warm-up (compilation)", lambda: _warm_up(setup, specs, opts, ld_data))
    rows: list[Row] = []
    curves: list[Row] = []
    for seed in seeds:
        for name, spec in specs.items():
            saved = out / "runs" / f"{stem(setup.name, setup.size, name, seed)}.json" if out else None
            if opts.resume and saved is not None and saved.exists():
                rows.append(read_json(saved))
                if opts.progress:
                    print(f"  {spec.label:28s} seed {seed}: kept from {saved}", flush=True)
                continue
            row, curve, result = _one_run(setup, spec, seed, opts, validator, test_opt, ld_data, opt_data, stages)
            if result.stopped in ("interrupted", "terminated"):  # not a finished run: --resume trains it again
                if out:
                    save_meta(setup, opts, out, stages)
                raise (Terminated if result.stopped == "terminated" else KeyboardInterrupt)(
                    f"{spec.label} seed {seed} was {result.stopped} after {result.epochs} epochs; not saved"
                )
            rows.append(row)
            curves.extend(dict(problem=setup.name, size=setup.size, method=name, seed=seed, **c) for c in curve)
            if out and saved is not None:
                result.save_history(out / "histories" / f"{saved.stem}.csv", max_rows=400)
                write_text(saved, json.dumps(row, indent=1))
                merged = merge_rows(out / "results.csv", [row])
                # and any saved run missing there: another invocation writing into the same folder at
                # the same time may have replaced results.csv between this one's read and write
                have = {stem(r["problem"], r["size"], r["method"], r["seed"]) for r in merged}
                lost = sorted(f for f in (out / "runs").glob("*.json") if f.stem not in have)
                merged += [read_json(f) for f in lost]
                save_rows(merged, out / "results.csv")
                write_text(out / "table.md", table(merged, references=refs))
                save_meta(setup, opts, out, stages)
            if opts.progress:
                print(
                    f"  {spec.label:28s} seed {seed}: test regret {row['test_regret']:.3f}%  "
                    f"{result.time_to_best:.1f} s of training to the best epoch ({result.wall_to_best:.1f} s with "
                    f"validation; {result.epochs} epochs, {result.stopped})",
                    flush=True,
                )
    if out:
        save(setup, rows, curves, opts, out, stages, refs)
    return rows


def _evaluation(setup: Setup, opts: RunOptions, stages: Stages, cache: Path | None) -> tuple[Validator, Optima]:
    p = setup.problem
    val_opt = stages.timed(
        "optima: validation set",
        lambda: optima(p, setup.val[1], opts.solver, time_limit=opts.time_limit, cache=cache),
    )
    validator = Validator(p, *setup.val, solver=opts.solver, time_limit=opts.time_limit, optima=val_opt)
    test_opt = stages.timed(
        "optima: test set", lambda: optima(p, setup.test[1], opts.solver, time_limit=opts.time_limit, cache=cache)
    )
    if opts.certify:
        bound = stages.timed(
            "LD bound: test set",
            lambda: setup.dec.dual(setup.test[1], iterations=opts.certify_iterations, progress=opts.progress).bound,
        )
        test_opt = test_opt.tighten(bound)
    return validator, test_opt


def references(
    setup: Setup, solver: str, test_opt: Optima | None, out: Path | None = None, time_limit: float | None = None,
    progress: bool = False, sample: int | None = None, gap: float = 0.0,
) -> Row:  # fmt: skip
    """The test regret % of the references (``results.REFERENCES``):
    the constant predictor (the training costs' mean: the bar every learned model must clear) and,
    where the generator knows ``E[c | features]`` (``setup.expected_test``), the Bayes floor (its
    decisions: no predictor of the features beats them on average). Saved to
    ``out/references.json`` and kept there for the same data, solver, sample and limits; ``run()``
    measures them before training, on at most ``RunOptions.reference_instances`` test instances
    and with decisions of at most ``reference_time_limit`` seconds, so that they stay minutes.

    Where the floor's decisions are too slow to take for every test instance (an MKP of 300 items:
    the expected costs are fractional, and the solver takes seconds each), ``sample`` estimates
    both references on that many test instances drawn uniformly without replacement (seed 0): the
    ratio estimator ``Σ regret / Σ |optimum|`` of the sample, saved with its standard error
    (the ratio estimator's, with the finite-population correction). Where even a sample's are
    (an MKP instance of 100 items may take minutes), ``gap`` and ``time_limit`` stop the floor's
    decisions early. For ``E[c | x]`` they are then worse than the exact ones by at most the
    solver's remaining gap, so their expected regret exceeds the floor's by at most the gaps'
    sum over ``Σ |optimum|``: saved as ``lower["bayes"]``, the floor's certified lower end.

    Parameters
    ----------
    setup
        The setup.
    solver
        The decisions' solver (the run's).
    test_opt
        The test set's optima, or ``None``: solved here (for the sampled instances only).
    out
        The run's folder, or ``None`` (not saved).
    time_limit
        Seconds per decision, or ``None`` (the run's).
    progress
        Print each reference's regret.
    sample
        Test instances to estimate on, or ``None``: every one.
    gap
        The decisions' relative MIP gap (0: exact).
    """
    (_, C), (_, test) = setup.train, setup.test
    n = len(test)
    if sample is not None and sample < 2:
        raise InputError(f"references: expected a sample of at least 2 test instances, got {sample}")
    k = n if sample is None else min(sample, n)
    key = dict(
        problem=setup.name, size=setup.size, digest=setup.data_digest, solver=solver, instances=k, of=n, gap=gap,
        time_limit=time_limit,
    )  # fmt: skip
    saved = load_references(out) if out else None
    if saved is not None and all(saved.get(name) == v for name, v in key.items()):
        return saved
    idx = np.sort(np.random.default_rng(0).choice(n, k, replace=False)) if k < n else np.arange(n)
    if test_opt is None:
        test_opt = optima(setup.problem, test[idx], solver, time_limit=time_limit)
    elif k < n:
        test_opt = test_opt.select(idx)
    # the constant predictor's decision is one solve, taken for every instance
    chosen = {
        "constant": np.repeat(decisions(setup.problem, C.mean(0)[None], solver, time_limit=time_limit, gap=gap), k, 0)
    }
    slack = None
    if setup.expected_test is not None:
        sol = checked(
            solve_many(setup.problem, setup.expected_test[idx], solver, time_limit=time_limit, gap=gap), "E[c]"
        )
        chosen["bayes"] = sol.x
        # E[regret(x̂) − regret(x*) | x] = E[c]ᵀ(x* − x̂) ≤ the solver's gap on E[c]: the floor's lower end
        slack = max(0.0, float(np.sum(test_opt.sign * (sol.bound - sol.objective))))
    found: Row = dict(key, test_regret={})
    for name, x in chosen.items():
        achieved = setup.problem.objective(x, test[idx])
        r = report(test_opt, achieved)
        size = np.abs(achieved + test_opt.sign * r.regrets)  # |the optimum the report measured against|
        found["test_regret"][name] = 100 * r.value
        if k < n:
            found.setdefault("standard_error", {})[name] = 100 * _ratio_standard_error(r, size, n)
        if name == "bayes" and slack is not None:
            found["lower"] = {name: 100 * (r.value - slack / float(size.sum()))}
        if progress:
            print(f"  {name:28s} test regret {100 * r.value:.3f}% (a reference: no model)", flush=True)
    if out:
        write_text(out / "references.json", json.dumps(found, indent=1))
    return found


def _ratio_standard_error(r: RegretReport, size: np.ndarray, population: int) -> float:
    """The standard error of the ratio estimator ``Σ regret / Σ |optimum|`` (``size``: the sample's
    ``|optimum|``) on a uniform sample without replacement of ``population`` instances."""
    k = len(r.regrets)
    resid = r.regrets - r.value * size
    var = (1 - k / population) * float(np.sum(resid**2)) / (k * (k - 1)) / float(size.mean()) ** 2
    return float(np.sqrt(var))


def _training_sets(
    setup: Setup, specs: dict[str, MethodSpec], opts: RunOptions, cache: Path | None, stages: Stages
) -> tuple[LDDataset | None, OptDataset | None]:
    ld_data = opt_data = None
    if any(s.kind == "ld" for s in specs.values()):
        ld_data = stages.timed(
            "multipliers (LD training sets)",
            lambda: LDDataset(
                setup.dec,
                *setup.train,
                opts.dual.merged(mu0=setup.mu0),
                cache=cache,
                progress=opts.progress,
            ),
        )
    if any(s.needs_optima for s in specs.values()):
        structure = any(s.needs_structure for s in specs.values())
        opt_data = stages.timed(
            "optima: training set",
            lambda: OptDataset(
                setup.problem,
                *setup.train,
                solver=opts.solver,
                cache=cache,
                structure=structure,
                time_limit=opts.time_limit,
            ),
        )
    return ld_data, opt_data


def _warm_up(setup: Setup, specs: dict[str, MethodSpec], opts: RunOptions, ld_data: LDDataset | None) -> None:
    """Compile the LD losses' kernels (numba compiles on a kernel's first call, seconds on a fresh
    install) outside the timed training: one forward and backward pass of every LD method on one
    instance of every decomposition ``fit`` will train it on."""
    if ld_data is None:
        return
    for spec in (s for s in specs.values() if s.kind == "ld"):
        loss, mode = loss_for(spec, setup, opts.solver, opts.time_limit)
        for d in loss.plan(ld_data, mode, setup.main):
            if d is None:  # (an LD loss always trains through a main block)
                continue
            batch = next(iter(ld_data.view(d).batches(1, shuffle=False)))
            pred = batch["costs"].clone().requires_grad_(True)
            loss(pred, batch).backward()


def linear_run(
    setup: Setup,
    data: Any,
    loss: Loss,
    mode: Mode,
    seed: int,
    validator: Validator,
    schedule: Schedule,
    test_opt: Optima,
    epochs: int,
) -> tuple[FitResult, float]:
    """The benchmarks' one run: a linear model trained by ``fit``'s defaults with ``loss`` on
    ``data`` for at most ``epochs`` epochs (``schedule``: validation and patience), and its test
    regret % against ``test_opt``, every solve on HiGHS.

    Parameters
    ----------
    setup
        The setup (its learning rate and test set).
    data
        The training set (an ``LDDataset`` or ``OptDataset``).
    loss
        The loss.
    mode
        ``fit``'s mode (``"static"`` or ``"multiple"``).
    seed
        The model's and the batches' seed.
    validator
        The validation set.
    schedule
        Validation and early stopping.
    test_opt
        The test set's optima.
    epochs
        The most epochs.
    """
    torch.manual_seed(seed)
    model = torch.nn.Linear(setup.train[0].shape[1], setup.problem.num_costs)
    out = fit(
        model, data, loss, mode=mode, epochs=epochs, val=validator, lr=setup.lr, progress=False, seed=seed,
        schedule=schedule, options=FitOptions(solver="highs"),
    )  # fmt: skip
    with torch.no_grad():
        pred = out.model(torch.as_tensor(setup.test[0], dtype=torch.float32))
    return out, 100 * float(relative_regret(setup.problem, pred, setup.test[1], solver="highs", optima=test_opt))


def _one_run(
    setup: Setup,
    spec: MethodSpec,
    seed: int,
    opts: RunOptions,
    validator: Validator,
    test_opt: Optima,
    ld_data: LDDataset | None,
    opt_data: OptDataset | None,
    stages: Stages,
) -> tuple[Row, list[Row], Any]:
    torch.manual_seed(seed)
    model = torch.nn.Linear(setup.train[0].shape[1], setup.problem.num_costs)
    construction = ld_data.construction_seconds if (spec.kind == "ld" and ld_data) else 0.0
    loss, mode = loss_for(spec, setup, opts.solver, opts.time_limit)
    data = (
        ld_data.following(opts.dynamic)
        if spec.kind == "ld" and ld_data is not None
        else opt_data
        if spec.needs_optima
        else (ld_data or opt_data or OptDataset(setup.problem, *setup.train, solver=opts.solver))
    )
    train_budget = _training_budget(opts, construction)
    snaps: list[tuple[float, int, int, dict]] = []  # (time, epochs, best epoch, best state)
    keep = lambda row, best: snaps.append((row["time"], row["epoch"], id(best), best))  # noqa: E731
    times = checkpoints(train_budget, opts.evaluations) if (train_budget is not None and not opts.eval_every) else None
    result = stages.timed(
        f"train {spec.label} (seed {seed}), validation included",
        lambda: fit(
            model,
            data,
            loss,
            mode=mode,
            main=setup.main,  # fit reads it only for a static LD loss
            epochs=opts.epochs,
            val=validator,
            lr=opts.lr or setup.lr,
            seed=seed,
            progress=opts.progress,
            schedule=Schedule(
                patience=opts.patience if opts.budget is None else None,
                time_budget=train_budget,
                eval_every=opts.eval_every or 1,
                eval_times=times,
                on_validate=keep,
            ),
            options=PAPER.fit_options(solver=opts.solver),  # the protocol pins the paper's settings
        ),
    )
    with torch.no_grad():
        pred = result.model(torch.as_tensor(setup.test[0], dtype=torch.float32))
    rep = stages.timed(
        f"test {spec.label} (seed {seed})",
        lambda: evaluate(setup.problem, pred, setup.test[1], opts.solver, optima=test_opt, time_limit=opts.time_limit),
    )
    curve = budget_curve(setup, model, snaps, opts.solver, opts.curve_instances, test_opt, opts.time_limit)
    return _row(setup, spec, seed, opts, rep, result, construction), curve, result


def _training_budget(opts: RunOptions, construction: float) -> float | None:
    """Seconds of training (``None``: an epoch budget), less the construction if it counts."""
    if opts.budget is None:
        return None
    budget = opts.budget - construction if opts.count_construction else opts.budget
    if budget <= 0:
        raise InputError(f"budget {opts.budget} s is spent on multiplier construction ({construction:.1f} s)")
    return budget


def _row(
    setup: Setup,
    spec: MethodSpec,
    seed: int,
    opts: RunOptions,
    rep: RegretReport,
    result: FitResult,
    construction: float,
) -> Row:
    """One run's results as a row of ``results.csv``."""
    ref, ref_time = paper(setup.name, setup.size, spec.name)
    return dict(
        problem=setup.name,
        size=setup.size,
        method=spec.name,
        label=spec.label,
        seed=seed,
        test_regret=100 * rep.value,
        test_lower=100 * rep.lower,
        test_upper=100 * rep.upper,
        proven=rep.proven,
        test_instances=rep.instances,
        val_regret=100 * result.best_val,
        time_to_best=result.time_to_best,
        wall_to_best=result.wall_to_best,
        multipliers_s=construction,
        dual_s=result.history[-1].get("dual_time", 0.0),
        epochs=result.epochs,
        best_epoch=result.best_epoch,
        epochs_per_s=result.history[-1]["epochs_per_s"],
        budget=opts.budget,
        stopped=result.stopped,
        solver=opts.solver,
        paper=ref,
        paper_time=ref_time,
    )
