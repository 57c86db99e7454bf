"""``python -m ldopt_torch.experiment …``: the experiment runner under its old name.

The harness lives in `ldopt_experiments` (console script ``ldopt experiment …``); this module
keeps the command and the names the examples and older scripts import from here.
"""

from __future__ import annotations

from ldopt_experiments import *  # noqa: F403 - the harness's public names, under their old module
from ldopt_experiments import __all__ as _names
from ldopt_experiments.cli import example, report
from ldopt_experiments.cli import experiment_main as _main


def main(argv: list[str] | None = None) -> list[dict]:
    """The runner's command line (see ``ldopt experiment --help``)."""
    return _main(argv, prog="python -m ldopt_torch.experiment")


__all__ = [*_names, "example", "main", "report"]

if __name__ == "__main__":
    main()
