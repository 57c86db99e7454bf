"""numba for ldopt's kernels, with a disk cache that works on any install and is the user's own.

numba caches compiled kernels beside their source (``__pycache__``), else in the user's cache
folder. A read-only install (a system site-packages, a container) run by a user without a
writable home has neither, and numba then refuses every ``cache=True`` kernel at import ("no
locator available"). There ldopt points numba at a folder that is this user's alone: the user's
cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``), else ``<tmp>/ldopt-numba-<uid>``, each used
only if it is a real folder (no link) owned by this user that nobody else can write — numba loads
what it finds there as code, so a folder another user could create first or write to would run
their code as this user — else a fresh private folder of the temporary directory for this
process. ``NUMBA_CACHE_DIR``, when set, wins as always. Modules with kernels import ``nb`` from here.
"""

from __future__ import annotations

import os
import stat
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


def private(folder: Path) -> bool:
    """Whether ``folder`` is a real folder (not a link) of this user's that no one else can write."""
    try:
        st = os.lstat(folder)
    except OSError:
        return False
    mine = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    return stat.S_ISDIR(st.st_mode) and mine and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _candidates() -> list[Path]:
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return [Path(home) / "ldopt" / "numba", Path(tempfile.gettempdir()) / f"ldopt-numba-{uid}"]


def ensure_cache_dir() -> str | None:
    """Point numba's cache at a private folder of this user's when it has nowhere to write (see
    the module docstring); the folder chosen, or ``None`` when numba's own places (or
    ``NUMBA_CACHE_DIR``) do."""
    if config.CACHE_DIR or has_cache_locator():
        return None
    for folder in _candidates():
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError:  # read-only, or a file there
            continue
        if private(folder):
            config.CACHE_DIR = str(folder)
            return config.CACHE_DIR
    config.CACHE_DIR = tempfile.mkdtemp(prefix="ldopt-numba-")  # 0700, a name no one can foresee
    return config.CACHE_DIR


ensure_cache_dir()

__all__ = ["ensure_cache_dir", "has_cache_locator", "nb", "private"]
