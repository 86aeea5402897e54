"""``pairboot watch``: a confidence sequence over paired records as they arrive, a thin
shell over :func:`pairboot.sequential`.

It reads JSON Lines records with ids from files (``--follow``: as they are appended)
or standard input, pairs A's and B's scores by id (a record may carry both, ``--a``
and ``--b``, or one system's: ``--system-column`` and ``--score``, or one file per
system), feeds the pairs each read completes to the sequence in one update (the rule
looks after each pair of it, so it stops where it would pair by pair), keeps a verdict
line up to date on standard error, and exits when the rule decides: 0, or 1 when the verdict
fails ``--fail-if``; 2 for bad input.  Waiting is bounded: ``--timeout`` seconds without
a new record end the watch undecided.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import select
import sys
import time

import numpy as np

import pairboot
from pairboot.cli import signals
from pairboot.cli.output import check_output, check_stdout, write_report
from pairboot.cli.stats import metric_option, stat_names, system_column_candidates
from pairboot.cli.status import EXIT_FAILED, EXIT_OK
from pairboot.errors import InputError
from pairboot.metrics import MEAN, StatisticError, resolve_metric
from pairboot.report import (
    gate_conflict,
    gate_hypothesis,
    render,
    sequential_failed,
    sequential_status,
    workflow_commands,
)

__all__ = ["run_watch"]

class Source:
    """One input's complete lines as they arrive: a file read on from where it was
    left (``follow``: never at its end), or standard input."""

    def __init__(self, path: str | None, follow: bool):
        self.name = "standard input" if path in (None, "-") else path
        self.follow = follow and path not in (None, "-")
        self.fd = sys.stdin.fileno() if path in (None, "-") else os.open(path, os.O_RDONLY)
        self.stdin = path in (None, "-")
        self.buffer = b""
        self.line = 0
        self.done = False

    def lines(self) -> list[tuple[int, str]]:
        """The complete lines available now, numbered (a last line without its newline
        counts when the input has ended)."""
        if self.done:
            return []
        chunks = []
        for _ in range(1024):  # (bounded: at most 64 MiB a look)
            if self.stdin and not select.select([self.fd], [], [], 0)[0]:
                break
            chunk = os.read(self.fd, 65536)
            if not chunk:
                if not self.follow:
                    self.done = True
                break
            chunks.append(chunk)
        data = self.buffer + b"".join(chunks)
        *complete, self.buffer = data.split(b"\n")
        if self.done and self.buffer:
            complete.append(self.buffer)
            self.buffer = b""
        out = []
        for raw in complete:
            self.line += 1
            if raw.strip():
                out.append((self.line, raw.decode("utf-8", errors="replace")))
        return out


class Pairing:
    """Records into pairs by id: a pair is complete when both scores have come."""

    def __init__(self, args, sources: list[Source]):
        self.args = args
        self.two_files = len(sources) == 2
        self.waiting: dict = {}
        self.paired: dict = {}
        self.stats = None  # (a pooled metric: its statistics' keys, in its order)
        metric = args.metric_object
        if not (metric is MEAN or isinstance(metric, str) and metric.strip().lower()
                == "mean"):
            self.stats = stat_names(args) or ["score"]
            self.metric = resolve_metric(metric, len(self.stats))
        self.columns: dict = {}

    def _number(self, value, where: str, what: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not \
                math.isfinite(value):
            raise InputError(f"{where}: {what} must be a finite number, got {value!r}")
        return float(value)

    def add(self, source_index: int, source: Source, line: int, text: str):
        """The pairs (id, a, b, group, where) this record completes."""
        args = self.args
        where = f"{source.name} line {line}"
        try:
            record = json.loads(text)
        except json.JSONDecodeError:
            raise InputError(f"{where}: not a JSON record") from None
        if not isinstance(record, dict) or args.id not in record:
            raise InputError(f"{where}: no id (--id {args.id})")
        item = record[args.id]
        if not isinstance(item, (str, int)) or isinstance(item, bool):
            raise InputError(f"{where}: the id must be text or an integer, got {item!r}")
        scores = {}
        if self.stats is not None:
            scores = self._statistics(source_index, record, where, item)
            if scores is None:
                return []  # (a third system's record: not compared)
        elif self.two_files:
            scores["ab"[source_index]] = record.get(args.score or "score")
        elif args.system_column is not None:
            system = record.get(args.system_column)
            side = {args.a: "a", args.b: "b"}.get(system)
            if side is None:
                return []  # (a third system's record: not compared)
            scores[side] = record.get(args.score or "score")
        else:
            for side, key in (("a", args.a or "a"), ("b", args.b or "b")):
                if key in record:
                    scores[side] = record[key]
            if not scores:
                raise InputError(f"{where}: id {item!r} has neither --a {args.a or 'a'} nor "
                                 f"--b {args.b or 'b'}")
        if item in self.paired:
            raise InputError(f"{where}: id {item!r} repeated (paired at "
                             f"{self.paired[item]})")
        have = self.waiting.setdefault(item, {"group": record.get(args.group)
                                              if args.group else None})
        for side, value in scores.items():
            name = "A" if side == "a" else "B"
            if value is None:
                raise InputError(f"{where}: id {item!r} has no score for {name}")
            if side in have:
                raise InputError(f"{where}: id {item!r} repeated ({name}'s score came at "
                                 f"{have[side][1]})")
            if isinstance(value, tuple):  # (a pooled metric's statistics, checked)
                have[side] = (value, where)
                continue
            have[side] = (self._number(value, where, f"{name}'s score"), where)
        if "a" in have and "b" in have:
            del self.waiting[item]
            self.paired[item] = where
            return [(item, have["a"][0], have["b"][0], have["group"], where)]
        return []

    def _statistics(self, source_index: int, record: dict, where: str, item):
        """A pooled metric's statistics in a record, per system (``{"a": (...), ...}``),
        read from the keys compare would read as columns: the metric's statistics (or
        --stats) in a record of one system (two files, --system-column), and each
        system's ``{a}_{stat}`` and the like (:func:`pairboot.cli.stats.
        find_system_column`'s names) in a record of both; None for a third system."""
        args = self.args
        if self.two_files:
            keys = {"ab"[source_index]: self.stats}
        elif args.system_column is not None:
            side = {args.a: "a", args.b: "b"}.get(record.get(args.system_column))
            if side is None:
                return None
            keys = {side: self.stats}
        else:
            keys = {}
            for side, system in (("a", args.a or "a"), ("b", args.b or "b")):
                found = self._system_keys(record, system, where)
                if found is not None:
                    keys[side] = found
            if not keys:
                raise InputError(f"{where}: id {item!r} has the statistics "
                                 f"({', '.join(self.stats)}) of neither --a "
                                 f"{args.a or 'a'} nor --b {args.b or 'b'} (keys such as "
                                 f"{system_column_candidates(args.a or 'a', self.stats[0])[0]})")
        out = {}
        for side, names in keys.items():
            system = "A" if side == "a" else "B"
            values = []
            for key in names:
                if key not in record:
                    raise InputError(f"{where}: id {item!r}: {system}'s record has no "
                                     f"{key!r} (--metric {self.metric.name} reads "
                                     f"{', '.join(names)})")
                values.append(self._number(record[key], where, f"{system}'s {key!r}"))
            try:
                self.metric.per_item(np.array([values]))
            except StatisticError as exc:
                raise InputError(f"{where}: id {item!r}: {system}'s "
                                 f"{names[exc.stat]!r}: {exc.reason}") from None
            out[side] = tuple(values)
        return out

    def _system_keys(self, record: dict, system: str, where: str) -> list[str] | None:
        """One system's statistics' keys in a record of both (compare's names for a
        system's columns in one file), None when the record has none of them."""
        shape = (system, tuple(record))
        if shape not in self.columns:
            found = []
            for stat in self.stats:
                names = [c for c in system_column_candidates(system, stat) if c in record]
                if len(names) > 1:
                    raise InputError(f"{where}: several keys could hold statistic {stat!r} "
                                     f"of {system!r} ({', '.join(map(repr, names))})")
                found.append(names[0] if names else None)
            present = [k for k in found if k is not None]
            if present and len(present) < len(found):
                stat = self.stats[found.index(None)]
                raise InputError(f"{where}: no key for statistic {stat!r} of {system!r} "
                                 "(looked for "
                                 f"{', '.join(map(repr, system_column_candidates(system, stat)))})")
            self.columns[shape] = found if present else None
        return self.columns[shape]

    def unpaired(self) -> str | None:
        """The first id still waiting for one system's score, in words."""
        for item, have in self.waiting.items():
            side = "A" if "a" in have else "B"
            other = "B" if side == "A" else "A"
            return (f"id {item!r} has only {side}'s score ({have[side.lower()][1]}); "
                    f"{other}'s never came")
        return None


class Groups:
    """Items of whole groups held until the group ends (the next group begins, or the
    input ends); a group seen again after it ended is bad input."""

    def __init__(self):
        self.current = None
        self.items: list = []
        self.closed: set = set()

    def add(self, pair) -> list:
        group, where = pair[3], pair[4]
        if group is None:
            raise InputError(f"{where}: no group (--group)")
        if group in self.closed:
            raise InputError(f"{where}: group {group!r} came back after other groups: "
                             "groups must arrive whole")
        out = []
        if self.current is not None and group != self.current:
            out = self.flush()
        self.current = group
        self.items.append(pair)
        return out

    def flush(self) -> list:
        out, self.items = self.items, []
        if self.current is not None:
            self.closed.add(self.current)
        return out


def _sequence(args):
    """The sequence the options ask for; a margin's gate sets its hypothesis, as in
    compare (``--fail-if inferior --margin 0.02`` tests non-inferiority)."""
    hypothesis = gate_hypothesis(args.fail_if, args.hypothesis, args.margin)
    conflict = gate_conflict(args.fail_if, args.alternative, args.lower_is_better)
    if conflict is not None:
        raise InputError(conflict)
    return pairboot.sequential(
        confidence_level=args.level, bounds=args.bounds, alternative=args.alternative,
        hypothesis=hypothesis, margin=args.margin,
        lower_is_better=args.lower_is_better, budget=args.budget, n_target=args.n_target,
        sequence=args.sequence, min_units=args.min_units, metric=args.metric_object)


def _check(args) -> list[Source]:
    if len(args.files) > 2:
        raise InputError("watch reads one input (both systems' records) or two (A's, then "
                         f"B's), got {len(args.files)}")
    if len(args.files) == 2 and (args.system_column or args.a or args.b):
        raise InputError("two files are A's and B's records: --score names their score; "
                         "--a, --b and --system-column are for one input")
    if args.system_column and not (args.a and args.b):
        raise InputError("--system-column needs --a and --b: the values naming A and B")
    for name, value in (("--timeout", args.timeout), ("--poll", args.poll)):
        if not (math.isfinite(value) and value > 0):
            raise InputError(f"{name} must be a positive number of seconds, got {value:g}")
    if args.every < 1:
        raise InputError(f"--every must be a positive integer, got {args.every}")
    paths = args.files or ["-"]
    if paths.count("-") > 1:
        raise InputError("standard input ('-') can be read once")
    return [Source(p, args.follow) for p in paths]


def run_watch(args) -> int:
    """Watch the records until the rule decides, the input ends or the timeout; write
    the report; the exit status."""
    how = None
    if args.output:
        how = check_output(args.output, [f for f in args.files if f != "-"])
    else:
        check_stdout()
    args.metric_object = metric_option(args.metric)
    sequence = _sequence(args)
    sources = _check(args)
    pairing = Pairing(args, sources)
    groups = Groups() if args.group else None
    live = not args.no_progress
    tty = live and sys.stderr.isatty()
    shown = 0
    last_record = time.monotonic()
    ended = False
    while not sequence.stopped:  # (bounded: the input ends, or --timeout passes idle)
        signals.check()
        got, batch, problem = False, [], None
        try:  # (the pairs of one read, fed in one update: the rule looks after each)
            for index, source in enumerate(sources):
                for line, text in source.lines():
                    got = True
                    for pair in pairing.add(index, source, line, text):
                        batch.extend(groups.add(pair) if groups else [pair])
        except InputError as exc:  # (bad input after the stop is never reached)
            problem = exc
        ended = problem is None and all(s.done for s in sources)
        if ended and groups:
            batch.extend(groups.flush())
        _feed(sequence, batch)
        if sequence.stopped or ended:
            break
        if problem is not None:
            raise problem
        now = time.monotonic()
        if got:
            last_record = now
        elif now - last_record > args.timeout:
            break
        if live and sequence.result.n_units != shown:
            shown = _status(sequence.result, tty, shown, args.every)
        if not got:
            time.sleep(args.poll)
    # (watch stops reading at the stop: the records its last read held after it are
    # not counted as given, as when every record was an update of its own)
    result = dataclasses.replace(sequence.result, n_unused=0)
    if live:
        _status(result, tty, -1, args.every)
        if tty:
            sys.stderr.write("\n")
    if ended and not sequence.stopped:
        missing = pairing.unpaired()
        if missing is not None:
            raise InputError(missing)
    write_report(render(result, args.format), how, args.output)
    if not sequential_failed(result, args.fail_if):
        return EXIT_OK
    if args.format == "github":  # (an annotation on the run, as compare's --fail-if)
        failure = f"pairboot: --fail-if {args.fail_if}: {sequential_status(result)}"
        print(workflow_commands((), failure)[0], file=sys.stderr)
    return EXIT_FAILED


def _feed(sequence, pairs: list) -> None:
    """Pairs into the sequence, in one update (the rule looks after each unit of it and
    stops at the first that decides), the library's refusal (a score outside the
    bounds) as one line naming the record: the units before the refused one are fed
    first, and a stop among them wins, as when every record was an update of its own."""
    if not pairs:
        return
    try:
        sequence.update([p[1] for p in pairs], [p[2] for p in pairs],
                        groups=[p[3] for p in pairs] if pairs[0][3] is not None else None)
        return
    except InputError as exc:
        refused, message = _refused(sequence, pairs, exc)
    first = refused
    while first > 0 and pairs[first][3] is not None and pairs[first - 1][3] == pairs[
            refused][3]:  # (bounded: back to its group's first record)
        first -= 1
    _feed(sequence, pairs[:first])  # (none refused among them)
    if not sequence.stopped:
        raise InputError(message) from None


def _refused(sequence, pairs: list, exc: InputError) -> tuple[int, str]:
    """The first refused pair of an update, and why, in a line naming its record."""
    bounds = sequence.bounds
    for k, p in enumerate(pairs if bounds is not None else ()):
        for name, value in (("A", p[1]), ("B", p[2])):
            if not bounds[0] <= value <= bounds[1]:
                return k, (f"{p[4]}: id {p[0]!r}: {name}'s score {value:g} is outside "
                           f"--bounds {bounds[0]:g},{bounds[1]:g}")
    k = getattr(exc, "position", None)
    k = len(pairs) - 1 if k is None else k
    return k, f"{pairs[k][4]}: {exc}"


def _status(result, tty: bool, shown: int, every: int) -> int:
    """The verdict line: in place on a terminal, else a line every ``every`` units (and
    the last, ``shown == -1``)."""
    line = sequential_status(result)
    if tty:
        sys.stderr.write("\r\x1b[2K" + line)
        sys.stderr.flush()
    elif shown == -1 or result.n_units // every > shown // every:
        sys.stderr.write(line + "\n")
    return result.n_units
