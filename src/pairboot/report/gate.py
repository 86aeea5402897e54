"""Reports of a release gate (:class:`pairboot.results.metrics.GateResult`): the verdict,
one row per rule with its interval, p-value and verdict, how the rows combine; text,
Markdown, GitHub's step summary, JSON, and JUnit XML (one test case per row: a failed
row a failure with its interval in the message, an inconclusive row skipped with its
reason), the test view GitLab, Jenkins and Azure DevOps read."""

from __future__ import annotations

import math

from pairboot.report.escape import lines_text, md, visible
from pairboot.report.github import command
from pairboot.report.numbers import percent, plural
from pairboot.report.parts import wrap
from pairboot.report.registry import writes
from pairboot.report.schemas import json_report
from pairboot.report.table import Table, markdown, text
from pairboot.results.metrics import GateResult, GateRow

__all__ = ["gate_annotations", "gate_junit", "gate_reasons", "gate_table", "gate_text"]

_MARK = {"pass": "pass", "fail": "FAIL", "inconclusive": "inconclusive"}


def _num(x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x:.4g}"


def _interval(row: GateRow) -> str:
    if row.interval is None:
        return "per task"
    low, high = row.interval
    return f"[{_num(low)}, {_num(high)}]"


def _p(p: float | None) -> str:
    return "n/a" if p is None or not math.isfinite(p) else f"{p:.3g}"


def _detail(row: GateRow) -> str:
    """What decided the row, and for an inconclusive one the size that would."""
    parts = [row.method]
    if row.why:
        parts.append(row.why)
    if row.verdict == "inconclusive":
        each = " per task" if row.tasks else ""
        parts.append(f"about {row.needed_items:,} items{each} would decide it at 80% power "
                     "if the difference is as estimated" if row.needed_items is not None
                     else "more items may not decide it: the estimate is on the failing "
                     "side or has no spread")
    return "; ".join(parts)


def gate_table(res: GateResult) -> Table:
    """One row per rule: its verdict, estimate, interval at ``1 - 2 alpha``, p-value."""
    rows = []
    for r in res.rows:
        p = _p(r.p_value) + ("" if r.p_adjusted is None
                             else f" ({r.correction or 'Holm'} {_p(r.p_adjusted)})")
        rows.append((r.name, "must" if r.require == "all" else "any of",
                     _MARK[r.verdict], _num(r.estimate) if r.estimate is not None
                     else plural(len(r.tasks), "task"), _interval(r), p))
    level = percent(1.0 - 2.0 * (1.0 - res.confidence_level))
    return Table(("row", "holds", "verdict", "B - A", f"{level} interval", "p"), tuple(rows),
                 "llllrr")


def _task_lines(res: GateResult) -> list[str]:
    return [line for r in res.rows for line in _row_task_lines(r)]


def _row_task_lines(r) -> list[str]:
    """A row's line per task: its B - A, interval and p-value there."""
    return [f"{r.name} [{t}]: B - A {_num(e)} [{_num(low)}, {_num(high)}], p {_p(p)}"
            for t, e, (low, high), p in zip(r.tasks, r.task_estimates, r.task_intervals,
                                             r.task_p_values)]


def _words(res: GateResult) -> list[str]:
    a, b = res.names
    alpha = round(1.0 - res.confidence_level, 12)
    status = res.exit_status
    head = (f"Gate: {res.verdict.upper()} ({b} against {a}, {plural(len(res.rows), 'row')}, "
            f"{plural(res.n_items, 'item')}"
            + (f" in {plural(len(res.tasks), 'task')}" if res.tasks else "")
            + f"; exit status {status})")
    how = (f"Each row is tested at alpha = {alpha:g} (one-sided; the interval shown is the "
           f"two-sided {percent(1.0 - 2.0 * alpha)} one, whose ends are those one-sided "
           "bounds). The rows that must all hold form an intersection-union test: the gate "
           f"passes only if each one does, so it passes with probability at most {alpha:g} "
           "when any of their claims is false, with no correction needed.")
    anys = [r for r in res.rows if r.require == "any"]
    if anys and anys[0].correction == "max-t":
        how += (" The rows of which any one suffices are corrected together by max-t on "
                "their joint resamples (the Romano-Wolf stepdown: it uses their "
                "correlation, so it is more powerful than Bonferroni or Holm).")
    elif anys:
        how += (" The rows of which any one suffices are corrected by Holm (valid under any "
                "dependence).")
    how += (" A row fails when the opposite of its claim is shown at the same level "
            "(Holm across the tasks of a row over tasks); it is inconclusive when neither "
            f"is, and an inconclusive gate {res.inconclusive}s (exit status "
            f"{0 if res.inconclusive == 'pass' else 1}).")
    return [head, how]


def _signature(res: GateResult) -> str:
    from pairboot._version import __version__

    return (f"pairboot {__version__} | gate sha256 {res.policy_sha256[:16]} | level "
            f"{res.confidence_level:g} | resamples {res.n_resamples} | seed {res.seed}")


