"""The command line: ``pairboot compare ...``, a thin shell over :func:`pairboot.compare`
(and ``pairboot power ...`` over :func:`pairboot.power`: :mod:`~pairboot.cli.power`).

It reads and aligns the inputs (:mod:`pairboot.io`), calls ``compare`` and writes a report
(:mod:`pairboot.report`).  Two layouts::

    pairboot compare base.csv new.csv --id id --score score     # a file per system
    pairboot compare runs.csv --a base --b new [--id id]        # a column per system

and a family (more files, ``--systems``, ``--baseline``, ...) through
:func:`pairboot.compare_many`.  Several runs per system: long tables with ``--run COL
--runs seeds|samples`` (:mod:`~pairboot.cli.runs`), or harness logs written ``NAME=PATH``
with ``--runs`` (:mod:`~pairboot.cli.harness`).

- :mod:`~pairboot.cli.parser` — the commands' parsers, and how messages spell compare()'s
  arguments; :mod:`~pairboot.cli.arguments` — the pieces they are built from;
- :mod:`~pairboot.cli.inputs` — from the options to compare()'s inputs;
- :mod:`~pairboot.cli.output` — ``--output`` checked before the run, written atomically;
- :mod:`~pairboot.cli.progress` — the status lines while reading and resampling.

Exit status: 0 on success; 1 when ``--fail-if`` was given and the verdict fails it; 2
on bad input or usage (or memory run out), with one line ``error: ...`` on standard
error and never a traceback; 3 on an internal error (a bug: one line too); 128 + the
signal's number when SIGTERM, SIGINT or SIGHUP stopped the run
(:mod:`~pairboot.cli.signals`).  The report carries
compare()'s warnings; when it is not a text or Markdown report on standard output
(``--output``, ``--format json`` or ``latex``), each warning is also one line
``warning: ...`` on standard error.  ``--format github`` prints GitHub's workflow
commands on standard error instead: ``::warning::`` for each warning, ``::error::`` for
a failed ``--fail-if`` (:mod:`pairboot.report.github`: the runner reads both streams,
and standard output may be ``$GITHUB_STEP_SUMMARY``).  Every message uses the command line's option
names (``--resamples``, not ``n_resamples``).
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from collections.abc import Sequence

import pairboot
from pairboot.cli import signals
from pairboot.cli.status import EXIT_INTERNAL, EXIT_OK, EXIT_USAGE

__all__ = ["main", "run"]


def _cli_message(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        text = f"{exc.filename}: {exc.strerror}"
    else:
        text = str(exc) or type(exc).__name__
    from pairboot.cli.output import one_line  # (see main)

    return one_line(text)


def run() -> None:
    """The ``pairboot`` command: :func:`main`, then exit.

    SIGTERM, SIGINT and SIGHUP stop the run as :mod:`~pairboot.cli.signals` says; its
    temporary files live in a folder of their own, removed at exit.  When pyarrow has
    read a file, the process leaves without the interpreter's teardown: Arrow's worker
    threads can abort it ("terminate called without an active exception", exit 134,
    after the report or the error line: apache/arrow#34314).  Everything is written by
    then; the standard streams are flushed first.
    """
    global _PAUSED
    _PAUSED = gc.isenabled()
    gc.disable()  # (until the options are read: see _collect)
    signals.install()
    code = EXIT_INTERNAL
    with signals.run_folder():
        sys.excepthook = signals.last_resort()
        code = main()
    stop = signals.received()
    if stop is not None and code != signals.exit_status(stop):  # (after the report)
        _say(signals.message(stop))
        code = signals.exit_status(stop)
    if "pyarrow" in sys.modules:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):  # closed (None): nothing to say
                pass
        os._exit(code)
    sys.exit(code)


_PAUSED = False
"""Whether :func:`run` paused the garbage collector for the start-up."""


def _collect() -> None:
    """The collector back on after the options are read, when :func:`run` paused it.
    Importing numpy and the parser's layers makes long-lived objects (modules,
    functions, classes) that every full pass would walk for nothing: they are frozen
    out of later passes (:func:`gc.freeze`), and the start-up makes no pass at all;
    about 5% of a small command's instructions (docs/performance.md)."""
    global _PAUSED
    if _PAUSED:
        _PAUSED = False
        gc.freeze()
        gc.enable()


def _say(line: str) -> None:
    """One line on standard error (none if it is closed)."""
    try:
        print(line, file=sys.stderr)
    except (OSError, ValueError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 --fail-if failed, 2 bad
    input or usage, 3 internal error, 128 + the signal's number when one stopped it).

    Each command's modules are imported when it runs (``pairboot --version`` loads
    neither numpy nor the report layer; ``power`` does not load ``compare``'s readers):
    start-up is most of what a small command waits for (docs/performance.md).
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["--version"]:  # (argparse's answer, before the parser: its choices
        from pairboot._version import __version__  # load the writers)

        print(f"pairboot {__version__}")
        return EXIT_OK
    try:
        from pairboot.cli.parser import COMMANDS, build_parser, parse

        args = parse(build_parser(argv[0] if argv[:1] and argv[0] in COMMANDS else None),
                     argv)
    except SystemExit as exc:  # --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except BaseException as exc:  # (a signal while the options were read)
        return _failure(exc)
    finally:
        _collect()
    try:
        if args.command == "plan":
            print(pairboot.plan_sha256(args.plan_file))
            return EXIT_OK
        if args.command == "mcp":  # (the server: until the client closes the streams)
            from pairboot.mcp_server import serve

            serve()
            return EXIT_OK
        if args.command == "power":
            from pairboot.cli.power import run_power

            return run_power(args)
        if args.command == "battles":
            from pairboot.cli.battles import run_battles

            return run_battles(args)
        if args.command in ("agreement", "gold-labels"):
            from pairboot.cli.judges import run_agreement, run_gold_labels

            return (run_agreement if args.command == "agreement" else run_gold_labels)(args)
        if args.command == "watch":
            from pairboot.cli.watch import run_watch

            return run_watch(args)
        signals.quiet_arrow()  # (pyarrow reads the files: the signals stay ours)
        from pairboot.cli.compare import run_compare

        return run_compare(args)
    except BaseException as exc:
        return _failure(exc)


def _failure(exc: BaseException) -> int:
    """The one line and exit status of an exception that ended the run.  After a stopping
    signal any exception is the signal's (C code may have swallowed its own and failed
    later, as pandas half-imported does)."""
    stop = signals.received()
    if stop is None and isinstance(exc, signals.Terminated):
        stop = exc.signum
    if stop is None and isinstance(exc, KeyboardInterrupt):
        stop = signal.SIGINT
    if stop is not None:
        _say(signals.message(stop))
        return signals.exit_status(stop)
    if isinstance(exc, (ValueError, OSError, ImportError)):  # InputError is a ValueError
        _say(f"error: {_cli_message(exc)}")
        return EXIT_USAGE
    if isinstance(exc, MemoryError):
        detail = f" ({_cli_message(exc)})" if str(exc) else ""
        hint = getattr(exc, "hint", "while reading the inputs; --stream reads files in "
                       "chunks")
        _say(f"error: not enough memory{detail} {hint}")
        return EXIT_USAGE
    if isinstance(exc, Exception):  # a bug: still one line, and say so
        _say(f"error: internal error ({type(exc).__name__}: {_cli_message(exc)}); "
             "please report it with the command that caused it")
        return EXIT_INTERNAL
    raise exc  # (SystemExit from deep inside, GeneratorExit: not ours to turn into a line)
