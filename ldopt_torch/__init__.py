"""ldopt_torch: the PyTorch adapter of ldopt (LD training sets, layers, losses, trainer)."""
