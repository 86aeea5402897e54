"""Every JSON report names its schema first and validates against the JSON Schema the
package ships (``src/pairboot/schemas``, docs/schema.md); the oracle is ``jsonschema``.

The reports validated: every example of :mod:`schema_cases` (every kind, many designs)
and the command line's ``--format json`` of each kind.  They are validated against the
schema *closed* (no field beyond those it describes), so that a field added to a report
without its description fails here, while the shipped schema stays open to them
(consumers ignore unknown fields).  Every result type with a ``json`` writer in the
registry must name a schema that ships, and have examples: a new kind fails here, named,
until it brings both.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from helpers import run_in_process
from schema_cases import examples

import pairboot
from pairboot.errors import InputError
from pairboot.report import registry
from pairboot.report.schemas import SUFFIX, json_report, kinds, schema

jsonschema = pytest.importorskip("jsonschema")

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def closed(node):
    """``node`` with every object that lists its properties refusing any other."""
    if isinstance(node, list):
        return [closed(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: closed(v) for k, v in node.items()}
    if "properties" in out and out.get("additionalProperties", True) is True:
        out["additionalProperties"] = False
    return out


def errors_of(document: dict, kind: str) -> list[str]:
    """Where ``document`` breaks the closed schema of ``kind`` (empty: valid)."""
    validator = jsonschema.Draft202012Validator(closed(schema(kind)))
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:300]}"
            for e in validator.iter_errors(document)]


def kind_of(result_type: type) -> str:
    return registry.SCHEMA_ID.fullmatch(registry.schema_id(result_type)).group(1)


def missing_schemas() -> list[str]:
    """The result types with a ``json`` writer whose schema is not named or not shipped."""
    out = []
    for cls in registry.result_types("json"):
        name = registry.schema_id(cls)
        if name is None:
            out.append(f"{cls.__module__}.{cls.__qualname__}: its json writer names no "
                       "schema (@writes(..., 'json', schema='pairboot.<kind>/1'))")
        elif kind_of(cls) not in kinds():
            out.append(f"{cls.__qualname__}: {name} has no file "
                       f"src/pairboot/schemas/{kind_of(cls)}{SUFFIX}")
        elif schema(kind_of(cls))["properties"]["schema"].get("const") != name:
            out.append(f"{cls.__qualname__}: its writer names {name}, the shipped file "
                       f"another version")
    return out


@pytest.fixture(scope="module")
def reports() -> list[tuple[str, type, dict]]:
    """Every example's JSON report: ``(case, result type, parsed report)``."""
    from pairboot.report import render

    return [(name, type(result), json.loads(render(result, "json", context)))
            for name, result, context in examples()]


# --- every kind has its schema -------------------------------------------------------------


def test_every_result_type_with_a_json_writer_names_a_shipped_schema():
    assert registry.result_types("json"), "the registry lists no json writer"
    assert missing_schemas() == []


def test_a_json_writer_without_a_schema_is_named(monkeypatch):
    """The check above can fail: a type registered as later kinds might forget theirs."""
    monkeypatch.setattr(registry, "_writers", dict(registry._writers))

    class Forgotten:
        pass

    registry.writes(Forgotten, "json")(lambda result, context=None: "{}")
    assert [m.split(":")[0] for m in missing_schemas()] == [
        f"{__name__}.test_a_json_writer_without_a_schema_is_named.<locals>.Forgotten"]
    with pytest.raises(TypeError, match="names no schema"):
        json_report(Forgotten(), {})


def test_every_shipped_schema_belongs_to_a_writer():
    named = {kind_of(cls) for cls in registry.result_types("json")}
    assert set(kinds()) == named


def test_every_kind_has_examples(reports):
    """A kind with no example would have its schema checked against nothing."""
    seen = {t for _, t, _ in reports}
    without = [cls.__qualname__ for cls in registry.result_types("json")
               if not any(issubclass(t, cls) for t in seen)]
    assert without == [], f"add cases of {without} to tests/report/schema_cases.py"


@pytest.mark.parametrize("kind", kinds())
def test_the_schema_is_a_valid_2020_12_schema_describing_every_field(kind):
    found = schema(kind)
    jsonschema.Draft202012Validator.check_schema(found)
    assert found["$schema"] == DRAFT
    assert found["properties"]["schema"]["const"] == f"pairboot.{kind}/1"
    assert found["required"][0] == "schema"
    assert found["additionalProperties"] is True  # (open: consumers ignore new fields)

    def walk(node, path):
        for name, sub in node.get("properties", {}).items():
            assert sub.get("description", "TODO") != "TODO", f"{path}.{name}"
            walk(sub, f"{path}.{name}")
        for key in ("items", "additionalProperties"):
            if isinstance(node.get(key), dict):
                walk(node[key], f"{path}[]")

    walk(found, kind)
    for name, sub in found.get("$defs", {}).items():
        walk(sub, f"{kind}#{name}")


# --- the reports validate ------------------------------------------------------------------


