"""One registry of writers, keyed by (result type, format).

A writer is ``writer(result, context) -> str`` and registers itself where it is written,
with :func:`writes`::

    @writes(CompareResult, "markdown")
    def write_markdown(result, context=None): ...

:func:`render` picks the writer of a result's type (walking its classes, so a subclass
inherits its base's writers) and format; :func:`formats_of` lists the formats a type has,
and the command line's ``--format`` choices are that list.  A result's own text
(``print(result)``, ``summary()``, ``reading``, ``to_html()``, ``_repr_html_``, the
p-value in its repr) is :func:`render` too, through the one hook of
:mod:`pairboot.results.compare` that ``pairboot.report`` fills when it is imported.

A format is a whole report (``text``, ``json``, ``markdown``, ``latex``, ``github``,
``html``) or, registered with ``part=True``, a piece of one that a result writes about
itself and the command line does not offer (``html-fragment``, ``reading``, ``p-repr``,
a plan's one-line ``summary``).

A ``json`` writer names the schema its output follows,
``@writes(CompareResult, "json", schema="pairboot.compare/1")``: the output's first key
says it (:func:`pairboot.report.schemas.json_report`), and the package ships the JSON
Schema of each kind (:func:`pairboot.report.schemas.schema`, ``docs/schema.md``).

``context`` carries what the result does not know (the inputs' names, the columns, the
notes); a result type names its context's class with :func:`context_class`, so that
``render(result, format, name_a="base")`` builds one from keywords (a result's
``summary(name_a=...)`` does).  A new result type registers its writers and its context
in its own report module, and the package imports that module; nothing else changes.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from collections.abc import Callable, Iterator, Mapping

from pairboot.errors import InputError

__all__ = ["WHERE", "Writers", "context_class", "formats_of", "render", "result_types",
           "schema_id", "type_name", "writer", "writes"]

Writer = Callable[..., str]

ORDER = ("text", "json", "markdown", "latex", "github", "html")
"""The order :func:`formats_of` lists formats in (the command line's ``--format``
choices), whatever order their modules are imported in; a format not named here comes
after them, in the order registered."""

_writers: dict[tuple[type, str], Writer] = {}
_parts: set[tuple[type, str]] = set()
_contexts: dict[type, type] = {}
_schemas: dict[type, str] = {}

SCHEMA_ID = re.compile(r"pairboot\.([a-z][a-z0-9_-]*)/([1-9][0-9]*)")
"""A schema's name: ``pairboot.<kind>/<version>`` (docs/schema.md)."""

_COMPARE = "pairboot.results.compare.CompareResult"
_TEST = "pairboot.results.compare.TestResult"
_FAMILY = "pairboot.results.family.FamilyResult"
_CURVE = "pairboot.results.family.TrialsCurve"
_POWER = "pairboot.results.power.PowerResult"
_METRICS = "pairboot.results.metrics.MetricsResult"
_GATE = "pairboot.results.metrics.GateResult"
_NOISE = "pairboot.results.noise.NoiseFloor"
_PPI = "pairboot.results.ppi.PPIResult"
_PPI_FAMILY = "pairboot.results.ppi.PPIFamilyResult"
_AGREEMENT = "pairboot.results.agreement.AgreementResult"
_LABELS = "pairboot.results.labels.LabelPlan"
_TASKS = "pairboot.results.tasks.TasksResult"
_PREFERENCES = "pairboot.results.preferences.PreferenceResult"
_SEQUENTIAL = "pairboot.results.sequential.SequentialResult"

