"""Arrays of consecutive chunks of instances stacked into one result, and stored compactly."""

from __future__ import annotations

from typing import Any

import numpy as np


def stack_parts(parts: list[dict[str, Any]], key: str, consume: bool) -> np.ndarray:
    """The parts' arrays ``key`` stacked on the first axis (each dropped from its part once copied
    when ``consume``)."""
    shape = (sum(len(p[key]) for p in parts), *parts[0][key].shape[1:])
    out = np.empty(shape, dtype=np.result_type(*(p[key] for p in parts)))
    start = 0
    for p in parts:
        size = len(p[key])
        out[start : start + size] = p[key]
        start += size
        if consume:
            p[key] = None
    return out


def compact(x: np.ndarray) -> np.ndarray:
    """``x`` as ``uint8`` where every value is 0 or 1 (solutions of binary blocks), else as it is."""
    x = np.asarray(x)
    if x.dtype == np.uint8 or x.size == 0:
        return x
    return x.astype(np.uint8) if ((x == 0) | (x == 1)).all() else x


def pad_rows(h: np.ndarray, rows: int) -> np.ndarray:
    """A history cut short (early stop) extended to ``rows`` iterations by its last row."""
    return np.vstack([h, np.repeat(h[-1:], rows - len(h), axis=0)]) if len(h) < rows else h