@writes(GateResult, "text")
def gate_text(res: GateResult, context=None) -> str:
    """The plain-text report (``print(result)``)."""
    lines = [w for line in _words(res) for w in wrap(line)] + [""] + text(gate_table(res))
    detail = [f"{r.name}: {_detail(r)}" for r in res.rows]
    lines += [""] + [w for x in detail + _task_lines(res) for w in wrap(x, "  ")]
    lines += [w for x in res.warnings for w in wrap(x, "warning: ")]
    return lines_text([*lines, "", _signature(res)])


@writes(GateResult, "markdown")
def gate_markdown(res: GateResult, context=None) -> str:
    """The Markdown report."""
    head, how = _words(res)
    lines = [f"**{md(head)}**", "", md(how), ""] + markdown(gate_table(res)) + [""]
    lines += [f"- {md(r.name)}: {md(_detail(r))}" for r in res.rows]
    lines += [f"- {md(x)}" for x in _task_lines(res)]
    lines += [f"- warning: {md(w)}" for w in res.warnings]
    return lines_text([*lines, "", f"`{_signature(res)}`"])


@writes(GateResult, "github")
def gate_github(res: GateResult, context=None) -> str:
    """A step summary: a heading with the verdict, then the Markdown report."""
    a, b = res.names
    return (f"### pairboot gate: {res.verdict} ({md(b)} against {md(a)})\n\n"
            + gate_markdown(res, context))


def gate_reasons(res: GateResult) -> list[str]:
    """One line per row that is not a pass: its verdict, estimate, interval and p-value,
    and what decided it (for an inconclusive row, the size that would decide it)."""
    return [f"{r.name}: {r.verdict}; B - A {_num(r.estimate)} {_interval(r)}, "
            f"p {_p(r.p_value)}; {_detail(r)}" for r in res.rows if r.verdict != "pass"]


def gate_annotations(res: GateResult) -> list[str]:
    """GitHub workflow commands for the rows that are not a pass (the command line
    prints them on standard error with ``--format github``): an ``::error::`` for a
    failed row, and for an inconclusive one an ``::error::`` when the gate counts it
    as a failure, else a ``::warning::``."""
    kinds = {"fail": "error",
             "inconclusive": "error" if res.inconclusive == "fail" else "warning"}
    return [command(kinds[r.verdict], line, title="pairboot gate")
            for r, line in zip((r for r in res.rows if r.verdict != "pass"),
                               gate_reasons(res))]


@writes(GateResult, "json", schema="pairboot.gate/1")
def gate_json(res: GateResult, context=None) -> str:
    """The result's fields as JSON, with the signature."""

    out = res.to_dict()
    out["signature"] = _signature(res)
    return json_report(res, out)


def escape(text: str) -> str:
    """Text as XML character data: ``&``, ``<`` and ``>`` escaped (xml.sax.saxutils'
    would import urllib, and with it hashlib and tempfile, on every command's path)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _attr(text: str) -> str:
    """An XML attribute's value, quoted: :func:`visible` first, since XML 1.0 cannot hold
    most control characters at all (a name with one would make the file unreadable)."""
    value = escape(visible(text)).replace('"', "&quot;")
    return '"' + value.replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;") + '"'


@writes(GateResult, "junit")
def gate_junit(res: GateResult, context=None) -> str:
    """JUnit XML: one ``testsuite`` named after the gate, one ``testcase`` per row; a
    failed row a ``failure`` (its interval and p-value in the message), an inconclusive
    row ``skipped`` with the reason (as the gate's ``inconclusive`` says it counts), a
    passed row a plain test case.  The properties carry the verdict and the policy's
    hash.  Valid against the Jenkins xUnit plugin's JUnit schema (tested), which allows
    a ``skipped`` count on the ``testsuite`` but not on the ``testsuites`` root."""
    a, b = res.names
    failures = sum(r.verdict == "fail" for r in res.rows)
    skipped = sum(r.verdict == "inconclusive" for r in res.rows)
    suite = f"pairboot gate: {b} against {a}"
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<testsuites name="pairboot" tests="{len(res.rows)}" failures="{failures}" '
           'errors="0">',
           f'  <testsuite name={_attr(suite)} tests="{len(res.rows)}" '
           f'failures="{failures}" errors="0" skipped="{skipped}">',
           "    <properties>",
           f'      <property name="verdict" value={_attr(res.verdict)}/>',
           f'      <property name="policy_sha256" value={_attr(res.policy_sha256)}/>',
           f'      <property name="confidence_level" value="{res.confidence_level:g}"/>',
           "    </properties>"]
    for r in res.rows:
        message = (f"{r.name}: {r.verdict}; B - A {_num(r.estimate)} {_interval(r)}, "
                   f"p {_p(r.p_value)}")
        case = (f'    <testcase classname={_attr("pairboot.gate." + r.metric)} '
                f'name={_attr(r.name)}')
        if r.verdict == "pass":
            out.append(case + "/>")
            continue
        out.append(case + ">")
        body = escape(lines_text([message, _detail(r), *_row_task_lines(r)]))
        if r.verdict == "fail":
            out.append(f'      <failure message={_attr(message)} type="gate">'
                       f"{body}</failure>")
        else:
            out.append(f"      <skipped message={_attr(message + '; ' + _detail(r))}/>")
        out.append("    </testcase>")
    out += ["  </testsuite>", "</testsuites>"]
    return "\n".join(out) + "\n"
