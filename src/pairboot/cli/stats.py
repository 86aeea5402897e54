"""The columns of a metric's statistics on the command line: ``--metric`` read,
``--stats`` matched to the metric's statistics (by name, in any order, or mapped
``tp=TP``), and a system's columns found by name in one file."""

from __future__ import annotations

from collections.abc import Sequence

import pairboot.io as pbio
from pairboot.errors import InputError
from pairboot.metrics import (
    Metric,
    builtin_stats,
    holds,
    load_metric,
    match_statistics,
    statistics_for,
)


def metric_option(text: str) -> str | Metric:
    """--metric: a built-in metric's name, or the user's Metric for ``FILE.py:NAME`` /
    ``MODULE:NAME``."""
    return load_metric(text) if ":" in text else text


def _metric_stats(metric: str | Metric) -> tuple[str, ...]:
    """The default statistic columns of a metric (``--stats`` when not given)."""
    if isinstance(metric, Metric):
        return metric.stats
    name = metric
    stats = builtin_stats(name)  # ValueError for an unknown metric
    if stats is None:
        raise InputError(
            f"--metric {name} needs --stats: the names of its per-item statistic columns "
            "(for macro_f1, tp, fp, fn of every class: tp_1,fp_1,fn_1,tp_2,...)"
        )
    return stats


def stat_names(args) -> list[str] | None:
    """Statistic columns asked for by --stats/--score, or the metric's own names, in the
    metric's order.

    None means the one-file layout's plain --a/--b score columns.
    """
    if args.stats is not None and args.score is not None:
        raise InputError("give either --score (one score column) or --stats (several), not both")
    if args.stats is not None:
        return stats_columns(args.stats, args.metric_object)
    stats = _metric_stats(args.metric_object)
    if args.score is not None:  # the column of a metric's one statistic
        if len(stats) != 1:
            raise InputError(
                f"--metric {args.metric} needs --stats with its per-item statistics "
                f"({', '.join(stats)}), not --score"
            )
        return [args.score]
    if stats == ("score",):
        return None if len(args.files) == 1 else ["score"]
    return list(stats)


def split_names(text: str, option: str) -> list[str]:
    names = [s.strip() for s in text.split(",")]
    if not all(names):
        raise InputError(f"{option}: empty column name in {text!r}")
    if len(set(names)) != len(names):
        raise InputError(f"{option}: a column is named twice in {text!r}")
    return names


def stats_mapping(stats: Sequence[str], columns: Sequence[str]) -> str:
    return ",".join(f"{s}={c}" for s, c in zip(stats, columns))


def stats_columns(spec: str, metric: str | Metric) -> list[str]:
    """The columns ``--stats`` names, in the order of the metric's statistics.

    A list is matched by name, in any order (``fn,fp,tp``: see
    :func:`pairboot.metrics.match_statistics`); ``STAT=COL`` entries map every
    statistic explicitly.  A list whose names do not say which statistic each column
    holds is refused, showing the mapping a reading by position would have used: the
    statistics are never assigned by position silently.
    """
    entries = split_names(spec, "--stats")
    name = metric.name if isinstance(metric, Metric) else metric
    if any("=" in e for e in entries):
        pairs = [tuple(x.strip() for x in e.partition("=")[::2]) for e in entries]
        if not all(s and c for s, c in pairs):
            raise InputError(
                f"--stats {spec}: give every statistic as STAT=COLUMN (e.g. tp=TP,fp=FP,"
                "fn=FN), or list the columns alone"
            )
        stats = statistics_for(metric, len(pairs))
        given = dict(pairs)
        unknown = [s for s, _ in pairs if s not in stats]
        if unknown or len(given) != len(pairs):
            what = (f"{unknown[0]!r} is not one of them" if unknown
                    else "a statistic is named twice")
            raise InputError(
                f"--stats {spec}: metric {name!r} reads the statistics "
                f"{', '.join(stats)}; {what}"
            )
        missing = [s for s in stats if s not in given]
        if missing:
            raise InputError(
                f"--stats {spec}: metric {name!r} also needs {', '.join(missing)} "
                f"(it reads {', '.join(stats)})"
            )
        columns = [c for _, c in pairs]
        twice = next((c for c in columns if columns.count(c) > 1), None)
        if twice is not None:
            both = " and ".join(s for s, c in pairs if c == twice)
            raise InputError(
                f"--stats {spec}: column {twice!r} is given for two statistics ({both}); "
                "each statistic needs its own column"
            )
        return [given[s] for s in stats]
    stats = statistics_for(metric, len(entries))
    order = match_statistics(stats, entries)
    if order is not None:
        return [entries[j] for j in order]
    if len(entries) > len(stats):
        extra = match_statistics(stats, entries, extra=True)
        unused = [e for j, e in enumerate(entries) if extra is None or j not in extra]
        raise InputError(
            f"--stats {spec}: metric {name!r} reads {len(stats)} statistic(s) "
            f"({', '.join(stats)}), not {len(entries)}"
            + (f"; leave out {', '.join(unused)}" if extra is not None else "")
        )
    if len(entries) < len(stats):
        raise InputError(
            f"--stats {spec}: metric {name!r} reads {len(stats)} statistics "
            f"({', '.join(stats)}), got {len(entries)}"
        )
    named = [e for e in entries if any(holds(s, e) for s in stats)]
    if named:  # some names do say: a reading by position is no candidate
        strays = [e for e in entries if e not in named]
        unnamed = [s for s in stats if not any(holds(s, e) for e in entries)]
        what = (f"{' and '.join(map(repr, strays))} {'is' if len(strays) == 1 else 'are'} "
                "not among them" if strays else "some of them are named by two columns")
        known = [next((e for e in named if holds(st, e)), "COLUMN") for st in stats]
        fix = f"; map them: --stats {stats_mapping(stats, known)}" if unnamed else ""
        raise InputError(
            f"--stats {spec}: metric {name!r} reads {', '.join(stats)}; {what}{fix}"
        )
    raise InputError(
        f"--stats {spec}: the names do not say which statistic of metric {name!r} "
        f"({', '.join(stats)}) each column holds; by position they would be read as "
        f"{stats_mapping(stats, entries)}: if that is right, give --stats "
        f"{stats_mapping(stats, entries)}, or rename the columns"
    )


def system_column_candidates(system: str, stat: str) -> tuple[str, ...]:
    """The names the column of statistic ``stat`` of ``system`` may have in a one-file
    layout: ``{system}_{stat}``, ``{stat}_{system}``, ``{system}{stat}``, ``{stat}{system}``."""
    return tuple(dict.fromkeys(
        (f"{system}_{stat}", f"{stat}_{system}", f"{system}{stat}", f"{stat}{system}")))


def find_system_column(table: pbio.Table, system: str, stat: str) -> str:
    """The column of statistic ``stat`` for ``system`` in a one-file layout: of
    :func:`system_column_candidates`, exactly one must exist."""
    candidates = system_column_candidates(system, stat)
    found = [c for c in candidates if c in table.columns]
    if len(found) == 1:
        return found[0]
    if not found:
        raise InputError(
            f"{table.path}: no column for statistic {stat!r} of system {system!r} "
            f"(looked for {', '.join(map(repr, candidates))}); available columns: "
            f"{table.describe_columns()}"
        )
    raise InputError(
        f"{table.path}: several columns could hold statistic {stat!r} of system {system!r} "
        f"({', '.join(map(repr, found))}); rename the columns so only one matches"
    )


# ---------------------------------------------------------------------- stratum weights
