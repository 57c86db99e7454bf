"""ldopt_torch: the PyTorch adapter of ldopt — LD training sets, differentiable layers, the
paper's L1/L2 losses with pluggable surrogates (SPO+, I-MLE, Fenchel–Young, the exact closed form),
and one trainer."""

from ldopt.evaluate.regret import relative_regret

from .argopt import BlockArgopt, ProblemArgopt
from .baselines import FullLoss, MSELoss
from .batches import LDBatch, OptBatch
from .dataset import LDDataset
from .dynamic import DynamicMultipliers
from .fit_result import FitResult
from .fit_settings import FitOptions, Schedule
from .layers import QuadraticClosedForm, fenchel_young, imle, spo_plus
from .loop import TrainingError
from .losses import LDLoss, method_fits
from .noise import Gaussian, SumOfGamma
from .optdataset import OptDataset
from .presets import DEFAULTS, PAPER, Preset
from .solver_free import CaVELoss, LAVALoss
from .surrogates import IMLE, SURROGATES, Exact, FenchelYoung, SPOPlus, Surrogate
from .train import fit
from .validation import Validator


def __getattr__(name: str):
    if name == "PyEPOModel":  # imports PyEPO only when asked for
        from .pyepo_adapter import PyEPOModel  # noqa: PLC0415

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
