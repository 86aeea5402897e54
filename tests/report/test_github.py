"""``--format github``: the step summary's Markdown against a recorded golden file, and
the workflow commands (``::warning::``, ``::error::``) on standard error, escaped as
GitHub documents; the exit status is the other formats'."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from helpers import run_in_process as _run_in_process

import pairboot
from pairboot.report import render, render_family, workflow_commands
from pairboot.report.github import command, escape_data, escape_property

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("PAIRBOOT_UPDATE_GOLDEN") == "1"
"""Set to rewrite the golden files from this run (then read the diff before committing)."""

A = [1, 1, 0, 1, 1, 0, 1, 1]
B = [1, 0, 0, 1, 1, 1, 0, 0]


def run_in_process(*args):
    """The command line's run, its streams as text."""
    run = _run_in_process(*args)
    run.stdout, run.stderr = run.stdout.decode(), run.stderr.decode()
    return run


def steady(text: str) -> str:
    """``text`` without what changes between releases and machines: the versions and
    the engine in the signature."""
    text = re.sub(r"pairboot \d+\.\d+\S*", "pairboot VERSION", text)
    text = re.sub(r"numpy \d+\.\d+\S*", "numpy VERSION", text)
    return re.sub(r"engine [a-z+]+", "engine ENGINE", text)


def golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from the golden file"


@pytest.fixture()
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # (relative names: the report names the files)
    for name, scores in (("base.csv", A), ("new.csv", B)):
        rows = "".join(f"q{i},{s}\n" for i, s in enumerate(scores))
        Path(name).write_text("id,score\n" + rows, encoding="utf-8")
    return "base.csv", "new.csv"


def test_a_failed_gate_the_golden_summary_and_commands(files):
    run = run_in_process("compare", *files, "--id", "id", "--score", "score", "--format",
                         "github", "--margin", "0.005", "--fail-if", "inferior", "--seed",
                         "1", "--resamples", "1000", "--top", "2", "--no-progress")
    assert run.returncode == 1  # (as with every format: the gate failed)
    golden("github_compare.md", steady(run.stdout))
    golden("github_compare.stderr", steady(run.stderr))
    lines = run.stderr.splitlines()
    assert lines[-1].startswith("::error title=pairboot::pairboot: --fail-if inferior: ")
    assert all(line.startswith("::warning title=pairboot::") for line in lines[:-1])
    assert len(lines) > 1 and not any(line.startswith("warning: ") for line in lines)
    assert "Gate `--fail-if inferior`: **failed**" in run.stdout
    assert "::" not in run.stdout  # (the summary file gets no command)


def test_the_summary_is_the_markdown_report_with_items(files):
    run = run_in_process("compare", *files, "--id", "id", "--format", "github", "--seed",
                         "1", "--resamples", "1000", "--no-progress")
    markdown = run_in_process("compare", *files, "--id", "id", "--format", "markdown",
                              "--seed", "1", "--resamples", "1000", "--no-progress")
    assert run.returncode == markdown.returncode == 0
    assert run.stdout.endswith(markdown.stdout)
    assert run.stdout.startswith("### pairboot: new (B) against base (A)\n")
    assert "| B gains | q5 | 0 | 1 | +1 |" in run.stdout  # (the items, by their ids)
    assert "Gate" not in run.stdout


def test_a_passed_gate_prints_no_error(files):
    run = run_in_process("compare", *files, "--id", "id", "--format", "github",
                         "--fail-if", "worse", "--seed", "1", "--resamples", "1000",
                         "--no-progress")
    assert run.returncode == 0
    assert "::error" not in run.stderr and "**passed**" in run.stdout


def test_workflow_command_data_is_escaped_as_github_documents():
    assert escape_data("95% of\r\nitems") == "95%25 of%0D%0Aitems"
    assert escape_property("a: b, c%") == "a%3A b%2C c%25"
    # a message's control characters are the data's, shown escaped (report.escape):
    # a line break as \n, an escape sequence as \x1b, never raw in the job's log
    assert command("warning", "x%\ny\x1b[31m") == "::warning title=pairboot::x%25\\ny\\x1b[31m"
    assert workflow_commands(["w1", "50%"], "gate\nfailed") == [
        "::warning title=pairboot::w1", "::warning title=pairboot::50%25",
        "::error title=pairboot::gate\\nfailed"]
    assert workflow_commands([]) == []


def test_warnings_become_warning_commands_with_the_cli_s_spelling(files):
    run = run_in_process("compare", *files, "--id", "id", "--format", "github",
                         "--resampling", "poisson", "--seed", "1", "--resamples", "1000",
                         "--no-progress")
    commands = run.stderr.splitlines()
    assert commands and all(c.startswith("::warning title=pairboot::") for c in commands)
    assert any("--resampling classic" in c for c in commands)  # (not resampling='classic')


def test_a_family_in_the_github_format(tmp_path, monkeypatch, files):
    Path("third.csv").write_text("id,score\n" + "".join(f"q{i},1\n" for i in range(8)))
    run = run_in_process("compare", *files, "third.csv", "--id", "id", "--format",
                         "github", "--seed", "1", "--resamples", "500", "--no-progress")
    assert run.returncode == 0
    assert run.stdout.startswith("### pairboot: a family of comparisons\n\n**3 systems")
    assert run.stderr and all(line.startswith("::warning title=pairboot::")
                              for line in run.stderr.splitlines())


def test_the_writers_are_registered():
    res = pairboot.compare(A * 5, B * 5, seed=1, n_resamples=1000)
    assert render(res, "github").startswith("### pairboot: B (B) against A (A)")
    fam = pairboot.compare_many({"x": A * 5, "y": B * 5, "z": A[::-1] * 5}, seed=1,
                                n_resamples=1000)
    assert render_family(fam, "github").startswith("### pairboot: a family of comparisons")
