"""Writing the report safely: ``--output`` is checked before the run and written atomically.

A report must never overwrite one of the run's inputs, and a reader of the report file
must never see it half-written (a failed run leaves the previous file as it was).  A
device or a pipe (``/dev/null``, ``>(gzip > x)``) is written directly, never replaced.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Sequence

from pairboot.cli import signals
from pairboot.cli.parser import cli_spelling
from pairboot.cli.paths import input_files  # noqa: F401  (cli.power's import)
from pairboot.errors import InputError
from pairboot.io import STDIN
from pairboot.report import render, visible, workflow_commands


def write_atomically(path: str, text: str | bytes) -> None:
    """Write ``text`` (or bytes) to ``path`` via a temporary file in the same folder and
    os.replace.

    A reader never sees a half-written report, and a failed run leaves any previous file
    untouched.
    """
    import tempfile  # (a report to a file only; signals.run_folder watches for it)

    folder = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp",
                                   dir=folder)
        binary = isinstance(text, bytes)
        with (os.fdopen(fd, "wb") if binary
              else os.fdopen(fd, "w", encoding="utf-8", newline="\n")) as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        try:
            mode = os.stat(path).st_mode & 0o777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if tmp is not None:
            with signals.held():  # (a signal now must not leave the file half-removed)
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
        raise


def check_output(path: str, inputs: Sequence[str]) -> str:
    """Refuse an --output that cannot be written or would overwrite an input, before the
    run; return how to write it: "stdout", "atomic" (a file, through a temporary one) or
    "direct" (a device or pipe such as /dev/null, which must not be replaced by a file).

    ``inputs`` are every file the run reads (:func:`pairboot.cli.paths.input_files`);
    standard input counts when it is redirected from a file.
    """
    if path in (STDIN, "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"):
        return "stdout"  # (through the link, a redirected stdout's file would be replaced)
    if not path.strip():
        raise InputError("--output: no file name given")
    if os.path.isdir(path) or path.endswith(("/", os.sep)):
        raise InputError(f"--output {path}: names a folder, not a file")
    if re.fullmatch(r"/dev/(fd/\d+|stderr)|/proc/self/fd/\d+", path):
        return "direct"  # a descriptor (>(gzip > x)): through its link, never replaced
    target = os.path.realpath(path)  # a symbolic link: its target is the report
    exists = os.path.exists(target)
    if exists and not stat.S_ISREG(os.stat(target).st_mode):
        return "direct"
    for f in inputs:
        if f == STDIN:
            same = exists and _stdin_is(target)
        elif exists and os.path.isdir(f):  # a log folder: every file in it may be read
            same = _inside(target, f)
        else:
            same = exists and os.path.exists(f) and os.path.samefile(target, f)
        if same:
            name = "standard input" if f == STDIN else f
            what = "in an input folder" if os.path.isdir(f) else "an input"
            raise InputError(f"--output {path} is {what} ({name}); it would be overwritten")
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise InputError(f"--output {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise InputError(f"--output {path}: cannot write in the folder {folder} (permission "
                         "denied)")
    return "atomic"


def check_stdout() -> None:
    """Refuse, before the run, a report to a closed standard output (``>&-``)."""
    stream = sys.stdout
    closed = stream is None or stream.closed
    if not closed:
        try:
            fd = stream.fileno()
        except (OSError, ValueError):  # a stream of Python's own (captured): it writes
            return
        try:
            os.fstat(fd)
        except OSError:
            closed = True
    if closed:
        raise InputError("standard output is closed: give --output FILE for the report")


def _inside(path: str, folder: str) -> bool:
    """Whether the existing file ``path`` lies in ``folder`` (at any depth)."""
    folder = os.path.realpath(folder)
    return os.path.commonpath([folder, os.path.realpath(path)]) == folder


def _stdin_is(path: str) -> bool:
    try:
        here, there = os.fstat(sys.stdin.fileno()), os.stat(path)
    except (OSError, ValueError, AttributeError):  # (no real stdin: nothing to overwrite)
        return False
    return stat.S_ISREG(here.st_mode) and (here.st_dev, here.st_ino) == (there.st_dev,
                                                                          there.st_ino)


def write_report(text: str, how: str | None, path: str | None) -> None:
    """Write the report as :func:`check_output` said (None: no --output, to stdout)."""
    if how in (None, "stdout"):
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:  # the reader left (``| head``): the rest goes nowhere
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())  # (so the exit's flush cannot fail)
            os.close(devnull)
    elif how == "direct":
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    else:
        write_atomically(os.path.realpath(path), text)


PLOT_FORMATS = ("png", "svg", "pdf")
"""The --plot file's formats, by its extension."""


