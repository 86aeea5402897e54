"""The answer of :func:`pairboot.power`: a planned comparison's size, power or smallest
detectable difference.  Data only, as :mod:`pairboot.results.compare`: the prose (``summary()``,
``print(result)``, the HTML) is the report layer's (:mod:`pairboot.report.power`),
reached through the one hook :func:`pairboot.rendering.rendered`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

from pairboot.rendering import rendered
from pairboot.results.compare import json_safe
from pairboot.tracking import Tracked, Tracking

__all__ = ["FamilyPlan", "PowerResult", "StratumPlan", "TrialsPlan"]


@dataclass(frozen=True, slots=True)
class StratumPlan:
    """One stratum of a stratified pilot: its population ``weight`` ``W_h``, its
    ``share`` of the pilot's units (the allocation planned, proportional), and the
    ``variance`` ``sigma_h^2`` of one unit's difference within it."""

    name: str
    weight: float
    share: float
    variance: float

    def to_dict(self) -> dict:
        return json_safe({f.name: getattr(self, f.name) for f in fields(self)})


@dataclass(frozen=True, slots=True)
class TrialsPlan:
    """A k-trial metric's plan at one number of ``trials`` per task: the ``n_items``
    (tasks), ``power`` and ``delta`` there (the one solved for differs from row to row;
    the others are the plan's), ``total_trials`` per system (``n_items * trials``) and
    the mean ``within_variance`` of a task's difference at that many trials."""

    trials: int
    n_items: int | None
    power: float | None
    delta: float | None
    total_trials: int | None
    within_variance: float

    def to_dict(self) -> dict:
        return json_safe({f.name: getattr(self, f.name) for f in fields(self)})


@dataclass(frozen=True, slots=True)
class FamilyPlan:
    """A family of comparisons planned together (``scores=``).

    Attributes
    ----------
    comparisons : tuple of (str, str)
        The contrasts ``(a, b)``: ``b - a``.
    correction : str
        ``"bonferroni"`` or ``"max-t"``: which one the result's sizes follow.
    alpha_per_comparison : float
        The level each comparison is tested at under ``correction`` (Bonferroni's
        ``alpha / m``; max-t's: the normal tail beyond its critical value).
    critical_value, critical_value_error : float
        Max-t's critical value on the z scale, the ``1 - alpha`` quantile of the
        largest of the contrasts' standardised values under the pilot's correlations
        (multivariate normal, simulated with a fixed seed), and its Monte Carlo
        standard error.
    bonferroni_critical_value : float
        The z quantile at Bonferroni's ``alpha / m``.
    correlations : numpy.ndarray
        The contrasts' correlation matrix (from the pilot's units).
    variances : tuple of float
        Each contrast's per-unit variance.
    n_each : int or None
        Units at which every comparison alone reaches the power (the largest
        variance's), under ``correction``.
    n_all : int or None
        Units at which all comparisons are detected together with the power (each true
        difference ``delta``, on its better side).
    power_each, power_all : float
        At the result's size: the smallest per-comparison power, and the joint power.
    power_all_error : float
        The Monte Carlo standard error of ``power_all``.
    n_simulations : int
        Draws of the multivariate normal.
    n_each_bonferroni, n_each_max_t, n_all_bonferroni, n_all_max_t : int or None
        The two sizes under each correction.
    """

    comparisons: tuple[tuple[str, str], ...]
    correction: str
    alpha_per_comparison: float
    critical_value: float
    critical_value_error: float
    bonferroni_critical_value: float
    correlations: np.ndarray
    variances: tuple[float, ...]
    n_each: int | None
    n_all: int | None
    power_each: float
    power_all: float
    power_all_error: float
    n_simulations: int
    n_each_bonferroni: int | None = None
    n_each_max_t: int | None = None
    n_all_bonferroni: int | None = None
    n_all_max_t: int | None = None

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["comparisons"] = [list(c) for c in self.comparisons]
        out["correlations"] = self.correlations.tolist()
        return json_safe(out)


TRIALS_FIELDS = frozenset(("between_variance", "within_variance", "trials_grid",
                           "pilot_trials", "rate_a", "rate_sd", "shift_sd", "metric_a"))
"""The fields of a k-trial metric's plan (``model="trials"``) alone."""


