"""Training data: batches, the LD training sets (`dataset`) and the baselines' (`optdataset`), the
multipliers that follow the model (`dynamic`), and the optima's structure for CaVE and LAVA."""
