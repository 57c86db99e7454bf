"""Checks of scalar arguments at the public entry points: each returns the value in its canonical
type or raises an [`InputError`][ldopt.errors.InputError] that says "name: expected X, got Y"."""

from __future__ import annotations

import math
from collections.abc import Iterable
from concurrent.futures import Executor
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from ldopt.errors import InputError

T = TypeVar("T")


def _fail(name: str, what: str, value: Any) -> InputError:
    return InputError(f"{name}: expected {what}, got {value!r}")


def _is_int(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (int, np.integer)):
        return True
    return isinstance(value, (float, np.floating)) and math.isfinite(value) and float(value).is_integer()


def positive_int(name: str, value: Any) -> int:
    """A whole number ≥ 1."""
    if not _is_int(value) or value < 1:
        raise _fail(name, "a positive integer", value)
    return int(value)


def positive_int_or_none(name: str, value: Any) -> int | None:
    """A whole number ≥ 1, or ``None``."""
    if value is None:
        return None
    if not _is_int(value) or value < 1:
        raise _fail(name, "a positive integer or None", value)
    return int(value)


def nonnegative_int(name: str, value: Any) -> int:
    """A whole number ≥ 0."""
    if not _is_int(value) or value < 0:
        raise _fail(name, "an integer ≥ 0", value)
    return int(value)


def integer(name: str, value: Any) -> int:
    """Any whole number (e.g. a seed)."""
    if not _is_int(value):
        raise _fail(name, "an integer", value)
    return int(value)


def _real(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def positive(name: str, value: Any, unit: str = "") -> float:
    """A finite number > 0."""
    if not _real(value) or not math.isfinite(value) or value <= 0:
        raise _fail(name, f"a finite number > 0{unit}", value)
    return float(value)


def positive_or_none(name: str, value: Any, unit: str = "") -> float | None:
    """A finite number > 0, or ``None``."""
    return None if value is None else positive(name, value, unit)


def nonnegative(name: str, value: Any) -> float:
    """A finite number ≥ 0."""
    if not _real(value) or not math.isfinite(value) or value < 0:
        raise _fail(name, "a finite number ≥ 0", value)
    return float(value)


def finite(name: str, value: Any) -> float:
    """A finite number."""
    if not _real(value) or not math.isfinite(value):
        raise _fail(name, "a finite number", value)
    return float(value)


def share(name: str, value: Any) -> float:
    """A number in ``(0, 1]`` (a share or a probability)."""
    if not _real(value) or not 0 < value <= 1:
        raise _fail(name, "a share in (0, 1]", value)
    return float(value)


def unit_interval(name: str, value: Any) -> float:
    """A number in ``[0, 1)`` (a relative gap)."""
    if not _real(value) or not 0 <= value < 1:
        raise _fail(name, "a relative gap in [0, 1)", value)
    return float(value)


def boolean(name: str, value: Any) -> bool:
    """``True`` or ``False``."""
    if not isinstance(value, (bool, np.bool_)):
        raise _fail(name, "True or False", value)
    return bool(value)


def choice(name: str, value: Any, options: Iterable[T]) -> T:
    """One of ``options`` (strings compared by value)."""
    opts = tuple(options)
    if not isinstance(value, str) or value not in opts:
        raise _fail(name, f"one of {opts}", value)
    return value


def instance(name: str, value: Any, cls: type[T], what: str, fix: str = "") -> T:
    """An instance of ``cls`` (``what`` names it for the message, ``fix`` says what to do instead)."""
    if not isinstance(value, cls):
        raise InputError(f"{name}: expected {what}, got {type(value).__name__}{'; ' + fix if fix else ''}")
    return value


def executor_or_none(name: str, value: Any) -> Any:
    """A ``concurrent.futures.Executor`` (e.g. ``ldopt.runtime.parallel.local_pool()``), or ``None``."""
    if value is not None and not isinstance(value, Executor):
        raise InputError(
            f"{name}: expected a concurrent.futures.Executor (ldopt.runtime.parallel.local_pool(), "
            f"ldopt.runtime.parallel.dask_executor()) or None, got {value!r}"[:300]
        )
    return value


def path_or_none(name: str, value: Any) -> Path | None:
    """A file-system path (``str`` or ``os.PathLike``), or ``None``."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (str, Path)) or value == "":
        raise _fail(name, "a path (str or pathlib.Path) or None", value)
    return Path(value)


def solver_name(name: str, value: Any) -> str:
    """A solver name: ``"highs"``, ``"gurobi"``, ``"cvxpy"``, ``"pyomo:<name>"`` or ``"auto"``."""
    if not isinstance(value, str) or not value:
        raise _fail(name, "a solver name such as 'highs', 'gurobi', 'cvxpy', 'pyomo:<name>' or 'auto'", value)
    return value


def real_array(name: str, values: Any) -> np.ndarray:
    """Finite real numbers (any shape) as a float array."""
    try:
        raw = np.asarray(values)
    except (TypeError, ValueError):
        raw = np.asarray(None, dtype=object)
    if raw.dtype.kind not in "iuf" or not np.isfinite(raw.astype(float)).all():
        raise InputError(f"{name}: expected finite real numbers, got {values!r}"[:200])
    return raw.astype(float)


def instances(name: str, index: Any, count: int) -> Any:
    """``index`` as a selection of ``count`` instances: ``None`` (all), a slice, indices or a mask."""
    if index is None:
        return slice(None)
    if isinstance(index, slice):
        return index
    what = f"instances of [0, {count}) (a slice, indices or a mask)"
    try:
        arr = None if isinstance(index, (bool, np.bool_)) else np.asarray(index)
    except ValueError:  # a ragged list
        arr = None
    if arr is None or arr.dtype.kind not in "biu" or arr.ndim != 1:
        raise _fail(name, what, index)
    try:
        np.arange(count)[arr]
    except IndexError:
        raise _fail(name, what, index) from None
    return arr