WHERE: dict[tuple[str, str], tuple[str, bool]] = {  # (in the order they register)
    **{(_CURVE, f): ("curve", f == "html-fragment")
       for f in ("text", "markdown", "json", "html-fragment", "html")},
    **{(_COMPARE, f): ("formats", False) for f in ("json", "markdown", "latex")},
    **{(_FAMILY, f): ("family_formats", False) for f in ("text", "json", "markdown", "latex")},
    **{(t, "github"): ("github", False) for t in (_COMPARE, _FAMILY)},
    (_POWER, "summary"): ("power", True),
    **{(_POWER, f): ("power", False) for f in ("text", "markdown", "json")},
    (_COMPARE, "text"): ("text", False),
    **{(t, f): ("html", f == "html-fragment") for t in (_COMPARE, _TEST, _POWER)
       for f in ("html-fragment", "html")},
    **{(_FAMILY, f): ("html_family", f == "html-fragment") for f in ("html-fragment", "html")},
    **{(_COMPARE, f): ("reading", True) for f in ("reading", "p-repr")},
    **{(_METRICS, f): ("metrics", False) for f in ("text", "markdown", "github", "latex",
                                                   "json")},
    **{(_GATE, f): ("gate", False) for f in ("text", "markdown", "github", "json", "junit")},
    **{(_NOISE, f): ("noise", False) for f in ("text", "markdown", "json")},
    **{(t, f): (m, f == "html-fragment") for t, m in ((_PPI, "ppi"), (_AGREEMENT, "agreement"))
       for f in ("text", "markdown", "json", "html-fragment", "html")},
    **{(_PPI_FAMILY, f): ("ppi_family", f == "html-fragment")
       for f in ("text", "markdown", "json", "html-fragment", "html")},
    **{(_LABELS, f): ("label_plan", False) for f in ("text", "markdown", "json")},
    **{(t, f): (m, f == "html-fragment")
       for t, m in ((_TASKS, "tasks"), (_PREFERENCES, "preferences"))
       for f in ("text", "markdown", "latex", "json", "html-fragment", "html")},
    **{(_SEQUENTIAL, f): ("sequential", False)
       for f in ("text", "markdown", "json", "latex", "github")},
    **{(t, f): (m, False) for t, m in ((_PPI, "ppi"), (_AGREEMENT, "agreement"))
       for f in ("latex", "github")},
    **{(_PPI_FAMILY, f): ("ppi_family", False) for f in ("latex", "github")},
}
"""The package's own writers before their modules are imported: (the result type's
qualified name, format) -> (the module of this package that registers it, whether it is
a part).  :func:`formats_of` lists formats from it and :func:`writer` imports the one
module a writer needs, so a text report loads neither the HTML nor a family's writers
(docs/performance.md, "Start-up"); ``tests/report/test_registry.py`` checks it against
what the modules register."""


def type_name(cls: type) -> str:
    """A result type's qualified name, the key of :data:`WHERE`."""
    return f"{cls.__module__}.{cls.__qualname__}"


def writes(result_type: type, format: str, *, part: bool = False, schema: str | None = None
           ) -> Callable[[Writer], Writer]:
    """Register the decorated ``writer(result, context)`` as ``result_type``'s
    ``format``; with ``part``, a piece of a report rather than a report (listed by
    :func:`formats_of` only when asked).  A second writer for the same type and format is
    refused (one writer each), but for the same function reloaded (a notebook's
    autoreload), which replaces it.  ``schema`` (a ``json`` writer's only): the name of
    the JSON Schema its output follows, ``pairboot.<kind>/<version>``."""
    if schema is not None and (format != "json" or not SCHEMA_ID.fullmatch(schema)):
        raise ValueError(f"schema={schema!r}: a 'json' writer's schema is named "
                         "'pairboot.<kind>/<version>'")

    def register(writer: Writer) -> Writer:
        key = (result_type, format)
        old = _writers.get(key)
        if old is not None and (old.__module__, old.__qualname__) != (
                writer.__module__, writer.__qualname__):
            raise ValueError(f"{result_type.__name__} already has a {format!r} writer: "
                             f"{old.__module__}.{old.__qualname__}")
        _writers[key] = writer
        if part:
            _parts.add(key)
        if schema is not None:
            _schemas[result_type] = schema
        return writer

    return register


def context_class(result_type: type, cls: type) -> None:
    """``cls`` (a frozen dataclass) is what a report of ``result_type`` is told beside the
    result: :func:`render`'s keywords build one."""
    _contexts[result_type] = cls


def _lookup(table: Mapping, result_type: type, format: str | None = None):
    """The entry of ``table`` for ``result_type`` or its nearest base (and ``format``)."""
    for cls in result_type.__mro__:
        key = cls if format is None else (cls, format)
        if key in table:
            return table[key]
    return None


