"""Result objects: frozen, slotted, with scipy's field names where scipy has one.

Data only: the prose of a result (its summary, its reading, the p-value in its repr, its
HTML) is written by :mod:`pairboot.report`, which this module does not import; every
result reaches it through one hook, :func:`pairboot.rendering.rendered`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import NamedTuple

import numpy as np

from pairboot.rendering import rendered
from pairboot.results.items import FlakyItems, ItemsSummary
from pairboot.stats.hypotheses import claim_boundary, detectable, verdict_of
from pairboot.stats.pvalues import units_for
from pairboot.tracking import Tracked, Tracking, verdict_code


class ConfidenceInterval(NamedTuple):
    """A two-sided interval ``(low, high)``."""

    low: float
    high: float


@dataclass(frozen=True, slots=True)
class SystemScore:
    """One system's own metric, with its own interval (same resamples, same method).

    Attributes
    ----------
    estimate : float
        The metric on the full test set.
    confidence_interval : ConfidenceInterval
    standard_error : float
        Standard deviation of the system's bootstrap distribution.
    """

    estimate: float
    confidence_interval: ConfidenceInterval
    standard_error: float

    def __float__(self) -> float:
        """The estimate: ``float(result.score_a)`` is system A's metric."""
        return float(self.estimate)

    def to_dict(self) -> dict:
        return {
            "estimate": self.estimate,
            "confidence_interval": self.confidence_interval._asdict(),
            "standard_error": self.standard_error,
        }


@dataclass(frozen=True, slots=True)
class StratumResult:
    """The difference within one stratum, resampled with the same draws as the whole.

    Attributes
    ----------
    name : str
        The stratum's label.
    weight : float
        Its population weight in the combined estimate (normalised).
    n_items, n_groups : int, int or None
    estimate, confidence_interval, standard_error, p_value
        As in :class:`CompareResult`, for this stratum alone.
    score_a, score_b : SystemScore
        Each system's metric within the stratum, with its own interval (NaN where the
        metric is undefined on the stratum's items), as on :class:`CompareResult`.
    """

    name: str
    weight: float
    n_items: int
    n_groups: int | None
    estimate: float
    confidence_interval: ConfidenceInterval
    standard_error: float
    p_value: float
    score_a: SystemScore
    score_b: SystemScore

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["confidence_interval"] = self.confidence_interval._asdict()
        out["score_a"], out["score_b"] = self.score_a.to_dict(), self.score_b.to_dict()
        return out


