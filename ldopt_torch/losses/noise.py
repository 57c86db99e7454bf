"""Noise streams of the perturbed layers: sum-of-gamma (I-MLE) and Gaussian (Fenchel–Young), each
with a generator of its own that ``fit`` re-seeds, equal to PyEPO's for the same seed."""

from __future__ import annotations

import math
from typing import Any

import torch

from ldopt import checks


class Stream:
    """A noise stream with a generator of its own (``seed``), or torch's global one (``None``).

    Parameters
    ----------
    seed
        The stream's seed; ``None``: torch's global generator.
    """

    def __init__(self, seed: int | None = None) -> None:
        self.generator: torch.Generator | None = None
        if seed is not None:
            self.reseed(seed)

    def reseed(self, seed: int) -> None:
        """Restart the stream from ``seed``.

        Parameters
        ----------
        seed
            The stream's seed.
        """
        self.generator = torch.Generator().manual_seed(checks.nonnegative_int("seed", seed))

    def sample(self, size: tuple[int, ...], *, device: Any = None, dtype: torch.dtype = torch.float32) -> torch.Tensor:
        """Noise of shape ``size`` from this stream.

        Parameters
        ----------
        size
            The noise's shape.
        device
            Where to put it (``None``: the CPU).
        dtype
            Its dtype.
        """
        return self._draw(size, dtype).to(device or "cpu")

    def _draw(self, size: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
        """The stream's law on the CPU (its generator lives there)."""
        raise NotImplementedError


class SumOfGamma(Stream):
    """Sum-of-Gamma noise of I-MLE (κ, 10 terms); same law and formula as PyEPO's.

    ``seed``: a stream of its own (equal to PyEPO's ``sumGammaDistribution`` for the same seed),
    re-seeded by `reseed()`; ``None`` draws from torch's global generator, so every call gets
    fresh noise and ``torch.manual_seed`` makes it reproducible.

    Parameters
    ----------
    kappa
        The law's ``κ``.
    n_iterations
        Gamma terms summed.
    seed
        The stream's seed; ``None``: torch's global generator.
    """

    def __init__(self, kappa: float = 5.0, n_iterations: int = 10, seed: int | None = None) -> None:
        self.kappa = checks.positive("kappa", kappa)
        self.n_iterations = checks.positive_int("n_iterations", n_iterations)
        super().__init__(seed)

    def _draw(self, size: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
        alpha = torch.full((self.n_iterations, *size), 1.0 / self.kappa, dtype=dtype)
        gammas = torch._standard_gamma(alpha, generator=self.generator)
        weights = self.kappa / torch.arange(1, self.n_iterations + 1, dtype=dtype)
        out = (gammas * weights.view(-1, *([1] * len(size)))).sum(0)
        return (out - math.log(self.n_iterations)) / self.kappa


class Gaussian(Stream):
    """Standard normal noise from a stream of its own (PyEPO's perturbed losses' law; for the same
    ``seed`` the same draws as their per-device generator on the CPU), re-seeded by `reseed()`.

    Parameters
    ----------
    seed
        The stream's seed; ``None``: torch's global generator.
    """

    def _draw(self, size: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
        return torch.randn(size, dtype=dtype, generator=self.generator)


_DEFAULT_NOISE = SumOfGamma(5.0)  # the bare layer's: torch's global generator, fresh noise per call
