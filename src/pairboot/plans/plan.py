"""Plans: a family of comparisons decided in advance, in a TOML file.

A plan fixes everything that decides a family's answer before anyone sees the results:
the systems, the comparisons, the metric, the level, the correction, the resamples and
the seed.  Its SHA-256 (of the file's bytes) goes into the report, so a reader who was
shown the hash before the results can check with ``sha256sum plan.toml`` that the plan
was not changed after them.  A run of a plan runs exactly that plan:
:meth:`Plan.check_family` refuses a comparison, a system or an option outside it.

The keys (any other key is refused, so a misspelt one is never silently ignored):

==================== ========= ==============================================================
key                  required  value
==================== ========= ==============================================================
``systems``          yes       the systems' names, in order (two or more, each once)
``baseline``         no        one of ``systems``: every other system minus it
``pairs``            no        ``[["a", "b"], ...]``: the comparisons ``b - a``
``metric``           yes       a built-in metric's name, or ``"FILE.py:NAME"`` (the file
                               relative to the plan's folder) or ``"MODULE:NAME"``: code,
                               which runs only when the run names it too (``--metric``)
``confidence_level`` yes       between 0 and 1
``correction``       yes       ``"max-t"``, ``"holm"``, ``"bonferroni"``, ``"bh"``, ``"by"``
                               or ``"none"``
``n_resamples``      yes       a positive integer
``seed``             yes       a non-negative integer
``method``           no        the interval's method (default ``"percentile"``)
``paired``           no        true (default) or false
``lower_is_better``  no        true when the metric is a loss (default false)
``alternative``      no        ``"two-sided"`` (default), ``"greater"`` or ``"less"``
``hypothesis``       no        ``"difference"`` (default), ``"non-inferiority"``,
                               ``"superiority"`` or ``"equivalence"`` (with ``margin``)
``margin``           no        a number >= 0 for every comparison, or a table
                               ``"b - a" = number`` with every comparison of the family
``group``            no        the column of group labels (the cluster bootstrap)
``group_weighting``  no        with ``group``: ``"items"`` (default) or ``"groups"``
``stratum``          no        the column of stratum labels
``stratum_weights``  no        with ``stratum``: a table ``label = weight``
==================== ========= ==============================================================

``baseline`` and ``pairs`` are one or the other, or neither: then the family is every
pair of ``systems``, each ``later - earlier`` in their order, and the result has rank
intervals and a best set.  A plan must state the seed: a seed derived from the data
would be fixed only once the data are.

The hash covers the plan file only.  A metric read from ``FILE.py`` is named, not
hashed: fix that file too (its own ``sha256sum``), or use a built-in metric.

Examples
--------
>>> import pathlib, tempfile
>>> folder = tempfile.TemporaryDirectory()
>>> path = pathlib.Path(folder.name, "plan.toml")
>>> _ = path.write_text('''
... systems = ["base", "v1", "v2"]
... baseline = "base"
... metric = "mean"
... confidence_level = 0.95
... correction = "max-t"
... n_resamples = 10000
... seed = 20261201
... ''')
>>> plan = read_plan(path)
>>> plan.comparisons()
(('base', 'v1'), ('base', 'v2'))
>>> plan.sha256 == plan_sha256(path)
True
>>> plan.check_family(["v2", "v1", "base"], seed=20261201)  # (what the command line gave)
>>> plan.check_family(["base", "v1", "v2"], seed=7)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
pairboot.errors.InputError: `seed=7` differs from the plan (...plan.toml: seed = 20261201)
>>> folder.cleanup()
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pairboot.errors import InputError
from pairboot.metrics import Metric
from pairboot.metrics.names import load_metric
from pairboot.plans.plan_file import family_of, is_file, metric_key, read_fields, toml_text


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """A family of comparisons fixed in advance, as :func:`read_plan` reads it from a file.

    Attributes
    ----------
    path : str
        The plan file, as it was given.
    sha256 : str
        The SHA-256 of the file's bytes (hex), as ``sha256sum`` prints it.
    systems : tuple of str
        The systems, in order.
    baseline : str or None
    pairs : tuple of (str, str) or None
        The comparisons ``b - a``.  Neither ``baseline`` nor ``pairs``: all pairs.
    metric : str
        As the file writes it: a built-in metric's name, ``"FILE.py:NAME"`` (relative to
        the plan's folder) or ``"MODULE:NAME"``.
    confidence_level, correction, n_resamples, seed
    method, paired, lower_is_better, alternative, hypothesis
        The file's, or :func:`pairboot.compare_many`'s defaults.
    margin : float, mapping of (a, b) to float, or None
        One margin for every comparison, or each comparison's.
    group, stratum : str or None
        The columns of group and stratum labels.
    group_weighting : str
    stratum_weights : mapping of str to float, or None
    """

    path: str
    sha256: str
    systems: tuple[str, ...]
    metric: str
    confidence_level: float
    correction: str
    n_resamples: int
    seed: int
    baseline: str | None = None
    pairs: tuple[tuple[str, str], ...] | None = None
    method: str = "percentile"
    paired: bool = True
    lower_is_better: bool = False
    alternative: str = "two-sided"
    hypothesis: str = "difference"
    margin: float | Mapping[tuple[str, str], float] | None = None
    group: str | None = None
    group_weighting: str = "items"
    stratum: str | None = None
    stratum_weights: Mapping[str, float] | None = None

    def comparisons(self) -> tuple[tuple[str, str], ...]:
        """The family as ``(a, b)`` pairs, each compared as ``b - a``, in the order
        :func:`pairboot.compare_many` reports them (given ``systems`` in their order)."""
        return family_of(self.systems, self.baseline, self.pairs)

    def compare_many_keywords(self, *, groups=None, strata=None, metric=None) -> dict:
        """The keywords of :func:`pairboot.compare_many` that run this plan.

        ``groups`` and ``strata`` are the labels of the plan's ``group`` and ``stratum``
        columns, one per item: required when the plan names the column, refused when it
        does not.

        A plan never runs code by itself: plans are shared and checked by their hash.
        When its metric is ``"FILE.py:NAME"`` or ``"MODULE:NAME"``, pass ``metric``:
        the :class:`~pairboot.Metric` you loaded yourself, or the same file or module as
        a string (loaded then: its code runs because you asked).

        Pass the scores in the plan's order, ``{name: scores[name] for name in
        plan.systems}``: with all pairs, that order decides each comparison's direction.
        """
        for labels, column, argument in ((groups, self.group, "groups"),
                                         (strata, self.stratum, "strata")):
            key = "group" if argument == "groups" else "stratum"
            if column is not None and labels is None:
                raise InputError(
                    f"{self.path} names a {key} column, {column!r}: pass its labels as "
                    f"`{argument}`", param=argument,
                )
            if column is None and labels is not None:
                raise InputError(
                    f"`{argument}` is outside the plan: {self.path} names no {key} column",
                    param=argument,
                )
        return {
            "baseline": self.baseline,
            "pairs": None if self.pairs is None else list(self.pairs),
            "correction": self.correction,
            "lower_is_better": self.lower_is_better,
            "alternative": self.alternative,
            "hypothesis": self.hypothesis,
            "margin": dict(self.margin) if isinstance(self.margin, Mapping) else self.margin,
            "paired": self.paired,
            "groups": groups,
            "group_weighting": self.group_weighting,
            "strata": strata,
            "strata_weights": None if self.stratum_weights is None else dict(
                self.stratum_weights),
            "metric": self._metric(metric),
            "n_resamples": self.n_resamples,
            "confidence_level": self.confidence_level,
            "method": self.method,
            "seed": self.seed,
        }

    def check_family(
        self,
        names: Iterable[str],
        *,
        baseline: str | None = None,
        pairs: Sequence[tuple[str, str]] | None = None,
        metric: str | None = None,
        confidence_level: float | None = None,
        correction: str | None = None,
        n_resamples: int | None = None,
        seed: int | str | None = None,
        method: str | None = None,
        paired: bool | None = None,
        lower_is_better: bool | None = None,
        alternative: str | None = None,
        hypothesis: str | None = None,
        margin: float | None = None,
        group: str | None = None,
        group_weighting: str | None = None,
        stratum: str | None = None,
        stratum_weights: Mapping[str, float] | None = None,
    ) -> None:
        """Refuse a run that is not exactly this plan (an :class:`InputError`).

        ``names`` are the run's systems, in any order; they must be the plan's, all of
        them.  Every other argument is what the user gave for the run (say, on the
        command line), None where nothing was given: the plan's value is used then.
        What was given must be the plan's: the same family (``baseline`` or ``pairs``
        as the plan has them, or the same comparisons listed as ``pairs``), the same
        options.  ``metric`` is a name as :func:`read_plan` takes it, a ``FILE.py``
        relative to the current folder; ``group`` and ``stratum`` are column names.
        """
        names = [str(n) for n in names]
        here = f"{self.path}: systems = {toml_text(list(self.systems))}"
        if len(set(names)) != len(names):
            twice = next(n for n in names if names.count(n) > 1)
            raise InputError(f"the run names system {twice!r} twice", param="scores")
        for name in names:
            if name not in self.systems:
                raise InputError(
                    f"system {name!r} is not in the plan ({here})", param="scores")
        for name in self.systems:
            if name not in names:
                raise InputError(
                    f"the plan's system {name!r} is missing from the run ({here})",
                    param="scores",
                )

        if baseline is not None or pairs is not None:
            if baseline is not None and pairs is not None:
                raise InputError("give `baseline` or `pairs`, not both", param="pairs")
            asked = (f"`baseline={baseline!r}`" if baseline is not None else "`pairs`")
            run = family_of(self.systems, baseline, pairs, asked=asked)
            planned = self.comparisons()
            if self.baseline is not None:
                here = f"{self.path}: baseline = {toml_text(self.baseline)}"
            elif self.pairs is not None:
                here = f"{self.path}: pairs = {toml_text([list(p) for p in self.pairs])}"
            else:
                here = f"{self.path}: all pairs of {toml_text(list(self.systems))}"
            for a, b in run:
                if (a, b) not in planned:
                    turned = " (the plan has it the other way round)" if (
                        b, a) in planned else ""
                    raise InputError(
                        f"{asked} asks for {b} - {a}, outside the plan{turned} ({here})",
                        param="pairs" if pairs is not None else "baseline",
                    )
            for a, b in planned:
                if (a, b) not in run:
                    raise InputError(
                        f"{asked} leaves out the plan's {b} - {a} ({here})",
                        param="pairs" if pairs is not None else "baseline",
                    )

        if metric is not None and not self._same_metric(metric):
            self._differs("metric", metric, "metric", self.metric)
        given = (
            ("confidence_level", confidence_level, "confidence_level", self.confidence_level),
            ("correction", correction, "correction", self.correction),
            ("n_resamples", n_resamples, "n_resamples", self.n_resamples),
            ("seed", seed, "seed", self.seed),
            ("method", method, "method", self.method),
            ("paired", paired, "paired", self.paired),
            ("lower_is_better", lower_is_better, "lower_is_better", self.lower_is_better),
            ("alternative", alternative, "alternative", self.alternative),
            ("hypothesis", hypothesis, "hypothesis", self.hypothesis),
            ("margin", margin, "margin", self.margin),
            ("groups", group, "group", self.group),
            ("group_weighting", group_weighting, "group_weighting", self.group_weighting),
            ("strata", stratum, "stratum", self.stratum),
        )
        for argument, value, key, planned_value in given:
            if value is not None and not _same(value, planned_value):
                self._differs(argument, value, key, planned_value)
        if stratum_weights is not None:
            run_weights = ({str(k): v for k, v in stratum_weights.items()}
                           if isinstance(stratum_weights, Mapping) else stratum_weights)
            planned = None if self.stratum_weights is None else dict(self.stratum_weights)
            if run_weights != planned:
                self._differs("strata_weights", None, "stratum_weights", planned)

    # ------------------------------------------------------------------ helpers

    def _differs(self, argument: str, value, key: str, planned) -> None:
        token = f"`{argument}`" if value is None else f"`{argument}={value!r}`"
        where = (f"{self.path}: {key} = {toml_text(planned)}" if planned is not None
                 else f"{self.path} has no {key!r}")
        raise InputError(f"{token} differs from the plan ({where})", param=argument)

    def _metric_file(self) -> str | None:
        """The plan's ``FILE.py`` metric file as a path from here, or None."""
        where, _, _ = self.metric.rpartition(":")
        if not is_file(where):
            return None
        return os.path.join(os.path.dirname(self.path), where)

    def _metric(self, given=None) -> str | Metric:
        """The plan's metric: a built-in's name, or the user's code as they gave it
        (``given``: a Metric, or the plan's file or module named again)."""
        if ":" not in self.metric:
            return self.metric
        if given is None:
            file = self._metric_file()
            spec = self.metric if file is None else (
                f"{os.path.relpath(file)}:{self.metric.rpartition(':')[2]}")
            raise InputError(
                f"{self.path} names the metric {self.metric!r}, which is code: a plan "
                f"does not run code by itself; pass it as `metric` (e.g. `metric={spec!r}`)"
                " to run it", param="metric")
        if isinstance(given, Metric):
            return given
        if not self._same_metric(given):
            self._differs("metric", given, "metric", self.metric)
        return load_metric(given)

    def _same_metric(self, metric) -> bool:
        if not isinstance(metric, str):
            return False
        if ":" not in metric or ":" not in self.metric:
            return metric_key(metric) == metric_key(self.metric)
        where, _, name = metric.rpartition(":")
        file = self._metric_file()
        if name != self.metric.rpartition(":")[2] or is_file(where) != (file is not None):
            return False
        if file is None:
            return where == self.metric.rpartition(":")[0]
        return os.path.realpath(where) == os.path.realpath(file)


