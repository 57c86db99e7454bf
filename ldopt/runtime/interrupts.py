"""A batch system's SIGTERM handled as Ctrl-C: long work that catches ``KeyboardInterrupt`` to keep
what it computed (``ldopt_torch.fit`` returns the best model and the history) keeps it on SIGTERM
too, instead of the process dying with nothing saved."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived during a `sigterm_as_interrupt()` block."""


def _raise(signum: int, frame: Any) -> None:
    raise Terminated(f"signal {signum} (SIGTERM)")


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises `Terminated` (a ``KeyboardInterrupt``); the previous
    handler is restored after. Outside the main thread (where Python cannot set handlers) it does
    nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGTERM, _raise)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)
