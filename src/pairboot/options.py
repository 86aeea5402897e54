"""Every keyword the entry points share, declared once: its name, its default, its check
and a one-line doc (:data:`OPTIONS`).

The public functions keep explicit keyword signatures, for help() and IDEs; their
defaults are :data:`DEFAULTS` (tests/test_options.py proves it).  Each checks its
keywords once, as its first statement, ``args, data = check_options(locals())``, into two
frozen values passed down: :class:`Arguments` (every scalar option) and :class:`Data`
(the data options: labels, ids, metric, the systems).  Below the entry points nothing
reads a keyword bag or checks an option again.  A new shared option is its
:class:`Option` here and its field in :class:`Arguments` (or :class:`Data`), the public
signatures that take it, the step that reads the field, and the command line's table
(docs/architecture.md, "Where would a new option go").  This module imports nothing of
the package but its errors, so that every layer may read it.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType

import numpy as np

from pairboot.errors import InputError

METHODS = ("percentile", "basic", "normal", "bca", "studentized", "score")
"""The interval methods; "score" is no bootstrap interval: Tango's and Wilson's closed
forms for 0/1 scores (:mod:`pairboot.core.score`)."""
GROUP_WEIGHTINGS = ("items", "groups")
BACKENDS = ("auto", "numba", "numpy")
RESAMPLINGS = ("classic", "poisson")
CORRECTIONS = ("max-t", "holm", "bonferroni", "bh", "by", "none")
"""Family-wise (max-t, Holm, Bonferroni), false discovery rate (Benjamini-Hochberg,
Benjamini-Yekutieli), or none."""
RUNS = ("seeds", "samples")
ERRORS = ("exclude", "fail", "common")
"""How harness logs' errored and missing items count (``errors=`` of
:func:`pairboot.io.harness.join`): left out, failures, or only the items every system
scored; None keeps what the harness recorded."""
ESTIMANDS = ("population", "suite")
"""What an interval of repeated trials covers: the items are a sample of a population of
tasks (their draw and the trials vary), or the test set is the whole population, a
fixed suite (only the trials vary)."""
TESTS = ("mcnemar", "permutation")
"""The tests compare() reports beside the bootstrap interval (``test=``)."""
ALTERNATIVES = ("two-sided", "greater", "less")
HYPOTHESES = ("difference", "non-inferiority", "superiority", "equivalence")
"""What a comparison tests: any difference (by ``alternative``); B not worse than A by
the margin or more; B better by more than the margin; B within the margin of A."""

TASK_AGGREGATES = ("mean", "median", "iqm", "optimality-gap", "win-rate", "borda")
"""compare_tasks()'s aggregates over tasks (:mod:`pairboot.stats.aggregates`)."""
TASK_RESAMPLES = ("items", "tasks", "both")
"""compare_tasks()'s levels of resampling: what varies."""


def _choice(name: str, choices: tuple[str, ...], *, fold: bool = False):
    def check(value):
        key = value.lower() if fold and isinstance(value, str) else value
        if key not in choices:
            raise InputError(f"`{name}` must be one of {', '.join(choices)}, got {value!r}",
                             param=name)
        return key
    return check


def _flag(name: str):
    def check(value):
        if not isinstance(value, (bool, np.bool_)):
            raise InputError(f"`{name}` must be True or False, got {value!r}", param=name)
        return bool(value)
    return check


def _n_resamples(value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(f"`n_resamples` must be a positive integer, got {value!r}",
                         param="n_resamples")
    if value < 1:
        raise InputError(f"`n_resamples` must be a positive integer, got {value}",
                         param="n_resamples")
    return int(value)


def _confidence_level(value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"`confidence_level` must be a number between 0 and 1, got {value!r}",
                         param="confidence_level")
    if not 0.0 < float(value) < 1.0:
        raise InputError(f"`confidence_level` must be between 0 and 1, got {value}",
                         param="confidence_level")
    return float(value)


def _seed(value) -> int | None:
    """An integer seed: a SeedSequence and ``"random"`` are drawn from; None stays None
    (the seed is then derived from the data and the options)."""
    random = sys.modules.get("numpy.random")  # (a SeedSequence has imported it)
    if random is not None and isinstance(value, random.SeedSequence):  # (a child of the
        return int(value.generate_state(1, np.uint64)[0])  # caller's own tree)
    if isinstance(value, str) and value.strip().lower() == "random":
        import secrets  # (on first use: with hashlib's OpenSSL, a few ms of a command)

        return secrets.randbelow(2**32)
    if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Integral)
                              or value < 0):
        shown = value if isinstance(value, numbers.Integral) and not isinstance(
            value, bool) else repr(value)
        raise InputError("`seed` must be a non-negative integer, a SeedSequence, 'random' or "
                         f"None, got {shown}", param="seed")
    return None if value is None else int(value)


