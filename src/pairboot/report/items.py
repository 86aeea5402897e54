"""The items behind the number in words and tables (:attr:`CompareResult.items_summary`):
wins, ties and losses of B, the 2 x 2 table of 0/1 scores, the largest differences each
way, per stratum and per group; what the text, Markdown and LaTeX reports print (the
JSON carries the whole summary, :meth:`pairboot.results.items.ItemsSummary.to_dict`).
"""

from __future__ import annotations

from pairboot.report.numbers import plural
from pairboot.report.parts import wrap
from pairboot.report.table import Table, latex, markdown, text
from pairboot.results.compare import CompareResult
from pairboot.results.items import FlakyItems, ItemCounts, ItemsSummary

ID_CHARACTERS = 40
"""How much of a long id a report shows (then "…")."""


def no_items_reason(result: CompareResult) -> str | None:
    """Why a comparison has no items to list (None when it has them)."""
    if result.items_summary is not None:
        return None
    if result.metric != "mean":
        return (f"metric {result.metric} is pooled over the items: an item has "
                "statistics but no score of its own")
    if not result.paired:
        return "the comparison is unpaired: no item has both systems' scores"
    if result.runs is not None:
        return "several runs per system: an item has a score per run"
    return "the items were never in one place (parts: files read in chunks, Dask)"


def tally_text(c: ItemCounts, unit: str = "items") -> str:
    """``B wins 3, ties 5 and loses 2 of the 10 items``."""
    return (f"B wins {c.wins:,}, ties {c.ties:,} and loses {c.losses:,} of the "
            f"{c.n:,} {unit[:-1] if c.n == 1 else unit}")


def table_text(c: ItemCounts) -> str | None:
    """The 2 x 2 table of 0/1 scores in one line (None for other scores)."""
    t = c.table
    if t is None:
        return None
    return (f"0/1 scores: both right {t.both:,}, only A right {t.only_a:,}, only B right "
            f"{t.only_b:,}, both wrong {t.neither:,}")


def score(x: float) -> str:
    """An item's score as given, to 6 significant digits."""
    return f"{x:.6g}"


def id_text(value) -> str:
    """An id as a report shows it (long ones cut)."""
    text = str(value)
    return text if len(text) <= ID_CHARACTERS else text[:ID_CHARACTERS] + "…"


def top_table(summary: ItemsSummary, c: ItemCounts, unit: str = "item") -> list[list[str]]:
    """The largest differences each way as rows of cells, a header first: B's gains
    (largest first), then its losses (most negative first); [] when there are none."""
    head = ["", unit, "A", "B", "B - A"]
    strata = any(r.stratum is not None for r in c.top_wins + c.top_losses)
    sizes = any(r.size is not None for r in c.top_wins + c.top_losses)
    if strata:
        head.append("stratum")
    if sizes:
        head.append("items")
    rows = []
    for what, chosen in (("B gains", c.top_wins), ("B loses", c.top_losses)):
        for r in chosen:
            cells = [what, id_text(r.id), score(r.a), score(r.b), f"{r.difference:+.6g}"]
            if strata:
                cells.append("" if r.stratum is None else id_text(r.stratum))
            if sizes:
                cells.append(f"{r.size:,}")
            rows.append(cells)
    return [head, *rows] if rows else []


def top_title(summary: ItemsSummary, unit: str = "items") -> str:
    return (f"The {unit} with the largest differences ({summary.top} at most each way; "
            "equal differences in the order given)")


def strata_rows(parts: tuple[ItemCounts, ...], unit: str = "items") -> list[list[str]]:
    """Per stratum: units, wins, ties, losses (and only A / only B for 0/1 scores)."""
    zero_one = all(c.table is not None for c in parts)
    head = ["stratum", unit, "B wins", "ties", "B loses"]
    if zero_one:
        head += ["only A right", "only B right"]
    rows = [head]
    for c in parts:
        cells = [id_text(c.name), f"{c.n:,}", f"{c.wins:,}", f"{c.ties:,}", f"{c.losses:,}"]
        if zero_one:
            cells += [f"{c.table.only_a:,}", f"{c.table.only_b:,}"]
        rows.append(cells)
    return rows


