"""Disk caches that load no code: arrays in ``.npz`` (read with ``allow_pickle=False``) beside a
JSON header, both written atomically (temporary file, then ``os.replace``).

A cache entry is keyed by a content hash of what produced it (the problem's fingerprint, the
input arrays, the settings); loading checks the key and reports what differs.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from ldopt.errors import CacheError, OutputError, TornCacheError

T = TypeVar("T")
FORMAT = "ldopt-cache/1"
_savez: Any = np.savez  # the arrays' names are keyword arguments, which numpy's stub cannot type


def digest(*parts: Any) -> str:
    """A SHA-256 hex digest of arrays, strings, numbers and (nested) lists/dicts of them.

    Parameters
    ----------
    *parts
        Arrays, strings, numbers and (nested) lists or dicts of them.
    """
    h = hashlib.sha256()

    def feed(obj: Any) -> None:
        if isinstance(obj, np.ndarray):
            a = np.ascontiguousarray(obj)
            h.update(f"nd{a.dtype.str}{a.shape}".encode())
            h.update(a.tobytes() if a.dtype != object else repr(a.tolist()).encode())
        elif isinstance(obj, dict):
            h.update(b"{")
            for k in sorted(obj, key=str):
                feed(str(k))
                feed(obj[k])
            h.update(b"}")
        elif isinstance(obj, (list, tuple)):
            h.update(f"[{len(obj)}".encode())
            for v in obj:
                feed(v)
        else:
            h.update(f"{type(obj).__name__}:{obj!r};".encode())

    for p in parts:
        feed(p)
    return h.hexdigest()


def _atomic_write(path: Path, write: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def entry_path(cache: str | Path, prefix: str, key: str) -> Path:
    """Where an entry keyed ``key`` lives: ``cache`` itself when it names an ``.npz`` file, else
    ``<cache>/<prefix>-<key[:20]>.npz``.

    Parameters
    ----------
    cache
        A folder, or an ``.npz`` path used as is.
    prefix
        The file name's prefix in a folder.
    key
        The entry's key (a digest).
    """
    path = Path(cache)
    return path if path.suffix == ".npz" else path / f"{prefix}-{key[:20]}.npz"


def write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` to ``path`` atomically: a reader sees the old file or the new one, never part.
    Raises [`OutputError`][ldopt.errors.OutputError] where it cannot be written.

    Parameters
    ----------
    path
        The file to write.
    text
        Its new content.
    """
    path = Path(path)
    try:
        _atomic_write(path, lambda fh: fh.write(text.encode()))
    except OSError as exc:  # a file where a folder should be, no permission, a full disk
        raise OutputError(
            f"cannot write {path} ({exc.strerror or exc}); expected a writable folder: choose another one"
        ) from exc
    return path


def save(path: str | Path, arrays: dict[str, np.ndarray], header: dict[str, Any]) -> Path:
    """Write ``arrays`` to ``path`` (``.npz``) and ``header`` to ``path.json``, each atomically.

    The header carries the arrays' digest, so a torn pair (one file replaced, not the other) is
    detected on load.

    Parameters
    ----------
    path
        The ``.npz`` path.
    arrays
        Named arrays.
    header
        A JSON-able header (the key fields the reader checks).
    """
    path = Path(path)
    header = {**header, "format": FORMAT, "arrays_digest": digest(arrays)}
    try:
        _atomic_write(path, lambda fh: _savez(fh, **arrays))
        _atomic_write(
            path.with_suffix(path.suffix + ".json"),
            lambda fh: fh.write(json.dumps(header, indent=1, sort_keys=True).encode()),
        )
    except OSError as exc:  # a full disk, a quota, a read-only folder: nothing half-written is left
        raise CacheError(
            f"cannot write cache {path} ({exc.strerror or exc}); free some space or choose another cache folder"
        ) from exc
    return path