@pytest.mark.parametrize("kind", kinds())
def test_every_example_report_validates(reports, kind):
    mine = [(name, doc) for name, t, doc in reports
            if registry.schema_id(t) == f"pairboot.{kind}/1"]
    assert mine
    for name, doc in mine:
        assert next(iter(doc)) == "schema", name  # (the first key)
        assert doc["schema"] == f"pairboot.{kind}/1"
        assert errors_of(doc, kind) == [], name


def test_a_report_that_breaks_its_schema_is_caught(reports):
    """The validation can fail: a field of the wrong type, one unknown, one missing."""
    name, _, doc = next(r for r in reports if r[2]["schema"] == "pairboot.compare/1")
    for change in (lambda d: d.update(estimate="0.1"), lambda d: d.update(surprise=1),
                   lambda d: d.pop("confidence_interval"),
                   lambda d: d["confidence_interval"].update(low=[0.1]),
                   lambda d: d.update(schema="pairboot.compare/2")):
        broken = copy.deepcopy(doc)
        change(broken)
        assert errors_of(broken, "compare"), name
    broken = copy.deepcopy(doc)
    broken["surprise"] = 1
    validator = jsonschema.Draft202012Validator(schema("compare"))
    assert validator.is_valid(broken)  # (the shipped schema is open to new fields)


@pytest.mark.slow  # (54 comparisons: ~5 s)
@pytest.mark.filterwarnings("ignore::pairboot.PairbootWarning")
def test_the_reference_cases_reports_validate():
    """The golden reference's comparisons (every metric, design and method, undefined
    resamples among them) as JSON reports."""
    from reference.golden.cases import CASES, build

    from pairboot.report import render

    for case in CASES:
        doc = json.loads(render(pairboot.compare(**build(case)), "json"))
        assert errors_of(doc, "compare") == [], case["name"]


