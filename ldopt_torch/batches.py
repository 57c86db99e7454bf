"""The batch records the datasets yield and the losses read: dictionaries (so a ``DataLoader``
collates them) with typed keys. ``index`` keeps every instance's identity under shuffling."""

from __future__ import annotations

from typing import TypedDict

import torch


class LDBatch(TypedDict):
    """A batch of :class:`~ldopt_torch.LDDataset`: instances of one decomposition ``d``."""

    index: torch.Tensor  # (B,) instance ids
    d: int  # the main block
    features: torch.Tensor  # (B, p)
    costs: torch.Tensor  # (B, n_c) true costs
    main_objective: torch.Tensor  # (B, n) λ_d
    main_solution: torch.Tensor  # (B, n) x_d*
    multipliers: torch.Tensor  # (B, m-1, n) μ^(d)


class _OptBase(TypedDict):
    index: torch.Tensor
    features: torch.Tensor
    costs: torch.Tensor
    solution: torch.Tensor  # (B, n) the full problem's optimum
    objective: torch.Tensor  # (B,) its objective


class OptBatch(_OptBase, total=False):
    """A batch of :class:`~ldopt_torch.OptDataset` (``tight`` and ``steps`` with ``structure=True``)."""

    tight: torch.Tensor  # (B, rows, n) binding normals (CaVE)
    steps: torch.Tensor  # (B, n) adjacent-vertex steps (LAVA)


Batch = LDBatch | OptBatch


def model_inputs(model: torch.nn.Module, features: torch.Tensor) -> torch.Tensor:
    """``features`` on the model's device and in its floating dtype (a float64 model, a GPU model)."""
    p = next((q for q in model.parameters() if q.is_floating_point()), None)
    return features if p is None else features.to(device=p.device, dtype=p.dtype)
