"""Where numba keeps pairboot's compiled kernels: one per-user directory, shared by every
virtual environment with the same pairboot, numba, Python and processor.

numba caches a compiled function next to its source file (``__pycache__`` in
site-packages), so each new environment compiles the kernels again, about ten seconds
on the first large run.  :func:`install` puts a cache locator for pairboot's kernel
modules (``pairboot/engine``) in front of numba's own: their compiled code goes to

    <root>/kernels/<pairboot version>-py<X.Y>-numba<version>-<cpu>-<sources>/engine/

``<root>`` is ``PAIRBOOT_CACHE_DIR`` if set, else the platform's cache directory:
``$XDG_CACHE_HOME/pairboot`` (``~/.cache/pairboot``) on Linux and other POSIX systems,
``~/Library/Caches/pairboot`` on macOS, ``%LOCALAPPDATA%\\pairboot\\Cache`` on Windows.
``<sources>`` is a hash of the engine's source files, so a changed kernel or a helper it
inlines (numba's own check sees only the file of the function it caches) never reads
another version's code; numba's index adds its own checks (the function's file, its
bytecode, the processor's features).  ``PAIRBOOT_NO_CACHE=1`` leaves numba's placement
alone, and so does an unwritable root.  Other numba code is not touched: the locator
answers only for files in ``pairboot/engine``, and ``NUMBA_CACHE_DIR`` is left as it is.

numba has no public way to add a locator: the hook is its ``CacheImpl._locator_classes``
list (numba.core.caching, the same from numba 0.59 to 0.68).  Where that is missing,
:func:`install` does nothing and numba caches as it always has.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from pairboot._version import __version__

__all__ = ["install", "cache_root", "kernel_directory", "directory_name", "ENGINE"]

ENGINE = Path(__file__).resolve().parent
"""The package whose modules the locator serves."""

_installed: dict[str, Path | None] = {}


def cache_root(environ: Mapping[str, str], platform: str, home: Path) -> Path | None:
    """pairboot's cache directory under ``environ`` (None: ``PAIRBOOT_NO_CACHE`` is set)."""
    if environ.get("PAIRBOOT_NO_CACHE", "") not in ("", "0"):
        return None
    given = environ.get("PAIRBOOT_CACHE_DIR", "")
    if given:
        return Path(given).expanduser()
    if platform == "win32":
        local = environ.get("LOCALAPPDATA", "")
        return (Path(local) if local else home / "AppData" / "Local") / "pairboot" / "Cache"
    if platform == "darwin":
        return home / "Library" / "Caches" / "pairboot"
    xdg = environ.get("XDG_CACHE_HOME", "")  # (the XDG spec ignores a relative path)
    return (Path(xdg) if os.path.isabs(xdg) else home / ".cache") / "pairboot"


def directory_name(version: str, python: tuple[int, int], numba_version: str, cpu: str,
                   sources: str) -> str:
    """The kernels' directory for one pairboot, Python, numba, processor and engine."""
    name = f"{version}-py{python[0]}.{python[1]}-numba{numba_version}-{cpu}-{sources[:16]}"
    return "".join(c if c.isalnum() or c in ".-+_" else "_" for c in name)


def sources_hash(folder: Path = ENGINE) -> str:
    """SHA-256 of the engine's source files, in name order."""
    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def kernel_directory() -> Path | None:
    """Where this process's pairboot keeps its kernels (None: numba's own placement)."""
    root = cache_root(os.environ, sys.platform, Path.home())
    if root is None:
        return None
    import llvmlite.binding as llvm
    import numba
    from numba.core import config

    cpu = config.CPU_NAME or llvm.get_host_cpu_name()
    name = directory_name(__version__, sys.version_info[:2], numba.__version__, cpu,
                          sources_hash())
    return root / "kernels" / name


@functools.lru_cache(maxsize=64)
def _file_hash(path: str, mtime: float, size: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def make_locator(base: type, directory: Path) -> type:
    """A numba cache locator (a subclass of numba's ``_CacheLocator`` ``base``) that
    places the functions of ``pairboot/engine`` in ``directory`` and declines others."""

    class PairbootLocator(base):
        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno

        def get_cache_path(self):
            return str(directory / ENGINE.name)

        def get_source_stamp(self):
            # (the file's contents, not its time: another environment's copy matches)
            st = os.stat(self._py_file)
            return _file_hash(self._py_file, st.st_mtime, st.st_size)

        def get_disambiguator(self):
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func, py_file):
            try:
                if Path(py_file).resolve().parent != ENGINE:
                    return None
                self = cls(py_func, py_file)
                self.ensure_cache_path()
            except OSError:  # (not writable: numba's next locator)
                return None
            return self

    return PairbootLocator


def install() -> Path | None:
    """Put pairboot's locator in front of numba's (once per process; before any kernel
    is defined), and return its directory (None where numba's placement stays)."""
    if "directory" in _installed:
        return _installed["directory"]
    _installed["directory"] = None
    directory = kernel_directory()
    if directory is None:
        return None
    from numba.core import caching

    base = getattr(caching, "_CacheLocator", None)
    classes = getattr(getattr(caching, "CacheImpl", None), "_locator_classes", None)
    if not isinstance(base, type) or not isinstance(classes, list):
        return None  # (a numba without the hook: its own placement)
    classes.insert(0, make_locator(base, directory))
    _installed["directory"] = directory
    return directory
