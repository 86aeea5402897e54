"""GitHub's workflow commands (``::warning::``, ``::error::``) that the command line prints
beside a ``--format github`` report, and the failed gate's line: apart from the writers
of :mod:`~pairboot.report.github` (which import a family's), so that every command that
may print them loads only this.

Workflow-command data is escaped as GitHub documents it (``%`` as ``%25``, ``\\r`` as
``%0D``, ``\\n`` as ``%0A``; a property's value also ``:`` as ``%3A`` and ``,`` as
``%2C``); a message is first shown as :func:`~pairboot.report.escape.visible` shows it,
so that the data's control characters (an escape sequence the log would colour with, a
line break) are written out.
"""

from __future__ import annotations

from pairboot.report.escape import visible

__all__ = ["TITLE", "command", "escape_data", "escape_property", "gate_text",
           "workflow_commands"]

TITLE = "pairboot"
"""The title of every annotation."""


def escape_data(text: str) -> str:
    """A workflow command's message, escaped: ``%``, ``\\r`` and ``\\n``."""
    return str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value: as data, and ``:`` and ``,`` too."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(kind: str, message: str, title: str = TITLE) -> str:
    """One workflow command: ``::warning title=pairboot::message`` (the message as
    :func:`~pairboot.report.escape.visible` shows it: no control character of the data
    reaches the log)."""
    return f"::{kind} title={escape_property(title)}::{escape_data(visible(message))}"


def workflow_commands(warnings, failure: str | None = None) -> list[str]:
    """A ``::warning::`` per warning (as the reader should see it: already reworded),
    and an ``::error::`` with ``failure``, the failed gate in words, when there is
    one."""
    lines = [command("warning", w) for w in warnings]
    if failure is not None:
        lines.append(command("error", failure))
    return lines


def gate_text(fail_if: str, verdict: dict) -> str:
    """A failed gate in words (the command line's line on standard error)."""
    why = ("the verdict is undefined, so the gate cannot pass: "
           if verdict["reason"] == "undefined" else "")
    return f"pairboot: --fail-if {fail_if}: {why}{verdict['headline']}"
