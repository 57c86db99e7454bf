"""Validation of array arguments: shapes, dtypes and finiteness, with "expected X, got Y" errors."""

from __future__ import annotations

from typing import Any

import numpy as np

from ldopt.errors import InputError


def as_batch(values: Any, width: int, name: str, allow_nan: bool = False) -> tuple[np.ndarray, bool]:
    """``values`` as a float64 ``(B, width)`` array, and whether a single vector was given."""
    if hasattr(values, "detach"):  # a torch tensor, without importing torch
        values = values.detach().cpu().numpy()
    try:
        raw = np.asarray(values)
        if raw.dtype.kind == "c":
            raise InputError(f"{name}: expected real numbers, got complex values (dtype {raw.dtype})")
        if raw.dtype.kind not in "biuf":
            raise TypeError(f"dtype {raw.dtype}")
        arr = raw.astype(float)
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


def vector(values: Any, length: int, name: str, allow_inf: bool = False) -> np.ndarray:
    """``values`` as a float64 ``(length,)`` array of non-NaN (and, unless ``allow_inf``, finite) numbers."""
    if hasattr(values, "detach"):  # a torch tensor, without importing torch
        values = values.detach().cpu().numpy()
    try:
        raw = np.asarray(values)
    except (TypeError, ValueError):
        raw = np.asarray(None, dtype=object)
    if raw.dtype.kind not in "iuf" or raw.shape != (length,):
        got = f"shape {raw.shape}, dtype {raw.dtype}" if raw.dtype.kind != "O" else type(values).__name__
        raise InputError(f"{name}: expected {length} numbers (shape ({length},)), got {got}")
    v = raw.astype(float)
    bad = np.isnan(v) if allow_inf else ~np.isfinite(v)
    if bad.any():
        raise InputError(f"{name}: expected {'non-NaN' if allow_inf else 'finite'} values, got {v[bad][0]}")
    return v


def broadcast_pair(a: np.ndarray, b: np.ndarray, names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    """Broadcast two ``(B, ·)`` batches where one of them may have ``B = 1``."""
    if a.shape[0] != b.shape[0] and 1 not in (a.shape[0], b.shape[0]):
        raise InputError(
            f"{names[0]} and {names[1]}: expected the same batch size (or one of size 1), "
            f"got {a.shape[0]} and {b.shape[0]}"
        )
    B = max(a.shape[0], b.shape[0])
    return np.broadcast_to(a, (B, a.shape[1])), np.broadcast_to(b, (B, b.shape[1]))
