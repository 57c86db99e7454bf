"""ldopt_torch: the PyTorch adapter of ldopt — LD training sets, differentiable layers, the
paper's L1/L2 losses with SPO+, I-MLE and the exact closed form, and one trainer."""

from ldopt.regret import relative_regret

from .baselines import CaVELoss, LAVALoss
from .dataset import LDDataset, OptDataset
from .layers import QuadraticClosedForm, SumOfGamma, imle, spo_plus
from .losses import FullLoss, LDLoss, MSELoss, method_fits
from .oracles import BlockArgopt, ProblemArgopt
from .train import FitResult, TrainingError, Validator, fit


def __getattr__(name: str):
    if name == "PyEPOModel":  # imports PyEPO only when asked for
        from .pyepo_adapter import PyEPOModel

        return PyEPOModel
    raise AttributeError(f"module 'ldopt_torch' has no attribute {name!r}")


__all__ = [
    "BlockArgopt",
    "CaVELoss",
    "LAVALoss",
    "FitResult",
    "FullLoss",
    "LDDataset",
    "LDLoss",
    "MSELoss",
    "OptDataset",
    "ProblemArgopt",
    "PyEPOModel",
    "QuadraticClosedForm",
    "SumOfGamma",
    "TrainingError",
    "Validator",
    "fit",
    "imle",
    "method_fits",
    "relative_regret",
    "spo_plus",
]
