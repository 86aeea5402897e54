"""A family's results: one :class:`Comparison` per row, the :class:`FamilyResult` of
:func:`pairboot.compare_many` and :func:`pairboot.compare_strata`, and the
:class:`PartialConjunction` count of a family of tasks, and the :class:`TrialsCurve` of
:func:`pairboot.trials_curve` (pass@k or pass^k over k, one family).  Data only, as
:mod:`pairboot.results.compare` (whose shared types they use): their prose is the report layer's.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from pairboot.rendering import rendered
from pairboot.results.compare import ConfidenceInterval, SystemScore, TestResult, json_safe
from pairboot.tracking import Tracked, Tracking, verdict_code


@dataclass(frozen=True, slots=True)
class Comparison:
    """One comparison of a family: system ``b`` against system ``a`` (``b - a``).

    Attributes
    ----------
    a, b : str
    estimate : float
    confidence_interval : ConfidenceInterval
        The family's interval: simultaneous under max-t, Bonferroni's under holm and
        bonferroni, the marginal one under none.
    marginal_interval : ConfidenceInterval
        The comparison's own interval by ``method``, as :func:`pairboot.compare` gives it.
    standard_error : float
    p_value : float
        The comparison's own p-value by ``method``, as :func:`pairboot.compare` gives it.
    p_adjusted : float
        The correction's: Romano-Wolf stepdown under max-t, Holm's, Bonferroni's, BH's
        or BY's q-value of ``p_value_used``, or ``p_value`` under none.
    p_single_step : float or None
        Max-t's single-step p-value: below ``1 - confidence_level`` exactly when the
        simultaneous interval excludes 0 (None under the other corrections).
    significant : bool
        ``p_adjusted < 1 - confidence_level``.
    note : str or None
        Where the stepdown decision and the simultaneous interval disagree.
    monte_carlo_error : ConfidenceInterval or None
        Approximate Monte Carlo standard errors of ``confidence_interval``'s ends (as
        :attr:`CompareResult.monte_carlo_error`); None where not computed.
    """

    a: str
    b: str
    estimate: float
    confidence_interval: ConfidenceInterval
    marginal_interval: ConfidenceInterval
    standard_error: float
    p_value: float
    p_adjusted: float
    p_single_step: float | None
    significant: bool
    note: str | None = None
    monte_carlo_error: ConfidenceInterval | None = None
    margin: float | None = None
    """This comparison's margin (None without one)."""
    verdict: str | None = None
    """As :meth:`CompareResult.verdict`, from the family's decision: what
    ``significant`` claims, read off ``confidence_interval`` (``"inconclusive"`` when
    not significant)."""
    test_p_value: float | None = None
    """With ``test="permutation"``: this row's p-value under the family's relabellings
    (None without the test)."""
    test_p_adjusted: float | None = None
    """With ``test="permutation"``: Westfall and Young's stepdown p-value of this row."""
    test_disagrees: bool = False
    """Whether the test (``test_p_adjusted``; ``test_p_value`` under
    ``correction="none"``) and the family's decision (``significant``) disagree at the
    level."""
    p_value_used: float | None = None
    """The p-value the correction adjusted: under Holm, Bonferroni, BH and BY,
    ``p_value`` floored at the resamples' resolution ``1 / (n_resamples + 1)`` (the
    ``(1 + count) / (B + 1)`` convention: a p-value of 0, no resample beyond the
    boundary, enters as ``1 / (B + 1)``), so ``p_adjusted`` is statsmodels'
    ``multipletests(p_value_used)``; ``p_value`` itself under max-t (whose p-values
    count the maxima) and none."""
    claim_p_value: float | None = None
    """When ``verdict`` claims more than the hypothesis tests ("better", or "better by
    the margin", under non-inferiority or a difference): that claim's own p-value (H0
    ``b - a <= 0``, or against the margin), adjusted as ``confidence_interval`` is --
    below ``1 - confidence_level`` exactly when that interval shows the claim (Holm and
    Bonferroni: times the family's size; BH and BY: over the false-coverage level's
    share; max-t: single-step).  None otherwise: ``p_adjusted`` is the verdict's."""

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        for key in ("confidence_interval", "marginal_interval", "monte_carlo_error"):
            if out[key] is not None:
                out[key] = out[key]._asdict()
        return out


