"""The batch records the datasets yield and the losses read: dictionaries (so a ``DataLoader``
collates them) with typed keys. ``index`` keeps every instance's identity under shuffling; and the
one conversion of user features into the float32 tensors that batches carry."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypedDict

import numpy as np
import torch

from ldopt import Problem, checks
from ldopt.errors import InputError


class LDBatch(TypedDict):
    """A batch of [`LDDataset`][ldopt_torch.LDDataset]: instances of one decomposition ``d``."""

    index: torch.Tensor  # (B,) instance ids
    d: int  # the main block
    features: torch.Tensor  # (B, p)
    costs: torch.Tensor  # (B, n_c) true costs
    main_objective: torch.Tensor  # (B, n) λ_d
    main_solution: torch.Tensor  # (B, n) x_d*


class _OptBase(TypedDict):
    index: torch.Tensor
    features: torch.Tensor
    costs: torch.Tensor
    solution: torch.Tensor  # (B, n) the full problem's optimum
    objective: torch.Tensor  # (B,) its objective


class OptBatch(_OptBase, total=False):
    """A batch of [`OptDataset`][ldopt_torch.OptDataset] (``tight`` and ``steps`` with ``structure=True``)."""

    tight: torch.Tensor  # (B, rows, n) binding normals (CaVE)
    steps: torch.Tensor  # (B, n) adjacent-vertex steps (LAVA)


Batch = LDBatch | OptBatch


def model_inputs(model: torch.nn.Module, features: torch.Tensor) -> torch.Tensor:
    """``features`` on the model's device and in its floating dtype (a float64 model, a GPU model)."""
    p = next((q for q in model.parameters() if q.is_floating_point()), None)
    return features if p is None else features.to(device=p.device, dtype=p.dtype)


def feature_tensor(features: Any, n: int, name: str = "features") -> torch.Tensor:
    """``features`` as a float32 ``(n, num_features)`` tensor of finite numbers."""
    if isinstance(features, torch.Tensor):
        f = features.detach().cpu()
    else:
        try:
            raw = np.asarray(features)
        except ValueError:  # a ragged list
            raw = np.asarray(None, dtype=object)
        if raw.dtype.kind not in "biuf":
            raise InputError(
                f"{name}: expected real numbers of shape ({n}, num_features), got {type(features).__name__}"
                + (f" of dtype {raw.dtype}" if raw.dtype.kind != "O" else "")
            )
        f = torch.as_tensor(raw)
    if f.is_complex():
        raise InputError(f"{name}: expected real numbers, got complex values")
    if f.ndim != 2 or f.shape[0] != n:
        raise InputError(f"{name}: expected shape ({n}, num_features) (one row per cost vector), got {tuple(f.shape)}")
    if not torch.isfinite(f).all():
        raise InputError(f"{name}: expected finite values, got NaN or inf")
    out = f.to(torch.float32)
    if not torch.isfinite(out).all():
        big = float(f.abs().max())
        raise InputError(f"{name}: expected values within float32's range (|x| < 3.4e38), got {big:.3g}; rescale them")
    return out


class InstanceSet(torch.utils.data.Dataset):
    """Features and costs of a problem's instances, served in batches (what the training sets share)."""

    _fields: tuple[str, ...] = ()

    def __init__(self, problem: Problem, features: Any, costs: Any) -> None:
        checks.instance("problem", problem, Problem, "an ldopt.Problem (ldopt.Problem.from_pyomo(model, cost))")
        c, _ = problem.check_costs(costs)
        if len(c) == 0:
            raise InputError("costs: expected at least one instance, got none")
        self.problem = problem
        self.costs_np = c
        self.features = feature_tensor(features, len(c))
        self.costs = torch.as_tensor(c, dtype=torch.float32)
        if not torch.isfinite(self.costs).all():
            raise InputError("costs: expected values within float32's range (|c| < 3.4e38) for training; rescale them")

    def __len__(self) -> int:
        return len(self.costs)

    @property
    def num_features(self) -> int:
        return self.features.shape[1]

    def _batch(self, idx: torch.Tensor) -> Any:
        raise NotImplementedError

    def __getitem__(self, i: int) -> Any:
        b = self._batch(torch.tensor([int(i)]))
        return {k: (v[0] if isinstance(v, torch.Tensor) and v.ndim else v) for k, v in b.items()}

    def batches(
        self, batch_size: int = 32, shuffle: bool = True, generator: torch.Generator | None = None
    ) -> Iterator[Any]:
        """Batches as dictionaries (as a ``DataLoader`` would collate them), shuffled by ``generator``."""
        batch_size = checks.positive_int("batch_size", batch_size)
        shuffle = checks.boolean("shuffle", shuffle)
        if generator is not None:
            checks.instance("generator", generator, torch.Generator, "a torch.Generator or None")
        n = len(self)
        order = torch.randperm(n, generator=generator) if shuffle else torch.arange(n)
        for s in range(0, n, batch_size):
            yield self._batch(order[s : s + batch_size])


class CostsOnly(InstanceSet):
    """Another set's features and costs alone (what MSE reads), sharing its tensors.

    Parameters
    ----------
    data
        The instance set (an [`LDDataset`][ldopt_torch.LDDataset] or any other).
    """

    def __init__(self, data: InstanceSet) -> None:  # the tensors are checked already
        self.problem, self.costs_np = data.problem, data.costs_np
        self.features, self.costs = data.features, data.costs

    def _batch(self, idx: torch.Tensor) -> dict[str, torch.Tensor]:
        return dict(index=idx, features=self.features[idx], costs=self.costs[idx])
