"""Progress on the terminal: one status line on standard error while files are read and resampled.

Nothing is drawn when standard error is not a terminal or the run is quick, so pipes and
logs stay clean, but for one line when numba compiles its kernel (the ten seconds after
installing, which a CI log would otherwise show as a silent stop).  Reading large
files without pyarrow is the one slow step a user can fix: the reading line hints at the
``fast`` extra, and the report gets a note (:func:`slow_read_note`).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence

import pairboot.io as pbio
from pairboot import Progress
from pairboot.cli import signals
from pairboot.report import visible

SLOW_READ_ROWS = 200_000
"""Files of this many rows read in pure Python because pyarrow is missing get a note (and
a hint on the reading line while they are read, see :class:`ReadProgress`)."""

FAST_READER = 'pip install "pairboot[fast]"'
"""How to get pyarrow's reader: the ``fast`` extra installs it with the numba kernel
(``parquet`` installs pyarrow alone)."""


COMPILING = "compiling the fast kernel (once after installing, ~10 s)"
"""What the status line (or, off a terminal, one line) says while numba compiles."""


class _StatusLine:
    """One line on a terminal's standard error, redrawn in place and blanked by close().

    ``enabled`` is false when ``stream`` (standard error by default) is not a terminal
    or the caller said no: then nothing is ever drawn.
    """

    def __init__(self, stream=None, *, enabled: bool = True):
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.asked = enabled  # (the caller's wish: --no-progress says no)
        self.enabled = enabled and callable(isatty) and isatty()
        self.shown = False
        self.width = 0  # of the line on screen, for close() to blank

    def _show(self, line: str) -> None:
        """Overwrite the line on screen (padding out a longer previous one); a file's
        name as :func:`pairboot.report.visible` shows it (no escape sequence of it
        reaches the terminal)."""
        line = visible(line)
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()
        self.width = max(self.width, len(line))
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.shown = False


class ProgressBar(_StatusLine, Progress):
    """A one-line progress bar on a terminal's standard error, for runs over ``delay`` s.

    Use as ``compare(..., progress=bar)``: a :class:`pairboot.Progress`, it is called
    with the number of finished resamples, and its ``compiling()`` before numba compiles
    the kernel.  It draws nothing when ``stream`` is not a terminal or the run is quick.
    """

    def __init__(self, total: int, stream=None, *, delay: float = 1.5, enabled: bool = True,
                 what: str = "resampling"):
        super().__init__(stream, enabled=enabled)
        self.what = what  # (the bar's first word: "simulating" for pairboot power)
        self.total = max(int(total), 1)
        self.delay = delay
        self.start = time.monotonic()
        self.origin = (self.start, 0)  # the time left is estimated from here
        self.compiled = False
        self.last = 0.0

    def __call__(self, done: int) -> None:
        signals.check()  # (a batch of resamples: stop here if a signal came)
        if not self.enabled:
            return
        now = time.monotonic()
        if self.compiled:  # the compile's seconds say nothing about the time left
            self.compiled = False
            self.origin = (now, done)
        if now - self.start < self.delay or (now - self.last < 0.1 and done < self.total):
            return
        self.last = now
        frac = min(max(done / self.total, 0.0), 1.0)
        filled = int(30 * frac)
        elapsed = now - self.start
        t0, done0 = self.origin
        left = ""
        if done > done0:
            left = f", ~{(now - t0) * (self.total - done) / (done - done0):.0f}s left"
        self._show(
            f"{self.what} [{'#' * filled}{'.' * (30 - filled)}] {frac:4.0%} "
            f"{done}/{self.total}  {elapsed:4.0f}s elapsed{left} "
        )

    def compiling(self) -> None:
        """Called before numba compiles the kernel: the one slow start after installing.

        On a terminal the status line says so until the bar replaces it; elsewhere (a CI
        log, where fresh environments compile) one line says it, since a log that stops
        for ten seconds without a word looks like a hang.  Nothing with --no-progress."""
        if self.enabled:
            self._show(f"{COMPILING} ")
            self.compiled = True
        elif self.asked:
            self.stream.write(f"pairboot: {COMPILING}\n")
            self.stream.flush()


class ReadProgress(_StatusLine):
    """``reading base.csv: 420,000 rows (85,000 rows/s)`` on a terminal's standard error,
    once the files have been read for ``delay`` s (counted from construction).

    ``reading(name)`` starts a file and returns the callback for
    ``pairboot.io.read_table(..., progress=...)``; ``close()`` blanks the line when all
    are read.  ``hint`` is added to the line of the first file that reaches
    :data:`SLOW_READ_ROWS` rows, and to no other file's (nor when the line would not fit
    the terminal's width: a wrapped line cannot be redrawn).
    """

    def __init__(self, stream=None, *, delay: float = 1.0, enabled: bool = True,
                 hint: str = ""):
        super().__init__(stream, enabled=enabled)
        self.delay = delay
        self.start = self.file_start = time.monotonic()
        self.name = ""
        self.file = 0  # how many files reading() has started
        self.hint = hint
        self.hinted = 0  # the file whose line carries the hint (0: none yet)
        self.columns = self._columns() if self.enabled else 0

    def _columns(self) -> int:
        try:
            return os.get_terminal_size(self.stream.fileno()).columns or 80  # 0: not set
        except (AttributeError, OSError, ValueError):  # not a real terminal
            return 80

    def reading(self, name: str) -> ReadProgress:
        """Start reading file ``name``: the line now counts its rows."""
        self.name, self.file_start = name, time.monotonic()
        self.file += 1
        if self.shown:  # not the last file's count any more
            self._show(f"reading {name} ")
        return self

    def preparing(self, rows: int) -> None:
        """All files read: the line, if up, says their columns are being prepared."""
        if self.shown:
            self._show(f"preparing {rows:,} rows: numbers, ids, labels ")

    def __call__(self, rows: int) -> None:
        signals.check()  # (rows read: stop here if a signal came)
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < self.delay:
            return
        count = f": {rows:,} rows"
        rate = f" ({rows / (now - self.file_start):,.0f} rows/s)" if now > self.file_start else ""
        name, base = _short(self.name), os.path.basename(self.name) or self.name
        line = f"reading {name}{count}{rate}"
        if self.hint and not self.hinted and rows >= SLOW_READ_ROWS:
            self.hinted = self.file
        if self.hinted == self.file:  # the hint, with less of the rest if need be
            hinted = (f"reading {n}{count}{r}; {self.hint}"
                      for n, r in ((name, rate), (base, rate), (base, "")))
            line = next((t for t in hinted if len(t) + 2 < self.columns), line)
        self._show(line + " ")


def _short(name: str, width: int = 32) -> str:
    """A file name short enough for the status line: its last ``width`` characters
    (paths differ at their end), marked with an ellipsis."""
    return name if len(name) <= width else "..." + name[-(width - 3):]


def read_progress(enabled: bool) -> ReadProgress:
    """The reading's status line (off with --no-progress); it names :data:`FAST_READER`
    when pyarrow is missing."""
    hint = "" if not enabled or pbio.arrow_available() else f"faster: {FAST_READER}"
    return ReadProgress(enabled=enabled, hint=hint)


def slow_read_note(tables: Sequence[pbio.Table]) -> tuple[str, ...]:
    """A note that pyarrow would read these large files faster, when it is missing."""
    slow = [t for t in tables if t.n_rows >= SLOW_READ_ROWS and not t.read_by_pyarrow
            and t.format in pbio.ARROW_FORMATS]
    if not slow or pbio.arrow_available():
        return ()
    files = " and ".join(f"{t.path} ({t.n_rows:,} rows)" for t in slow)
    return (
        f"{files} read without pyarrow, which is not installed: with it (`{FAST_READER}`, "
        'which also brings the fast kernel, or `pip install "pairboot[parquet]"` for '
        "pyarrow alone) large CSV, TSV and JSON Lines files are read several times faster, "
        "in less memory.",
    )