@dataclass(frozen=True, slots=True)
class PartialConjunction:
    """"B is better on at least ``count`` of ``of`` tasks" (Benjamini & Heller 2008).

    ``p_values[u - 1]`` is the monotone p-value of "B is better on fewer than u tasks";
    ``count`` is the largest u whose p-value is below ``alpha``, and exceeds the true
    number of tasks where B is better with probability at most ``alpha``.  ``claim``
    says what is counted ("better", "non-inferior", "better-by-margin",
    "equivalent"); ``combination`` how a task's p-values combine (Simes' rule: the
    tasks' items are disjoint, so their p-values are independent)."""

    count: int
    of: int
    claim: str
    p_values: tuple[float, ...]
    combination: str
    alpha: float
    task_p_values: tuple[float, ...] = ()
    """Each task's one-sided p-value of the claim, by the family's method (the rows'
    table may show other p-values: two-sided, or max-t's bootstrap-t ones)."""

    def to_dict(self) -> dict:
        return json_safe({f.name: getattr(self, f.name) for f in fields(self)})


@dataclass(frozen=True, slots=True, repr=False)
class FamilyResult(Tracked):
    """The answer of :func:`pairboot.compare_many`: a family of comparisons on shared
    draws, with its error rate controlled.

    Attributes
    ----------
    comparisons : tuple of Comparison
    systems : dict of str to SystemScore
        Each system's own score and interval.
    rank_intervals : dict of str to (int, int) or None
        With all pairs compared: a simultaneous confidence set for every system's rank
        (1 is the best), from the family's decisions.  None for other families.
    best_set : tuple of str or None
        The systems that could be the best (rank 1 in their set).
    correction, family_size, critical_value, confidence_level, n_resamples, seed,
    method, metric, lower_is_better, paired, group_weighting, n_items, n_groups,
    n_strata, engine, version, warnings, resampling
        ``critical_value`` is max-t's ``c`` (None under other corrections);
        ``group_weighting`` is None without groups.
    """

    comparisons: tuple[Comparison, ...]
    systems: dict
    rank_intervals: dict | None
    best_set: tuple[str, ...] | None
    correction: str
    family_size: int
    critical_value: float | None
    confidence_level: float
    n_resamples: int
    seed: int
    method: str
    metric: str
    lower_is_better: bool
    paired: bool
    group_weighting: str | None
    n_items: int
    n_groups: int | None
    n_strata: int | None
    engine: str
    version: str
    warnings: tuple[str, ...]
    resampling: str = "classic"
    strata_family: tuple[str, ...] | None = None
    """With :func:`pairboot.compare_strata`: the strata, one comparison each."""
    alternative: str = "two-sided"
    """As :attr:`CompareResult.alternative`, for every row."""
    hypothesis: str = "difference"
    """As :attr:`CompareResult.hypothesis`, for every row."""
    margin: float | None = None
    """The rows' margin when they share one (each row's: :attr:`Comparison.margin`)."""
    fcr_level: float | None = None
    """Under ``"bh"`` and ``"by"``: the level of the rows' intervals, ``1 - R q / m``
    for R discoveries (Benjamini & Yekutieli 2005), so that the intervals of the
    discoveries miss their differences at a rate of at most q."""
    partial_conjunction: PartialConjunction | None = None
    """A family of tasks (:func:`pairboot.compare_strata`): on how many at least B is
    better."""
    test: TestResult | None = None
    """With ``test="permutation"``: the family's Westfall-Young permutation test (its
    p-value the smallest adjusted one: the test of "no system differs"; the rows' own in
    :attr:`Comparison.test_p_value` and :attr:`Comparison.test_p_adjusted`)."""
    estimand: str = "population"
    """As :attr:`CompareResult.estimand`: ``"suite"`` for the fixed-suite intervals of
    repeated trials (``runs="samples"``, ``estimand="suite"``); absent from the JSON for
    the population one."""

    @property
    def interval_level(self) -> float:
        """The level of each row's own (marginal) interval: ``confidence_level``, or
        ``2 L - 1`` for equivalence (as :attr:`CompareResult.interval_level`)."""
        if self.hypothesis == "equivalence":
            return round(2.0 * self.confidence_level - 1.0, 12)
        return self.confidence_level

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self)
               if not (f.name == "estimand" and self.estimand == "population")}
        out["interval_level"] = self.interval_level
        out["comparisons"] = [c.to_dict() for c in self.comparisons]
        if self.partial_conjunction is not None:
            out["partial_conjunction"] = self.partial_conjunction.to_dict()
        if self.test is not None:
            out["test"] = self.test.to_dict()
        out["systems"] = {name: score.to_dict() for name, score in self.systems.items()}
        if self.rank_intervals is not None:
            out["rank_intervals"] = {k: list(v) for k, v in self.rank_intervals.items()}
        return json_safe(out)

    def to_frame(self):
        """One row per comparison, as a pandas DataFrame (needs pandas); with a margin's
        hypothesis, each row's margin and verdict too."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("to_frame() needs pandas: pip install pandas") from None
        rows = []
        for c in self.comparisons:
            rows.append({
                "a": c.a, "b": c.b, "estimate": c.estimate,
                "low": c.confidence_interval.low, "high": c.confidence_interval.high,
                "marginal_low": c.marginal_interval.low,
                "marginal_high": c.marginal_interval.high,
                "standard_error": c.standard_error, "p_value": c.p_value,
                "p_adjusted": c.p_adjusted, "significant": c.significant,
                **({"margin": c.margin, "verdict": c.verdict}
                   if self.hypothesis != "difference" else {}),
                **({"test_p_value": c.test_p_value, "test_p_adjusted": c.test_p_adjusted}
                   if self.test is not None else {}),
            })
        return pd.DataFrame(rows)

    def tracked(self) -> Tracking:
        """What :meth:`log_to_mlflow` and :meth:`log_to_wandb` log (pairboot.tracking):
        each system's score (``NAME/score``), each comparison's numbers
        (``B - A/estimate``, ``ci_low``, ``ci_high``, ``p_value``, ``p_adjusted``,
        ``verdict_code``) and verdict, the family's signature."""
        metrics: dict[str, float] = {f"{name}/score": score.estimate
                                     for name, score in self.systems.items()}
        tags = {"result": "family", "systems": ",".join(self.systems),
                "best_set": None if self.best_set is None else ",".join(self.best_set)}
        for c in self.comparisons:
            row = f"{c.b} - {c.a}/"
            metrics.update({row + "estimate": c.estimate,
                            row + "ci_low": c.confidence_interval.low,
                            row + "ci_high": c.confidence_interval.high,
                            row + "p_value": c.p_value, row + "p_adjusted": c.p_adjusted,
                            row + "verdict_code": verdict_code(c.verdict)})
            tags[row + "verdict"] = c.verdict
        metrics["significant"] = sum(bool(c.significant) for c in self.comparisons)
        params = {name: getattr(self, name) for name in (
            "correction", "family_size", "metric", "method", "confidence_level",
            "n_resamples", "seed", "alternative", "hypothesis", "margin", "paired",
            "resampling", "group_weighting", "lower_is_better", "n_items", "n_groups",
            "n_strata", "estimand", "engine", "version")}
        return Tracking(metrics, params, tags)

    def summary(self) -> str:
        """The text report the command line prints (``print(result)`` shows it): the
        summary line, the systems, the comparisons, the method and the warnings."""
        return rendered(self, "text")

    def to_html(self) -> str:
        """The report as one self-contained HTML page (as ``--format html``): the summary,
        the systems, the comparisons, the forest plot (and an all-pairs family's matrix)
        as inline SVG when matplotlib is installed, the warnings, the method and the
        signature; nothing fetched."""
        return rendered(self, "html")

    def _repr_html_(self) -> str:
        """A notebook's display: :meth:`to_html`'s body."""
        return rendered(self, "html-fragment")

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return (
            f"FamilyResult(family_size={self.family_size}, correction={self.correction!r}, "
            f"significant={sum(c.significant for c in self.comparisons)}, "
            f"best_set={self.best_set}, n_resamples={self.n_resamples}, seed={self.seed})"
        )


