"""Stopping a run: SIGTERM (a CI job's timeout), SIGINT (Ctrl-C) and SIGHUP (a closed
terminal) end it promptly, without a traceback, with nothing left behind, and with the
status of the signal (128 + its number: 143, 130, 129).

The handler records the signal and raises in the main thread (:class:`Terminated`, or
KeyboardInterrupt for Ctrl-C), so temporary files are removed on the way out.  An
exception raised there can be lost: C code that runs Python may swallow it (pyarrow
imports pandas from C++ and drops any error of that import), so the run also stops at
its next checkpoint (:func:`check`: every chunk read, every batch of resamples), and
any error after a signal is the signal's.  pyarrow's own signal handling is switched
off (:func:`quiet_arrow`): it takes SIGINT and SIGTERM over while it parses, and loses
one that arrives as it finishes.  A second signal during the clean-up is held
(:func:`held`), so that the clean-up is not cut short.  The run's temporary files go to
a folder of its own (:func:`run_folder`), removed at exit whatever happened.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import sys

__all__ = ["Terminated", "install", "check", "received", "held", "quiet_arrow",
           "run_folder", "exit_status", "message"]

STOPS = tuple(s for s in (getattr(signal, n, None) for n in ("SIGTERM", "SIGINT", "SIGHUP"))
              if s is not None)
"""The signals that end a run cleanly (SIGHUP where the platform has it)."""

_state = {"signum": None, "hold": False}
_run: dict = {"folder": None, "before": None}
"""The run's temporary folder once made (:func:`run_folder`), and tempfile's default
before it."""


class Terminated(BaseException):
    """SIGTERM or SIGHUP, raised in the main thread so that temporary files are removed
    on the way out, as after Ctrl-C."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _stop(signum: int) -> BaseException:
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


def _handler(signum, frame) -> None:
    first = _state["signum"] is None
    if first:
        _state["signum"] = signum
    if first and not _state["hold"]:
        raise _stop(signum)


def install() -> None:
    """Handle :data:`STOPS` as the module says (the main thread only; a signal that
    cannot be handled here keeps its default)."""
    for signum in STOPS:
        try:
            signal.signal(signum, _handler)
        except (OSError, ValueError):  # (not the main thread, or not on this platform)
            pass


def received() -> int | None:
    """The first stopping signal received, or None."""
    return _state["signum"]


def check() -> None:
    """A checkpoint: stop here if a signal was received (its exception may have been
    swallowed where it was raised)."""
    signum = _state["signum"]
    if signum is not None and not _state["hold"]:
        raise _stop(signum)


@contextlib.contextmanager
def held():
    """Signals during the block are recorded, not raised (a clean-up runs to its end)."""
    before = _state["hold"]
    _state["hold"] = True
    try:
        yield
    finally:
        _state["hold"] = before


def exit_status(signum: int) -> int:
    """128 + the signal's number, as a shell reports a process the signal ended."""
    return 128 + int(signum)


def message(signum: int) -> str:
    """The one line said when a signal stops the run."""
    if signum == signal.SIGINT:
        return "error: interrupted"
    if signum == getattr(signal, "SIGHUP", None):
        return "error: terminated (SIGHUP: the terminal closed)"
    return "error: terminated"


def quiet_arrow() -> None:
    """Switch pyarrow's signal handling off, where pyarrow is installed: while it parses
    it replaces the handler of SIGINT and SIGTERM with its own, which passes the signal
    back only if a thread of its own saw it in time (under load, not always: the run
    then finished as if never stopped).  pairboot's reads are short blocks, after which
    the handler above runs.  Done now if pyarrow is imported, else the moment it is
    (:class:`_QuietArrow`): a run of small files never imports it, and start-up is most
    of what such a run waits for."""
    arrow = sys.modules.get("pyarrow")
    if arrow is not None:
        arrow.enable_signal_handlers(False)
    elif not any(isinstance(finder, _QuietArrow) for finder in sys.meta_path):
        sys.meta_path.insert(0, _QuietArrow())


class _AfterImport:
    """An import hook (a finder on ``sys.meta_path``) that calls ``action(module)`` as the
    import of the module ``name`` finishes, whoever imports it, then leaves.  A lookup
    that imports nothing (``importlib.util.find_spec(name)``, as
    :func:`pairboot.io.arrow_available` asks for pyarrow) leaves it in place for the
    import."""

    def __init__(self, name: str, action) -> None:
        self._name, self._action = name, action
        self._finding = False

    def find_spec(self, name, path=None, target=None):
        if name != self._name or self._finding:
            return None
        self._finding = True  # (the other finders' spec: pip's, a venv's)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            self._finding = False
        if spec is None or spec.loader is None:
            return spec
        loader, finder = spec.loader, self
        load = loader.exec_module

        def load_then_act(module) -> None:
            vars(loader).pop("exec_module", None)  # (once: a loader may serve others)
            with contextlib.suppress(ValueError):
                sys.meta_path.remove(finder)
            load(module)
            if module.__name__ == finder._name:
                finder._action(module)

        with contextlib.suppress(AttributeError):  # (a loader with __slots__: as is)
            loader.exec_module = load_then_act  # (this spec's loader, until it has run)
        return spec


class _QuietArrow(_AfterImport):
    """The hook that switches pyarrow's signal handling off as pyarrow's import
    finishes (:func:`quiet_arrow`)."""

    def __init__(self) -> None:
        super().__init__("pyarrow", lambda arrow: arrow.enable_signal_handlers(False))


@contextlib.contextmanager
def run_folder():
    """A temporary folder for the run's files (``tempfile``'s default while the block
    runs; none where none can be made), removed when it ends, with signals held
    meanwhile: whatever stopped the run, no temporary file is left behind.  It is made
    as the run imports :mod:`tempfile` (at once if it is imported already), before
    anything can use it: a run that writes no temporary file (a small comparison) loads
    neither tempfile nor shutil, a few ms of its start-up."""
    _run.update(folder=None, before=None)
    hook = None
    if "tempfile" in sys.modules:
        _make_folder(sys.modules["tempfile"])
    else:
        hook = _AfterImport("tempfile", _make_folder)
        sys.meta_path.insert(0, hook)
    try:
        yield
    finally:
        with held():
            if hook is not None:
                with contextlib.suppress(ValueError):
                    sys.meta_path.remove(hook)
            _remove_folder()


def _make_folder(tempfile) -> None:
    try:
        folder = tempfile.mkdtemp(prefix="pairboot-run-")
    except OSError:  # (no writable temporary folder: what needs one says so itself)
        return
    _run.update(folder=folder, before=tempfile.tempdir)
    tempfile.tempdir = folder


def _remove_folder() -> None:
    folder = _run["folder"]
    if folder is None:
        return
    import shutil  # (only when a folder was made)

    sys.modules["tempfile"].tempdir = _run["before"]
    shutil.rmtree(folder, ignore_errors=True)
    _run.update(folder=None, before=None)


def last_resort():
    """A ``sys.excepthook`` for a signal that lands between the steps of the exit: one
    line, the run's folder removed, and the signal's status (no traceback)."""
    def hook(kind, value, traceback):
        signum = _state["signum"]
        if signum is None and not isinstance(value, (Terminated, KeyboardInterrupt)):
            sys.__excepthook__(kind, value, traceback)
            return
        if signum is None:
            signum = getattr(value, "signum", signal.SIGINT)
        with held():
            _remove_folder()
            with contextlib.suppress(OSError, ValueError):
                print(message(signum), file=sys.stderr, flush=True)
            os._exit(exit_status(signum))

    return hook