def formats_of(*result_types: type | str, parts: bool = False) -> tuple[str, ...]:
    """The formats of the given result types (any of them: their union), or of every
    registered type when none is given, in the order of :data:`ORDER`.  ``parts``: the
    pieces too (``html-fragment``, ``reading``, ...).  A type may be given by its
    qualified name (:func:`type_name`): the package's own types' formats are listed
    without importing their modules."""
    names: set[str] = set()  # (the given types' and their bases')
    for t in result_types:
        names |= {t} if isinstance(t, str) else {type_name(c) for c in t.__mro__}
    known = [(name, fmt, part) for (name, fmt), (_, part) in WHERE.items()]
    known += [(type_name(cls), fmt, (cls, fmt) in _parts) for (cls, fmt) in _writers]
    found: list[str] = []
    for name, fmt, part in known:
        if (parts or not part) and (not result_types or name in names) and fmt not in found:
            found.append(fmt)
    rank = {fmt: k for k, fmt in enumerate(ORDER)}
    return tuple(sorted(found, key=lambda f: rank.get(f, len(ORDER))))  # (stable)


def result_types(format: str) -> tuple[type, ...]:
    """The result types that register a writer of ``format`` themselves (a subclass that
    inherits its base's is not listed), in the order registered: the package's own
    writers' modules (:data:`WHERE`) are imported first, so that none is missed."""
    for module in dict.fromkeys(m for (_, fmt), (m, _) in WHERE.items() if fmt == format):
        importlib.import_module(f"pairboot.report.{module}")
    return tuple(cls for (cls, fmt) in _writers if fmt == format)


def schema_id(result_type: type) -> str | None:
    """The name of the schema ``result_type``'s JSON follows (its nearest base's), such
    as ``"pairboot.compare/1"``; None when its ``json`` writer names none."""
    return _lookup(_schemas, result_type)


def writer(result_type: type, format: str) -> Writer:
    """The writer of ``result_type``'s ``format`` (its nearest base's); an unknown format
    is refused with the type's choices."""
    found = _lookup(_writers, result_type, format)
    if found is None:
        for cls in result_type.__mro__:  # (a writer of the package's, not yet imported)
            module = WHERE.get((type_name(cls), format))
            if module is not None:
                importlib.import_module(f"{__package__}.{module[0]}")
                found = _lookup(_writers, result_type, format)
                break
    if found is None:
        choices = formats_of(result_type)
        if not choices:
            raise InputError(f"no report of a {result_type.__name__}: nothing registers "
                             "a writer for it", param="format")
        raise InputError(f"unknown report format {format!r}; choose one of "
                         f"{', '.join(choices)}", param="format")
    return found


def render(result, format: str = "text", context=None, **labels) -> str:
    """The report of ``result`` in ``format`` (one of :func:`formats_of` of its type, or a
    part such as ``html-fragment`` or ``reading``).

    ``context`` is the context of the result's type (:class:`ReportContext` for two
    systems, :class:`FamilyContext` for a family) or None; ``labels`` set fields of it
    (``name_a="base"``), on ``context`` or on a default one.
    """
    write = writer(type(result), format)
    if labels:
        if context is None:
            cls = _lookup(_contexts, type(result))
            if cls is None:
                raise InputError(f"a {type(result).__name__}'s report takes no "
                                 f"{', '.join(labels)}", param=next(iter(labels)))
            context = cls(**labels)
        else:
            context = dataclasses.replace(context, **labels)
    return write(result, context)


class Writers(Mapping):
    """The writers of one result type by format, read from the registry as it is now
    (a view: a writer registered later shows): ``pairboot.report.WRITERS`` and its
    siblings, kept for the code that looks a writer up by format."""

    def __init__(self, result_type: type) -> None:
        self.result_type = result_type

    def __getitem__(self, format: str) -> Writer:
        if format not in formats_of(self.result_type):
            raise KeyError(format)
        return writer(self.result_type, format)

    def __iter__(self) -> Iterator[str]:
        return iter(formats_of(self.result_type))

    def __len__(self) -> int:
        return len(formats_of(self.result_type))

    def __repr__(self) -> str:
        return f"Writers({self.result_type.__name__}: {', '.join(self)})"