def plan_sha256(path) -> str:
    """The SHA-256 (hex) of the plan file's bytes: what ``sha256sum plan.toml`` prints.

    It is the hash of the bytes, not of the parsed content, so a changed comment, space
    or line ending changes it: the file must reach the reader as it was hashed.  The
    file is read as :func:`read_plan` reads it first, and refused as it would be (not
    TOML, a key misspelt, a value out of range): a hash published for a plan that no
    run can follow would fix nothing.
    """
    return read_plan(path).sha256


def read_plan(path) -> Plan:
    """The :class:`Plan` in the TOML file ``path``, checked.

    Raises :class:`InputError` with a one-line message naming the file and the key (or
    the line, when the file is not valid TOML): a key that is not a plan key, a missing
    required key, a value of the wrong kind, a system named twice, a baseline or a pair
    naming no system, a pair given twice, both ``baseline`` and ``pairs``, a level
    outside (0, 1), resamples below 1, a negative seed, an unknown correction, method
    or metric.  The hash is of the very bytes parsed.
    """
    where, sha256, fields = read_fields(path)
    return Plan(path=where, sha256=sha256, **fields)


# --------------------------------------------------------------------------- helpers

def _same(value, planned) -> bool:
    if isinstance(planned, bool) or isinstance(value, bool):
        return type(value) is type(planned) and value == planned
    if isinstance(planned, float):
        return isinstance(value, numbers.Real) and float(value) == planned
    if isinstance(planned, int):
        return isinstance(value, numbers.Integral) and int(value) == planned
    return value == planned
