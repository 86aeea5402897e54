"""``pairboot mcp``: the MCP server's tools called by the official SDK's own client, in
process (and once over stdio, as an agent starts it); each answer is the Python API's."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

import pairboot

pytest.importorskip("mcp")
anyio = pytest.importorskip("anyio")

from mcp import Client  # noqa: E402

from pairboot.mcp_server import build_server  # noqa: E402

BASE = [0.2, 0.5, 0.4, 0.7, 0.1, 0.9, 0.3, 0.6, 0.0, 0.8] * 3
NEW = [0.3, 0.6, 0.4, 0.9, 0.2, 0.8, 0.5, 0.6, 0.1, 0.9] * 3
OTHER = [0.2, 0.4, 0.5, 0.7, 0.1, 0.9, 0.2, 0.6, 0.1, 0.7] * 3
IDS = [f"q{i}" for i in range(len(BASE))]


@pytest.fixture
def table(tmp_path) -> str:
    path = tmp_path / "scores.csv"
    lines = ["id,base,new,other"] + [f"{i},{a},{b},{c}"
                                     for i, a, b, c in zip(IDS, BASE, NEW, OTHER)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def call(name: str, arguments: dict, server=None):
    """The tool's result, as the SDK's client receives it from the server in process."""
    async def go():
        async with Client(server if server is not None else build_server()) as client:
            return await client.call_tool(name, arguments)

    return anyio.run(go)


def same(got: dict, want: dict) -> list[str]:
    """The keys of the Python API's answer whose value the tool's JSON misses or differs
    on (the JSON carries more: the files and columns, the words of the report)."""
    return [k for k, v in want.items() if k not in got or got[k] != v]


def test_the_server_lists_its_three_tools():
    async def go():
        async with Client(build_server()) as client:
            return await client.list_tools()

    tools = {t.name: t for t in anyio.run(go).tools}
    assert sorted(tools) == ["compare", "compare_many", "power"]
    assert {"files", "a", "b", "id", "score", "seed", "options"} <= set(
        tools["compare"].input_schema["properties"])
    assert tools["compare"].input_schema["required"] == ["files"]


def test_compare_answers_as_the_python_api(table):
    result = call("compare", {"files": [table], "a": "base", "b": "new", "id": "id",
                              "seed": 3, "resamples": 999})
    assert not result.is_error
    json_text, report = (block.text for block in result.content)
    assert json.loads(json_text) == result.structured_content
    want = pairboot.compare(BASE, NEW, seed=3, n_resamples=999, ids=IDS)
    assert same(result.structured_content, want.to_dict()) == []
    assert result.structured_content["verdict"] == want.verdict() == "better"
    headline = want.summary(name_a="base", name_b="new").splitlines()[0]
    assert report.splitlines()[0] == headline


def test_compare_many_answers_as_the_python_api(table):
    result = call("compare_many", {"files": [table], "systems": ["base", "new", "other"],
                                   "baseline": "base", "correction": "holm", "seed": 5,
                                   "resamples": 999, "report": "markdown"})
    assert not result.is_error
    want = pairboot.compare_many({"base": BASE, "new": NEW, "other": OTHER},
                                 baseline="base", correction="holm", seed=5,
                                 n_resamples=999)
    got = result.structured_content
    assert same(got, {k: v for k, v in want.to_dict().items() if k != "comparisons"}) == []
    assert [same(g, w) for g, w in zip(got["comparisons"], want.to_dict()["comparisons"])
            ] == [[], []]
    markdown = result.content[1].text
    assert markdown.startswith("**3 systems, 2 comparisons") and "\n|" in markdown


@pytest.mark.parametrize("tool, arguments, command", [
    ("compare", {"a": "base", "b": "new", "id": "id", "seed": 3, "resamples": 199},
     "run_compare"),
    ("compare_many", {"systems": ["base", "new", "other"], "seed": 5, "resamples": 199,
                      "report": "markdown"}, "run_compare"),
    ("power", {"a": "base", "b": "new", "id": "id", "delta": 0.05, "power": 0.8},
     "run_power"),
])
def test_a_tool_runs_its_command_once_for_the_json_and_the_report(
        monkeypatch, table, tool, arguments, command):
    from pairboot.cli import compare as cli_compare
    from pairboot.cli import power as cli_power
    from pairboot.mcp_server import argv_of, run_command

    module = cli_power if command == "run_power" else cli_compare
    runs = []
    real = getattr(module, command)
    monkeypatch.setattr(module, command, lambda args: runs.append(1) or real(args))
    result = call(tool, {"files": [table], **arguments})
    assert not result.is_error and len(runs) == 1
    # the report is the one the command prints in that format
    report = arguments.get("report", "text")
    given = {k: v for k, v in arguments.items() if k != "report"}
    status, page, error = run_command([*argv_of("power" if tool == "power" else "compare",
                                                [table], given, None),
                                       f"--format={report}", "--no-progress"])
    assert (status, error) == (0, "") and result.content[1].text == page


def test_a_compare_with_gold_labels_runs_once_for_the_json_and_the_report(
        monkeypatch, tmp_path):
    """A prediction-powered compare (--gold-a/--gold-b) renders its report through
    report_text too: one run of cli.ppi.run_ppi, not one per format."""
    from pairboot.cli import ppi as cli_ppi
    from pairboot.mcp_server import argv_of, run_command

    gold = [x if i % 3 == 0 else "" for i, x in enumerate(BASE)]
    gold_new = [x if i % 3 == 0 else "" for i, x in enumerate(NEW)]
    path = tmp_path / "judged.csv"
    path.write_text("\n".join(["id,base,new,gold_base,gold_new"] + [
        f"{i},{a},{b},{g},{h}" for i, a, b, g, h in zip(IDS, BASE, NEW, gold, gold_new)])
        + "\n", encoding="utf-8")
    runs = []
    real = cli_ppi.run_ppi
    monkeypatch.setattr(cli_ppi, "run_ppi", lambda args, how: runs.append(1) or real(args, how))
    given = {"a": "base", "b": "new", "id": "id", "seed": 3, "resamples": 199}
    options = ["--gold-a", "gold_base", "--gold-b", "gold_new"]
    result = call("compare", {"files": [str(path)], **given, "report": "markdown",
                              "options": options})
    assert not result.is_error and len(runs) == 1
    assert result.structured_content["schema"] == "pairboot.compare_ppi/1"
    status, page, error = run_command([*argv_of("compare", [str(path)], given, options),
                                       "--format=markdown", "--no-progress"])
    assert (status, error) == (0, "") and result.content[1].text == page
    assert page.startswith("**Prediction-powered B - A")


def test_power_answers_as_the_python_api():
    result = call("power", {"sd": 0.5, "delta": 0.05, "power": 0.8, "report": "none"})
    assert not result.is_error and len(result.content) == 1
    want = pairboot.power(sd=0.5, delta=0.05, power=0.8)
    assert result.structured_content["n_items"] == want.n_items == 787


def test_power_reads_a_pilot(table):
    result = call("power", {"files": [table], "a": "base", "b": "new", "delta": 0.02,
                            "power": 0.8})
    want = pairboot.power(BASE, NEW, delta=0.02, power=0.8)
    assert result.structured_content["n_items"] == want.n_items


def test_further_options_as_the_command_spells_them(table):
    result = call("compare", {"files": [table], "a": "base", "b": "new", "seed": 3,
                              "resamples": 999, "options": ["--unpaired"]})
    want = pairboot.compare(BASE, NEW, seed=3, n_resamples=999, paired=False)
    assert result.structured_content["paired"] is False
    assert result.structured_content["confidence_interval"] == want.to_dict()[
        "confidence_interval"]


@pytest.mark.parametrize("arguments, says", [
    ({"files": ["{folder}/absent.csv"], "a": "base", "b": "new"}, "absent.csv: no such file"),
    ({"files": ["{table}"], "a": "base", "b": "newer"}, "no column 'newer'"),
    ({"files": ["{table}"], "a": "base", "b": "new", "level": 95}, "--level"),
    ({"files": ["{table}"], "a": "base", "b": "new", "resamples": "many"}, "resamples: "),
    ({"files": ["{table}"], "a": "base", "b": "new", "options": ["--bogus"]},
     "unrecognized arguments: --bogus"),
    ({"files": ["{table}"], "a": "base", "b": "new", "options": ["--output", "x.txt"]},
     "--output is not for the MCP tool"),
    ({"files": ["-"], "a": "base", "b": "new"}, "'-' (standard input)"),
    ({"files": ["{table}"], "a": "base", "b": "new", "options": ["--outp", "{folder}/x.txt"]},
     "--output and --plot are not for the MCP tool"),
    ({"files": ["{table}"], "a": "base", "b": "new", "options": ["-o{folder}/x.txt"]},
     "--output and --plot are not for the MCP tool"),
])
def test_bad_input_is_a_tool_error_of_one_line(table, arguments, says):
    folder = str(Path(table).parent)
    arguments = {k: [f.format(folder=folder, table=table) for f in v]
                 if k in ("files", "options") else v for k, v in arguments.items()}
    result = call("compare", arguments)
    assert result.is_error
    (block,) = result.content
    assert says in block.text
    assert "\n" not in block.text and "Traceback" not in block.text
    assert block.text.startswith("Error executing tool compare: ")
    assert sorted(p.name for p in Path(folder).iterdir()) == ["scores.csv"]  # (no file)


@pytest.mark.slow  # (a fresh Python process: the server as an agent starts it)
def test_pairboot_mcp_serves_over_stdio(table):
    from mcp import StdioServerParameters

    src = str(Path(pairboot.__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (src, os.environ.get("PYTHONPATH")) if p)}
    server = StdioServerParameters(command=sys.executable, args=["-m", "pairboot", "mcp"],
                                   env=env)
    result = call("compare", {"files": [table], "a": "base", "b": "new", "seed": 3,
                              "resamples": 999, "report": "none"}, server=server)
    want = pairboot.compare(BASE, NEW, seed=3, n_resamples=999, ids=IDS)
    assert result.structured_content["estimate"] == want.estimate
    assert result.structured_content["confidence_interval"] == want.to_dict()[
        "confidence_interval"]


def test_without_the_sdk_pairboot_mcp_is_one_error_line(monkeypatch, capsys):
    from pairboot.cli import main

    monkeypatch.setitem(sys.modules, "mcp.server.mcpserver", None)
    assert main(["mcp"]) == 2
    err = capsys.readouterr().err
    assert err == ("error: pairboot mcp needs the MCP SDK 2 or later: pip install "
                   "'pairboot[mcp]'\n")
