"""How compare() reports its progress: a callable, or a :class:`Progress`.

``compare(..., progress=f)`` calls ``f(done)`` with the number of finished resamples, now
and then.  A :class:`Progress` is also told, by :meth:`Progress.compiling`, when numba is
about to compile its kernel (the one slow start after installing, about 10 s), so that a
progress bar can say why nothing moves.
"""

from __future__ import annotations

from abc import ABC, abstractmethod


class Progress(ABC):
    """Base class of a progress display that also hears about compiling.

    Examples
    --------
    >>> class Dots(Progress):
    ...     def __call__(self, done: int) -> None:
    ...         print(".", end="")
    ...     def compiling(self) -> None:
    ...         print("compiling...")
    """

    @abstractmethod
    def __call__(self, done: int) -> None:
        """``done`` resamples of the run are finished (it only grows)."""

    def compiling(self) -> None:  # noqa: B027 (optional: most displays need nothing here)
        """numba is about to compile its kernel; the next call may be some seconds away."""
