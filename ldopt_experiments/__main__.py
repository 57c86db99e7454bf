"""``python -m ldopt_experiments experiment …`` / ``… table DIR``: the ``ldopt`` command line."""

from .cli import main

if __name__ == "__main__":
    main()
