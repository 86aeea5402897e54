"""pairboot's per-user kernel cache: where it lives on each platform, what its directory
is keyed by, that its locator serves pairboot's kernels only, and (in fresh processes)
that the compiled kernels land there and a copy of the package elsewhere (another
virtual environment) loads them without compiling, while another version compiles its
own.

References: the conventions themselves (XDG Base Directory, Apple's and Microsoft's cache
folders), and numba's documented compile events (``numba.core.event``, sent on a cache
miss only).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import PROJECT_ROOT

from pairboot.engine import kernel_cache
from pairboot.engine.kernel_cache import cache_root, directory_name, sources_hash

HOME = Path("/home/ada")


def test_the_root_follows_each_platform_s_convention():
    assert cache_root({}, "linux", HOME) == HOME / ".cache" / "pairboot"
    assert cache_root({"XDG_CACHE_HOME": "/var/cache/ada"}, "linux", HOME) == Path(
        "/var/cache/ada/pairboot")
    assert cache_root({"XDG_CACHE_HOME": "relative"}, "linux", HOME) == (
        HOME / ".cache" / "pairboot")  # (the spec: a relative path is ignored)
    assert cache_root({}, "darwin", HOME) == HOME / "Library" / "Caches" / "pairboot"
    assert cache_root({"LOCALAPPDATA": "C:/Users/ada/AppData/Local"}, "win32", HOME) == Path(
        "C:/Users/ada/AppData/Local/pairboot/Cache")
    assert cache_root({}, "win32", HOME) == HOME / "AppData" / "Local" / "pairboot" / "Cache"


def test_the_variable_moves_it_and_the_switch_turns_it_off():
    moved = {"PAIRBOOT_CACHE_DIR": "/scratch/kernels", "XDG_CACHE_HOME": "/var/cache"}
    assert cache_root(moved, "linux", HOME) == Path("/scratch/kernels")
    assert cache_root({**moved, "PAIRBOOT_NO_CACHE": "1"}, "linux", HOME) is None
    assert cache_root({**moved, "PAIRBOOT_NO_CACHE": "0"}, "linux", HOME) is not None


def test_the_directory_changes_with_every_part_of_its_key():
    key = ("0.2.0", (3, 11), "0.68.1", "znver4", "ab" * 32)
    name = directory_name(*key)
    assert name == "0.2.0-py3.11-numba0.68.1-znver4-abababababababab"
    for i, other in enumerate(["0.2.1", (3, 12), "0.68.2", "skylake", "cd" * 32]):
        changed = list(key)
        changed[i] = other
        assert directory_name(*changed) != name
    assert "/" not in directory_name("1.0+local/x", (3, 11), "0.68", "cpu", "00")


def test_the_sources_hash_sees_a_change_to_any_engine_file(tmp_path):
    (tmp_path / "spec.py").write_text("GAMMA = 1\n")
    (tmp_path / "kernels.py").write_text("def f(): pass\n")
    before = sources_hash(tmp_path)
    assert sources_hash(tmp_path) == before
    (tmp_path / "spec.py").write_text("GAMMA = 2\n")  # (a helper the kernels inline)
    assert sources_hash(tmp_path) != before
    assert len(sources_hash()) == 64


def test_the_locator_serves_pairboot_s_kernels_and_declines_other_functions(tmp_path):
    pytest.importorskip("numba")
    from numba.core import caching

    from pairboot.engine import spec

    locator = kernel_cache.make_locator(caching._CacheLocator, tmp_path)
    found = locator.from_function(spec.mix64, spec.__file__)
    assert Path(found.get_cache_path()) == tmp_path / "engine"
    assert (tmp_path / "engine").is_dir()
    assert found.get_source_stamp() == found.get_source_stamp()

    def elsewhere():
        return 1

    assert locator.from_function(elsewhere, __file__) is None


def test_the_kernel_modules_put_it_first():
    pytest.importorskip("numba")
    from numba.core import caching

    import pairboot.engine.swap_kernels  # noqa: F401  (installs it)

    directory = kernel_cache.install()
    if directory is None:
        pytest.skip("PAIRBOOT_NO_CACHE is set here: numba's own placement")
    assert caching.CacheImpl._locator_classes[0].__name__ == "PairbootLocator"
    assert sum(c.__name__ == "PairbootLocator" for c in caching.CacheImpl._locator_classes) == 1


SCRIPT = """
import json, sys
import numpy as np
from numba.core import event

compiled = []

class Compiles(event.Listener):
    def on_start(self, ev):
        func = ev.data["dispatcher"].py_func
        if func.__module__.startswith("pairboot"):
            compiled.append(func.__qualname__)

    def on_end(self, ev):
        pass

import pairboot
from pairboot.engine import kernel_cache
from pairboot.engine.swaps import swap_sums

x = np.arange(30.0).reshape(15, 2)
keys = np.arange(15, dtype=np.uint64)
with event.install_listener("numba:compile", Compiles()):
    sums = swap_sums(x, keys, [0], [15], 7, 0, 64, backend="numba")[0]
print(json.dumps({"package": pairboot.__file__, "directory": str(kernel_cache.install()),
                  "compiled": compiled, "sum": float(sums.sum())}))
"""


def run_script(tmp_path: Path, package_parent: Path, cache: Path) -> dict:
    script = tmp_path / "swaps.py"
    script.write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if k != "PAIRBOOT_NO_CACHE"}
    env.update(PAIRBOOT_CACHE_DIR=str(cache), PYTHONPATH=str(package_parent))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def copy_package(to: Path, *, version: str | None = None) -> Path:
    """pairboot's sources copied under ``to`` (another environment's site-packages),
    without numba's files and with new modification times."""
    shutil.copytree(PROJECT_ROOT / "src" / "pairboot", to / "pairboot",
                    ignore=shutil.ignore_patterns("__pycache__"))
    later = time.time() + 3600
    for path in (to / "pairboot").rglob("*.py"):
        os.utime(path, (later, later))
    if version is not None:
        (to / "pairboot" / "_version.py").write_text(f'__version__ = "{version}"\n')
    return to


@pytest.mark.slow
def test_kernels_compiled_once_are_loaded_by_a_copy_elsewhere(tmp_path):
    pytest.importorskip("numba")
    cache = tmp_path / "cache"
    first = run_script(tmp_path, PROJECT_ROOT / "src", cache)
    assert "_sums" in first["compiled"]  # (a fresh directory: the swap kernel compiles)
    directory = Path(first["directory"])
    assert directory.parent == cache / "kernels"
    assert sorted(p.suffix for p in (directory / "engine").glob("swap_kernels._sums*")) == [
        ".nbc", ".nbi"]

    copy = copy_package(tmp_path / "venv2")
    second = run_script(tmp_path, copy, cache)
    assert Path(second["package"]).is_relative_to(copy)
    assert second["compiled"] == []  # (loaded from the cache, not compiled)
    assert second["directory"] == first["directory"]
    assert second["sum"] == first["sum"]
    assert not list((copy / "pairboot").rglob("*.nbi"))  # (nothing beside the sources)

    other = run_script(tmp_path, copy_package(tmp_path / "venv3", version="9.9.9"), cache)
    assert "_sums" in other["compiled"]  # (another version never reads this one's code)
    assert other["directory"] != first["directory"]
    assert other["sum"] == first["sum"]
