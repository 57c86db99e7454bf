"""Deprecated: the experiment harness under its old name.

The harness lives in `ldopt_experiments` (``ldopt experiment …``, ``python -m ldopt_experiments
experiment …``); the library does not import it. This module keeps ``python -m
ldopt_torch.experiment …`` and the names older scripts import from here working, each with a
``DeprecationWarning``: the harness is loaded only when one of them is used.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

_MOVED = "ldopt_torch.experiment is deprecated: use ldopt_experiments (python -m ldopt_experiments experiment …)"


def main(argv: list[str] | None = None) -> list[dict]:
    """The runner's command line under its old name (see ``ldopt experiment --help``)."""
    warnings.warn(_MOVED, DeprecationWarning, stacklevel=2)
    cli = importlib.import_module("ldopt_experiments.cli")
    return cli.experiment_main(argv, prog="python -m ldopt_torch.experiment")


def __getattr__(name: str) -> Any:
    harness = importlib.import_module("ldopt_experiments")
    if name not in harness.__all__:
        raise AttributeError(f"module 'ldopt_torch.experiment' has no attribute {name!r}")
    warnings.warn(_MOVED, DeprecationWarning, stacklevel=2)
    return getattr(harness, name)


if __name__ == "__main__":
    main()
