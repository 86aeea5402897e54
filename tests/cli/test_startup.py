"""Start-up: ``import pairboot`` computes nothing and loads no optional layer, and each
command loads what its path needs (issue 35; the times are in benchmarks/startup.py).

Each check runs a fresh interpreter: this process has imported everything already."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from helpers import PROJECT_ROOT

import pairboot

HEAVY = ("numba", "scipy", "matplotlib", "pyarrow", "dask", "pandas")


def _loaded(code: str, *modules: str) -> dict[str, bool]:
    """Which of ``modules`` a fresh interpreter has imported after running ``code``."""
    probe = textwrap.dedent(code) + textwrap.dedent(f"""
        import sys
        seen = {{m: m in sys.modules for m in {list(modules)!r}}}
        import json  # (after looking: json may be one of them)
        print(json.dumps(seen))
        """)
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=PROJECT_ROOT, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_import_pairboot_loads_no_optional_layer_and_not_numpy():
    loaded = _loaded("import pairboot", *HEAVY, "numpy", "pairboot.report",
                     "pairboot.planning", "pairboot.io", "pairboot.comparisons.two")
    assert not any(loaded.values()), loaded


def test_version_loads_neither_numpy_nor_the_report_layer():
    loaded = _loaded("""
        import contextlib, io
        from pairboot.cli import main
        with contextlib.redirect_stdout(io.StringIO()) as out:
            assert main(["--version"]) == 0
        assert out.getvalue() == f"pairboot {__import__('pairboot').__version__}\\n"
        """, "numpy", "argparse", "pairboot.report", "pairboot.cli.parser")
    assert not any(loaded.values()), loaded


def test_a_small_comparison_loads_only_its_path():
    """Two 200-item CSV files: read in Python, resampled by numpy, reported as text;
    no harness-free optional layer, no family, plan or planner module."""
    loaded = _loaded("""
        import contextlib, io
        from pairboot.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["compare", "examples/base.csv", "examples/new.csv", "--id", "id",
                         "--score", "score", "--no-progress"]) == 0
        """, *HEAVY, "pairboot.planning", "pairboot.partitioned", "pairboot.cli.power",
        "pairboot.engine.numba_kernels", "pairboot.report.plot")
    assert not any(loaded.values()), loaded


def test_a_comparison_asks_the_width_without_shutil():
    """argparse's help formatter imports shutil (bz2, lzma, zlib) for the terminal's
    width; the parser reads it as shutil does."""
    loaded = _loaded("""
        import contextlib, io
        from pairboot.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["compare", "examples/base.csv", "examples/new.csv", "--id", "id",
                         "--score", "score", "--no-progress"]) == 0
        """, "shutil")
    assert not any(loaded.values()), loaded


def test_the_parser_of_one_command_holds_that_command_alone():
    from pairboot.cli.parser import COMMANDS, build_parser  # noqa: PLC0415

    def commands(parser):
        sub = next(a for a in parser._actions if a.dest == "command")
        return list(sub.choices)

    assert commands(build_parser()) == list(COMMANDS)
    for name in COMMANDS:
        assert commands(build_parser(name)) == [name]


@pytest.mark.parametrize("columns, expected", [("60", 58), ("", 78), ("junk", 78),
                                               ("-3", 78)])
def test_the_help_is_as_wide_as_shutil_says(monkeypatch, columns, expected):
    """COLUMNS as shutil reads it; without it (or when it is not a positive number),
    standard output's terminal, here none: 80.  argparse leaves 2 columns."""
    import shutil  # noqa: PLC0415

    from pairboot.cli.parser import build_parser  # noqa: PLC0415

    monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.setattr(sys, "__stdout__", None)  # (no terminal: the fallback)
    assert build_parser()._get_formatter()._width == expected
    assert shutil.get_terminal_size().columns - 2 == expected


