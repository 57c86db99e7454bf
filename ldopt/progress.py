"""Progress bars (tqdm) that a caller, or ``LDOPT_PROGRESS=0`` in the environment, can silence."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any, TypeVar

T = TypeVar("T")


def enabled(flag: bool) -> bool:
    """Whether a bar asked for with ``flag`` is shown (the environment can veto it)."""
    return bool(flag) and os.environ.get("LDOPT_PROGRESS", "1") not in ("0", "false", "no")


def progress_bar(iterable: Iterable[T], enable: bool = True, **kwargs: Any) -> Iterable[T]:
    """``tqdm(iterable)`` when enabled, else ``iterable`` untouched (no overhead)."""
    if not enabled(enable):
        return iterable
    from tqdm.auto import tqdm  # noqa: PLC0415

    return tqdm(iterable, leave=False, dynamic_ncols=True, **kwargs)


def counting_bar(total: int, desc: str, enable: bool = True) -> Any:
    """A ``tqdm`` bar of ``total`` steps, advanced by hand (``None`` when silenced)."""
    if not enabled(enable):
        return None
    from tqdm.auto import tqdm  # noqa: PLC0415

    return tqdm(total=total, desc=desc, leave=False, dynamic_ncols=True)
