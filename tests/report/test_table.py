"""A report's table (:mod:`pairboot.report.table`): one definition laid out as text,
Markdown and LaTeX, each escaping the data's cells as its format needs and leaving a
:class:`Markup` cell as written."""

from __future__ import annotations

import pytest

from pairboot.report.escape import md, tex, visible
from pairboot.report.table import Markup, Table, latex, latex_float, markdown, text

HOSTILE = "a|b\x1b[2J<i>_%"
TABLE = Table(("system", "score", "95% interval"),
              [("base", "0.512", "[0.48, 0.55]"), (HOSTILE, "0.6", "[0.5, 0.7]")], "lrc")


def test_text_pads_each_column_to_its_widest_cell_as_shown():
    lines = text(TABLE)
    shown = visible(HOSTILE)
    width = len(shown)
    assert lines[0] == "  " + "system".ljust(width) + "  score  95% interval"
    assert lines[1] == "  " + "base".ljust(width) + "  0.512  [0.48, 0.55]"
    # (a centred column is right-aligned: text has no centring)
    assert lines[2] == "  " + shown + "    0.6    [0.5, 0.7]"


def test_text_options_gaps_widths_and_raw():
    t = Table(("", "x"), [("ab", "1"), ("c", "22")], "lr")
    assert text(t, indent="", gaps="   ", widths=(4,)) == ["        x", "ab      1",
                                                          "c      22"]
    raw = Table(None, [("\x1b", "1")], "ll")
    assert text(raw, raw=True) == ["  \x1b  1"] and text(raw) == ["  \\x1b  1"]


def test_markdown_escapes_the_data_and_keeps_markup():
    lines = markdown(Table(("system", "score"), [(HOSTILE, Markup("**0.6**"))], "lr"))
    assert lines == ["| system | score |", "|---|---:|", f"| {md(HOSTILE)} | **0.6** |"]
    assert "\\|" in lines[2] and "\\<i>" in lines[2]
    assert markdown(Table(None, [("a", "b")], "ll"))[:2] == ["| | |", "|---|---|"]
    assert markdown(TABLE)[1] == "|---|---:|:---:|"


def test_latex_escapes_the_data_rules_and_empty_cells():
    t = Table(("System", Markup("$p$")), [("A", ""), (HOSTILE, Markup("$0.01$"))], "lr",
              caption="A caption.", rules=(1,))
    assert latex(t) == [r"\begin{tabular}{lr}", r"\toprule", r"System & $p$ \\",
                        r"\midrule", r"A & \\", r"\midrule", f"{tex(HOSTILE)} & $0.01$ \\\\",
                        r"\bottomrule", r"\end{tabular}"]
    assert r"\_\%" in tex(HOSTILE)
    lines = latex_float(t, after=["% after"])
    assert lines[:2] == [r"\begin{table}[htbp]", r"\centering"]
    assert lines[-3:] == [r"\caption{A caption.}", "% after", r"\end{table}"]


def test_one_definition_three_layouts_the_same_cells():
    for layout in (text, markdown, latex):
        out = "\n".join(layout(TABLE))
        assert "0.512" in out and "[0.48, 0.55]" in out and "base" in out


def test_a_row_of_the_wrong_length_is_refused():
    with pytest.raises(ValueError, match="a row of 1 cells in a table of 2 columns"):
        Table(("a", "b"), [("x",)], "ll")


def test_latex_numbers_in_math_mode_the_row_names_as_text():
    from pairboot.report.table import latex_numbers

    table = Table(("name", "x", "interval", "note"), (
        ("1", "-0.034", "[-0.1, +0.2]", "n/a"),
        ("b_2", "1,234", "(-inf, 0.5]", "nan"),
    ), "lrll")
    assert latex(latex_numbers(table))[4:6] == [
        r"1 & $-0.034$ & [$-0.1$, $+0.2$] & n/a \\",
        r"b\_2 & $1{,}234$ & ($-\infty$, $0.5$] & nan \\"]
