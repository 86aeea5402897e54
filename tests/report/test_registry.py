"""The one registry of writers (:mod:`pairboot.report.registry`): dispatch on the result's
type, the formats each type has (the command line's ``--format`` choices), the one hook
through which every result writes itself, and a new result type that brings its own
writers without touching anything else."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

import pairboot
from pairboot import report
from pairboot.errors import InputError
from pairboot.rendering import rendered
from pairboot.report import registry
from pairboot.report.registry import context_class, formats_of, render, writes
from pairboot.results.compare import TestResult

REPORTS = ("text", "json", "markdown", "latex", "github", "html")


@pytest.fixture
def scratch(monkeypatch):
    """A registry of its own for a test that registers writers (the package's is left as
    it was)."""
    monkeypatch.setattr(registry, "_writers", dict(registry._writers))
    monkeypatch.setattr(registry, "_parts", set(registry._parts))
    monkeypatch.setattr(registry, "_contexts", dict(registry._contexts))
    monkeypatch.setattr(registry, "_schemas", dict(registry._schemas))


@pytest.fixture(scope="module")
def two():
    rng = np.random.default_rng(5)
    a = rng.random(40)
    return pairboot.compare(a, a + rng.normal(0.05, 0.1, 40), n_resamples=400, seed=1,
                            backend="numpy")


def test_every_result_type_has_its_formats_in_order():
    assert formats_of(pairboot.CompareResult) == REPORTS
    assert formats_of(pairboot.FamilyResult) == REPORTS
    assert formats_of(pairboot.PowerResult) == ("text", "json", "markdown", "html")
    assert formats_of(TestResult) == ("html",)
    assert formats_of(pairboot.GateResult) == ("text", "json", "markdown", "github", "junit")
    assert formats_of() == (*REPORTS, "junit")  # (every type's: their union)
    parts = formats_of(pairboot.CompareResult, parts=True)
    assert parts[:6] == REPORTS and set(parts[6:]) == {"html-fragment", "reading", "p-repr"}


def test_the_views_of_the_old_tables_are_the_registry():
    assert tuple(report.WRITERS) == REPORTS == tuple(report.FAMILY_WRITERS)
    assert report.WRITERS["markdown"] is report.write_markdown
    assert report.FAMILY_WRITERS["text"] is report.family_text
    assert tuple(report.POWER_WRITERS) == ("text", "json", "markdown", "html")
    with pytest.raises(KeyError):
        report.WRITERS["reading"]  # (a part is no report)


def test_the_command_lines_choices_are_the_registrys():
    from pairboot.cli.parser import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.choices and "compare" in a.choices)
    for command, types in (("compare", (pairboot.CompareResult, pairboot.FamilyResult,
                                        pairboot.GateResult)),
                           ("power", (pairboot.PowerResult,))):
        fmt = next(a for a in sub.choices[command]._actions if a.dest == "format")
        assert tuple(fmt.choices) == formats_of(*types)


def test_render_dispatches_on_the_type(two):
    assert render(two) == report.write_text(two) == str(two)
    assert render(two, "json") == report.write_json(two)
    assert render(two, "reading") == two.reading
    assert render(two, "html-fragment") == two._repr_html_()
    assert render(two, "text", name_a="base") == two.summary(name_a="base")
    context = report.ReportContext(name_b="new")
    assert render(two, "text", context, name_a="base") == two.summary(name_a="base",
                                                                        name_b="new")


def test_an_unknown_format_is_refused_with_the_choices(two):
    with pytest.raises(InputError, match="unknown report format 'pdf'; choose one of "
                       "text, json, markdown, latex, github, html") as caught:
        render(two, "pdf")
    assert caught.value.param == "format"
    with pytest.raises(InputError, match="no report of a int"):
        render(3)
    with pytest.raises(InputError, match="takes no name_a"):
        render(two.test if two.test is not None else TestResult(
            "t", 0.5, None, 1.0, True, "two-sided", 3, "m"), "html", name_a="x")


def test_a_second_writer_for_the_same_format_is_refused(scratch):
    with pytest.raises(ValueError, match="already has a 'text' writer"):
        writes(pairboot.CompareResult, "text")(lambda result, context=None: "")


def test_a_module_reloaded_registers_its_writers_again(scratch):
    """A reloaded module (a notebook's autoreload) defines its writers anew: the same
    module and name replace the one registered."""
    import types

    before = registry.writer(pairboot.CompareResult, "json")
    again = types.FunctionType(before.__code__, before.__globals__, before.__name__,
                               before.__defaults__, before.__closure__)
    again.__qualname__ = before.__qualname__
    writes(pairboot.CompareResult, "json")(again)
    assert registry.writer(pairboot.CompareResult, "json") is again


def test_a_subclass_inherits_its_bases_writers(two, scratch):
    @dataclass(frozen=True)
    class Base:
        value: float

    class Derived(Base):
        pass

    writes(Base, "text")(lambda result, context=None: f"value {result.value}")
    assert render(Derived(2.0)) == "value 2.0"
    writes(Derived, "text")(lambda result, context=None: "derived")
    assert render(Derived(2.0)) == "derived" and render(Base(1.0)) == "value 1.0"
    assert formats_of(Derived) == ("text",)


def test_a_new_result_type_brings_its_writers_and_its_context(scratch):
    """What a new kind of result does (issues 36-41): a frozen result that writes itself
    through the one hook, writers registered beside it, a context of its own; no other
    result class, table or list is edited, and the format list follows."""

    @dataclass(frozen=True, slots=True)
    class Gate:
        passed: bool

        def __str__(self) -> str:
            return rendered(self, "text")

        def _repr_html_(self) -> str:
            return rendered(self, "html-fragment")

    @dataclass(frozen=True)
    class GateContext:
        policy: str = "policy.toml"

    context_class(Gate, GateContext)

    @writes(Gate, "text")
    def gate_text(result, context=None):
        ctx = context or GateContext()
        return f"{ctx.policy}: {'pass' if result.passed else 'fail'}\n"

    @writes(Gate, "junit")
    def gate_junit(result, context=None):
        return "<testsuite/>\n"

    writes(Gate, "html-fragment", part=True)(lambda result, context=None: "<div></div>")

    assert str(Gate(True)) == "policy.toml: pass\n"
    assert render(Gate(False), "text", policy="gate.toml") == "gate.toml: fail\n"
    assert Gate(True)._repr_html_() == "<div></div>"
    assert formats_of(Gate) == ("text", "junit")
    assert formats_of() == (*REPORTS, "junit")  # (a new format: after the known ones)
    assert formats_of(pairboot.CompareResult) == REPORTS


def test_every_result_writes_itself_through_the_one_hook(two, monkeypatch):
    seen = []

    def spy(result, format, **labels):
        seen.append((type(result).__name__, format, tuple(sorted(labels))))
        return "0.5" if format == "p-repr" else ""

    monkeypatch.setattr(pairboot.rendering, "_renderer", spy)
    str(two), two.reading, two.to_html(name_a="x"), two._repr_html_(), repr(two)
    assert seen == [
        ("CompareResult", "text", ("lower_is_better", "name_a", "name_b")),
        ("CompareResult", "reading", ()),
        ("CompareResult", "html", ("lower_is_better", "name_a", "name_b")),
        ("CompareResult", "html-fragment", ()),
        ("CompareResult", "p-repr", ()),
    ]


def test_without_the_report_layer_a_result_says_what_to_import(two, monkeypatch):
    monkeypatch.setattr(pairboot.rendering, "_renderer", None)
    with pytest.raises(RuntimeError, match="import pairboot.report"):
        str(two)


def test_the_table_of_the_packages_writers_is_what_their_modules_register():
    """``registry.WHERE`` names every writer the package's modules register (type,
    format, module, part) before they are imported: ``formats_of`` lists from it and
    ``writer`` imports the one module asked for."""
    import importlib  # noqa: PLC0415
    import pkgutil  # noqa: PLC0415

    import pairboot.report as package  # noqa: PLC0415

    # every module of the package, not only those the table names: a new module's writers
    # missing from the table would otherwise never be found by a lazy lookup
    for info in pkgutil.walk_packages(package.__path__, "pairboot.report."):
        importlib.import_module(info.name)
    registered = {(registry.type_name(cls), fmt): (w.__module__.rpartition(".")[2],
                                                    (cls, fmt) in registry._parts)
                  for (cls, fmt), w in registry._writers.items()
                  if w.__module__.startswith("pairboot.report.")}
    assert registered == registry.WHERE


def test_a_text_report_imports_neither_the_html_nor_a_familys_writers():
    code = """
        import json, sys
        import numpy as np
        import pairboot
        from pairboot.report import formats_of, render
        r = pairboot.compare(np.arange(30.0) % 3, np.arange(30.0) % 4, seed=1,
                             n_resamples=200)
        text = render(r, "text")
        assert formats_of("pairboot.results.family.FamilyResult") == formats_of(
            pairboot.FamilyResult)
        print(json.dumps(sorted(m for m in sys.modules if m.startswith(
            ("pairboot.report", "pairboot.results")))))
        """
    import json  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415
    import textwrap  # noqa: PLC0415

    from helpers import PROJECT_ROOT  # noqa: PLC0415

    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, check=False, cwd=PROJECT_ROOT)
    assert proc.returncode == 0, proc.stderr
    loaded = set(json.loads(proc.stdout.splitlines()[-1]))
    assert "pairboot.report.text" in loaded
    assert not loaded & {"pairboot.report.html", "pairboot.report.family",
                         "pairboot.report.family_formats", "pairboot.report.github",
                         "pairboot.report.power", "pairboot.report.curve",
                         "pairboot.results.power"}, loaded
