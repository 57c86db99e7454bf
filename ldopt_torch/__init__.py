"""ldopt_torch: the PyTorch adapter of ldopt — LD training sets, differentiable layers, the
paper's L1/L2 losses with pluggable surrogates (SPO+, I-MLE, Fenchel–Young, the exact closed form),
and one trainer."""

from ldopt.evaluate.regret import relative_regret
from ldopt_torch.data.batches import LDBatch, OptBatch
from ldopt_torch.data.dataset import LDDataset
from ldopt_torch.data.dynamic import DynamicMultipliers
from ldopt_torch.data.optdataset import OptDataset
from ldopt_torch.losses.argopt import BlockArgopt, ProblemArgopt
from ldopt_torch.losses.base import Loss
from ldopt_torch.losses.baselines import FullLoss, MSELoss
from ldopt_torch.losses.layers import QuadraticClosedForm, fenchel_young, imle, spo_plus
from ldopt_torch.losses.ld import LDLoss, method_fits
from ldopt_torch.losses.noise import Gaussian, SumOfGamma
from ldopt_torch.losses.solver_free import CaVELoss, LAVALoss
from ldopt_torch.losses.surrogates import IMLE, SURROGATES, Exact, FenchelYoung, SPOPlus, Surrogate
from ldopt_torch.train.fit import fit
from ldopt_torch.train.loop import TrainingError
from ldopt_torch.train.presets import DEFAULTS, PAPER, Preset
from ldopt_torch.train.result import FitResult
from ldopt_torch.train.settings import FitOptions, Schedule
from ldopt_torch.train.validation import Validator


def __getattr__(name: str):
    if name == "PyEPOModel":  # imports PyEPO only when asked for
        from ldopt_torch.losses.pyepo_adapter import PyEPOModel  # noqa: PLC0415

        return PyEPOModel
    raise AttributeError(f"module 'ldopt_torch' has no attribute {name!r}")


__all__ = [
    "DEFAULTS",
    "IMLE",
    "PAPER",
    "SURROGATES",
    "BlockArgopt",
    "CaVELoss",
    "DynamicMultipliers",
    "Exact",
    "FenchelYoung",
    "FitOptions",
    "FitResult",
    "FullLoss",
    "Gaussian",
    "LAVALoss",
    "LDBatch",
    "LDDataset",
    "LDLoss",
    "Loss",
    "MSELoss",
    "OptBatch",
    "OptDataset",
    "Preset",
    "ProblemArgopt",
    "PyEPOModel",
    "QuadraticClosedForm",
    "SPOPlus",
    "Schedule",
    "SumOfGamma",
    "Surrogate",
    "TrainingError",
    "Validator",
    "fenchel_young",
    "fit",
    "imle",
    "method_fits",
    "relative_regret",
    "spo_plus",
]
