"""PyEPO's polynomial cost map, shared by the generators: ``((B z / sqrt(p) + 3)^deg + 1) / 3.5^deg``."""

from __future__ import annotations

import numpy as np


def polynomial(features: np.ndarray, B: np.ndarray, deg: int) -> np.ndarray:
    """The cost map of features ``(N, p)`` through a 0/1 matrix ``B`` ``(d, p)``: an ``(N, d)`` array
    whose mean is about 1 for ``deg`` in 1..8 (PyEPO's genData normalisation).

    Parameters
    ----------
    features
        Features ``(N, p)``.
    B
        A 0/1 matrix ``(d, p)``.
    deg
        The polynomial's degree.
    """
    return ((features @ B.T / np.sqrt(features.shape[1]) + 3) ** deg + 1) / 3.5**deg
