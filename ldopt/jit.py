"""numba for ldopt's kernels, with a disk cache that works on any install.

numba caches compiled kernels beside their source (``__pycache__``), else in the user's cache
folder. A read-only install (a system site-packages, a container) run by a user without a
writable home has neither, and numba then refuses every ``cache=True`` kernel at import ("no
locator available"). There ldopt points numba at a folder of the temporary directory instead;
``NUMBA_CACHE_DIR``, when set, wins as always. Modules with kernels import ``nb`` from here.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import numba as nb
from numba.core import caching
from numba.core import config as _config

config: Any = _config  # numba's settings module (CACHE_DIR: NUMBA_CACHE_DIR, or "")


def _probe() -> None:
    """A function of this module: where numba would cache it, it caches every ldopt kernel."""


def has_cache_locator() -> bool:
    """Whether numba finds a writable cache folder for ldopt's kernels."""
    cache = getattr(caching, "FunctionCache", None)
    if cache is None:  # another numba: let it decide at decoration time
        return True
    try:
        cache(_probe)
    except RuntimeError:  # "cache cannot be used ... no locator available"
        return False
    return True


def ensure_cache_dir() -> str | None:
    """Point numba's cache at ``<tmp>/ldopt-numba-<uid>`` when it has nowhere to write; the folder
    chosen, or ``None`` when numba's own places (or ``NUMBA_CACHE_DIR``) do."""
    if config.CACHE_DIR or has_cache_locator():
        return None
    uid = os.getuid() if hasattr(os, "getuid") else 0
    folder = Path(tempfile.gettempdir()) / f"ldopt-numba-{uid}"
    folder.mkdir(mode=0o700, exist_ok=True)
    config.CACHE_DIR = str(folder)
    return config.CACHE_DIR


ensure_cache_dir()

__all__ = ["ensure_cache_dir", "has_cache_locator", "nb"]
