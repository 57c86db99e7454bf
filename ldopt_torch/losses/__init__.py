"""Losses: the differentiable layers (SPO+, I-MLE, Fenchel–Young, the closed form) and their
surrogates, the LD losses (`ld`), and the baselines (MSE, PyEPO's losses, CaVE and LAVA)."""
