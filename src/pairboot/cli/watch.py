"""``pairboot watch``: a confidence sequence over paired records as they arrive, a thin
shell over :func:`pairboot.sequential`.

It reads JSON Lines records with ids from files (``--follow``: as they are appended)
or standard input, pairs A's and B's scores by id (a record may carry both, ``--a``
and ``--b``, or one system's: ``--system-column`` and ``--score``, or one file per
system), feeds each pair to the sequence the moment it is complete, keeps a verdict line
up to date on standard error, and exits when the rule decides: 0, or 1 when the verdict
fails ``--fail-if``; 2 for bad input.  Waiting is bounded: ``--timeout`` seconds without
a new record end the watch undecided.
"""

from __future__ import annotations

import json
import math
import os
import select
import sys
import time

import pairboot
from pairboot.cli import signals
from pairboot.cli.output import check_output, check_stdout, write_report
from pairboot.cli.status import EXIT_FAILED, EXIT_OK
from pairboot.errors import InputError
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
        if self.two_files:
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
            have[side] = (self._number(value, where, f"{name}'s score"), where)
        if "a" in have and "b" in have:
            del self.waiting[item]
            self.paired[item] = where
            return [(item, have["a"][0], have["b"][0], have["group"], where)]
        return []

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
        sequence=args.sequence, min_units=args.min_units)


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
        got = False
        for index, source in enumerate(sources):
            for line, text in source.lines():
                got = True
                for pair in pairing.add(index, source, line, text):
                    _feed(sequence, groups.add(pair) if groups else [pair])
                    if sequence.stopped:
                        break
                if sequence.stopped:
                    break
            if sequence.stopped:
                break
        if sequence.stopped:
            break
        if all(s.done for s in sources):
            if groups:
                _feed(sequence, groups.flush())
            ended = True
            break
        now = time.monotonic()
        if got:
            last_record = now
        elif now - last_record > args.timeout:
            break
        if live and sequence.result.n_units != shown:
            shown = _status(sequence.result, tty, shown, args.every)
        if not got:
            time.sleep(args.poll)
    result = sequence.result
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
    """Pairs into the sequence (one update: a group, or one item), the library's
    refusal (a score outside the bounds) as one line naming the record."""
    if not pairs:
        return
    a = [p[1] for p in pairs]
    b = [p[2] for p in pairs]
    try:
        sequence.update(a, b, groups=[p[3] for p in pairs] if pairs[0][3] is not None
                        else None)
    except InputError as exc:
        bounds = sequence.bounds
        for p in pairs:
            for name, value in (("A", p[1]), ("B", p[2])):
                if bounds is not None and not bounds[0] <= value <= bounds[1]:
                    raise InputError(f"{p[4]}: id {p[0]!r}: {name}'s score {value:g} is "
                                     f"outside --bounds {bounds[0]:g},{bounds[1]:g}") from None
        raise InputError(f"{pairs[-1][4]}: {exc}") from None


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