def group_words(summary: ItemsSummary) -> str:
    """What a group's scores are."""
    how = ("the mean of its items' scores" if summary.group_statistic == "mean"
           else "the sum of its items' scores")
    return f"a group's scores are {how}, its weight in the estimate"


def sections(summary: ItemsSummary):
    """The parts every format prints, in order: ``(kind, payload)`` with kind
    ``"line"`` (a sentence), ``"title"`` or ``"table"`` (a
    :class:`~pairboot.report.table.Table`)."""
    items = summary.items
    yield "title", "Items behind the number"
    yield "line", f"{tally_text(items)} (B - A > 0, = 0, < 0 item by item)."
    table = table_text(items)
    if table is not None:
        yield "line", table + "."
    rows = top_table(summary, items)
    if rows:
        yield "line", top_title(summary) + ":"
        yield "table", table_of(rows)
    if summary.strata:
        yield "line", "By stratum:"
        yield "table", table_of(strata_rows(summary.strata))
    if summary.groups is not None:
        groups = summary.groups
        yield "title", "Groups behind the number"
        yield "line", f"{tally_text(groups, 'groups')} ({group_words(summary)})."
        rows = top_table(summary, groups, "group")
        if rows:
            yield "line", top_title(summary, "groups") + ":"
            yield "table", table_of(rows)
        if summary.group_strata:
            yield "line", "Groups by stratum:"
            yield "table", table_of(strata_rows(summary.group_strata, "groups"))


def _count(f: FlakyItems, i: int, s: int) -> str:
    return f"{int(f.successes[i, s]):,}/{int(f.trials[i, s]):,}"


def _rate(f: FlakyItems, i: int, s: int) -> str:
    """A rate with its interval: ``0.6 [0.147, 0.947]``."""
    rate = f.successes[i, s] / f.trials[i, s]
    return f"{rate:.3g} [{f.low[i, s]:.3f}, {f.high[i, s]:.3f}]"


def _listed(f: FlakyItems, chosen) -> str:
    shown = min(len(chosen), f.top)
    return (f"all {len(chosen):,}" if shown == len(chosen)
            else f"{shown:,} of {len(chosen):,}; the JSON report has every item")


def flaky_sections(f: FlakyItems):
    """The flaky items as every format prints them (``(kind, payload)`` as
    :func:`sections`): the stochastic items, worst first, and those that flipped,
    at most ``f.top`` of each."""
    level = f"{f.confidence_level * 100:.4g}%"
    alpha = f"{f.alpha:.4g}"
    yield "title", "Flaky items (repeated trials)"
    a, b = (len(x) for x in f.stochastic)
    yield "line", (f"Each item's success rate over its trials, with its exact "
                   f"(Clopper-Pearson) {level} interval. Stochastic (both succeeded and "
                   f"failed in its trials): A {a:,} and B {b:,} of the {f.n:,} items.")
    either = f.stochastic_any
    if len(either):
        yield "line", (f"The stochastic items, the rate nearest 1/2 first "
                       f"({_listed(f, either)}):")
        rows = [[id_text(f.ids[i]), _count(f, i, 0), _rate(f, i, 0), _count(f, i, 1),
                 _rate(f, i, 1)] for i in either[:f.top]]
        yield "table", Table(["item", "A trials", "A rate", "B trials", "B rate"], rows,
                             "lrrrr")
    flipped = f.flipped
    bh = int((f.q_values <= f.alpha).sum())
    chance = (f"a screen item by item: {f.expected_flips:.2g} expected by chance if no "
              f"item changed; {bh:,} with Benjamini-Hochberg q <= {alpha}")
    if not len(flipped):
        yield "line", (f"No item flipped between A and B beyond its trial noise "
                       f"(Fisher's exact p <= {alpha}; {chance}).")
        return
    yield "line", (f"Flipped between A and B beyond their trial noise: "
                   f"{plural(len(flipped), 'item')} with Fisher's exact p <= {alpha} "
                   f"({chance}); smallest p first "
                   f"({_listed(f, flipped)}):")
    rows = [[id_text(f.ids[i]), _count(f, i, 0), _count(f, i, 1),
             f"{(f.rates[i, 1] - f.rates[i, 0]):+.3g}", f"{f.p_values[i]:.2g}",
             f"{f.q_values[i]:.2g}"] for i in flipped[:f.top]]
    yield "table", Table(["item", "A trials", "B trials", "B - A", "p", "q"], rows, "lrrrrr")