@dataclass(frozen=True, slots=True, repr=False)
class PowerResult(Tracked):
    """A planned comparison (:func:`pairboot.power`): the quantity solved for and every
    input it rests on.

    Attributes
    ----------
    solved : str
        What was solved for: ``"n_items"``, ``"n_groups"``, ``"n_runs"``, ``"power"`` or
        ``"delta"``.
    delta : float or None
        The true difference ``B - A`` planned for (solved: the smallest detectable one,
        on the side where B is better; None when none is).
    power : float
        The chance that the test detects ``delta`` at the planned size.
    n_items : int or None
        Items, each scored by both systems (paired); None when no number of items
        reaches the power (a variance floor of the runs: see ``n_runs_needed``).
    n_items_unpaired : int or None
        Items per system an unpaired comparison (independent test sets) would need for
        the same power (None where the systems' own variances are not known).
    pairing_saving : float or None
        ``1 - n_items / n_items_unpaired``: the share of items pairing saves.
    n_groups, n_runs : int or None
        Groups (with groups) and runs per system (with seeds) planned.
    n_runs_needed : int or None
        With seeds: the fewest runs at which some number of items reaches the power
        (when the runs given leave it out of reach).
    confidence_level, alternative, hypothesis, margin, lower_is_better
        The test, as :func:`pairboot.compare` takes it.
    source : str
        ``"parameters"`` (what the user knows) or ``"pilot"`` (data).
    model : str
        How the power is computed: ``"paired t"``, ``"connor"`` (0/1 scores),
        ``"design effect"`` (groups), ``"two-way runs"`` (seeds), ``"stratified"``,
        ``"delta method"`` (a pooled metric), ``"trials"`` (a k-trial metric: tasks
        and trials per task).
    metric : str
    sd : float
        The standard deviation of one unit's difference (items; with groups, of an
        item's, before the design effect).
    unit_variance : float
        The variance of one unit's difference the sizes rest on (a group's, design
        effect included; a stratified design's ``sum_h W_h sigma_h^2`` under
        proportional allocation; a pooled metric's delta-method one).
    sd_a, sd_b, correlation : float or None
        The systems' own standard deviations and their correlation, when known.
    accuracy_a, accuracy_b, discordant : float or None
        0/1 scores: the accuracies and the share of items where the systems disagree.
    group_size, group_size_cv, icc, design_effect : float or None
        With groups: the mean group size, its coefficient of variation, the
        intra-cluster correlation and the design effect.
    strata : tuple of StratumPlan
    run_variance, residual_variance : tuple of float
        With seeds: each system's (or the paired runs') run and residual variance.
    variance : float or None
        The planned estimate's variance at the planned size (the t's, or the normal
        approximation's for 0/1 scores).
    floor : float or None
        With seeds: the variance ``sum_s var(b_s) / R`` that no number of items lowers.
    family : FamilyPlan or None
    pilot_items, pilot_groups : int or None
        The pilot's size.
    assumptions : tuple of str
        What the numbers assume, in short phrases.
    simulation : object or None
        The simulation check, when asked for (None: not run).
    pilot_range : (float, float) or None
        From a pilot: the solved quantity (units, power or difference) at the two ends
        of the 95% interval of the spread the pilot estimates (the variance's
        chi-square interval on the pilot's degrees of freedom; 0/1 scores, the
        discordant share's Wilson interval), in increasing order; None in it where no
        size (difference) reaches the power.  None from parameters, for seeds and
        families.
    test : str or None
        The test planned for: None, the interval (0/1 scores: sized by Connor's
        asymptotic McNemar test); ``"mcnemar"``, the exact McNemar test.
    exact_mcnemar : float or None
        0/1 scores planned for the interval: the exact McNemar test's answer to the same
        question (its items, power or smallest difference), the plan of ``test="mcnemar"``
        (None where not computed: groups, a margin, or beyond 10^5 discordant items).
    between_variance, within_variance : float or None
        A k-trial metric (``model="trials"``): the variance over tasks of the true
        per-task B - A, and the mean within-task variance of a task's estimated
        difference at the planned ``n_runs`` trials; the estimate's variance is their
        sum over the tasks.
    trials_grid : tuple of TrialsPlan
        A k-trial metric: the plan at trials per task from k to 4k (and the planned
        ones): more trials shrink only the within part.
    pilot_trials : int or None
        A k-trial metric's pilot: the fewest trials of any of its tasks.
    rate_a, rate_sd, shift_sd, metric_a : float or None
        A k-trial metric from parameters: A's tasks' mean success rate and its standard
        deviation over tasks (a Beta), the standard deviation over tasks of B's logit
        shift, and A's value of the metric.
    """

    solved: str
    delta: float | None
    power: float | None
    n_items: int | None
    n_items_unpaired: int | None
    pairing_saving: float | None
    n_groups: int | None
    n_runs: int | None
    n_runs_needed: int | None
    confidence_level: float
    alternative: str
    hypothesis: str
    margin: float | None
    lower_is_better: bool
    source: str
    model: str
    metric: str
    sd: float | None
    unit_variance: float | None
    sd_a: float | None = None
    sd_b: float | None = None
    correlation: float | None = None
    accuracy_a: float | None = None
    accuracy_b: float | None = None
    discordant: float | None = None
    group_size: float | None = None
    group_size_cv: float | None = None
    icc: float | None = None
    design_effect: float | None = None
    strata: tuple[StratumPlan, ...] = ()
    run_variance: tuple[float, ...] = ()
    residual_variance: tuple[float, ...] = ()
    variance: float | None = None
    floor: float | None = None
    family: FamilyPlan | None = None
    pilot_items: int | None = None
    pilot_groups: int | None = None
    assumptions: tuple[str, ...] = ()
    simulation: object | None = None
    planner: object | None = field(default=None, compare=False)
    """The power function the answer was read off (``planner(size, delta) -> power``;
    ``size`` in the result's units): what :meth:`curve` evaluates."""
    unit: str = "items"
    """What ``planner``'s size counts: ``"items"``, ``"groups"`` or ``"runs"``."""
    test: str | None = None
    exact_mcnemar: float | None = None
    pilot_range: tuple | None = None
    between_variance: float | None = None
    within_variance: float | None = None
    trials_grid: tuple[TrialsPlan, ...] = ()
    pilot_trials: int | None = None
    rate_a: float | None = None
    rate_sd: float | None = None
    shift_sd: float | None = None
    metric_a: float | None = None

    @property
    def size(self) -> int | None:
        """The planned size in :attr:`unit` (items, groups or runs)."""
        return {"items": self.n_items, "groups": self.n_groups, "runs": self.n_runs}[self.unit]

    def curve(self, *, sizes=None, deltas=None, points: int = 25) -> dict:
        """The power at a grid of sizes (in :attr:`unit`, at ``delta``) or of
        differences (at the planned size), for a plot: ``{"x": name, "values": [...],
        "power": [...]}``.  By default, ``points`` sizes from a tenth to twice the
        planned one (or ``points`` differences up to twice ``delta``)."""
        if self.planner is None:
            raise ValueError("this result has no power function to evaluate")
        if sizes is not None and deltas is not None:
            raise ValueError("give `sizes` or `deltas`, not both")
        if deltas is None and (sizes is not None or self.size is not None):
            if sizes is None:
                top = 2 * self.size
                sizes = np.unique(np.linspace(max(2, top // 20), top, points).round())
            sizes = [int(s) for s in np.asarray(sizes).ravel()]
            return {"x": self.unit, "values": sizes,
                    "power": [self.planner(s, self.delta) for s in sizes]}
        if deltas is None:
            if self.delta is None or self.delta == 0:
                raise ValueError("no size or difference to draw the curve around")
            deltas = np.linspace(0.0, 2.0 * self.delta, points)[1:]
        deltas = [float(d) for d in np.asarray(deltas).ravel()]
        return {"x": "delta", "values": deltas,
                "power": [self.planner(self.size, d) for d in deltas]}

    def summary(self) -> str:
        """The answer in one line (written by :mod:`pairboot.report.power`)."""
        return rendered(self, "summary")

    def to_html(self) -> str:
        """The plan as one self-contained HTML page: the answer, the inputs, the power
        curve as inline SVG when matplotlib is installed, the assumptions."""
        return rendered(self, "html")

    def _repr_html_(self) -> str:
        """A notebook's display: :meth:`to_html`'s body."""
        return rendered(self, "html-fragment")

    def to_frame(self, *, curve: bool = False, **grid):
        """A pandas DataFrame (needs pandas): by default one row of the plan's fields
        (:meth:`to_dict`'s scalars: ``solved``, ``delta``, ``power``, ``n_items``, ...);
        with ``curve=True``, :meth:`curve` (``grid``: its ``sizes``, ``deltas`` or
        ``points``) as columns ``x`` (``items``, ``groups``, ``runs`` or ``delta``),
        ``value`` and ``power``."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("to_frame() needs pandas: pip install pandas") from None
        if curve:
            c = self.curve(**grid)
            return pd.DataFrame({"x": c["x"], "value": c["values"], "power": c["power"]})
        if grid:
            raise ValueError("`sizes`, `deltas` and `points` go with `curve=True`")
        row = {k: v for k, v in self.to_dict().items()
               if v is None or isinstance(v, (bool, int, float, str))}
        return pd.DataFrame([row])

    def tracked(self) -> Tracking:
        """What :meth:`log_to_mlflow` and :meth:`log_to_wandb` log (pairboot.tracking):
        the plan's numbers (the difference, the power, the sizes, the spread), what was
        solved and under which test."""
        metrics = {name: getattr(self, name) for name in (
            "delta", "power", "n_items", "n_items_unpaired", "pairing_saving", "n_groups",
            "n_runs", "n_runs_needed", "sd", "unit_variance")}
        params = {name: getattr(self, name) for name in (
            "solved", "confidence_level", "alternative", "hypothesis", "margin",
            "lower_is_better", "source", "model", "metric")}
        return Tracking(metrics, params, {"result": "power", "solved": self.solved})

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in (
            "solved", "delta", "power", "n_items", "n_groups", "n_runs", "model"))
        return f"PowerResult({shown})"

    def to_dict(self) -> dict:
        """A JSON-ready dict of the fields (the power function left out, and a k-trial
        metric's fields from any other plan)."""
        out: dict = {}
        for f in fields(self):
            if f.name == "planner" or f.name in TRIALS_FIELDS and self.model != "trials":
                continue
            value = getattr(self, f.name)
            if f.name in ("strata", "trials_grid"):
                value = [s.to_dict() for s in value]
            elif f.name in ("family", "simulation") and value is not None:
                value = value.to_dict() if hasattr(value, "to_dict") else repr(value)
            out[f.name] = json_safe(value)
        return out

