"""Deprecated spellings: an old keyword keeps working, with a ``DeprecationWarning`` that names
its replacement."""

from __future__ import annotations

import warnings
from typing import Any

from .errors import InputError


def renamed(old: str, new: str, stacklevel: int = 3) -> None:
    """Warn that ``old`` is deprecated in favour of ``new`` (pointing at the caller's caller)."""
    warnings.warn(f"{old} is deprecated; use {new}", DeprecationWarning, stacklevel=stacklevel)


def alias(name: str, value: Any, old: str, old_value: Any, new: str, default: Any = None) -> Any:
    """``value``, or ``old_value`` given under the deprecated keyword ``old`` (with a warning);
    both given is an error. ``default`` is ``value``'s default (not counted as given)."""
    if old_value is None:
        return value
    if value is not default and value != default:
        raise InputError(f"{name}: expected it or the deprecated {old}=, not both")
    renamed(f"{old}=", new, stacklevel=4)
    return old_value