@dataclass(frozen=True, slots=True)
class TestResult:
    """A test reported beside the bootstrap interval (``compare(..., test=...)``).

    Attributes
    ----------
    name : str
        ``"mcnemar"`` or ``"permutation"``.
    p_value : float
        The test's p-value, with ``alternative``'s sides.
    p_value_mid : float or None
        The mid-p version (McNemar's: half the probability of the observed count off).
    statistic : float
        McNemar's: the number of items only B got right; the permutation test's: B - A.
    exact : bool
        Whether the p-value is exact (not a resampled or asymptotic one).
    alternative : str
    n : int
        What the test counts: McNemar's discordant items, the permutation test's units.
    method : str
        The test in words.
    table : object or None
        McNemar's paired 2 x 2 table (:class:`pairboot.stats.proportions.Table2x2`).
    """

    __test__ = False  # (not a pytest test class, whatever its name)

    name: str
    p_value: float
    p_value_mid: float | None
    statistic: float
    exact: bool
    alternative: str
    n: int
    method: str
    table: object | None = None
    null_distribution: np.ndarray | None = None
    """The permutation test's statistics under the swaps (None for McNemar)."""

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self)
               if f.name != "null_distribution"}
        if self.null_distribution is not None:
            out["permutations"] = len(self.null_distribution)
        t = self.table
        out["table"] = None if t is None else {
            "both": t.both, "only_a": t.only_a, "only_b": t.only_b, "neither": t.neither}
        return json_safe(out)

    def to_frame(self, *, confidence_level: float = 0.95):
        """The test as a one-row pandas DataFrame (needs pandas): ``test``, ``statistic``,
        ``n``, ``p_value``, ``p_value_mid``, ``p_adjusted`` (the p-value: one test),
        ``significant`` (``p_value < 1 - confidence_level``), ``exact``,
        ``alternative``, and McNemar's 2 x 2 counts."""
        t = self.table
        row = {"test": self.name, "statistic": self.statistic, "n": self.n,
               "p_value": self.p_value, "p_value_mid": self.p_value_mid,
               "p_adjusted": self.p_value,
               "significant": bool(self.p_value < round(1.0 - confidence_level, 12)),
               "exact": self.exact, "alternative": self.alternative}
        if t is not None:
            row.update(both=t.both, only_a=t.only_a, only_b=t.only_b, neither=t.neither)
        return _frame([row])

    def to_html(self) -> str:
        """The test as a self-contained HTML page (written by :mod:`pairboot.report`)."""
        return rendered(self, "html")

    def _repr_html_(self) -> str:
        return rendered(self, "html-fragment")


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class CompareResult(Tracked):
    """The answer of :func:`pairboot.compare`: how much B differs from A, and how surely.

    Attributes
    ----------
    estimate : float
        The observed difference, ``metric(b) - metric(a)`` on the full test set (the mean
        of ``b - a`` for the mean).
    confidence_interval : ConfidenceInterval
        ``(low, high)`` at ``confidence_level``, by ``method``.
    confidence_level : float
    method : str
    standard_error : float
        Standard deviation of ``bootstrap_distribution`` (``ddof=1``), without its
        undefined values: ``np.nanstd(result.bootstrap_distribution, ddof=1)``, to
        rounding.
    p_value : float
        Two-sided: the smallest ``1 - L`` at which the level-``L`` interval of the same
        method excludes 0, so ``p_value < 1 - confidence_level`` exactly when
        ``confidence_interval`` excludes 0.  0 means no resample fell on the other side
        of 0 (``p < 1 / n_resamples``).
    bootstrap_distribution : numpy.ndarray
        The ``n_resamples`` resampled differences, NaN where the metric was undefined
        on a resample (a metric whose convention leaves 0/0 undefined); those are left
        out of the interval, the p-value and ``standard_error``, and counted in
        ``warnings``.  Differences that differ from the estimate only by rounding
        (constant per-item differences) are the estimate itself.
    score_a, score_b : SystemScore
        Each system's own metric and interval (``float(result.score_a)`` is the metric).
    n_items : int
        Items compared (for an unpaired comparison of samples of different sizes, the
        total over both).
    n_groups, n_strata : int or None
        Groups and strata seen, ``None`` when not used.
    n_resamples : int
    seed : int
        The seed actually used (derived from the data and the options when none was
        given): pass it again to repeat the run exactly.
    warnings : tuple of str
    metric : str
    paired : bool
    group_weighting : str or None
        ``"items"`` (mean over items) or ``"groups"`` (mean over groups) when groups are used.
    strata : tuple of StratumResult
    monte_carlo_error : ConfidenceInterval
        Approximate Monte Carlo standard errors of ``low`` and ``high``: if they matter
        at the digits you report, increase ``n_resamples``.
    minimum_detectable : float or None
        The smallest difference this test set detects with 80% power at the level, on
        the interval's sides: ``(z_{1-alpha/2} + z_{0.8}) * standard_error`` (one-sided:
        ``z_{1-alpha}``); None where there is no standard error.
    correlation : float or None
        The correlation of A's and B's scores over the resamples (paired only): how
        much the item-to-item difficulty the systems share is removed by pairing.
    pairing_gain : float or None
        How many times narrower the paired interval is than an unpaired one of the same
        data: ``sqrt(var A + var B) / sd(B - A)`` over the resamples (paired only).
    engine : str
        Which resampling path ran: ``multinomial`` (exact, few distinct values),
        ``numba`` or ``numpy`` (``poisson+numba`` or ``poisson+numpy`` for Poisson weights).
    version : str
    resampling : str
        ``"classic"`` (n draws with replacement) or ``"poisson"`` (Poisson(1) weights).
    """

    estimate: float
    confidence_interval: ConfidenceInterval
    confidence_level: float
    method: str
    standard_error: float
    p_value: float
    bootstrap_distribution: np.ndarray
    score_a: SystemScore
    score_b: SystemScore
    n_items: int
    n_groups: int | None
    n_strata: int | None
    n_resamples: int
    seed: int
    warnings: tuple[str, ...]
    metric: str
    paired: bool
    group_weighting: str | None
    strata: tuple[StratumResult, ...]
    monte_carlo_error: ConfidenceInterval
    engine: str
    version: str
    resampling: str = "classic"
    runs: object | None = None
    """With several runs per system: a :class:`pairboot.comparisons.runs.analysis.RunsInfo`
    (variance components, degrees of freedom, runs of each system)."""
    alternative: str = "two-sided"
    """As scipy's: "greater" (less) makes the interval one-sided, ``[low, inf)``
    (``(-inf, high]``), and the p-value that of B - A > 0 (< 0).  Non-inferiority and
    superiority set it to the side on which B is better."""
    hypothesis: str = "difference"
    """What was tested: "difference", "non-inferiority", "superiority" or "equivalence"
    (:mod:`pairboot.stats.hypotheses`); ``p_value`` is that test's, and
    ``confidence_interval`` the interval it is read off."""
    margin: float | None = None
    """The margin, on the metric's scale (None without one)."""
    lower_is_better: bool = False
    """Lower scores are better: B is better when B - A < 0 (the margin's sides flip)."""
    p_values: tuple[float, float] | None = None
    """Equivalence: the two one-sided p-values (H0 B - A <= -margin, H0 B - A >=
    margin); ``p_value`` is the larger.  None for the other hypotheses."""
    minimum_detectable: float | None = None
    correlation: float | None = None
    pairing_gain: float | None = None
    test: TestResult | None = None
    """The test asked for beside the interval (``test="mcnemar"`` or
    ``"permutation"``), else None."""
    items_summary: ItemsSummary | None = None
    """The items behind the number (:class:`pairboot.results.items.ItemsSummary`): wins,
    ties and losses of B, the 2 x 2 table of 0/1 scores, the largest differences each
    way, per stratum and per group.  A paired mean of two systems in memory only (no
    per-item score for a pooled metric; no items in one place for parts or runs): None
    otherwise."""
    claim_p_values: tuple[tuple[float, float], ...] = ()
    """The p-values of the claims a verdict may make beyond the hypothesis's own test, as
    ``(boundary, p)``: under non-inferiority, "better" (B - A against 0) and "better by
    the margin" (against the margin on B's better side); for a difference with a
    margin, "better by the margin" (against ``-margin`` and ``+margin``).  Each is the
    smallest alpha at which ``confidence_interval`` lies beyond that boundary, so it is
    below ``1 - confidence_level`` exactly when the verdict claims it
    (:meth:`verdict_p_value`).  Empty otherwise."""
    flaky: FlakyItems | None = None
    """With ``runs="samples"`` and 0/1 trials: every item's success rate per system with
    its exact interval, the stochastic items and those that flipped between A and B
    (:class:`pairboot.results.items.FlakyItems`); None otherwise (and then not in
    :meth:`to_dict`)."""
    estimand: str = "population"
    """What the interval covers: ``"population"`` (the items are a sample of tasks: the
    bootstrap over items), or ``"suite"`` (``runs="samples"``, ``estimand="suite"``: the
    test set is the whole population, only the trials vary).  Written in the JSON only
    when it is ``"suite"`` (every other interval is the population one)."""
    noise_floor: object | None = None
    """With ``compare(..., noise_floor=...)``: what two runs of the same build say
    re-running alone moves B - A by at this size (:class:`pairboot.NoiseFloor`), which
    every report states beside the verdict; None otherwise (and then not in
    :meth:`to_dict`)."""

    def items(self):
        """Every item as a pandas DataFrame (``id``, ``a``, ``b``, ``difference``, and
        ``stratum`` and ``group`` when given), from :attr:`items_summary`."""
        if self.items_summary is None:
            raise ValueError("items() needs the items' scores: a paired comparison of "
                             "one score per item (metric 'mean') in memory")
        return self.items_summary.frame()

    @property
    def test_disagrees(self) -> bool:
        """Whether the test and the interval decide the difference differently at the
        level (one rejects, the other does not)."""
        if self.test is None or math.isnan(self.p_value) or math.isnan(self.test.p_value):
            return False
        alpha = round(1.0 - self.confidence_level, 12)
        return (self.p_value < alpha) != (self.test.p_value < alpha)

    @property
    def interval_level(self) -> float:
        """The level of ``confidence_interval``: ``confidence_level``, or ``2 L - 1`` for
        equivalence (TOST at ``1 - L`` reads the ``1 - 2 alpha`` interval)."""
        if self.hypothesis == "equivalence":
            return round(2.0 * self.confidence_level - 1.0, 12)
        return self.confidence_level

    @property
    def detectable(self) -> bool | None:
        """With a margin: whether this test set could detect it -- the interval reaches
        less far from the estimate than the margin (None without a margin).  When it
        does not, "inconclusive" says the test set was too small, not that there is no
        difference."""
        return detectable(self.margin, self.estimate, self.confidence_interval)

    def projection(self, n_items: int | None = None, n_runs: int | None = None, *,
                   runs_factor: float | None = None) -> dict:
        """With several runs per system: the variance and interval width with ``n_items``
        items (groups, with groups) and ``n_runs`` runs per system, or each system's runs
        times ``runs_factor`` (``{"variance", "width_ratio", "floor"}``)."""
        if self.runs is None:
            raise ValueError("projection() needs a comparison with `runs`")
        return self.runs.projection(n_items=n_items, n_runs=n_runs, runs_factor=runs_factor)

    @property
    def excludes_zero(self) -> bool:
        """Whether the interval lies entirely on one side of 0."""
        low, high = self.confidence_interval
        return bool(low > 0 or high < 0)

    def verdict(self, *, lower_is_better: bool | None = None) -> str:
        """B against A, as the interval says (:func:`pairboot.stats.hypotheses.verdict_of`).

        A difference: ``"better"`` or ``"worse"`` when the interval excludes 0
        (``"better-by-margin"`` when it lies beyond the margin), ``"inconclusive"`` when
        it includes 0.  Non-inferiority and superiority: the most the one-sided bound
        shows -- ``"better-by-margin"``, ``"better"``, ``"non-inferior"`` -- else
        ``"inconclusive"``; equivalence: ``"equivalent"`` or ``"inconclusive"``.
        ``"undefined"`` when an endpoint is NaN or there are too few units for any
        verdict at the level (:attr:`enough_units`).  ``lower_is_better`` (default: the
        comparison's own) for error rates and losses; a margin's test was one-sided on
        its side already, so it cannot be read the other way.

        >>> import pairboot
        >>> res = pairboot.compare([0.2, 0.5, 0.4, 0.7] * 10, [0.3, 0.6, 0.4, 0.9] * 10)
        >>> res.verdict(), res.verdict(lower_is_better=True)
        ('better', 'worse')
        """
        if lower_is_better is None:
            lower_is_better = self.lower_is_better
        elif self.hypothesis != "difference" and bool(lower_is_better) != self.lower_is_better:
            raise ValueError(
                f"this {self.hypothesis} test was run with lower_is_better="
                f"{self.lower_is_better}: its one-sided interval cannot be read the other "
                "way; pass lower_is_better to compare()")
        if not self.enough_units:
            return "undefined"
        return verdict_of(self.hypothesis, self.margin, self.confidence_interval,
                          bool(lower_is_better))

    def verdict_p_value(self, *, lower_is_better: bool | None = None) -> float:
        """The p-value of what :meth:`verdict` claims: ``p_value`` (the hypothesis's own
        test), or, for a claim beyond it -- "better" under non-inferiority, "better by
        the margin" under non-inferiority or a difference -- that claim's own
        (:attr:`claim_p_values`): the p-value of "B - A > 0" is not that of "B - A >
        -margin"."""
        if lower_is_better is None:
            lower_is_better = self.lower_is_better
        boundary = claim_boundary(self.verdict(lower_is_better=lower_is_better),
                                  self.hypothesis, self.margin, bool(lower_is_better))
        if boundary is None:
            return self.p_value
        return next((p for b, p in self.claim_p_values if b == boundary), math.nan)

    @property
    def enough_units(self) -> bool:
        """Whether there are units enough for a verdict at the level
        (:func:`pairboot.stats.pvalues.units_for`): below, even units that all favour one
        system could be chance, so the interval is shown but decides nothing."""
        units = self.n_groups if self.n_groups is not None else self.n_items
        return units >= units_for(self.confidence_level, self.alternative)

    def summary(self, *, name_a: str = "A", name_b: str = "B",
                lower_is_better: bool = False) -> str:
        """The text report the command line prints (``print(result)`` shows it), the
        verdict first; ``name_a`` and ``name_b`` label the systems, ``lower_is_better``
        reads the verdict for an error rate or a loss."""
        return rendered(self, "text", name_a=name_a, name_b=name_b,
                        lower_is_better=lower_is_better)

    def __str__(self) -> str:
        return self.summary()

    def to_html(self, *, name_a: str = "A", name_b: str = "B",
                lower_is_better: bool = False) -> str:
        """The report as one self-contained HTML page (as ``--format html``): the
        verdict, the tables, the bootstrap distribution as inline SVG when matplotlib is
        installed, the warnings, the method and the signature; nothing fetched."""
        return rendered(self, "html", name_a=name_a, name_b=name_b,
                        lower_is_better=lower_is_better)

    def _repr_html_(self) -> str:
        """A notebook's display: :meth:`to_html`'s body."""
        return rendered(self, "html-fragment")

    def to_frame(self):
        """A tidy pandas DataFrame (needs pandas): a row per system (``A``, ``B``) and
        one for the difference (``B - A``), then the same three per stratum; columns
        ``row``, ``stratum`` (None for the whole), ``estimate``, ``low``, ``high``,
        ``standard_error``, ``p_value``, ``p_adjusted`` (the p-value: one comparison,
        no correction), ``significant`` (the verdict rejects the null; a stratum's:
        ``p_value < 1 - confidence_level``).  A system's row has no p-value."""
        alpha = round(1.0 - self.confidence_level, 12)
        verdict = self.verdict()
        rows = []
        parts = [(None, self.score_a, self.score_b, self.estimate, self.confidence_interval,
                  self.standard_error, self.p_value,
                  verdict not in ("inconclusive", "undefined"))]
        parts += [(s.name, s.score_a, s.score_b, s.estimate, s.confidence_interval,
                   s.standard_error, s.p_value, bool(s.p_value < alpha)) for s in self.strata]
        for stratum, a, b, estimate, ci, se, p, significant in parts:
            for name, score in (("A", a), ("B", b)):
                rows.append({"row": name, "stratum": stratum, "estimate": score.estimate,
                             "low": score.confidence_interval.low,
                             "high": score.confidence_interval.high,
                             "standard_error": score.standard_error, "p_value": math.nan,
                             "p_adjusted": math.nan, "significant": None})
            rows.append({"row": "B - A", "stratum": stratum, "estimate": estimate,
                         "low": ci.low, "high": ci.high, "standard_error": se,
                         "p_value": p, "p_adjusted": p, "significant": significant})
        return _frame(rows)

    @property
    def reading(self) -> str:
        """The interval in plain words, as the spec reads it (written by the report
        layer: :func:`pairboot.report.reading.reading_text`)."""
        return rendered(self, "reading")

    def to_dict(self) -> dict:
        """A JSON-ready dict mirroring the fields (without the bootstrap distribution)."""
        out: dict = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "bootstrap_distribution" or (
                    f.name in ("flaky", "noise_floor") and value is None):
                continue
            if isinstance(value, ConfidenceInterval):
                value = value._asdict()
            elif isinstance(value, SystemScore):
                value = value.to_dict()
            elif f.name == "strata":
                value = [s.to_dict() for s in value]
            elif f.name in ("runs", "test", "items_summary", "flaky", "noise_floor"
                            ) and value is not None:
                value = value.to_dict()
            elif f.name == "claim_p_values":  # ((boundary, p), ...): as objects
                value = [{"boundary": b, "p_value": p} for b, p in value]
            elif f.name == "estimand" and value == "population":
                continue
            out[f.name] = json_safe(value)
            if f.name == "monte_carlo_error":  # (0.1's keys, removed fields: kept null so
                out["items_needed"] = out["groups_needed"] = None  # its readers still read)
        out["excludes_zero"] = self.excludes_zero
        out["interval_level"] = self.interval_level
        out["detectable"] = self.detectable
        out["verdict"] = self.verdict()
        out["verdict_p_value"] = self.verdict_p_value()
        out["reading"] = self.reading
        return out

    def tracked(self, *, name_a: str = "A", name_b: str = "B",
                lower_is_better: bool = False) -> Tracking:
        """What :meth:`log_to_mlflow` and :meth:`log_to_wandb` log (pairboot.tracking):
        the numbers, the signature and the words."""
        verdict = self.verdict(lower_is_better=lower_is_better or None)
        low, high = self.confidence_interval
        metrics = {"estimate": self.estimate, "ci_low": low, "ci_high": high,
                   "p_value": self.p_value, "verdict_code": verdict_code(verdict),
                   "verdict_p_value": self.verdict_p_value(
                       lower_is_better=lower_is_better or None),
                   "standard_error": self.standard_error, "score_a": self.score_a.estimate,
                   "score_b": self.score_b.estimate, "n_items": self.n_items}
        params = {name: getattr(self, name) for name in (
            "metric", "method", "confidence_level", "n_resamples", "seed", "alternative",
            "hypothesis", "margin", "paired", "resampling", "group_weighting", "n_groups",
            "n_strata", "estimand", "engine", "version")}
        params["lower_is_better"] = bool(lower_is_better or self.lower_is_better)
        return Tracking(metrics, params, {"verdict": verdict, "name_a": name_a,
                                          "name_b": name_b, "result": "compare"})

    def __repr__(self) -> str:
        low, high = self.confidence_interval
        sides = 2 if self.alternative == "two-sided" else 1
        p = rendered(self, "p-repr")
        return (
            f"CompareResult(estimate={self.estimate:.6g}, confidence_interval="
            f"ConfidenceInterval(low={low:.6g}, high={high:.6g}), confidence_level="
            f"{self.confidence_level}, method={self.method!r}, "
            + (f"alternative={self.alternative!r}, " if sides == 1 else "") +
            f"p_value={p}, "
            f"n_items={self.n_items}, n_resamples={self.n_resamples}, seed={self.seed}, "
            f"bootstrap_distribution=<{len(self.bootstrap_distribution)} values>)"
        )


def _frame(rows: list[dict]):
    """``rows`` as a pandas DataFrame (pandas is needed only here)."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("to_frame() needs pandas: pip install pandas") from None
    return pd.DataFrame(rows)


def json_safe(value):
    """NaN and infinities become None (JSON has no spelling for them); numpy scalars and
    tuples become their Python forms."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    return value
