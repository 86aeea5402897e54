"""The items every source scores (``common_items``): how many were kept, of how many, and
what each source lost.

``align(..., common_items=True)`` and ``harness.join(..., common_items=True)`` compare on
the ids every file (or log) holds instead of refusing files whose ids differ.  The items
dropped are the ones a system did not score (a failure, a time-out), and leaving them
out can favour it, so the count kept belongs beside the verdict (every report writes
:meth:`CommonItems.summary` under its headline) and a large loss is warned of
(:meth:`CommonItems.warning`; :func:`warn_lost` as a Python warning).
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

from pairboot.errors import InputError, PairbootWarning

__all__ = ["LOST_SHARE", "CommonItems", "warn_lost"]

LOST_SHARE = 0.10
"""A source that loses more than this share of its items is warned of."""

SHOWN = 3
"""How many of the sources that lost most a warning names."""


@dataclass(frozen=True, slots=True)
class CommonItems:
    """The items compared on with ``common_items``.

    Attributes
    ----------
    kept : int
        The items every source scores: those compared.
    total : int
        The distinct items any source scores.
    sources : tuple of str
        The sources (files, logs, or the systems they hold), in order.
    sizes : tuple of int
        The items each source scores.
    unit : str
        What a source is, in words (``"file"``, ``"log"``).
    systems : bool
        Whether ``sources`` are the systems' names (a system per source).
    """

    kept: int
    total: int
    sources: tuple[str, ...]
    sizes: tuple[int, ...]
    unit: str = "file"
    systems: bool = False

    def renamed(self, names: Sequence[str]) -> CommonItems:
        """The same counts with the sources named ``names``: the systems, one per
        source (otherwise unchanged)."""
        if len(names) != len(self.sources):
            return self
        return dataclasses.replace(self, sources=tuple(map(str, names)), systems=True)

    def losses(self) -> list[tuple[str, int, int]]:
        """``(source, items dropped, items it scores)``, the largest share first."""
        lost = [(s, n - self.kept, n) for s, n in zip(self.sources, self.sizes)]
        return sorted(lost, key=lambda x: -(x[1] / x[2] if x[2] else 0.0))

    def summary(self) -> str:
        """How many items were compared, of how many, in a sentence."""
        return (f"Compared on {self.kept:,} of {self.total:,} items: those every "
                f"{self.unit} scores (`common_items`).")

    def warning(self, share: float = LOST_SHARE) -> str | None:
        """A warning naming the sources that lost most, when one lost more than
        ``share`` of its items; None otherwise."""
        large = [x for x in self.losses() if x[2] and x[1] / x[2] > share]
        if not large:
            return None
        listed = "; ".join(f"{s}: {lost:,} of {n:,}, {lost / n:.0%}"
                           for s, lost, n in large[:SHOWN])
        more = f"; and {len(large) - SHOWN} more" if len(large) > SHOWN else ""
        what = "system" if self.systems else self.unit
        return (f"`common_items` dropped more than {share:.0%} of the items of "
                f"{len(large)} of the {len(self.sources)} {what}s ({listed}{more}): "
                "the items a system did not score may be the hard ones, so the comparison "
                "can favour it")

    def to_dict(self) -> dict:
        return {"kept": self.kept, "total": self.total,
                "lost": [{"source": s, "dropped": lost, "items": n}
                         for s, lost, n in zip(self.sources,
                                               (n - self.kept for n in self.sizes),
                                               self.sizes)],
                "warning": self.warning()}


def warn_lost(common: CommonItems, stacklevel: int = 3) -> None:
    """:meth:`CommonItems.warning` as a :class:`~pairboot.errors.PairbootWarning`, when
    there is one."""
    text = common.warning()
    if text is not None:
        warnings.warn(text, PairbootWarning, stacklevel=stacklevel)


def read_text_file(path: str) -> str:
    """A log's whole text, UTF-8, or one line naming the file and the byte that is not."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def parse_json_text(text: str, path: str):
    """JSON ``text`` of the file ``path`` (integers of any length, as
    :func:`pairboot.io.guards.loads` reads them), or one line naming the file: nested
    deeper than Python's recursion allows (the line), not JSON (the line and why), or a
    value Python cannot read."""
    import json

    from pairboot.io.guards import json_value_problem, loads, too_deep

    try:
        return loads(text)
    except RecursionError:
        raise too_deep(text, path) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except ValueError as exc:
        raise InputError(f"{path}: not valid JSON ({json_value_problem(exc)})") from None


def load_json_file(path: str):
    """A JSON log's value (:func:`parse_json_text` of its UTF-8 text)."""
    return parse_json_text(read_text_file(path), path)
