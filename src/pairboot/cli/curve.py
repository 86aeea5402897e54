"""``pairboot compare ... --runs samples --curve pass^k``: pass^k (pass@k) at every k, a
thin shell over :func:`pairboot.trials_curve`.

The inputs are read as for ``--runs samples`` (a long table with ``--run``, Inspect logs
with epochs, tau-bench results, logs written ``NAME=PATH``), then the two systems' items
x trials tables go to ``trials_curve`` instead of ``compare``; the report is the curve's
writer for ``--format`` and ``--plot`` draws :func:`pairboot.plot.plot_curve`.  What the
curve does not take (a design, a test, a margin, a gate, a family) is refused before
anything is read, naming the option.
"""

from __future__ import annotations

import warnings

import pairboot
from pairboot import TrialsCurve
from pairboot.cli.arguments import given_options
from pairboot.cli.output import deliver, report_text
from pairboot.cli.parser import EXIT_OK
from pairboot.errors import InputError
from pairboot.report import formats_of

__all__ = ["check_curve", "run_curve"]

_VALUED = {"metric": "--metric", "group": "--group", "group_weighting": "--group-weighting",
           "stratum": "--stratum", "stratum_weights": "--stratum-weights",
           "alternative": "--alternative", "hypothesis": "--hypothesis",
           "margin": "--margin", "test": "--test", "resampling": "--resampling",
           "scheduler": "--scheduler", "estimand": "--estimand", "fail_if": "--fail-if",
           "plan": "--plan", "correction": "--correction", "baseline": "--baseline",
           "tasks_as": "--tasks-as", "top": "--top"}
"""Options with a value that the curve does not take (given at all: refused)."""

_FLAGS = {"stream": "--stream", "unpaired": "--unpaired",
          "paired_runs": "--paired-runs", "lower_is_better": "--lower-is-better"}
"""Flags the curve does not take (set: refused)."""


def check_curve(args) -> None:
    """Refuse, before reading, what ``--curve`` cannot do; ``args.ks`` becomes the list
    of ks (None: every k)."""
    if args.curve is None:
        if args.ks is not None:
            raise InputError("--ks chooses the ks of --curve: give --curve pass^k (or "
                             "pass@k) too")
        return
    given = given_options(args)
    if args.alternative == "two-sided":
        given.discard("alternative")  # (the curve's own)
    refused = [flag for name, flag in _VALUED.items() if name in given]
    refused += [flag for name, flag in _FLAGS.items() if getattr(args, name, None)]
    if args.exact is not None:
        refused.append("--exact" if args.exact else "--no-exact")
    if refused:
        raise InputError(f"--curve does not take {', '.join(refused)}: it compares two "
                         "systems' pass^k or pass@k over k, two-sided, on items resampled "
                         "alone (use --metric 'pass^4' without --curve for one k with "
                         "those)")
    if args.runs != "samples":
        raise InputError("--curve needs --runs samples: each item's trials (a long table "
                         "with --run, Inspect logs with epochs, tau-bench results)")
    if args.format not in formats_of(TrialsCurve):
        raise InputError(f"--format {args.format} is not written for a curve; choose one "
                         f"of {', '.join(formats_of(TrialsCurve))}")
    if args.ks is not None:
        args.ks = _ks(args.ks)


def _ks(text: str) -> list[int]:
    parts = [part.strip() for part in text.split(",")]
    try:
        return [int(part) for part in parts]
    except ValueError:
        raise InputError(f"--ks must be whole numbers separated by commas (1,2,4), got "
                         f"{text!r}") from None


def run_curve(args, how: str | None, a, b, ids, names: tuple[str, str]) -> int:
    """trials_curve() of the two systems' items x trials tables, and its report."""
    with warnings.catch_warnings():  # (the report shows the result's warnings)
        warnings.simplefilter("ignore")
        result = pairboot.trials_curve(
            a, b, kind=args.curve, ks=args.ks, names=names, confidence_level=args.level,
            n_resamples=args.resamples, method=args.method, seed=args.seed, ids=ids)
    deliver(args, how, report_text(args, result), result.warnings,
            lambda plot: plot.plot_curve(result)[0])
    return EXIT_OK
