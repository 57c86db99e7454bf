"""What ``LDDataset``'s keywords mean: the dual's mode (with the older ``independent=``), the main
blocks to build, and the dual keywords given beside ``dual=``."""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import torch

from ldopt import checks
from ldopt.dual import DualMode
from ldopt.errors import InputError


def dual_mode(mode: str | None, independent: bool) -> DualMode:
    """``mode`` (default joint), with the older ``independent=True`` spelling of ``"independent"``."""
    if mode is None:
        return "independent" if independent else "joint"  # DEFAULT_MODE
    if independent and mode != "independent":
        raise InputError(f"independent=True and mode={mode!r}: expected one of them, not both")
    return cast(DualMode, checks.choice("mode", mode, ("joint", "independent", "shared")))


def given_beside(
    iterations: Any, step: Any, independent: Any, mode: Any, solver: Any, options: dict[str, Any]
) -> list[tuple[str, bool]]:
    """Each dual keyword given beside ``dual=``, and whether it was left unset."""
    return [
        ("iterations", iterations is None),
        ("step", isinstance(step, str) and step == "polyak"),
        ("independent", independent is False),
        ("mode", mode is None),
        ("solver", isinstance(solver, str) and solver == "auto"),
        *((k, False) for k in options),
    ]


def main_blocks(decompositions: Any, m: int) -> list[int]:
    """``"all"`` or a list of block indices, as the block indices."""
    if isinstance(decompositions, str) and decompositions == "all":
        return list(range(m))
    what = f"'all' or a list of block indices in [0, {m})"
    if not isinstance(decompositions, (list, tuple, range, np.ndarray)) or not len(decompositions):
        raise InputError(f"decompositions: expected {what}, got {decompositions!r}")
    ds = [checks.nonnegative_int("decompositions", d) for d in decompositions]
    if any(d >= m for d in ds):
        raise InputError(f"decompositions: expected {what}, got {list(decompositions)}")
    return ds


def float32(a: np.ndarray) -> torch.Tensor:
    return torch.as_tensor(np.ascontiguousarray(a), dtype=torch.float32)