@dataclass(frozen=True, slots=True)
class CurvePoint:
    """One k of a :class:`TrialsCurve`.

    Attributes
    ----------
    k : int
    a, b : SystemScore
        Each system's pass@k (pass^k), with its pointwise interval.
    difference : float
        ``b - a``.
    interval : ConfidenceInterval
        The pointwise interval of ``b - a`` (as :func:`pairboot.compare` gives it).
    simultaneous : ConfidenceInterval
        Max-t's interval: all the ks' hold together at the level.
    standard_error, p_value, p_adjusted : float
        The bootstrap standard error of ``b - a``; its own p-value, the bootstrap-t one
        that inverts ``interval`` (below ``1 - confidence_level`` exactly when
        ``interval`` excludes 0: the same roots, not compare()'s percentile p); and the
        Romano-Wolf stepdown p over the ks (at most the single-step p that inverts
        ``simultaneous``, so it may reject where ``simultaneous`` holds 0).
    """

    k: int
    a: SystemScore
    b: SystemScore
    difference: float
    interval: ConfidenceInterval
    simultaneous: ConfidenceInterval
    standard_error: float
    p_value: float
    p_adjusted: float

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["a"], out["b"] = self.a.to_dict(), self.b.to_dict()
        out["interval"] = self.interval._asdict()
        out["simultaneous"] = self.simultaneous._asdict()
        return out


