"""What ``LDDataset``'s ``decompositions`` keyword means (the main blocks to build), and its arrays
as float32 tensors."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ldopt import checks
from ldopt.errors import InputError


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
