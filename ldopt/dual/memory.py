"""What a dual's result will hold, checked against the machine's memory before any block is solved:
the paper's independent mode stores ``m`` dense runs (``B·m²·n`` multipliers), which on a model
with hundreds of one-row blocks outgrows any machine; a clear error names the size and the fix
instead of a crash hours later."""

from __future__ import annotations

import os

from ldopt.decomposition.blocks import Blocks
from ldopt.dual.settings import DualSettings
from ldopt.dual.support import Support, resolve_layout
from ldopt.errors import InputError


def physical_memory() -> int | None:
    """This machine's physical memory in bytes, or ``None`` where the system does not say."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows) or no such name
        return None


def multiplier_bytes(dec: Blocks, count: int, mode: str, layout: str) -> int:
    """The bytes of ``count`` instances' multipliers in ``mode`` and ``layout`` (``"dense"`` or
    ``"sparse"``): ``B·(nnz + n)`` on the supports, ``B·m·n`` dense, ``B·m²·n`` for the independent runs.

    Parameters
    ----------
    dec
        The decomposition.
    count
        The instances ``B``.
    mode
        The dual's mode.
    layout
        The resolved layout.
    """
    m, n = dec.num_blocks, dec.problem.num_vars
    if layout == "sparse":
        return 8 * count * (Support.of(dec).nnz + n)
    return 8 * count * m * n * (m if mode == "independent" else 1)


def check_memory(dec: Blocks, count: int, settings: DualSettings) -> None:
    """Refuse a dual whose multipliers alone exceed this machine's physical memory, naming their
    size and a mode that fits (an ``InputError``).

    Parameters
    ----------
    dec
        The decomposition.
    count
        The instances.
    settings
        The dual's settings (layout resolved).
    """
    total = physical_memory()
    need = multiplier_bytes(dec, count, settings.mode, settings.layout)
    if total is None or need <= total:
        return
    m, n = dec.num_blocks, dec.problem.num_vars
    shape = f"{count} × {m} × {m} × {n}" if settings.mode == "independent" else f"{count} × {m} × {n}"
    joint = multiplier_bytes(dec, count, "joint", resolve_layout(dec, "auto", "joint"))
    raise InputError(
        f"dec.dual: mode={settings.mode!r} in the {settings.layout} layout stores {shape} multipliers "
        f"({need / 1e9:.1f} GB), more than this machine's {total / 1e9:.1f} GB; expected mode='joint' "
        f"(one run serving every decomposition: {joint / 1e9:.2f} GB) or fewer instances per call"
    )
