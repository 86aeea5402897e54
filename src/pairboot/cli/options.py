"""The API's keywords from the command line's options, built in one place.

Every dispatcher of ``pairboot compare`` (two systems, a family, runs, tasks as a
family, files read in chunks) takes its keywords from here; what the command line
leaves unset (``--group-weighting``, ``--correction``: None, so that a plan can tell
what was given) gets the API's default from :data:`pairboot.options.DEFAULTS`.
"""

from __future__ import annotations

from pairboot.errors import InputError
from pairboot.options import DEFAULTS

RESAMPLE = ("paired", "group_weighting", "metric", "n_resamples", "confidence_level",
            "method", "alternative", "hypothesis", "margin", "lower_is_better", "seed")
"""The scalar options every in-memory comparison takes from the command line."""


def api_options(args, names=RESAMPLE) -> dict:
    """The options ``names`` as the API's keywords, from the parsed ``args``."""
    given = {
        "paired": not args.unpaired,
        "group_weighting": args.group_weighting or DEFAULTS["group_weighting"],
        "metric": args.metric_object,
        "n_resamples": args.resamples,
        "confidence_level": args.level,
        "method": args.method,
        "alternative": args.alternative,
        "hypothesis": args.hypothesis or DEFAULTS["hypothesis"],
        "margin": args.margin,
        "seed": args.seed,
        "correction": args.correction or DEFAULTS["correction"],
        "lower_is_better": args.lower_is_better,
        "baseline": args.baseline,
        "test": args.test,
    }
    return {name: given[name] for name in names}


def check_level(args) -> None:
    """Refuse --level given as a percentage, with the hint compare() would not give."""
    if 1 < args.level < 100:
        raise InputError(
            f"--level must be between 0 and 1, got {args.level:g} (for a {args.level:g}% "
            f"interval give --level {args.level / 100:g})"
        )


def family_options(args, *, baseline: bool = True) -> dict:
    """A family's options: its correction (and ``--baseline``)."""
    return api_options(args, ("baseline", "correction") if baseline else ("correction",))


def data_options(inputs) -> dict:
    """The design the inputs carry: groups, strata and the strata's weights."""
    return {"groups": inputs.groups, "strata": inputs.strata,
            "strata_weights": inputs.strata_weights}


def resampling_options(args, ids) -> dict:
    """The resampling keywords: Poisson weights keyed by the items' ids (positions
    without --id); for the classic bootstrap, the default, the ids only when the
    permutation test keys its swaps by them (then any row order gives its p-value)."""
    if args.resampling in (None, DEFAULTS["resampling"]):
        keyed = getattr(args, "test", None) == "permutation" and ids is not None
        return {"ids": ids} if keyed else {}
    return {"resampling": args.resampling, "ids": ids}


def runs_options(args) -> dict:
    """The runs keywords (``--runs``, ``--paired-runs``, ``--estimand``: the API refuses
    the latter two alone); nothing without them."""
    estimand = getattr(args, "estimand", None)
    chosen = {} if estimand is None else {"estimand": estimand}
    if args.runs is None and not args.paired_runs:
        return chosen  # (--estimand suite alone: the API refuses it, naming it)
    if args.paired_runs and args.runs == "samples":
        raise InputError("--paired-runs is for --runs seeds: samples have no meaning across "
                         "items")
    return {"runs": args.runs, "paired_runs": args.paired_runs, **chosen}


def test_options(args) -> dict:
    """``--test`` (and ``--exact``): a test beside the interval (none without)."""
    out = {} if args.test is None else {"test": args.test}
    if getattr(args, "exact", None) is not None:
        out["exact"] = args.exact
    return out


def wants_ppi(args) -> bool:
    """Whether the command line asks for a prediction-powered comparison (a judge and
    gold labels: :mod:`pairboot.cli.ppi`)."""
    return (args.gold_a is not None or args.gold_b is not None or args.lam is not None
            or args.no_clip or getattr(args, "gold_score", None) is not None)


def wants_metrics(args) -> bool:
    """Whether --score asks for several metrics (:mod:`pairboot.cli.metrics`): given more
    than once, or once as ``NAME:...``."""
    scores = getattr(args, "scores", None) or []
    return len(scores) > 1 or any(":" in text for text in scores)