def _margin(value) -> float | None:
    """A margin on the metric's scale: None (no margin), or a finite number >= 0."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"`margin` must be a non-negative number, got {value!r}",
                         param="margin")
    value = float(value)
    if not math.isfinite(value) or value < 0:
        raise InputError(f"`margin` must be a finite non-negative number, got {value:g}",
                         param="margin")
    return value


def _test(value):
    if value is not None and value not in TESTS:
        raise InputError(f"`test` must be None or one of {', '.join(TESTS)}, got {value!r}",
                         param="test")
    return value


def _exact(value):
    if value is not None and not isinstance(value, (bool, np.bool_)):
        raise InputError(f"`exact` must be None, True or False, got {value!r}", param="exact")
    return None if value is None else bool(value)


def _runs(value):
    if value is not None and value not in RUNS:
        raise InputError(f"`runs` must be None or one of {', '.join(RUNS)}, got {value!r}",
                         param="runs")
    return value


@dataclass(frozen=True, slots=True)
class Option:
    """One shared keyword: ``check`` returns the value checked (and normalised) or raises
    an :class:`~pairboot.errors.InputError` naming it; None where the design checks it
    against the data (labels, weights, metrics)."""

    name: str
    default: object
    doc: str
    check: Callable | None = None


OPTIONS = MappingProxyType({o.name: o for o in (
    Option("paired", True, "the same drawn items for both systems (False: unpaired)",
           _flag("paired")),
    Option("groups", None, "one group label per item: whole groups are resampled"),
    Option("group_weighting", "items", "with groups: the mean over items, or of the "
           "group means", _choice("group_weighting", GROUP_WEIGHTINGS)),
    Option("strata", None, "one stratum label per item: resampled within each"),
    Option("strata_weights", None, "the strata's population weights (default: shares)"),
    Option("metric", "mean", "a built-in metric's name or a pairboot.Metric"),
    Option("n_resamples", 10_000, "bootstrap resamples", _n_resamples),
    Option("confidence_level", 0.95, "the interval's confidence level", _confidence_level),
    Option("method", "percentile", "the interval's method",
           _choice("method", METHODS, fold=True)),
    Option("alternative", "two-sided", "two-sided, or one-sided: B - A greater (less) than 0",
           _choice("alternative", ALTERNATIVES)),
    Option("margin", None, "the smallest difference that matters, on the metric's scale",
           _margin),
    Option("hypothesis", "difference", "what is tested: difference, or one of three "
           "against `margin`",
           _choice("hypothesis", HYPOTHESES)),
    Option("test", None, "a test beside the interval: 'mcnemar' or 'permutation'", _test),
    Option("exact", None, "permutation test: all permutations, random ones, or None: by size",
           _exact),
    Option("seed", None, "an integer, a SeedSequence, 'random', or None (from the data)",
           _seed),
    Option("resampling", "classic", "classic draws, or Poisson(1) weights per unit",
           _choice("resampling", RESAMPLINGS)),
    Option("ids", None, "one id per item, or the id column to join two frames on"),
    Option("runs", None, "several runs per system: 'seeds' or 'samples'", _runs),
    Option("paired_runs", False, "with runs='seeds': run r of A and of B share a seed",
           _flag("paired_runs")),
    Option("estimand", "population", "runs='samples': the tasks' population, or the "
           "fixed suite", _choice("estimand", ESTIMANDS)),
    Option("backend", "auto", "the resampling kernel", _choice("backend", BACKENDS)),
    Option("progress", None, "called with the number of finished resamples"),
    Option("correction", "max-t", "a family's multiple-comparison correction",
           _choice("correction", CORRECTIONS)),
    Option("lower_is_better", False, "lower scores are better (verdicts, margins, ranks)",
           _flag("lower_is_better")),
    Option("baseline", None, "a family: every system against this one"),
    Option("pairs", None, "a family: these (A, B) comparisons"),
)})
"""The shared keywords by name."""

DEFAULTS = MappingProxyType({name: o.default for name, o in OPTIONS.items()})
"""The shared keywords' defaults by name."""


