"""Training: `fit`, its settings (`Schedule`, `FitOptions`) and presets, validation, the loop,
the MSE warm start and the result."""
