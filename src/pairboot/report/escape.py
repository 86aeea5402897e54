"""Text from the data, as a report shows it: never a control sequence, a command or markup.

Names, ids, labels, file and column names come from the inputs, and a hostile data file
can hold anything: an escape sequence that clears the terminal and draws a verdict
(``"\\x1b[2J\\x1b[31mFAKE VERDICT"``), a bidi override that reorders what is read
(U+202E), or a line break followed by a workflow command (``"\\n::error::..."``, which a
GitHub Actions runner obeys at the start of any line of a step's output, after leading
whitespace; ``##[...]`` is the legacy spelling).  One function, :func:`visible`, shows
such text escaped; every text format applies it to each of its lines
(:func:`lines_text`), and the format's own escapes apply it first (:func:`md`,
:func:`tex`, the HTML's ``esc``, and :func:`pairboot.report.parts.wrap`, which would
otherwise turn a line break into a space).  JSON is data and stays exact.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["visible", "lines_text", "md", "tex"]

_HIDDEN = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
"""What is never shown raw: C0 and C1 control characters and DEL (escape sequences,
line breaks, tabs), the bidirectional controls (marks, embeddings, overrides,
isolates) and the line and paragraph separators."""

_COMMAND = re.compile(r"(?:^|(?<=\s))(?:(:)(?=:)|(#)(?=#\[))")
"""The start of a workflow command (``::`` or ``##[``) where a line could begin with it:
at the start of the text or after whitespace."""

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match) -> str:
    c = match.group()
    if c in _NAMED:
        return _NAMED[c]
    return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"


def visible(text) -> str:
    """``text`` as a report shows it: control characters, bidi controls and line or
    paragraph separators written as Python writes them in a string (``\\x1b``,
    ``\\n``, ``\\u202e``), and the first character of a ``::`` or ``##[`` that could
    start a line escaped (``\\x3a:error::``), so that no workflow command comes from
    the data.  Text without them is returned as it is.

    >>> visible("q1\\x1b[2J\\n::error::fake \\u202etxt.exe")
    'q1\\\\x1b[2J\\\\n\\\\x3a:error::fake \\\\u202etxt.exe'
    """
    text = str(text)
    if "::" in text or "##[" in text:  # (first: a line break before it is whitespace)
        text = _COMMAND.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    if _HIDDEN.search(text) is not None:
        text = _HIDDEN.sub(_escape, text)
    return text


def lines_text(lines: Iterable[str]) -> str:
    """A report's lines as its text: each :func:`visible` (a line break inside one is
    the data's, shown as ``\\n``), each ending with a line break."""
    return "".join(visible(line) + "\n" for line in lines)


_MARKUP = re.compile(r"[\\|]|\](?=[(\[:])|<(?=[A-Za-z/!?])")
"""What Markdown would read as markup: its escape character, the table's ``|``, the end
of a link's text (``](``, ``][``, a definition's ``]:``) and the start of raw HTML or an
autolink (``<`` before a letter, ``/``, ``!`` or ``?``)."""


def md(text) -> str:
    """``text`` in Markdown: :func:`visible`, then what Markdown would read as markup
    escaped with a backslash (a table's ``|``; a label ``[approve](https://...)`` or
    ``<img ...>`` is shown, not made a link or an image)."""
    return _MARKUP.sub(lambda m: "\\" + m.group(), visible(text))


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
    "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    # characters the default (OT1) font encoding lacks or prints as something else
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
    "\u00b1": r"$\pm$", "\u2212": r"$-$", "\u00b7": r"$\cdot$", "\u00d7": r"$\times$",
    "\u2264": r"$\leq$", "\u2265": r"$\geq$", "\u2248": r"$\approx$",
}


def tex(text) -> str:
    """``text`` in LaTeX: :func:`visible`, then LaTeX's special characters written as
    LaTeX prints them."""
    text = "".join(_LATEX_SPECIAL.get(c, c) for c in visible(text))
    return text.replace("+-", r"$\pm$")  # (a margin's +-0.005)