def _csv(path, header, rows):
    path.write_text("\n".join([header, *(",".join(map(str, r)) for r in rows)]) + "\n")
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Per-item files: three systems' correct and cost by id and task; a long table of
    trials (A, its re-run A2, B); a judge's scores with gold labels on a third of the
    items; battles of three systems (the Arena's columns)."""
    folder = tmp_path_factory.mktemp("schema_cli")
    rng = np.random.default_rng(4)
    n = 60
    q = rng.random(n)
    tasks = np.array(["math", "code"])[np.arange(n) % 2]
    out = {}
    for name, p in (("a", 0.55), ("b", 0.65), ("c", 0.6)):
        rows = [(f"q{i}", tasks[i], int(q[i] < p), round(float(rng.gamma(2, 0.01)), 6))
                for i in range(n)]
        out[name] = _csv(folder / f"{name}.csv", "id,task,correct,cost", rows)
    trials = [(f"task{i}", f"t{t}", *(int(rng.random() < p) for p in (0.5, 0.5, 0.65)))
              for t in range(3) for i in range(30)]
    out["trials"] = _csv(folder / "trials.csv", "task,trial,A,A2,B", trials)
    judged = [(f"q{i}", round(float(q[i] + 0.1 + rng.normal(0, 0.05)), 4),
               round(float(q[i] + 0.05 + rng.normal(0, 0.05)), 4),
               *((round(float(q[i]), 4), round(float(q[i] + 0.05), 4)) if i % 3 == 0
                 else ("", ""))) for i in range(n)]
    out["judged"] = _csv(folder / "judged.csv", "id,ja,jb,ga,gb", judged)
    systems = ("x", "y", "z")
    battles = [(f"p{i}", systems[i % 3], systems[(i + 1 + i // 3 % 2) % 3],
                ("model_a", "model_b", "tie")[int(rng.integers(3))]) for i in range(60)]
    out["battles"] = _csv(folder / "battles.csv", "question_id,model_a,model_b,winner",
                          battles)
    policy = folder / "gate.toml"
    policy.write_text('[gate]\n[gate.metrics]\ncorrect = {}\ncost = {lower_is_better = '
                      'true}\n[[gate.rows]]\nmetric = "correct"\ntest = "non-inferior"\n'
                      'margin = 0.1\ntasks = "each"\n[[gate.rows]]\nmetric = "cost"\n'
                      'test = "superior"\n')
    out["policy"] = policy
    return out


COMMANDS = {
    "compare": lambda f: ("compare", f["a"], f["b"], "--id", "id", "--score", "correct",
                          "--stratum", "task"),
    "compare noise floor": lambda f: ("compare", f["trials"], "--a", "A", "--b", "B", "--id",
                                      "task", "--run", "trial", "--runs", "samples",
                                      "--noise-floor", "A,A2"),
    "family": lambda f: ("compare", f["a"], f["b"], f["c"], "--id", "id", "--score",
                         "correct", "--correction", "holm"),
    "metrics": lambda f: ("compare", f["a"], f["b"], "--id", "id", "--score", "correct",
                          "--score", "cost:lower"),
    "gate": lambda f: ("compare", f["a"], f["b"], "--id", "id", "--stratum", "task",
                       "--gate", f["policy"]),
    "curve": lambda f: ("compare", f["trials"], "--a", "A", "--b", "B", "--id", "task",
                        "--run", "trial", "--runs", "samples", "--curve", "pass^k"),
    "compare_ppi": lambda f: ("compare", f["judged"], "--id", "id", "--a", "ja", "--b", "jb",
                              "--gold-a", "ga", "--gold-b", "gb"),
    "compare_ppi clt": lambda f: ("compare", f["judged"], "--id", "id", "--a", "ja", "--b",
                                  "jb", "--gold-a", "ga", "--gold-b", "gb", "--method", "clt"),
    "agreement": lambda f: ("agreement", f["judged"], "--a", "ga", "--b", "gb",
                            "--skip-unrated", "--statistics", "alpha-interval",
                            "--resamples", "200", "--seed", "3", "--no-progress"),
    "gold_labels": lambda f: ("gold-labels", f["judged"], "--a", "ja", "--b", "jb",
                              "--gold-a", "ga", "--gold-b", "gb", "--half-width", "0.05"),
    "compare_tasks": lambda f: ("compare", f["a"], f["b"], f["c"], "--id", "id", "--score",
                                "correct", "--stratum", "task", "--aggregate", "win-rate"),
    "compare_preferences": lambda f: ("battles", f["battles"], "--resamples", "200",
                                      "--seed", "3"),
    "power": lambda f: ("power", "--sd", "0.5", "--delta", "0.1", "--power", "0.8"),
    "power pilot": lambda f: ("power", f["a"], f["b"], "--id", "id", "--score", "correct",
                              "--delta", "0.05", "--power", "0.8"),
}


@pytest.mark.filterwarnings("ignore::pairboot.PairbootWarning")
@pytest.mark.parametrize("case", list(COMMANDS))
def test_the_command_lines_json_validates(files, case):
    args = [*COMMANDS[case](files), "--format", "json"]
    if args[0] == "compare":
        args += ["--seed", "3", "--resamples", "400", "--no-progress"]
    proc = run_in_process(*args)
    assert proc.returncode in (0, 1), proc.stderr.decode()  # (1: a gate that fails)
    doc = json.loads(proc.stdout)
    kind = case.split()[0]
    assert next(iter(doc)) == "schema" and doc["schema"] == f"pairboot.{kind}/1"
    assert errors_of(doc, kind) == []
    if case == "compare noise floor":
        assert "noise_floor" in doc


def test_the_draft_tool_infers_a_schema_its_examples_validate(reports):
    """tools/schema_draft.py (the start of a new kind's schema) still runs: its draft of
    a kind is a valid schema, naming the kind, that the kind's examples validate."""
    import importlib.util

    from helpers import PROJECT_ROOT

    spec = importlib.util.spec_from_file_location(
        "schema_draft", PROJECT_ROOT / "tools" / "schema_draft.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    for kind in ("noise", "family"):
        docs = [doc for _, _, doc in reports if doc["schema"] == f"pairboot.{kind}/1"]
        draft = tool.draft(kind, docs)
        jsonschema.Draft202012Validator.check_schema(draft)
        assert draft["properties"]["schema"]["const"] == f"pairboot.{kind}/1"
        assert set(draft["required"]) >= {"schema", "confidence_level", "warnings"}
        for doc in docs:
            jsonschema.Draft202012Validator(draft).validate(doc)


# --- pairboot.schema ---------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::pairboot.PairbootWarning")
def test_schema_is_found_by_kind_name_result_or_type():
    one = pairboot.schema("compare")
    assert pairboot.schema("pairboot.compare/1") == one
    assert pairboot.schema(pairboot.CompareResult) == one
    r = pairboot.compare(np.arange(40.0) % 3, np.arange(40.0) % 4, n_resamples=400, seed=1)
    assert pairboot.schema(r) == one
    one["title"] = "changed"  # (a copy of its own)
    assert pairboot.schema("compare")["title"] != "changed"
    assert pairboot.schema is pairboot.report.schema
    assert set(kinds()) >= {"compare", "family", "power", "metrics", "gate", "noise", "curve",
                            "compare_ppi", "agreement", "gold_labels", "compare_tasks",
                            "compare_preferences"}


@pytest.mark.parametrize("kind, says", [
    ("nope", "no schema of a 'nope': the kinds are agreement, compare, compare_ppi"),
    ("pairboot.compare/2", "ships pairboot.compare/1"),
    ("pairboot.nope/1", "no schema of a 'nope'"),
    (3.5, "a float has no JSON report"),
])
def test_an_unknown_kind_or_version_is_one_line(kind, says):
    with pytest.raises(InputError) as info:
        pairboot.schema(kind)
    assert info.value.param == "kind"
    assert says in str(info.value) and "\n" not in str(info.value)


def test_writes_refuses_a_schema_off_a_json_writer_or_badly_named():
    with pytest.raises(ValueError, match="pairboot.<kind>/<version>"):
        registry.writes(dict, "text", schema="pairboot.x/1")
    for bad in ("compare/1", "pairboot.compare", "pairboot.Compare/1", "pairboot.x/0"):
        with pytest.raises(ValueError, match="pairboot.<kind>/<version>"):
            registry.writes(dict, "json", schema=bad)
