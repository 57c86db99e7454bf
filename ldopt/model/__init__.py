"""The model stage: a Pyomo model compiled once into arrays (`compiled`, `compile`, the bounds its
rows imply), the user's `Problem` over it, its solutions, and batched solves."""
