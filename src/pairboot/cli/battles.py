"""``pairboot battles FILE...``: ratings of systems judged against each other, a thin
shell over :func:`pairboot.io.preferences.read` and :func:`pairboot.compare_preferences`.

The files are read in one format (``--from``, or detected), the battles rated, and the
report written by :func:`pairboot.report.render`; ``--plot`` draws
:func:`pairboot.plot.plot_ratings`.  The subcommand is ``battles`` (not ``rank``, which
the aggregates over tasks may take).
"""

from __future__ import annotations

import warnings

import pairboot
import pairboot.io as pbio
from pairboot.cli.output import check_output, check_plot, check_stdout, deliver, report_text
from pairboot.cli.paths import input_files
from pairboot.cli.progress import ProgressBar
from pairboot.cli.status import EXIT_OK
from pairboot.errors import InputError

__all__ = ["run_battles"]

_TABLE_ONLY = ("prompt", "a", "b", "verdict", "game", "weight")


def _seed(text):
    if text is None or text.strip().lower() == "random":
        return text
    try:
        return int(text)
    except ValueError:
        raise InputError(f"--seed must be a whole number >= 0 or 'random', got {text!r}"
                         ) from None


def run_battles(args) -> int:
    """Read, rate, report."""
    read = input_files(args)
    how = check_output(args.output, read) if args.output is not None else None
    if how in (None, "stdout"):
        check_stdout()
    args.plot_kind = check_plot(args.plot, read, args.output) if args.plot else None
    seed = _seed(args.seed)
    columns = {name: getattr(args, name) for name in _TABLE_ONLY
               if getattr(args, name) != name}
    battles = pbio.preferences.read(args.files, args.from_format, baseline=args.baseline,
                                    strong_weight=args.strong_weight, columns=columns)
    bar = ProgressBar(args.resamples, enabled=not args.no_progress, what="fitting")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = pairboot.compare_preferences(
                battles, model=args.model, ties=args.ties, baseline=args.baseline,
                anchor=args.anchor, anchor_rating=args.anchor_rating, orders=args.orders,
                cluster=args.cluster, ridge=args.ridge, confidence_level=args.level,
                n_resamples=args.resamples, seed=seed, progress=bar)
    finally:
        bar.close()
    deliver(args, how, report_text(args, result), result.warnings,
            lambda plot: plot.plot_ratings(result))
    return EXIT_OK
