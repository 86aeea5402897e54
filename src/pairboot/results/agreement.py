"""The answer of :func:`pairboot.agreement`: how far two raters (a judge and people, or
two judges) agree, each statistic with its bootstrap interval on the same resamples.
Data only: its prose is the report layer's."""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from pairboot.rendering import rendered
from pairboot.results.compare import ConfidenceInterval, json_safe

__all__ = ["AgreementResult", "AgreementRow"]


@dataclass(frozen=True, slots=True)
class AgreementRow:
    """One statistic: its value on the data, its interval and standard error.

    Attributes
    ----------
    statistic : str
        Its name (:data:`pairboot.stats.agreement.STATISTICS`).
    estimate : float
    confidence_interval : ConfidenceInterval
    standard_error : float
        The standard deviation of its bootstrap replicates.
    """

    statistic: str
    estimate: float
    confidence_interval: ConfidenceInterval
    standard_error: float

    def to_dict(self) -> dict:
        return json_safe({"statistic": self.statistic, "estimate": self.estimate,
                          "confidence_interval": self.confidence_interval._asdict(),
                          "standard_error": self.standard_error})


@dataclass(frozen=True, slots=True)
class AgreementResult:
    """Agreement of two raters on the same items.

    Attributes
    ----------
    rows : tuple of AgreementRow
        One per statistic asked for, in that order (``result["kappa"]`` reads one).
    categories : tuple
        The categories in order (their ranks weigh kappa, their values alpha's interval
        metric).
    table : tuple of tuples of int
        ``table[i][j]``: the items the first rater put in category ``i`` and the second
        in ``j``.
    n_items : int
    n_groups : int or None
        With groups: whole groups were resampled.
    confidence_level, method, n_resamples, seed, version, warnings
        As :class:`CompareResult`'s.
    bootstrap_distributions : dict
        Every statistic's replicates, by name.
    """

    rows: tuple[AgreementRow, ...]
    categories: tuple
    table: tuple[tuple[int, ...], ...]
    n_items: int
    n_groups: int | None
    confidence_level: float
    method: str
    n_resamples: int
    seed: int
    version: str
    bootstrap_distributions: dict
    warnings: tuple[str, ...] = ()

    def __getitem__(self, statistic: str) -> AgreementRow:
        for row in self.rows:
            if row.statistic == statistic:
                return row
        raise KeyError(statistic)

    def to_dict(self) -> dict:
        """A JSON-ready dict of the fields (without the replicates)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)
               if f.name != "bootstrap_distributions"}
        out["rows"] = [r.to_dict() for r in self.rows]
        out["categories"] = [c.item() if isinstance(c, np.generic) else c
                             for c in self.categories]
        out["table"] = [list(r) for r in self.table]
        return json_safe(out)

    def __str__(self) -> str:
        return rendered(self, "text")

    def to_html(self) -> str:
        """The report as one self-contained HTML page."""
        return rendered(self, "html")

    def _repr_html_(self) -> str:
        return rendered(self, "html-fragment")

    def __repr__(self) -> str:
        shown = ", ".join(f"{r.statistic}={r.estimate:.4g}" for r in self.rows)
        return f"AgreementResult({shown}, n_items={self.n_items})"
