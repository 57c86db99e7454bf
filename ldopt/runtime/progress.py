"""Progress bars (tqdm) that a caller, or ``LDOPT_PROGRESS=0`` in the environment, can silence.

On a terminal a bar redraws in place. Written to a file or a pipe (a batch job's log), every
redraw would be kept: there a bar redraws at most every `LOG_INTERVAL` seconds, so a log
holds a few lines per bar instead of thousands.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import Any, TypeVar

T = TypeVar("T")


def enabled(flag: bool) -> bool:
    """Whether a bar asked for with ``flag`` is shown (the environment can veto it)."""
    return bool(flag) and os.environ.get("LDOPT_PROGRESS", "1") not in ("0", "false", "no")


LOG_INTERVAL = 30.0
"""Seconds between a bar's redraws when standard error is not a terminal."""


def bar_options(**kwargs: Any) -> dict[str, Any]:
    """tqdm's options for ldopt's bars: not left behind, as wide as the terminal, and sparse where
    standard error is not a terminal; ``kwargs`` added (and winning)."""
    stream = sys.stderr
    tty = bool(getattr(stream, "isatty", lambda: False)())
    sparse = {} if tty else {"mininterval": LOG_INTERVAL, "maxinterval": LOG_INTERVAL}
    return {"leave": False, "dynamic_ncols": True, **sparse, **kwargs}


def progress_bar(iterable: Iterable[T], enable: bool = True, **kwargs: Any) -> Iterable[T]:
    """``tqdm(iterable)`` when enabled, else ``iterable`` untouched (no overhead).

    Parameters
    ----------
    iterable
        What to iterate over.
    enable
        Show the bar (``LDOPT_PROGRESS=0`` silences it anyway).
    **kwargs
        Passed to ``tqdm``.
    """
    if not enabled(enable):
        return iterable
    from tqdm.auto import tqdm  # noqa: PLC0415

    return tqdm(iterable, **bar_options(**kwargs))


def counting_bar(total: int, desc: str, enable: bool = True) -> Any:
    """A ``tqdm`` bar of ``total`` steps, advanced by hand (``None`` when silenced)."""
    if not enabled(enable):
        return None
    from tqdm.auto import tqdm  # noqa: PLC0415

    return tqdm(**bar_options(total=total, desc=desc))