@dataclass(frozen=True, slots=True)
class Arguments:
    """Every scalar option of a run, checked once by :func:`check_options` and passed
    down as a value: the pipeline, runs, parts and the planner read its fields.  Its
    defaults are the options' (:data:`DEFAULTS`), so ``Arguments()`` is a valid run."""

    paired: bool = DEFAULTS["paired"]
    group_weighting: str = DEFAULTS["group_weighting"]
    n_resamples: int = DEFAULTS["n_resamples"]
    confidence_level: float = DEFAULTS["confidence_level"]
    method: str = DEFAULTS["method"]
    seed: int | None = DEFAULTS["seed"]
    """None: derived from the data and the options by :func:`pairboot.core.design.derived_seed`."""
    backend: str = DEFAULTS["backend"]
    resampling: str = DEFAULTS["resampling"]
    alternative: str = DEFAULTS["alternative"]
    """The sides of the interval: a non-inferiority or superiority test's own side."""
    hypothesis: str = DEFAULTS["hypothesis"]
    margin: float | None = DEFAULTS["margin"]
    """The margin; a family's given one per comparison: the largest (:attr:`margins`)."""
    lower_is_better: bool = DEFAULTS["lower_is_better"]
    test: str | None = DEFAULTS["test"]
    exact: bool | None = DEFAULTS["exact"]
    """The permutation test's: enumerate every permutation (None: when they are few)."""
    runs: str | None = DEFAULTS["runs"]
    paired_runs: bool = DEFAULTS["paired_runs"]
    estimand: str = DEFAULTS["estimand"]
    correction: str = DEFAULTS["correction"]
    margins: tuple | None = None
    """A family's margin per comparison as given, ``((a, b), margin)`` pairs (each
    checked); None when one margin serves every row."""
    progress: Callable | None = field(default=DEFAULTS["progress"], compare=False, repr=False)
    """Told the finished resamples (not an option of the answer: never compared)."""


@dataclass(frozen=True, slots=True, eq=False)
class Data:
    """The data options of a run: how the items are labelled, keyed and scored, and
    which systems are compared.  They are checked against the data where it is read
    (the design, the runs' layout, the parts), not here."""

    groups: object = DEFAULTS["groups"]
    strata: object = DEFAULTS["strata"]
    strata_weights: object = DEFAULTS["strata_weights"]
    ids: object = DEFAULTS["ids"]
    metric: object = DEFAULTS["metric"]
    baseline: str | None = DEFAULTS["baseline"]
    """A family's comparisons: every system against ``baseline``, or ``pairs``: they
    name systems, so they are checked against the systems' names (in :mod:`core.family`)."""
    pairs: object = DEFAULTS["pairs"]
    names: tuple[str, ...] = ("a", "b")
    """The systems' names, in order (a family's from its scores)."""
    display: tuple[str, ...] | None = None
    """How messages name the systems (default :attr:`names`)."""


ARGUMENTS = tuple(f.name for f in fields(Arguments) if f.name in OPTIONS)
"""The options :class:`Arguments` holds, in the order they are checked (the order people
read compare()'s signature)."""
DATA = tuple(f.name for f in fields(Data) if f.name in OPTIONS)
"""The options :class:`Data` holds."""


