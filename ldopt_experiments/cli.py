"""Command lines: ``ldopt experiment …`` (the runner; also ``python -m ldopt_experiments experiment …``)
and ``ldopt table DIR`` (a saved run's table and plots, again).

The options and their help: [`experiment_parser()`][ldopt_experiments.arguments.experiment_parser].
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import ldopt
from ldopt.runtime.cache import write_text
from ldopt.runtime.interrupts import Terminated, sigterm_as_interrupt

from .arguments import experiment_parser
from .methods import check_packages, parse_method
from .plots import plot
from .protocol import FAMILIES, Setup, knapsack_setup, portfolio_setup
from .results import Row, load_references, load_rows, paper_table, table
from .run_options import RunOptions, protocol_dual
from .runner import run


def setup_from(a: argparse.Namespace) -> Setup:
    """The setup the runner's options describe."""
    if a.problem == "knapsack":
        return knapsack_setup(
            a.size or 100, dim=a.rows, train=a.train or 200, val=a.val or 100, test=a.test or 1000, seed=a.data_seed
        )
    if a.problem == "portfolio":
        return portfolio_setup(
            a.size or 100, train=a.train or 100, val=a.val or 25, test=a.test or 1000, seed=a.data_seed
        )
    sized = {} if a.size is None else dict(size=a.size)
    return FAMILIES[a.problem](**sized, train=a.train or 200, val=a.val or 50, test=a.test or 200, seed=a.data_seed)


def experiment_main(argv: list[str] | None = None, prog: str = "ldopt experiment") -> list[Row]:
    """``ldopt experiment …``: parse, run, print the table and save the plots.

    Parameters
    ----------
    argv
        The arguments (``None``: ``sys.argv``).
    prog
        The program's name in messages.
    """
    a = experiment_parser(prog).parse_args(argv)
    _use_workers(a)
    check_packages([parse_method(m) for m in a.methods])  # before the data is built
    options = RunOptions(
        solver=a.solver,
        budget=a.budget,
        epochs=a.epochs,
        patience=a.patience,
        eval_every=a.eval_every,
        evaluations=a.evaluations,
        lr=a.lr,
        count_construction=a.count_construction,
        curve_instances=a.curve_instances,
        dual=protocol_dual(a.dual, a.dual_step, a.iterations),
        dynamic=a.dynamic,
        time_limit=a.time_limit,
        certify=a.certify,
        out=a.out,
        resume=a.resume,
        progress=not a.quiet,
    )
    rows = run(setup_from(a), a.methods, a.seeds, options)
    report(rows, a.out)
    return rows


def report(rows: list[Row], out: str | Path) -> None:
    """Print the tables of ``rows`` — the decisions' quality, which an epoch budget makes the same
    on every machine, then the times, which are this machine's — and where the results and plots
    were saved.

    Parameters
    ----------
    rows
        Result rows.
    out
        The folder of the table and plots.
    """
    references = load_references(out)
    print()
    print(table(rows, timing=False, references=references))
    print("Times on this machine (they vary with its speed and load):")
    print(table(rows, references=references))
    try:
        pic = plot(out)
    except ImportError:
        print(f"saved {Path(out) / 'results.csv'}, {Path(out) / 'table.md'} (no plots: pip install matplotlib)")
        return
    print(f"saved {Path(out) / 'results.csv'}, {Path(out) / 'table.md'}, {pic}")


def _use_workers(args: argparse.Namespace) -> None:
    """``--workers k``: every dual solve and evaluation of this process on ``k`` threads."""
    if getattr(args, "workers", None) is not None:
        ldopt.runtime.threads.configure(args.workers)


