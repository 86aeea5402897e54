"""Which kernel a producer runs: numba's when it is installed and the job repays its
start-up, else the numpy reference (the same numbers, to rounding)."""

from __future__ import annotations

import importlib


def choose(backend: str, work: int, threshold: int, reference, module: str, name: str):
    """``(kernel, "numba" | "numpy")`` for ``backend`` ("auto", "numba", "numpy"):
    ``module.name`` (a numba module of :mod:`pairboot.engine`) unless the backend is
    numpy, or "auto" and ``work`` is below ``threshold``, or numba is missing (an error
    when "numba" was asked for); else ``reference``."""
    if backend == "numpy" or (backend == "auto" and work < threshold):
        return reference, "numpy"
    try:
        kernels = importlib.import_module(f"pairboot.engine.{module}")
    except ImportError:
        if backend == "numba":
            raise ImportError(
                'the numba backend needs numba: pip install "pairboot[fast]"') from None
        return reference, "numpy"
    return getattr(kernels, name), "numba"