def align_of(rows: list[list[str]]) -> str:
    """Left for text cells, right for numbers (by the header's names)."""
    left = {"", "item", "group", "stratum"}
    return "".join("l" if h in left else "r" for h in rows[0])


def table_of(rows: list[list[str]]) -> Table:
    """Rows of cells, a header first, as a table aligned by :func:`align_of`."""
    head, *body = rows
    return Table(head, body, align_of(rows))


# --------------------------------------------------------------------- the formats


def _text_lines(parts) -> list[str]:
    lines: list[str] = []
    for kind, payload in parts:
        if kind == "title":
            lines += ["", payload + ":"] if lines else [payload + ":"]
        elif kind == "line":
            lines += wrap(payload, bullet="  ")
        else:
            lines += text(payload, indent="    ")
    return lines


def _markdown_lines(parts, esc) -> list[str]:
    lines: list[str] = []
    for kind, payload in parts:
        if kind == "title":
            lines += ["", f"**{esc(payload)}**"] if lines else [f"**{esc(payload)}**"]
        elif kind == "line":
            lines += ["", esc(payload)]
        else:
            lines += ["", *markdown(payload)]
    return lines


def _latex_lines(parts, esc) -> list[str]:
    lines = [r"\par\medskip"]
    for kind, payload in parts:
        if kind == "title":
            lines.append(f"{{\\footnotesize\\textbf{{{esc(payload)}}}\\par}}")
        elif kind == "line":
            lines.append(f"{{\\footnotesize {esc(payload)}\\par}}")
        else:
            *tabular, end = latex(payload)
            lines += [r"{\footnotesize", *tabular, end + r"\par}"]
    return lines


def items_text(result: CompareResult) -> list[str]:
    """The plain-text report's section (a line saying why when there are no items),
    then the flaky items of repeated 0/1 trials when there are."""
    summary = result.items_summary
    lines = (wrap(f"Items: none listed: {no_items_reason(result)}.") if summary is None
             else _text_lines(sections(summary)))
    if result.flaky is not None:
        lines += ["", *_text_lines(flaky_sections(result.flaky))]
    return lines


def items_markdown(result: CompareResult, esc) -> list[str]:
    """The Markdown report's section; ``esc`` escapes Markdown's characters (the tables'
    cells: :func:`~pairboot.report.table.markdown`'s)."""
    summary = result.items_summary
    lines = ([f"Items: none listed: {esc(no_items_reason(result))}."] if summary is None
             else _markdown_lines(sections(summary), esc))
    if result.flaky is not None:
        lines += ["", *_markdown_lines(flaky_sections(result.flaky), esc)]
    return lines


def items_latex(result: CompareResult, esc) -> list[str]:
    """The LaTeX report's lines under its table (inside the ``table`` environment):
    the counts in small type and a ``tabular`` of the largest differences; ``esc``
    escapes LaTeX's characters (the tables' cells: :func:`~pairboot.report.table.latex`'s)."""
    summary = result.items_summary
    lines = ([f"% items: none listed: {esc(no_items_reason(result))}"] if summary is None
             else _latex_lines(sections(summary), esc))
    if result.flaky is not None:
        lines += _latex_lines(flaky_sections(result.flaky), esc)
    return lines