def save_or_warn(
    path: str | Path, arrays: dict[str, np.ndarray], header: dict[str, Any], then: str, stacklevel: int = 1
) -> bool:
    """[`save`][ldopt.runtime.cache.save], or where the write fails (a full disk, a quota, a
    read-only folder) a warning ``"<why>; <then>"`` instead of an error: what was computed is kept
    in memory and the caller goes on. Whether it was saved.

    Parameters
    ----------
    path
        The ``.npz`` path.
    arrays
        Named arrays.
    header
        A JSON-able header.
    then
        What happens without the entry (``"the optima are used without being cached"``).
    stacklevel
        The warning's stack level, as the caller would pass it to ``warnings.warn``.
    """
    try:
        save(path, arrays, header)
    except CacheError as exc:
        warnings.warn(f"{exc}; {then}", stacklevel=stacklevel + 1)
        return False
    return True


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 80 else text[:77] + "..."


def _check_sizes(path: Path) -> None:
    """Raise ``ValueError`` where an array's header in the ``.npz`` at ``path`` claims more values
    than its member holds (a forged or corrupt header would make numpy allocate them all)."""
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            with zf.open(info) as fh:
                version = np.lib.format.read_magic(fh)
                read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
                shape, _, dtype = read(fh)
            claimed = int(np.prod(shape, dtype=object)) * dtype.itemsize
            if claimed > info.file_size:
                raise ValueError(
                    f"the array {info.filename} claims {claimed} bytes ({shape}, {dtype}) but holds {info.file_size}"
                )


def load(path: str | Path, expect: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]] | None:
    """The arrays and header at ``path``, or ``None`` when there is no entry.

    Raises [`TornCacheError`][ldopt.runtime.cache.TornCacheError] when the entry is unreadable or half written, and
    [`CacheError`][ldopt.runtime.cache.CacheError] when a header field differs from ``expect`` (the entry was written by
    another problem, data or settings).

    Parameters
    ----------
    path
        The ``.npz`` path.
    expect
        Header fields the entry must match (a mismatch is a ``CacheError``), or ``None``.
    """
    path = Path(path)
    meta = path.with_suffix(path.suffix + ".json")
    if not path.exists() and not meta.exists():
        return None
    try:
        header = json.loads(meta.read_text())
        _check_sizes(path)
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError, EOFError, KeyError, RecursionError, MemoryError, zipfile.BadZipFile) as exc:
        raise TornCacheError(f"cache {path} is unreadable ({type(exc).__name__}: {exc}"[:300] + ")") from None
    if not isinstance(header, dict):
        raise TornCacheError(f"cache {path}: expected a JSON object as its header, got {type(header).__name__}")
    if header.get("format") != FORMAT or header.get("arrays_digest") != digest(arrays):
        raise TornCacheError(f"cache {path} is corrupt or incomplete (its arrays do not match its header)")
    for key, want in (expect or {}).items():
        if header.get(key) != want:
            raise CacheError(
                f"cache {path} was written for other {key} (expected {_short(want)}, got "
                f"{_short(header.get(key))}); use another cache path or delete it"
            )
    return arrays, header


def load_or_recompute(
    path: str | Path, expect: dict[str, Any] | None, decode: Callable[[dict[str, np.ndarray], dict[str, Any]], T]
) -> T | None:
    """``decode`` of the entry at ``path``, or ``None`` (compute it) when there is none or it is
    unusable: torn, corrupt, or not decodable (an older format, a forged header). An unusable entry
    is not an error — the result is computed again, with a warning, and the new entry replaces it.
    An intact entry of other settings (``expect`` differs) still raises [`CacheError`][ldopt.runtime.cache.CacheError].

    Parameters
    ----------
    path
        The ``.npz`` path.
    expect
        Header fields the entry must match, or ``None``.
    decode
        Builds the value from the arrays and header.
    """
    try:
        hit = load(path, expect)
        return None if hit is None else decode(*hit)
    except TornCacheError as exc:
        reason = str(exc)
    except (KeyError, IndexError, ValueError, TypeError, AttributeError, RecursionError) as exc:
        reason = f"cache {path} does not decode ({type(exc).__name__}: {exc})"[:300]
    warnings.warn(f"{reason}; computing it again", stacklevel=3)
    return None