def test_a_csv_comparison_imports_no_harness_reader():
    """A plain CSV file holds none of the signs of a log (``io.may_be_log``): neither the
    harness readers nor their package are imported to detect its format, nor the reading
    in chunks or of runs; nor numpy.ma (np.quantile, np.median, np.unique), numpy.random
    (the replicates' keys: engine/seedseq.py), secrets, statistics, decimal, hashlib,
    difflib or json; nor the permutation test's modules; nor tempfile (the run's folder
    is made when tempfile is imported: cli.signals.run_folder)."""
    from pairboot.io.harness import READERS  # noqa: PLC0415

    readers = [f"pairboot.io.harness.{module}" for module in READERS.values()]
    loaded = _loaded("""
        import contextlib, io
        from pairboot.cli import main, signals
        with contextlib.redirect_stdout(io.StringIO()), signals.run_folder():  # (as run())
            assert main(["compare", "examples/base.csv", "examples/new.csv", "--id", "id",
                         "--score", "score", "--no-progress"]) == 0
        """, *readers, "pairboot.io.harness", "pairboot.io.stream", "pairboot.io.runs",
        "pairboot.io.harness.inspect_load", "zipfile", "numpy.ma", "numpy.random", "secrets",
        "statistics", "decimal", "hashlib", "difflib", "json", "tempfile",
        "pairboot.core.westfall_young", "pairboot.engine.permutations",
        # the features a plain comparison does not ask for (cli/compare.py's _feature)
        "pairboot.cli.curve", "pairboot.cli.tasks", "pairboot.cli.ppi", "pairboot.cli.noise",
        "pairboot.metrics.joint", "pairboot.report.metrics", "pairboot.report.gate",
        "pairboot.report.noise", "pairboot.results.metrics", "pairboot.results.noise",
        "pairboot.results.sequential", "pairboot.report.sequential",
        # a judge and gold labels, agreement, the label planner (cli/ppi.py, cli/judges.py)
        "pairboot.cli.judges", "pairboot.comparisons.ppi", "pairboot.core.ppi",
        "pairboot.results.ppi", "pairboot.report.ppi", "pairboot.comparisons.agreement",
        "pairboot.core.agreement", "pairboot.results.agreement", "pairboot.report.agreement",
        "pairboot.planning.labels", "pairboot.results.labels", "pairboot.report.label_plan")
    assert not any(loaded.values()), {m: v for m, v in loaded.items() if v}


def test_the_power_command_does_not_load_compare():
    loaded = _loaded("""
        import contextlib, io
        from pairboot.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["power", "--sd", "0.5", "--delta", "0.1", "--power", "0.8"]) == 0
        """, "pairboot.cli.compare", "pairboot.cli.stream", *HEAVY)
    assert not any(loaded.values()), loaded


def test_the_quadrature_is_built_on_first_use():
    from pairboot.planning import noncentral  # noqa: PLC0415

    noncentral._rule.cache_clear()
    assert noncentral._rule.cache_info().currsize == 0
    # scipy.stats.nct.sf(1.96, 10, 2.0)
    assert noncentral.nct_sf(1.96, 10.0, 2.0) == pytest.approx(0.533282730107353, rel=1e-9)
    assert noncentral._rule.cache_info().currsize == 1


def test_every_public_name_resolves_and_is_listed():
    assert set(pairboot.__all__) <= set(dir(pairboot))
    for name in pairboot.__all__:
        assert getattr(pairboot, name) is not None, name
    from pairboot import CompareResult, compare  # noqa: PLC0415  (from-import: PEP 562)

    assert compare is pairboot.compare and CompareResult is pairboot.CompareResult
    assert pairboot.io.__name__ == "pairboot.io"  # (a subpackage on first use)
    with pytest.raises(AttributeError, match="no attribute 'nonesuch'"):
        pairboot.nonesuch  # noqa: B018


def test_a_result_finds_its_writers_without_importing_the_report_layer():
    """A fresh interpreter that never imports pairboot.report still prints a result:
    the package's hook imports the writers on a result's first text."""
    loaded = _loaded("""
        import numpy as np
        import pairboot
        r = pairboot.compare(np.arange(30.0) % 3, np.arange(30.0) % 4, seed=1,
                             n_resamples=500)
        import sys
        assert "pairboot.report" not in sys.modules
        assert str(r).startswith("No difference detected"), str(r)
        """, "pairboot.report")
    assert loaded == {"pairboot.report": True}


