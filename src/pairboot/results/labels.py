"""The answer of :func:`pairboot.gold_labels`: how many gold labels a prediction-powered
comparison needs.  Data only: its prose is the report layer's."""

from __future__ import annotations

from dataclasses import dataclass, fields

from pairboot.rendering import rendered
from pairboot.results.compare import json_safe

__all__ = ["LabelPlan"]


@dataclass(frozen=True, slots=True)
class LabelPlan:
    """Gold labels for a prediction-powered B - A of a given precision.

    Attributes
    ----------
    n_gold : int or None
        Labelled items needed with the judge on every item (PPI++ at its best weight);
        None when even labelling every item falls short.
    n_gold_alone : int or None
        Labelled items needed without the judge (the gold labels alone); None when more
        than ``n_items``.
    n_items : int
        The items of the evaluation (labelled or not: every one has the judge's scores).
    half_width : float
        The interval's half-width asked for (``delta`` and ``power``: the one that
        detects ``delta`` with that power).
    delta, power : float or None
        When the plan was asked for a difference to detect.
    sd : float
        The standard deviation of the gold per-item differences B - A.
    correlation : float
        The judge's per-item differences' correlation with the gold ones.
    confidence_level : float
    alternative : str
    n_pilot : int or None
        The labelled items of the pilot ``sd`` and ``correlation`` were read off (None:
        given).
    """

    n_gold: int | None
    n_gold_alone: int | None
    n_items: int
    half_width: float
    delta: float | None
    power: float | None
    sd: float
    correlation: float
    confidence_level: float
    alternative: str
    n_pilot: int | None = None

    @property
    def saved(self) -> float | None:
        """The share of the gold-only labels the judge saves (None when either plan is
        out of reach)."""
        if self.n_gold is None or self.n_gold_alone is None:
            return None
        return 1.0 - self.n_gold / self.n_gold_alone

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["saved"] = self.saved
        return json_safe(out)

    def __str__(self) -> str:
        return rendered(self, "text")
