"""The decomposition stage: rows grouped into blocks (`grouping`), each block's subproblem and
solver (`blocks`), user oracles attached to blocks, the user's `Decomposition` with ``dec.dual``
(`decompose`) and what to expect of it (`check`)."""
