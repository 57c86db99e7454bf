"""How work runs: threads and executors, chunked runs saved as they finish, atomic caches, progress
bars, interrupts and the JIT's private cache. Below every stage; knows nothing of models."""
