"""A confidence sequence's reading (:class:`SequentialResult`): where an evaluation
watched as it runs stands, or where it stopped.

Data only, as every result: its words are written by :mod:`pairboot.report.sequential`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from pairboot.rendering import rendered
from pairboot.results.compare import ConfidenceInterval, json_safe

SEQUENTIAL_VERDICTS = ("better", "worse", "better-by-margin", "non-inferior", "inferior",
                       "equivalent", "different", "futile", "undecided")
"""What a sequence can say: the first seven decide (the sequence excludes a boundary,
or lies within the margins: ``futile``, the difference is smaller than the margin
matters); ``undecided`` does not."""


@dataclass(frozen=True, slots=True, repr=False)
class SequentialResult:
    """Where a confidence sequence for B - A stands (:func:`pairboot.sequential`).

    Attributes
    ----------
    verdict : str
        One of :data:`SEQUENTIAL_VERDICTS`: ``"undecided"`` until the sequence decides.
    decided : bool
        The stopping rule has stopped (a verdict other than ``"undecided"``).
    stopped_by : str or None
        ``"decision"``, ``"budget"`` (the item budget spent undecided) or None (running).
    estimate : float
        The mean difference of the units used, B - A.
    confidence_sequence : ConfidenceInterval
        The sequence at ``n_units``: it covers the mean difference at every size at once
        with probability ``confidence_level`` (one-sided: one end infinite, or the
        bounds' extreme).
    fixed_interval : ConfidenceInterval
        A fixed-size normal interval at the same size and level, for comparison: valid
        only if the size had been fixed in advance and looked at once.
    width_ratio : float
        The sequence's half-width over the fixed interval's (NaN before both exist):
        the price of looking as often as one likes.
    n_units, n_items : int
        The units (items, or whole groups) and items used up to the stop; ``unit``
        says which.
    n_unused : int
        Items given after the stop (not used).
    method : str
        ``"betting"`` (bounded scores, valid at every size) or ``"asymptotic"``.
    bounds : tuple of float or None
        The scores' declared bounds (betting).
    n_target : int
        The size the sequence is tuned to be tightest near.
    budget : int or None
        The most units the rule uses.
    confidence_level, alternative, hypothesis, margin, lower_is_better, version
        As given.
    metric : str
        ``"mean"`` (the mean difference per unit), or a pooled metric's name
        (``"ratio"``, ``"f1"``, ``"bleu"``, a :class:`~pairboot.metrics.Metric`'s):
        the difference of its values on each system's summed statistics, by the delta
        method.
    """

    verdict: str
    decided: bool
    stopped_by: str | None
    estimate: float
    confidence_sequence: ConfidenceInterval
    fixed_interval: ConfidenceInterval
    width_ratio: float
    n_units: int
    n_items: int
    n_unused: int
    unit: str
    method: str
    bounds: tuple[float, float] | None
    n_target: int
    budget: int | None
    confidence_level: float
    alternative: str
    hypothesis: str
    margin: float | None
    lower_is_better: bool
    version: str
    metric: str = "mean"

    def __str__(self) -> str:
        return rendered(self, "text")

    def __repr__(self) -> str:
        ci = self.confidence_sequence
        return (f"SequentialResult(verdict={self.verdict!r}, n_units={self.n_units}, "
                f"estimate={self.estimate:.4g}, confidence_sequence=({ci.low:.4g}, "
                f"{ci.high:.4g}), method={self.method!r})")

    def to_dict(self) -> dict:
        """Every field, JSON-safe (NaN and infinities as None)."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, ConfidenceInterval):
                value = {"low": json_safe(value.low), "high": json_safe(value.high)}
            out[f.name] = json_safe(value)
        return out