def test_pyarrow_is_quieted_when_it_is_first_imported(tmp_path):
    """The command line switches pyarrow's signal handlers off (cli.signals.quiet_arrow)
    without importing it: an import hook does it as pyarrow's import finishes.  A stand-
    in package named pyarrow records the call."""
    fake = tmp_path / "pyarrow"
    fake.mkdir()
    (fake / "__init__.py").write_text(
        "calls = []\ndef enable_signal_handlers(on):\n    calls.append(on)\n")
    loaded = _loaded(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        from pairboot.cli import signals
        signals.quiet_arrow()
        signals.quiet_arrow()  # (one hook, however often it is asked)
        import importlib.util
        assert importlib.util.find_spec("pyarrow") is not None  # (a lookup: kept)
        from pairboot.io import arrow_available
        assert arrow_available() and "pyarrow" not in sys.modules
        import pyarrow
        assert pyarrow.calls == [False], pyarrow.calls
        assert not any(type(f).__name__ == "_QuietArrow" for f in sys.meta_path)
        signals.quiet_arrow()  # (imported now: switched off at once)
        assert pyarrow.calls == [False, False], pyarrow.calls
        """, "pyarrow")
    assert loaded == {"pyarrow": True}


def test_the_runs_folder_is_made_as_tempfile_is_imported(tmp_path):
    """``signals.run_folder`` makes the run's folder when the run first imports tempfile
    (tempfile's default from then on) and removes it at the end."""
    loaded = _loaded(f"""
        import os, sys
        os.environ["TMPDIR"] = {str(tmp_path)!r}
        from pairboot.cli import signals
        assert "tempfile" not in sys.modules
        with signals.run_folder():
            assert os.listdir({str(tmp_path)!r}) == []
            import tempfile
            (folder,) = os.listdir({str(tmp_path)!r})
            assert folder.startswith("pairboot-run-")
            assert tempfile.gettempdir() == os.path.join({str(tmp_path)!r}, folder)
            fd, path = tempfile.mkstemp()
            os.close(fd)
        assert os.listdir({str(tmp_path)!r}) == []
        assert tempfile.gettempdir() == {str(tmp_path)!r}
        with signals.run_folder():  # (tempfile imported: at once)
            assert len(os.listdir({str(tmp_path)!r})) == 1
        assert os.listdir({str(tmp_path)!r}) == []
        """, "tempfile")
    assert loaded == {"tempfile": True}


def test_the_collector_waits_for_the_start_up_and_resumes():
    """pairboot's process makes no collection while it imports and reads the options,
    then collects again with the start-up's objects frozen out; ``main`` called in
    another program (this one, the MCP server) leaves its collector alone."""
    probe = textwrap.dedent("""
        import contextlib, gc, io, json, sys
        import pairboot.cli as cli
        seen = {}
        main = cli.main
        def watched(argv=None):
            seen["during"] = gc.isenabled()  # (before the options: still paused)
            code = main(argv)
            seen.update(after=gc.isenabled(), frozen=gc.get_freeze_count() > 0)
            return code
        cli.main = watched
        sys.argv = ["pairboot", "compare", "examples/base.csv", "examples/new.csv",
                    "--id", "id", "--score", "score", "--no-progress"]
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                cli.run()
        except SystemExit as exc:
            seen["code"] = exc.code
        print(json.dumps(seen))
        """)
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=PROJECT_ROOT, check=False)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen == {"during": False, "after": True, "frozen": True, "code": 0}


def test_main_leaves_the_callers_collector_alone(tmp_path):
    import gc  # noqa: PLC0415

    from pairboot.cli import main  # noqa: PLC0415

    frozen = gc.get_freeze_count()
    assert gc.isenabled()
    files = [str(PROJECT_ROOT / "examples" / name) for name in ("base.csv", "new.csv")]
    assert main(["compare", *files, "--id", "id", "--score", "score", "--no-progress",
                 "--output", str(tmp_path / "out.txt")]) == 0
    assert gc.isenabled() and gc.get_freeze_count() == frozen
