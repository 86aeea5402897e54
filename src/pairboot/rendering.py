"""The one hook through which every result's text is written.

Results are data only (:mod:`pairboot.results.compare` and its kin import nothing of the report
layer); ``print(result)``, ``summary()``, ``reading``, ``to_html()``, ``_repr_html_`` and
the p-value in a repr call :func:`rendered`, which calls the function
:func:`set_renderer` set.  ``import pairboot`` sets one that imports the report layer on
first use (so that importing the package loads no writer), and :mod:`pairboot.report`
sets its own :func:`~pairboot.report.render` when it is imported.  This module imports
nothing, so that every result may read it.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["rendered", "set_renderer"]

_renderer: Callable[..., str] | None = None


def set_renderer(renderer: Callable[..., str]) -> None:
    """Set the one function that writes every result's text:
    ``renderer(result, format, **labels) -> str``, with ``format`` ``"text"``
    (``print(result)``, ``summary()``), ``"html"`` (``to_html()``), ``"html-fragment"``
    (``_repr_html_``), ``"reading"``, ``"p-repr"`` (the p-value in a repr), or any other
    format a result asks its writers for."""
    global _renderer
    _renderer = renderer


def rendered(result, format: str, **labels) -> str:
    """``result`` written in ``format`` by the function :func:`set_renderer` set (the
    report layer's registry of writers)."""
    if _renderer is None:
        raise RuntimeError(
            f"no writer for a result's {format!r}: import pairboot.report (importing "
            "pairboot does on a result's first text) to register the report layer's "
            "writers")
    return _renderer(result, format, **labels)