def example(setup: Setup, methods: list[str], args: argparse.Namespace, options: RunOptions | None = None) -> list[Row]:
    """An example's run: ``args`` carries seeds, solver and out (``budget`` or ``epochs``, ``workers``),
    which replace those of ``options`` for [`run()`][ldopt_experiments.runner.run]. Prints the
    table, saves the plots.

    Parameters
    ----------
    setup
        The setup.
    methods
        Method names.
    args
        The example's parsed arguments.
    options
        The rest of the run's [`RunOptions`][ldopt_experiments.run_options.RunOptions]; ``None``:
        its defaults without budget curves (``curve_instances=0``).
    """
    budget = getattr(args, "budget", None)
    what = f"{budget:.0f} s of training per method" if budget else f"up to {args.epochs} epochs per method"
    print(
        f"{setup.name} n={setup.size}: {len(setup.train[1])} train / {len(setup.val[1])} validation / "
        f"{len(setup.test[1])} test instances; solver {args.solver}; {what}"
    )
    _use_workers(args)
    epochs = 100_000 if budget else getattr(args, "epochs", 500)  # a budget run stops on its budget
    base = RunOptions(curve_instances=0) if options is None else options
    opts = replace(base, solver=args.solver, budget=budget, epochs=epochs, out=args.out)
    rows = run(setup, methods, args.seeds, opts)
    report(rows, args.out)
    return rows


def main(argv: list[str] | None = None) -> None:
    """The ``ldopt`` console script: ``ldopt experiment …`` or ``ldopt table DIR``.

    Returns nothing: a console script exits with ``main()``'s value, and anything but None or 0
    is an error status (``experiment_main`` returns the rows to a caller in Python)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(
        prog="ldopt",
        description="ldopt's command line.",
        epilog="ldopt experiment --help  lists the runner's options and defaults",
    )
    ap.add_argument("command", choices=["experiment", "table"])
    a, _ = ap.parse_known_args(argv[:1])
    try:
        with sigterm_as_interrupt():  # a batch system's SIGTERM stops it as Ctrl-C does
            if a.command == "experiment":
                experiment_main(argv[1:])
            else:
                table_main(argv[1:])
    except ldopt.LdoptError as exc:  # a user's mistake or a solver's refusal: its message, no traceback
        sys.exit(f"ldopt {a.command}: error: {exc}")
    except KeyboardInterrupt as exc:  # the finished runs are saved; the interrupted one is not
        term = isinstance(exc, Terminated)
        print(
            f"ldopt {a.command}: {'terminated (SIGTERM)' if term else 'interrupted'}: {exc or 'stopped'}; "
            "the finished runs are saved, --resume trains the others",
            file=sys.stderr,
        )
        sys.exit(143 if term else 130)  # 128 + the signal's number, as a shell reports it


def table_main(argv: list[str]) -> None:
    """``ldopt table DIR`` or ``ldopt table DIR1 DIR2 … --paper [--out FILE]``."""
    tp = argparse.ArgumentParser(
        prog="ldopt table",
        description="Print a saved run's table and redraw its plots; --paper: Table 1's layout over several folders.",
    )
    tp.add_argument("folders", nargs="+", metavar="folder")
    tp.add_argument(
        "--paper",
        action="store_true",
        help="one table per problem in the paper's layout (methods × sizes, ours beside the paper's; lower in bold)",
    )
    tp.add_argument("--out", help="with --paper: also write the tables to this Markdown file")
    t = tp.parse_args(argv)
    for folder in t.folders:
        if not (Path(folder) / "results.csv").is_file():
            tp.error(f"folder: expected a folder with results.csv (an ldopt experiment --out), got {folder!r}")
    if not t.paper:
        if len(t.folders) > 1 or t.out:
            tp.error("several folders and --out need --paper")
        report(load_rows(Path(t.folders[0]) / "results.csv"), t.folders[0])
        return
    rows = [r for f in t.folders for r in load_rows(Path(f) / "results.csv")]
    refs = [r for r in map(load_references, t.folders) if r is not None]
    text = "\n".join(paper_table(rows, p, refs) for p in dict.fromkeys(r["problem"] for r in rows))
    print(text, end="")
    if t.out:
        write_text(t.out, text)


if __name__ == "__main__":
    main()
