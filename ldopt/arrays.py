"""Validation of array arguments: shapes, dtypes and finiteness, with "expected X, got Y" errors."""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import InputError


def as_batch(values: Any, width: int, name: str, allow_nan: bool = False) -> tuple[np.ndarray, bool]:
    """``values`` as a float64 ``(B, width)`` array, and whether a single vector was given."""
    if hasattr(values, "detach"):  # a torch tensor, without importing torch
        values = values.detach().cpu().numpy()
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name}: expected numbers of shape ({width},) or (B, {width}); {exc}") from None
    single = arr.ndim == 1
    if single:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != width:
        raise InputError(f"{name}: expected shape ({width},) or (B, {width}), got {np.shape(values)}")
    if not allow_nan and not np.isfinite(arr).all():
        bad = np.argwhere(~np.isfinite(arr))[0]
        where = f"instance {bad[0]}, entry {bad[1]}"
        raise InputError(f"{name}: expected finite values, got {arr[tuple(bad)]} at {where}")
    return arr, single


def broadcast_pair(a: np.ndarray, b: np.ndarray, names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    """Broadcast two ``(B, ·)`` batches where one of them may have ``B = 1``."""
    if a.shape[0] != b.shape[0] and 1 not in (a.shape[0], b.shape[0]):
        raise InputError(
            f"{names[0]} and {names[1]}: expected the same batch size (or one of size 1), "
            f"got {a.shape[0]} and {b.shape[0]}"
        )
    B = max(a.shape[0], b.shape[0])
    return np.broadcast_to(a, (B, a.shape[1])), np.broadcast_to(b, (B, b.shape[1]))
