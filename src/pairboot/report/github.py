"""``--format github``: a report for a GitHub Actions job.

Two parts, for two readers:

- the **Markdown** of the step summary (:func:`write_github`, :func:`family_github`):
  the Markdown report under a heading, with the gate's outcome when ``--fail-if`` asks;
  it is the report, written where every report goes (standard output or ``--output``),
  so ``pairboot compare ... --format github >> "$GITHUB_STEP_SUMMARY"`` puts it in the
  job's summary;
- the **workflow commands** (:func:`workflow_commands`): ``::warning::`` for every
  warning and ``::error::`` for a failed gate, which the command line prints on
  standard *error*.  The runner reads workflow commands from both of a step's streams
  (actions/runner's ``ScriptHandler`` hands stdout and stderr alike to its command
  manager), and standard output may well be the summary file, where a command would be
  printed as text and never run.

Workflow-command data is escaped as GitHub documents it (``%`` as ``%25``, ``\\r`` as
``%0D``, ``\\n`` as ``%0A``; a property's value also ``:`` as ``%3A`` and ``,`` as
``%2C``); a message is first shown as :func:`~pairboot.report.escape.visible` shows it,
so that the data's control characters (an escape sequence the log would colour with, a
line break) are written out.
"""

from __future__ import annotations

from pairboot.report.escape import lines_text, md
from pairboot.report.family import FamilyContext
from pairboot.report.family_formats import family_markdown
from pairboot.report.formats import write_markdown
from pairboot.report.parts import ReportContext
from pairboot.report.registry import writes
from pairboot.report.verdicts import decision
from pairboot.report.workflow import (  # noqa: F401  (their home before workflow.py)
    TITLE,
    command,
    escape_data,
    escape_property,
    gate_text,
    workflow_commands,
)
from pairboot.results.compare import CompareResult
from pairboot.results.family import FamilyResult


@writes(CompareResult, "github")
def write_github(result: CompareResult, context: ReportContext | None = None) -> str:
    """The step summary's Markdown: a heading naming B and A, the gate's outcome when
    ``context.fail_if`` asks for one, then the Markdown report."""
    ctx = context or ReportContext()
    lines = [f"### pairboot: {md(ctx.name_b)} (B) against {md(ctx.name_a)} (A)", ""]
    if ctx.fail_if is not None:
        verdict = decision(result, ctx)
        outcome = "failed" if verdict["failed"] else "passed"
        lines += [f"Gate `--fail-if {ctx.fail_if}`: **{outcome}** (verdict: "
                  f"{md(verdict['verdict'])}).", ""]
    return lines_text(lines) + write_markdown(result, ctx)


@writes(FamilyResult, "github")
def family_github(result: FamilyResult, context: FamilyContext | None = None) -> str:
    """A family's step summary: a heading, then its Markdown report (whose first line
    counts the systems and comparisons)."""
    return "### pairboot: a family of comparisons\n\n" + family_markdown(result, context)