def check_plot(path: str, inputs: Sequence[str], report: str | None = None) -> str:
    """Refuse a --plot file of another format, standard output, the ``--output`` file
    (``report``), one that cannot be written or would overwrite an input, or any without
    matplotlib, before the run; its format."""
    kind = os.path.splitext(path)[1].lower().lstrip(".")
    if kind not in PLOT_FORMATS:
        raise InputError(f"--plot {path}: give a file ending in "
                         f"{', '.join('.' + k for k in PLOT_FORMATS)}")
    if report is not None and os.path.realpath(report) == os.path.realpath(path):
        raise InputError(f"--plot {path} is also the --output file: the picture would "
                         "replace the report; give two files")
    how = check_output(path, inputs)
    if how == "stdout":
        raise InputError("--plot: a picture is not written to standard output; name a file")
    _matplotlib()  # (before the run, not after the report)
    return kind


def _matplotlib():
    """matplotlib, for --plot: an ImportError naming the extra without it."""
    try:
        import matplotlib
    except ImportError:
        raise ImportError('--plot needs matplotlib: pip install "pairboot[plot]"') from None
    return matplotlib


def write_plot(figure, path: str, kind: str) -> None:
    """Save a matplotlib figure to ``path``, atomically, as ``kind``."""
    import io

    buffer = io.BytesIO()
    figure.savefig(buffer, format=kind)
    write_atomically(os.path.realpath(path), buffer.getvalue())


SHOWS_WARNINGS = ("text", "markdown")
"""Report formats a reader of standard output sees the warnings in; for the others, and
for a report written to a file, each warning is also one line ``warning: ...`` on
standard error."""


def report_text(args, result, context=None, *, spelled: bool = False) -> str:
    """``result``'s report in ``args.format`` (``spelled``: in the command line's spelling,
    but for JSON, which mirrors the result's fields).  The MCP server asks for a report
    beside the JSON of the same run: ``args.also``, when set, maps formats to their
    reports, filled in here."""
    def one(fmt: str) -> str:
        text = render(result, fmt, context)
        return cli_spelling(text) if spelled and fmt != "json" else text

    also = getattr(args, "also", None)
    for fmt in also or ():
        also[fmt] = one(fmt)
    return one(args.format)


def deliver(args, how: str | None, text: str, result_warnings, draw) -> None:
    """Write the report, the --plot picture (``draw(pairboot.plot)``), and the warnings
    as ``warning: ...`` lines where the report does not show them (a file, or a machine
    format)."""
    signals.check()  # (nothing is written once a signal came)
    write_report(text, how, args.output)
    if args.plot:
        draw_plot(args, draw)
    if args.format == "github":  # (standard output may be the step summary: stderr)
        for line in workflow_commands(cli_spelling(w) for w in result_warnings):
            print(line, file=sys.stderr)
    elif not (how in (None, "stdout") and args.format in SHOWS_WARNINGS):
        for w in result_warnings:
            print(f"warning: {one_line(w)}", file=sys.stderr)


def one_line(message: str) -> str:
    """A message of the library as one line of standard error: the command line's
    spelling of its arguments, its whitespace collapsed, and what the data put in it
    shown as :func:`pairboot.report.visible` shows it (no escape sequence, bidi control
    or workflow command)."""
    return visible(" ".join(cli_spelling(message).split()))


def draw_plot(args, draw) -> None:
    """--plot: ``draw(pairboot.plot)`` makes the axes, saved to the file atomically; the
    figure is closed then (``main`` run in a notebook or a test would leave it open)."""
    _matplotlib().use("Agg")  # (a file, never a window)
    import matplotlib.pyplot as plt

    import pairboot.plot as plot

    ax = draw(plot)
    try:
        write_plot(ax.figure, args.plot, args.plot_kind)
    finally:
        plt.close(ax.figure)
