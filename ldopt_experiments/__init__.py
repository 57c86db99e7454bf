"""The experiment harness of ldopt (not the library): the paper's protocol, the runner, results,
tables and plots, and the ``ldopt`` command line (``python -m ldopt_experiments``). Kept apart from
``ldopt`` and ``ldopt_torch``, which never import it, so the library holds no paper numbers, CSV
plumbing or plotting."""

from .cli import example, experiment_main, report
from .curves import budget_curve, checkpoints
from .methods import BASELINES, GRAMMAR, MethodSpec, label, parse_method
from .paper import PAPER, paper
from .protocol import Setup, knapsack_setup, portfolio_setup
from .results import REFERENCES, load_references, load_rows, mean_ci, merge_rows, paper_table, save_rows, stem, table
from .run_options import protocol_dual
from .runner import RunOptions, run

__all__ = [
    "BASELINES",
    "GRAMMAR",
    "PAPER",
    "REFERENCES",
    "MethodSpec",
    "RunOptions",
    "Setup",
    "budget_curve",
    "checkpoints",
    "example",
    "experiment_main",
    "knapsack_setup",
    "label",
    "load_references",
    "load_rows",
    "mean_ci",
    "merge_rows",
    "paper",
    "paper_table",
    "parse_method",
    "portfolio_setup",
    "protocol_dual",
    "report",
    "run",
    "save_rows",
    "stem",
    "table",
]
