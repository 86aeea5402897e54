"""The answer of :func:`pairboot.compare_ppi`: B - A of the gold metric from a judge's
scores on every item and gold labels on a random subset.  Data only, as
:mod:`pairboot.results.compare`: its prose is the report layer's."""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from pairboot.rendering import rendered
from pairboot.results.compare import ConfidenceInterval, SystemScore, json_safe
from pairboot.stats.hypotheses import verdict_of

__all__ = ["JudgeCalls", "PPIComparison", "PPIEstimate", "PPIFamilyResult", "PPIResult"]


@dataclass(frozen=True, slots=True)
class PPIEstimate:
    """One way to estimate B - A and each system's gold score, with its interval (the
    result's ``method``, on the same resamples).

    Attributes
    ----------
    kind : str
        ``"judge"`` (the judge's scores on every item: biased by its errors), ``"gold"``
        (the gold labels alone) or ``"prediction-powered"``.
    estimate : float
        B - A.
    confidence_interval : ConfidenceInterval
        Two-sided at the result's ``confidence_level``.
    standard_error : float
        The bootstrap's standard deviation, or the closed form's (``method="clt"``).
    score_a, score_b : SystemScore
        Each system's own estimate (prediction-powered: each with its own ``lam``).
    n_items : int
        The items it reads: every item, or the labelled ones.
    """

    kind: str
    estimate: float
    confidence_interval: ConfidenceInterval
    standard_error: float
    score_a: SystemScore
    score_b: SystemScore
    n_items: int

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["confidence_interval"] = self.confidence_interval._asdict()
        out["score_a"], out["score_b"] = self.score_a.to_dict(), self.score_b.to_dict()
        return json_safe(out)


@dataclass(frozen=True, slots=True)
class JudgeCalls:
    """Several judge calls per item (``runs="samples"``): an item's judge score is the
    mean of its calls, and the item stays the unit.

    Attributes
    ----------
    n_calls : tuple of int
        Every system's calls in all.
    fewest, most : int
        The fewest and the most calls of an item (over the systems).
    spread : tuple of float
        Every system's within-item standard deviation of its calls, pooled over the
        items with two or more (ddof 1; NaN when none has two), on the scale of an
        item's contribution to the metric: the score itself for a mean, the statistics
        times the metric's gradient at the judge's means for a pooled metric.
    """

    n_calls: tuple[int, ...]
    fewest: int
    most: int
    spread: tuple[float, ...]

    def to_dict(self) -> dict:
        return json_safe({"n_calls": list(self.n_calls), "fewest": self.fewest,
                          "most": self.most, "spread": list(self.spread)})


