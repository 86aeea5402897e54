"""A report's table, defined once and laid out per format.

A :class:`Table` is a head (or none), rows of cells and an alignment per column (``l``,
``r`` or ``c``).  Its cells are text as the data gives it (names, ids) or numbers as the
report writes them; each layout escapes a cell as its format needs, through
:mod:`~pairboot.report.escape`: :func:`text` as :func:`~pairboot.report.escape.visible`
shows it, :func:`markdown` with :func:`~pairboot.report.escape.md`, :func:`latex` with
:func:`~pairboot.report.escape.tex`.  A :class:`Markup` cell is already written in one
format's markup (a bold score, a number in math mode) and is laid out as it is.

GitHub's step summary is Markdown; the HTML report lays the same tables out with its
own classes and ``data-field`` names (:mod:`pairboot.report.html`).  As sacrebleu
builds one table of results and writes it as a text grid or as booktabs LaTeX.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from pairboot.report.escape import md, tex, visible

__all__ = ["Markup", "Table", "latex", "latex_float", "latex_numbers", "markdown", "text"]


class Markup(str):
    """A cell already written in its format's markup: laid out as it is, never
    escaped (the writer escaped the data inside it)."""

    __slots__ = ()


@dataclass(frozen=True)
class Table:
    """Rows of cells under a head, with an alignment per column.

    Attributes
    ----------
    head : tuple of str, or None
        The columns' names (None: a table without a head).
    rows : tuple of tuples of str
        The cells, each row as long as ``align``.
    align : str
        Per column, ``l`` (text), ``r`` (numbers) or ``c`` (centred; text has no centring
        and right-aligns it, as numbers).
    caption : str or None
        What :func:`latex_float` writes under the table (already LaTeX).
    rules : tuple of int
        The rows a rule comes before (LaTeX's ``\\midrule``: systems above, their
        difference below).
    """

    head: tuple[str, ...] | None
    rows: tuple[tuple[str, ...], ...]
    align: str
    caption: str | None = None
    rules: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        rows = tuple(tuple(r) for r in self.rows)
        head = None if self.head is None else tuple(self.head)
        for cells in ([head] if head is not None else []) + list(rows):
            if len(cells) != len(self.align):
                raise ValueError(f"a row of {len(cells)} cells in a table of "
                                 f"{len(self.align)} columns: {cells!r}")
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "head", head)

    def lines(self) -> list[tuple[str, ...]]:
        """The head (when there is one), then the rows."""
        return ([self.head] if self.head is not None else []) + list(self.rows)


# ---------------------------------------------------------------------------------- text


def text(table: Table, *, indent: str = "  ", gaps: str | Sequence[str] = "  ",
         widths: Sequence[int] = (), raw: bool = False) -> list[str]:
    """The table as lines of text: each column padded to its widest cell (at least
    ``widths[j]``), left-aligned (``l``) or right-aligned, ``gaps`` between columns (one
    gap, or one per pair of columns), after ``indent``; trailing spaces removed.

    Cells are measured as :func:`~pairboot.report.escape.visible` shows them, so that
    escapes count in the widths; ``raw`` measures them as given, for the tables whose
    lines are made visible whole afterwards (the headline table and a plan's facts).
    """
    rows = [[c if raw else visible(c) for c in cells] for cells in table.lines()]
    n = len(table.align)
    size = [max([len(r[j]) for r in rows] + [widths[j] if j < len(widths) else 0])
            for j in range(n)]
    between = [gaps] * (n - 1) if isinstance(gaps, str) else list(gaps)
    out = []
    for r in rows:
        cells = [c.ljust(w) if a == "l" else c.rjust(w)
                 for c, w, a in zip(r, size, table.align)]
        line = cells[0] + "".join(g + c for g, c in zip(between, cells[1:]))
        out.append((indent + line).rstrip())
    return out


# ------------------------------------------------------------------------------ markdown

MARKS = {"l": "---", "r": "---:", "c": ":---:"}
"""A column's alignment in Markdown's delimiter row."""


def _md(cell: str) -> str:
    return cell if isinstance(cell, Markup) else md(cell)


def markdown(table: Table) -> list[str]:
    """The table in Markdown (GitHub's pipe tables): the head (an empty one, ``| | |``,
    for a table without), the delimiter row with each column's alignment, the rows."""
    if table.head is None:
        head = "|" + " |" * len(table.align)
    else:
        head = "| " + " | ".join(_md(c) for c in table.head) + " |"
    marks = "|" + "|".join(MARKS[a] for a in table.align) + "|"
    return [head, marks] + ["| " + " | ".join(_md(c) for c in r) + " |" for r in table.rows]


# --------------------------------------------------------------------------------- latex


def _tex(cell: str) -> str:
    return cell if isinstance(cell, Markup) else tex(cell)


def _latex_row(cells: Sequence[str]) -> str:
    """A row of cells, ``&`` between them (an empty cell as nothing: ``a & & b``)."""
    line = _tex(cells[0])
    for c in cells[1:]:
        line += " &" + (f" {_tex(c)}" if c else "")
    return line + r" \\"


def latex(table: Table) -> list[str]:
    """The table as a booktabs ``tabular`` (``\\usepackage{booktabs}``): ``\\toprule``,
    the head, ``\\midrule``, the rows (with a ``\\midrule`` before each of ``rules``),
    ``\\bottomrule``."""
    lines = [f"\\begin{{tabular}}{{{table.align}}}", r"\toprule"]
    if table.head is not None:
        lines += [_latex_row(table.head), r"\midrule"]
    for k, r in enumerate(table.rows):
        if k in table.rules:
            lines.append(r"\midrule")
        lines.append(_latex_row(r))
    return lines + [r"\bottomrule", r"\end{tabular}"]


def latex_float(table: Table, after: Sequence[str] = ()) -> list[str]:
    """:func:`latex` in a ``table`` float, centred, with its caption (when it has one)
    and then the lines ``after`` (notes under it) inside the float."""
    caption = [f"\\caption{{{table.caption}}}"] if table.caption is not None else []
    return [r"\begin{table}[htbp]", r"\centering", *latex(table), *caption, *after,
            r"\end{table}"]


_NUMBER = r"[+-]?(?:\d[\d,]*(?:\.\d+)?|inf)"
_CELL = re.compile(rf"(?P<n>{_NUMBER})|[\[(](?P<lo>{_NUMBER}), (?P<hi>{_NUMBER})[\])]")


def _math(cell: str) -> str:
    """A number (``+0.071``, ``1,234``) or an interval of two (``[-0.1, +0.2]``) in math
    mode (``$-0.1$``: a minus, not a hyphen; a thousands comma braced); any other cell
    as it is."""
    if isinstance(cell, Markup):
        return cell
    match = _CELL.fullmatch(cell)
    if match is None:
        return cell

    def m(x: str) -> str:
        return "$" + x.replace(",", "{,}").replace("inf", r"\infty") + "$"

    if match.group("n") is not None:
        return Markup(m(cell))
    return Markup(f"{cell[0]}{m(match.group('lo'))}, {m(match.group('hi'))}{cell[-1]}")


def latex_numbers(table: Table) -> Table:
    """``table`` with its numbers' cells in math mode (:func:`_math`), for :func:`latex`:
    a report's tables hold numbers as text (``-0.034``), which LaTeX's text mode would
    print with a hyphen.  The first column names the rows and stays text."""
    return replace(table, rows=tuple((r[0], *(_math(c) for c in r[1:])) for r in table.rows))
