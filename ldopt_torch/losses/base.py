"""What [`fit()`][ldopt_torch.fit] asks of a loss beside ``forward(pred_costs, batch) -> scalar``:
[`Loss`][ldopt_torch.losses.base.Loss]. The trainer knows nothing of decompositions: a loss says
which of the dataset's decompositions it trains through (``plan``), restarts its own noise
(``reseed``) and says whether ``warm_start="auto"`` starts it from the MSE fit.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from torch import nn

from ldopt import checks
from ldopt.errors import InputError

Mode = Literal["static", "multiple"]
MODES: tuple[Mode, ...] = ("static", "multiple")


def whole_problem(loss: nn.Module, mode: str) -> list[int | None]:
    """The plan of a loss on the whole problem: ``[None]`` (no decomposition), static mode only."""
    if mode == "multiple":
        raise InputError(
            "mode: 'multiple' draws one of the dataset's decompositions per epoch and needs a loss on them "
            f"(lt.LDLoss); expected 'static' for {type(loss).__name__}"
        )
    return [None]


class Loss(nn.Module):
    """An ldopt loss, called as ``loss(pred_costs, batch)``; subclass it for your own.

    The defaults are a loss on the whole problem: it trains in static mode only, has no noise and
    is not started from the MSE fit under ``warm_start="auto"``.
    """

    auto_warm_start: ClassVar[bool] = False  # warm_start="auto" (with validation) trains by MSE first

    def plan(self, data: Any, mode: Mode, main: int | None) -> list[int | None]:
        """The decompositions ``fit`` trains through on ``data``: ``[None]`` for the whole problem,
        else main blocks (static mode: one; multiple mode: one drawn per epoch). Raises
        ``InputError`` where the loss and ``data``, ``mode`` or ``main`` do not go together.

        Parameters
        ----------
        data
            The training set.
        mode
            ``"static"`` or ``"multiple"``.
        main
            The main block asked for in static mode, or ``None``.
        """
        return whole_problem(self, mode)

    def reseed(self, seed: int) -> None:
        """Restart the loss's noise from ``seed`` (none here); ``fit`` calls it.

        Parameters
        ----------
        seed
            The noise stream's seed.
        """


def training_plan(loss: nn.Module, data: Any, mode: Any, main: int | None) -> list[int | None]:
    """``loss.plan(data, mode, main)`` for an ldopt [`Loss`][ldopt_torch.losses.base.Loss]; any
    other module is a loss on the whole problem."""
    mode = checks.choice("mode", mode, MODES)
    return loss.plan(data, mode, main) if isinstance(loss, Loss) else whole_problem(loss, mode)
