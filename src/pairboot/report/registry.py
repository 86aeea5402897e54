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
import re
from collections.abc import Callable, Iterator, Mapping

from pairboot.errors import InputError

__all__ = ["Writers", "context_class", "formats_of", "render", "result_types", "schema_id",
           "writer", "writes"]

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


def formats_of(*result_types: type, parts: bool = False) -> tuple[str, ...]:
    """The formats of the given result types (any of them: their union), or of every
    registered type when none is given, in the order of :data:`ORDER`.  ``parts``: the
    pieces too (``html-fragment``, ``reading``, ...)."""
    found: list[str] = []
    for (cls, fmt) in _writers:
        if not parts and (cls, fmt) in _parts:
            continue
        if result_types and not any(issubclass(t, cls) for t in result_types):
            continue
        if fmt not in found:
            found.append(fmt)
    rank = {fmt: k for k, fmt in enumerate(ORDER)}
    return tuple(sorted(found, key=lambda f: rank.get(f, len(ORDER))))  # (stable)


def result_types(format: str) -> tuple[type, ...]:
    """The result types that register a writer of ``format`` themselves (a subclass that
    inherits its base's is not listed), in the order registered."""
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
