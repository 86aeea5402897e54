"""The JSON reports' schemas: every ``json`` writer's output starts with
``"schema": "pairboot.<kind>/<version>"``, and the package ships the JSON Schema
(draft 2020-12) of each kind as ``pairboot/schemas/<kind>.schema.json``.

A ``json`` writer names its schema where it registers (``@writes(CompareResult, "json",
schema="pairboot.compare/1")``) and writes through :func:`json_report`, which puts the
name first; :func:`schema` loads a kind's schema.  What a version promises, and what
changes it, is ``docs/schema.md``'s.
"""

from __future__ import annotations

from pairboot.errors import InputError
from pairboot.report.registry import SCHEMA_ID, schema_id

__all__ = ["json_report", "kinds", "schema"]

SUFFIX = ".schema.json"


def _folder():
    """The package's folder of schema files (an installed wheel's, or the checkout's).
    (importlib.resources and json are imported where used: every writer's module imports
    this one, and a text report needs neither: docs/performance.md, "Start-up".)"""
    from importlib import resources

    return resources.files("pairboot") / "schemas"


def kinds() -> tuple[str, ...]:
    """The kinds whose schema the package ships (``"compare"``, ``"family"``, ...),
    sorted."""
    return tuple(sorted(entry.name[: -len(SUFFIX)] for entry in _folder().iterdir()
                        if entry.name.endswith(SUFFIX)))


def schema(kind) -> dict:
    """The JSON Schema (a dict, draft 2020-12) that the JSON reports of ``kind`` follow.

    ``kind`` is a kind's name (``"compare"``), the name a report carries in its
    ``"schema"`` key (``"pairboot.compare/1"``: its version must be the one shipped), or
    a result (or its type), whose ``json`` report's schema it is.  The schema is read
    afresh on each call (a copy of its own to change).
    """
    version = None
    if not isinstance(kind, str):
        named = schema_id(kind if isinstance(kind, type) else type(kind))
        if named is None:
            what = kind.__name__ if isinstance(kind, type) else type(kind).__name__
            raise InputError(f"a {what} has no JSON report with a schema", param="kind")
        kind = named
    if (match := SCHEMA_ID.fullmatch(kind)) is not None:
        kind, version = match.group(1), int(match.group(2))
    known = kinds()
    if kind not in known:
        raise InputError(f"no schema of a {kind!r}: the kinds are {', '.join(known)} "
                         "(or their names, such as 'pairboot.compare/1')", param="kind")
    import json

    found = json.loads((_folder() / f"{kind}{SUFFIX}").read_text(encoding="utf-8"))
    shipped = found["properties"]["schema"]["const"]
    if version is not None and shipped != f"pairboot.{kind}/{version}":
        raise InputError(f"schema pairboot.{kind}/{version} is not this pairboot's: it "
                         f"ships {shipped} (docs/schema.md: versions)", param="kind")
    return found


def json_report(result, fields: dict) -> str:
    """``fields`` as the indented JSON report of ``result``, led by the name of the schema
    its type's ``json`` writer registered (``{"schema": "pairboot.compare/1", ...}``).
    NaN and infinities are refused (JSON has no spelling for them): a writer turns them
    into ``null`` first (:func:`pairboot.results.compare.json_safe`)."""
    name = schema_id(type(result))
    if name is None:
        raise TypeError(f"{type(result).__name__}'s json writer names no schema: "
                        f"register it with @writes(..., 'json', schema='pairboot.<kind>/1')")
    if "schema" in fields:
        raise ValueError(f"a {type(result).__name__}'s JSON has a field 'schema' of its "
                         "own: the key is the schema's name")
    import json

    return json.dumps({"schema": name, **fields}, indent=2, allow_nan=False) + "\n"
