"""Infer a draft JSON Schema (2020-12) of one kind of pairboot's JSON reports from examples.

The draft is a starting point, not the schema: read it, write each field's description,
turn the observed values of a closed set into an ``enum`` (from the code, not only from
the examples), widen what the examples happen not to show (a field always null in them,
a number that may be null), and move repeated objects into ``$defs``.  Then save it as
``src/pairboot/schemas/<kind>.schema.json`` (docs/schema.md, "Adding a kind")::

    PYTHONPATH=src python tools/schema_draft.py compare --cases > /tmp/compare.json
    PYTHONPATH=src python tools/schema_draft.py gate out1.json out2.json > /tmp/gate.json

``--cases`` takes the examples of ``tests/report/schema_cases.py`` (those the tests
validate); files are JSON reports (``pairboot ... --format json``); only the reports of
the kind asked are read.  What it infers: each value's JSON types (an integer and a
float at one place make a number), which keys every object at a place has (required),
the items of arrays, an object whose keys vary (more than ``MAP_KEYS`` names, none in
all: a system's name as key) as a map, and a string's values when few (``examples``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

MAP_KEYS = 10
"""An object with more distinct keys than this, none of them in every instance, is a map
(``additionalProperties`` the schema of its values)."""

FEW = 8
"""A string with at most this many distinct values, each seen at least twice on average,
is shown with its values (``examples``): a candidate enum."""


class Node:
    """What was seen at one place of the documents."""

    def __init__(self) -> None:
        self.types: Counter[str] = Counter()
        self.n_objects = 0
        self.keys: dict[str, Node] = {}
        self.key_counts: Counter[str] = Counter()
        self.items: Node | None = None
        self.strings: Counter[str] = Counter()
        self.consts: Counter[str] = Counter()

    def add(self, value) -> None:
        if value is None:
            self.types["null"] += 1
        elif isinstance(value, bool):
            self.types["boolean"] += 1
        elif isinstance(value, int):
            self.types["integer"] += 1
        elif isinstance(value, float):
            self.types["number"] += 1
        elif isinstance(value, str):
            self.types["string"] += 1
            if len(self.strings) <= 4 * FEW or value in self.strings:
                self.strings[value] += 1
        elif isinstance(value, list):
            self.types["array"] += 1
            self.items = self.items or Node()
            for item in value:
                self.items.add(item)
        elif isinstance(value, dict):
            self.types["object"] += 1
            self.n_objects += 1
            for key, item in value.items():
                self.key_counts[key] += 1
                self.keys.setdefault(key, Node()).add(item)
        else:  # pragma: no cover - json.loads makes nothing else
            raise TypeError(type(value).__name__)

    def schema(self) -> dict:
        types = set(self.types)
        if {"integer", "number"} <= types:
            types.discard("integer")
        order = ["object", "array", "string", "number", "integer", "boolean", "null"]
        names = [t for t in order if t in types]
        out: dict = {"description": "TODO"}
        if names:
            out["type"] = names[0] if len(names) == 1 else names
        if "object" in types:
            everywhere = [k for k in self.keys if self.key_counts[k] == self.n_objects]
            if len(self.keys) > MAP_KEYS and not everywhere:
                values = Node()
                for node in self.keys.values():
                    values.merge(node)
                out["additionalProperties"] = values.schema()
            else:
                out["properties"] = {k: node.schema() for k, node in self.keys.items()}
                out["required"] = everywhere
                out["additionalProperties"] = True
        if "array" in types and self.items is not None and self.items.types:
            out["items"] = self.items.schema()
        if "string" in types and self.strings and len(self.strings) <= FEW and \
                sum(self.strings.values()) >= 2 * len(self.strings):
            out["examples"] = sorted(self.strings)
        return out

    def merge(self, other: Node) -> None:
        """Fold ``other`` (a sibling place: a map's values) into this node."""
        self.types.update(other.types)
        self.n_objects += other.n_objects
        self.key_counts.update(other.key_counts)
        self.strings.update(other.strings)
        for key, node in other.keys.items():
            self.keys.setdefault(key, Node()).merge(node)
        if other.items is not None:
            self.items = self.items or Node()
            self.items.merge(other.items)


def factor(schema: dict) -> dict:
    """The objects that occur twice or more, alike but for their own description, moved
    to ``$defs`` (named after the first key that holds one) and referred to, each
    reference keeping its description."""
    seen: Counter[str] = Counter()
    first_name: dict[str, str] = {}

    def shape(node: dict) -> str:
        return json.dumps({k: v for k, v in node.items() if k != "description"},
                          sort_keys=True)

    def walk(node, name):
        if isinstance(node, dict):
            if node.get("properties"):
                key = shape(node)
                seen[key] += 1
                first_name.setdefault(key, name)
            for k, v in node.items():
                walk(v, k if k not in ("properties", "items", "additionalProperties")
                     else name)
        elif isinstance(node, list):
            for v in node:
                walk(v, name)

    for k, v in schema.get("properties", {}).items():
        walk(v, k)
    defs: dict[str, dict] = {}
    names: dict[str, str] = {}
    for key, count in seen.items():
        if count >= 2:
            name = first_name[key]
            while name in defs:
                name += "_"
            defs[name] = json.loads(key)
            names[key] = name

    def replace(node, top=False):
        if isinstance(node, dict):
            if not top and node.get("properties") and shape(node) in names:
                ref = {"$ref": f"#/$defs/{names[shape(node)]}"}
                return {**ref, "description": node["description"]} \
                    if "description" in node else ref
            return {k: replace(v) for k, v in node.items()}
        if isinstance(node, list):
            return [replace(v) for v in node]
        return node

    out = replace(schema, top=True)
    if defs:
        out["$defs"] = {name: replace(node, top=True) for name, node in defs.items()}
    return out


def draft(kind: str, documents: list[dict]) -> dict:
    """The draft schema of ``kind`` from its reports ``documents``."""
    if not documents:
        raise SystemExit(f"no report of kind {kind!r} among the examples")
    node = Node()
    for doc in documents:
        node.add(doc)
    body = node.schema()
    names = sorted({doc.get("schema") for doc in documents})
    if len(names) != 1:
        raise SystemExit(f"the examples name several schemas: {names}")
    body["properties"]["schema"] = {"const": names[0],
                                    "description": "The name of this schema and its version."}
    head = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:pairboot:schema:{kind}/1",
        "title": f"pairboot {kind} report",
    }
    return factor({**head, **body})


def _case_reports() -> list[dict]:
    here = Path(__file__).resolve().parent.parent / "tests"
    sys.path[:0] = [str(here / "report"), str(here)]
    from schema_cases import reports

    return [json.loads(text) for _, text in reports()]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", help="compare, family, power, ...")
    parser.add_argument("files", nargs="*", type=Path, help="JSON reports")
    parser.add_argument("--cases", action="store_true",
                        help="take the examples of tests/report/schema_cases.py too")
    args = parser.parse_args(argv)
    docs = [json.loads(p.read_text(encoding="utf-8")) for p in args.files]
    if args.cases:
        docs += _case_reports()
    mine = [d for d in docs if str(d.get("schema", "")).startswith(f"pairboot.{args.kind}/")]
    print(f"{len(mine)} reports of kind {args.kind}", file=sys.stderr)
    json.dump(draft(args.kind, mine), sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