def check_options(given: Mapping, *, family: bool = False, fixed: Mapping | None = None
                  ) -> tuple[Arguments, Data]:
    """An entry point's options checked once: ``(Arguments, Data)``.

    ``given``: the entry point's keywords (``locals()`` as its first statement: only
    the names of :data:`OPTIONS` are read; an option it does not take has its default).
    ``fixed``: the options the entry point sets itself, already valid and not checked
    again (a part's seed and resamples, Poisson weights).  ``family``: ``margin`` may be
    a mapping ``{(a, b): margin}``, one per comparison (:attr:`Arguments.margins`).
    Each scalar is checked by its :class:`Option`'s check, then what they say together:
    ``exact`` without the permutation test, and the hypothesis against the margin and
    the sides (:func:`hypothesis_sides`: the interval's sides become ``alternative``).
    """
    fixed = dict(fixed or {})
    values = {name: fixed[name] if name in fixed else given.get(name, DEFAULTS[name])
              for name in OPTIONS}
    margins = None
    if family and isinstance(values["margin"], Mapping) and "margin" not in fixed:
        margins = check_margins(values["margin"])
        values["margin"] = max(m for _, m in margins)
        fixed = {**fixed, "margin": values["margin"]}
    for name in ARGUMENTS:
        check = OPTIONS[name].check
        if name not in fixed and check is not None:
            values[name] = check(values[name])
    check_exact(values["exact"], values["test"])
    values["alternative"] = hypothesis_sides(
        values["hypothesis"], values["margin"], values["alternative"],
        values["lower_is_better"], values["confidence_level"])
    for each in sorted({m for _, m in margins or ()}):  # (a row's may be one no test takes)
        hypothesis_sides(values["hypothesis"], each, values["alternative"],
                         values["lower_is_better"], values["confidence_level"])
    args = Arguments(**{name: values[name] for name in ARGUMENTS}, margins=margins)
    return args, Data(**{name: values[name] for name in DATA})


def check_margins(margin: Mapping) -> tuple:
    """A family's margins ``{(a, b): margin}`` checked: ``((a, b), margin)`` pairs, the
    systems' names as text, each margin by the option's check."""
    if not margin:
        raise InputError("`margin` is an empty mapping: give a number, or one per "
                         "comparison", param="margin")
    out = []
    for key, value in margin.items():
        if not (isinstance(key, tuple) and len(key) == 2):
            raise InputError(f"`margin`: {key!r} must be a pair (a, b) of systems",
                             param="margin")
        out.append((tuple(str(k) for k in key), OPTIONS["margin"].check(value)))
    return tuple(out)


def check_exact(exact, test) -> None:
    """Refuse ``exact`` without the permutation test it is an option of."""
    if exact is not None and test != "permutation":
        raise InputError("`exact` is the permutation test's: give it with "
                         "`test='permutation'`", param="exact")


def hypothesis_sides(hypothesis: str, margin: float | None, alternative: str,
                     lower_is_better: bool, confidence_level: float = 0.95) -> str:
    """The sides of the interval ``hypothesis`` is read off: ``alternative`` for a
    difference; for non-inferiority and superiority the side on which B is better
    ("greater", or "less" when lower is better; ``alternative`` may say it, or be left
    two-sided); two-sided for equivalence (its interval is at ``1 - 2 alpha``).  Refuses
    a margin's hypothesis without a margin, an equivalence or superiority margin of 0,
    and sides that contradict the hypothesis."""
    if hypothesis == "difference":
        return alternative
    if margin is None:
        raise InputError(f"`hypothesis={hypothesis!r}` needs a `margin` (the difference "
                         "that matters, on the metric's scale)", param="margin")
    if hypothesis == "equivalence":
        if margin == 0:
            raise InputError("`hypothesis='equivalence'` needs a `margin` above 0: no "
                             "interval lies within +-0", param="margin")
        if alternative != "two-sided":
            raise InputError(f"`alternative={alternative!r}` with "
                             "`hypothesis='equivalence'`: equivalence tests both sides "
                             "(two one-sided tests); leave `alternative` two-sided",
                             param="alternative")
        if confidence_level <= 0.5:
            raise InputError("`hypothesis='equivalence'` reads the 1 - 2 alpha interval: "
                             "`confidence_level` must be above 0.5", param="confidence_level")
        return "two-sided"
    better = "less" if lower_is_better else "greater"
    if hypothesis == "superiority" and margin == 0:
        raise InputError("`hypothesis='superiority'` needs a `margin` above 0: better by "
                         f"more than 0 is the one-sided test `alternative={better!r}`",
                         param="margin")
    if alternative not in ("two-sided", better):
        raise InputError(f"`alternative={alternative!r}` with `hypothesis={hypothesis!r}`: "
                         f"the test is one-sided on the side where B is better "
                         f"({better!r}{', lower is better' if lower_is_better else ''})",
                         param="alternative")
    return better