@dataclass(frozen=True, slots=True, repr=False)
class TrialsCurve(Tracked):
    """The answer of :func:`pairboot.trials_curve`: pass@k or pass^k of two systems for
    several k, read off one bootstrap of the items.

    Attributes
    ----------
    kind : str
        ``"pass^k"`` or ``"pass@k"``.
    points : tuple of CurvePoint
        One per k, in the order of ``ks``.
    names : (str, str)
    critical_value : float
        Max-t's ``c``: the simultaneous intervals are ``difference +- c se``.
    confidence_level, n_resamples, seed, method, n_items, version, warnings
    """

    kind: str
    points: tuple[CurvePoint, ...]
    names: tuple[str, str]
    critical_value: float
    confidence_level: float
    n_resamples: int
    seed: int
    method: str
    n_items: int
    version: str
    warnings: tuple[str, ...] = ()

    @property
    def ks(self) -> tuple[int, ...]:
        return tuple(p.k for p in self.points)

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["points"] = [p.to_dict() for p in self.points]
        out["names"], out["warnings"] = list(self.names), list(self.warnings)
        return json_safe(out)

    def tracked(self) -> Tracking:
        """What :meth:`log_to_mlflow` and :meth:`log_to_wandb` log (pairboot.tracking):
        per k (``k4/``), each system's score, ``difference``, ``ci_low``, ``ci_high``,
        ``simultaneous_low``, ``simultaneous_high``, ``p_value``, ``p_adjusted``."""
        metrics: dict[str, float] = {}
        for p in self.points:
            metrics.update({f"k{p.k}/{key}": value for key, value in (
                ("score_a", p.a.estimate), ("score_b", p.b.estimate),
                ("difference", p.difference), ("ci_low", p.interval.low),
                ("ci_high", p.interval.high), ("simultaneous_low", p.simultaneous.low),
                ("simultaneous_high", p.simultaneous.high), ("p_value", p.p_value),
                ("p_adjusted", p.p_adjusted))})
        params = {name: getattr(self, name) for name in (
            "kind", "confidence_level", "n_resamples", "seed", "method", "n_items",
            "version")}
        params["ks"] = ",".join(map(str, self.ks))
        return Tracking(metrics, params, {"result": "curve", "name_a": self.names[0],
                                          "name_b": self.names[1]})

    def to_frame(self):
        """One row per k, as a pandas DataFrame (needs pandas)."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("to_frame() needs pandas: pip install pandas") from None
        return pd.DataFrame([{
            "k": p.k, "a": p.a.estimate, "a_low": p.a.confidence_interval.low,
            "a_high": p.a.confidence_interval.high, "b": p.b.estimate,
            "b_low": p.b.confidence_interval.low, "b_high": p.b.confidence_interval.high,
            "difference": p.difference, "low": p.interval.low, "high": p.interval.high,
            "simultaneous_low": p.simultaneous.low, "simultaneous_high": p.simultaneous.high,
            "p_value": p.p_value, "p_adjusted": p.p_adjusted} for p in self.points])

    def to_html(self) -> str:
        """The report as one self-contained HTML page (as ``--format html``): the table
        and the plot as inline SVG when matplotlib is installed; nothing fetched."""
        return rendered(self, "html")

    def _repr_html_(self) -> str:
        """A notebook's display: :meth:`to_html`'s body."""
        return rendered(self, "html-fragment")

    def __str__(self) -> str:
        return rendered(self, "text")

    def __repr__(self) -> str:
        return (f"TrialsCurve(kind={self.kind!r}, ks={self.ks}, n_items={self.n_items}, "
                f"n_resamples={self.n_resamples}, seed={self.seed})")