@dataclass(frozen=True, slots=True)
class PPIResult:
    """B - A of the gold metric, prediction-powered (PPI++), beside the judge's and the
    gold labels' own estimates.

    Attributes
    ----------
    estimate : float
        The prediction-powered B - A: the gold labels' B - A corrected by the judge's
        B - A on the unlabelled items against the labelled ones, weighted by ``lam``.
    confidence_interval : ConfidenceInterval
        Its interval at ``confidence_level`` (one-sided with ``alternative``; for
        equivalence, at ``1 - 2 alpha``), by ``method``.
    confidence_level : float
    method : str
        ``"percentile"``, ``"basic"``, ``"normal"`` (the bootstrap's) or ``"clt"`` (the
        closed form: normal, PPI++'s standard error).
    standard_error : float
        The bootstrap's standard deviation of the estimate, or the closed form's.
    p_value : float
        Of ``hypothesis``, read off the same interval (as :class:`CompareResult`'s).
    lam : float
        The power-tuning weight of B - A, tuned on the judge's and the gold's per-item
        differences (0: the gold labels alone; 1: classic PPI).
    lam_a, lam_b : float
        Each system's own weight (for ``score_a`` and ``score_b``).
    tuning : str
        How the weights were chosen: ``"clipped"`` (tuned within [0, 1]), ``"free"``
        (tuned, ``clip=False``) or ``"fixed"`` (given as ``lam``).
    effective_gold : float
        How many gold labels, alone, would give B - A the same (closed-form) variance:
        ``n_gold`` times the gold-only variance over the prediction-powered one.
    score_a, score_b : SystemScore
        Each system's prediction-powered gold score.
    judge_only, gold_only, prediction_powered : PPIEstimate
        The three estimates side by side (the last is the headline's, two-sided).
    bias_a, bias_b, bias : SystemScore
        The judge's bias, gold minus judge on the labelled items, for A, for B, and for
        B - A (``bias_b - bias_a``: a judge that favours one system's style).
    bias_p_value : float
        The two-sided test of ``bias`` against 0 (by ``method``): whether the judge's
        error differs between A and B, which is what biases its own B - A.
    n_items, n_gold : int
        Every item; those with gold labels.
    n_groups, n_strata : int or None
        Groups and strata (None without).
    bootstrap_distribution : ndarray
        The prediction-powered B - A of every resample.
    n_resamples, seed
        The bootstrap's (0 and None with ``method="clt"``, which draws nothing).
    alternative, hypothesis, margin, lower_is_better, p_values, monte_carlo_error,
    version, warnings
        As :class:`CompareResult`'s.
    metric : str
        The metric: ``"mean"``, or a pooled one (``"f1"``) whose sufficient statistics
        were corrected count by count, the metric recomputed from the corrected means.
    judge_calls : JudgeCalls or None
        Several judge calls per item (``runs="samples"``): their number and spread.
    """

    estimate: float
    confidence_interval: ConfidenceInterval
    confidence_level: float
    method: str
    standard_error: float
    p_value: float
    lam: float
    lam_a: float
    lam_b: float
    effective_gold: float
    score_a: SystemScore
    score_b: SystemScore
    judge_only: PPIEstimate
    gold_only: PPIEstimate
    prediction_powered: PPIEstimate
    bias_a: SystemScore
    bias_b: SystemScore
    bias: SystemScore
    bias_p_value: float
    n_items: int
    n_gold: int
    n_groups: int | None
    n_strata: int | None
    bootstrap_distribution: np.ndarray
    n_resamples: int
    seed: int | None
    alternative: str
    hypothesis: str
    margin: float | None
    lower_is_better: bool
    p_values: tuple[float, float] | None
    monte_carlo_error: ConfidenceInterval
    version: str
    tuning: str
    warnings: tuple[str, ...] = ()
    metric: str = "mean"
    judge_calls: JudgeCalls | None = None

    @property
    def excludes_zero(self) -> bool:
        """Whether the interval lies entirely on one side of 0."""
        low, high = self.confidence_interval
        return bool(low > 0 or high < 0)

    def verdict(self) -> str:
        """B against A on the gold metric, as the interval says
        (:func:`pairboot.stats.hypotheses.verdict_of`)."""
        return verdict_of(self.hypothesis, self.margin, self.confidence_interval,
                          self.lower_is_better)

    def to_dict(self) -> dict:
        """A JSON-ready dict of the fields (without the bootstrap distribution)."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "bootstrap_distribution":
                continue
            if isinstance(value, (PPIEstimate, SystemScore, JudgeCalls)):
                value = value.to_dict()
            elif isinstance(value, ConfidenceInterval):
                value = value._asdict()
            out[f.name] = json_safe(value)
        out["verdict"] = self.verdict()
        return out

    def summary(self, *, name_a: str = "A", name_b: str = "B") -> str:
        """The text report (``print(result)``)."""
        return rendered(self, "text", name_a=name_a, name_b=name_b)

    def __str__(self) -> str:
        return self.summary()

    def to_html(self, *, name_a: str = "A", name_b: str = "B") -> str:
        """The report as one self-contained HTML page."""
        return rendered(self, "html", name_a=name_a, name_b=name_b)

    def _repr_html_(self) -> str:
        return rendered(self, "html-fragment")

    def __repr__(self) -> str:
        low, high = self.confidence_interval
        return (f"PPIResult(estimate={self.estimate:.6g}, confidence_interval=({low:.6g}, "
                f"{high:.6g}), method={self.method!r}, lam={self.lam:.3g}, "
                f"effective_gold={self.effective_gold:.1f}, n_gold={self.n_gold}, "
                f"n_items={self.n_items})")


@dataclass(frozen=True, slots=True)
class PPIComparison:
    """One comparison of a prediction-powered family: ``b - a`` of the gold metric.

    Attributes
    ----------
    a, b : str
        The systems (``b - a``).
    estimate : float
        The prediction-powered difference (its own ``lam``, as compare_ppi's).
    confidence_interval : ConfidenceInterval
        Its interval under the family's correction (max-t: simultaneous).
    standard_error : float
        The bootstrap's standard deviation, or the closed form's.
    p_value : float
        Adjusted for the family as the interval is: below alpha exactly when it excludes
        0 (max-t: single-step; Bonferroni's ``min(1, m p)``).
    p_stepdown : float
        Max-t's Romano-Wolf stepdown p-value (more powerful, no interval of its own);
        ``p_value`` under the other corrections.
    p_marginal, marginal_interval
        The comparison's own, as if it were alone.
    lam, effective_gold : float
        As :class:`PPIResult`'s.
    judge_only, gold_only, bias : SystemScore
        The judge's difference (biased), the gold labels' alone, and the judge's bias
        (gold - judge) of the difference, each with its own (marginal) interval.
    verdict : str
        ``"better"``, ``"worse"`` or ``"inconclusive"``, as the interval says.
    """

    a: str
    b: str
    estimate: float
    confidence_interval: ConfidenceInterval
    standard_error: float
    p_value: float
    p_stepdown: float
    p_marginal: float
    marginal_interval: ConfidenceInterval
    lam: float
    effective_gold: float
    judge_only: SystemScore
    gold_only: SystemScore
    bias: SystemScore
    verdict: str

    def to_dict(self) -> dict:
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, SystemScore):
                value = value.to_dict()
            elif isinstance(value, ConfidenceInterval):
                value = value._asdict()
            out[f.name] = json_safe(value)
        return out


@dataclass(frozen=True, slots=True)
class PPIFamilyResult:
    """A family of prediction-powered comparisons among M systems on one set of draws
    (:func:`pairboot.compare_ppi_many`).

    Attributes
    ----------
    comparisons : tuple of PPIComparison
        The comparisons, in order (``result[a, b]`` finds one).
    names : tuple of str
        The systems, in the order given.
    scores, lams, judge_bias : dict
        Every system's prediction-powered gold score (its own ``lam``), its ``lam``,
        and the judge's bias (gold - judge) on it, by name.
    correction : str
        ``"max-t"`` (simultaneous intervals from the joint resamples), ``"bonferroni"``
        or ``"none"``.
    critical_value : float or None
        Max-t's ``c``: the intervals are ``estimate +- c se``.
    confidence_level, method, alternative, lower_is_better, n_items, n_gold, n_groups,
    n_strata, n_resamples, seed, metric, tuning, judge_calls, version, warnings
        As :class:`PPIResult`'s.
    """

    comparisons: tuple[PPIComparison, ...]
    names: tuple[str, ...]
    scores: dict
    lams: dict
    judge_bias: dict
    correction: str
    critical_value: float | None
    confidence_level: float
    method: str
    alternative: str
    lower_is_better: bool
    n_items: int
    n_gold: int
    n_groups: int | None
    n_strata: int | None
    n_resamples: int
    seed: int | None
    metric: str
    tuning: str
    judge_calls: JudgeCalls | None
    version: str
    warnings: tuple[str, ...] = ()

    def __getitem__(self, pair) -> PPIComparison:
        """The comparison ``b - a`` of ``result[a, b]``."""
        for row in self.comparisons:
            if (row.a, row.b) == tuple(pair):
                return row
        raise KeyError(pair)

    def to_dict(self) -> dict:
        """A JSON-ready dict of the fields."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "comparisons":
                value = [row.to_dict() for row in value]
            elif f.name in ("scores", "judge_bias"):
                value = {name: v.to_dict() for name, v in value.items()}
            elif isinstance(value, JudgeCalls):
                value = value.to_dict()
            out[f.name] = json_safe(value)
        return out

    def summary(self) -> str:
        """The text report (``print(result)``)."""
        return rendered(self, "text")

    def __str__(self) -> str:
        return self.summary()

    def to_html(self) -> str:
        """The report as one self-contained HTML page."""
        return rendered(self, "html")

    def _repr_html_(self) -> str:
        return rendered(self, "html-fragment")

    def __repr__(self) -> str:
        return (f"PPIFamilyResult({len(self.comparisons)} comparisons of "
                f"{len(self.names)} systems, correction={self.correction!r}, "
                f"method={self.method!r}, n_gold={self.n_gold}, n_items={self.n_items})")
