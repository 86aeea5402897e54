"""Reports of ratings from battles (:class:`~pairboot.results.preferences.PreferenceResult`):
what was rated and how, a table with a row per system (rating, interval, rank set, chance
of being best, win rate), the judge's position bias and the warnings; text, Markdown,
LaTeX, JSON and HTML (the table and :func:`pairboot.plot.plot_ratings` as inline SVG
when matplotlib is installed)."""

from __future__ import annotations

from pairboot.report.escape import lines_text, md, tex
from pairboot.report.html import (
    document,
    paragraphs,
    plain_table,
    signature_line,
    svg_of,
    warnings_section,
    wrap_fragment,
)
from pairboot.report.registry import writes
from pairboot.report.schemas import json_report
from pairboot.report.table import Table, latex_float, markdown, text
from pairboot.results.preferences import PreferenceResult

__all__ = ["ratings_table", "ratings_words", "ratings_text", "ratings_markdown",
           "ratings_latex", "ratings_json", "ratings_fragment", "ratings_html"]


def _pct(x: float) -> str:
    return "-" if x != x else f"{100 * x:.1f}%"


def _pci(ci, baseline: bool = False) -> str:
    if ci.low != ci.low:  # (NaN: the baseline itself, or a system that never met it)
        return "(baseline)" if baseline else "-"
    return f"[{100 * ci.low:.1f}, {100 * ci.high:.1f}]"


def ratings_table(res: PreferenceResult) -> Table:
    """A row per system, best first."""
    level = f"{100 * res.confidence_level:g}%"
    sep = res.ties == "separate"
    against = f"vs {res.baseline}" if res.baseline is not None else "vs all"
    head = ["rank", "system", "rating", f"{level} interval", "rank set", "P(best)",
            f"win rate {against}", f"{level} interval"]
    head += ["tie rate", f"{level} interval"] if sep else []
    head += ["battles (weighted)"]
    rows = []
    for s in res.systems:
        lo, hi = s.rank_interval
        row = [str(s.rank), s.name, f"{s.rating:.1f}",
               f"[{s.interval.low:.1f}, {s.interval.high:.1f}]",
               str(lo) if lo == hi else f"{lo}-{hi}", f"{s.p_best:.3f}", _pct(s.win_rate),
               _pci(s.win_interval, s.name == res.baseline)]
        if sep:
            row += [_pct(s.tie_rate), _pci(s.tie_interval, s.name == res.baseline)]
        row.append(f"{s.wins + s.ties + s.losses:,.0f}")
        rows.append(tuple(row))
    return Table(tuple(head), tuple(rows), "rlrlrrrl" + ("rl" if sep else "") + "r",
                 caption=None)


def ratings_words(res: PreferenceResult) -> list[str]:
    """What was rated and how, in plain words (every format's paragraphs)."""
    model = ("Bradley-Terry (a tie counts half a win to each)" if res.model ==
             "bradley-terry" else "Davidson (ties have their own probability)")
    anchor = (f"{res.anchor} held at {res.anchor_rating:g}" if res.anchor is not None
              else f"the mean rating is {res.anchor_rating:g}")
    unit = ("prompts (every battle of a prompt drawn together)" if res.cluster == "prompt"
            else "battles, each alone (battles of one prompt treated as independent)")
    orders = {"both": "", "first": " Only the first judging of each pair is counted.",
              "second": " Only the swapped judging of each pair is counted."}[res.orders]
    out = [
        f"Ratings of {len(res.systems)} systems from {res.n_battles:,} battles on "
        f"{res.n_prompts:,} prompts: {model}, maximum likelihood, on the Elo scale (400 "
        f"points are odds of 10 to 1; {anchor}).{orders}",
        f"Intervals: {100 * res.confidence_level:g}% percentile, from {res.n_resamples:,} "
        f"resamples of the {unit}. Rank set: every rank at once (max-t over all pairs' "
        "differences); P(best): the share of resamples in which the system rates highest.",
        "Win rate: " + (f"against {res.baseline}" if res.baseline is not None
                        else "against every opponent") + (
            ", a tie as half a win." if res.ties == "half"
            else "; ties are not wins, and their rate is given apart."),
    ]
    if res.tie_parameter is not None:
        ci = res.tie_interval
        out.append(f"Davidson's tie parameter nu = {res.tie_parameter:.3f} "
                   f"[{ci.low:.3f}, {ci.high:.3f}] (a tie between equals is nu/2 as likely "
                   "as either win).")
    if res.n_ridged or res.ridge:
        out.append(f"Ridge {res.ridge:g}: " + (f"{res.n_ridged} resamples had no finite "
                                                "maximum and were fitted with it."
                                                if res.n_ridged else "on every fit."))
    out += position_words(res)
    return out


def position_words(res: PreferenceResult) -> list[str]:
    """The position bias in words (nothing when the games carry no order)."""
    pb = res.position_bias
    if pb is None:
        return []
    out = []
    if pb.n_swapped:
        out.append(f"Position bias: of {pb.n_swapped:,.0f} pairs of games judged in both "
                   f"orders, {_pct(pb.flip_rate)} {_pci(pb.flip_interval)} change their "
                   "winner when the answers are swapped; the answer shown first takes "
                   f"{_pct(pb.first_rate)} {_pci(pb.first_interval)} of the wins (50% "
                   "without a bias).")
    else:
        out.append(f"Position bias: the answer shown first takes {_pct(pb.first_rate)} "
                   f"{_pci(pb.first_interval)} of the wins; no pair was judged in both "
                   "orders.")
    if pb.ratings_first and pb.ratings_second:
        shift = {n: pb.ratings_second[n] - pb.ratings_first[n] for n in pb.ratings_first}
        name = max(shift, key=lambda n: abs(shift[n]))
        out.append(f"Rated from one order alone, the ratings move by up to "
                   f"{abs(shift[name]):.1f} points ({name}: {pb.ratings_first[name]:.1f} "
                   f"from the first games, {pb.ratings_second[name]:.1f} from the swapped).")
    return out


def _signature(res: PreferenceResult) -> str:
    return (f"pairboot {res.version} | preferences {res.model} | ties {res.ties} | "
            f"cluster {res.cluster} | orders {res.orders} | resamples {res.n_resamples} | "
            f"level {res.confidence_level:g} | seed {res.seed}")


@writes(PreferenceResult, "text")
def ratings_text(res: PreferenceResult, context=None) -> str:
    """The plain-text report (``print(result)``)."""
    lines = ratings_words(res) + [""] + text(ratings_table(res))
    lines += [""] + [f"warning: {w}" for w in res.warnings] + [_signature(res)]
    return lines_text(lines)


@writes(PreferenceResult, "markdown")
def ratings_markdown(res: PreferenceResult, context=None) -> str:
    """The Markdown report: the words, the table, the signature."""
    lines = []
    for w in ratings_words(res):
        lines += [md(w), ""]
    lines += markdown(ratings_table(res))
    lines += [""] + [f"- warning: {md(w)}" for w in res.warnings] + [f"`{_signature(res)}`"]
    return lines_text(lines)


@writes(PreferenceResult, "latex")
def ratings_latex(res: PreferenceResult, context=None) -> str:
    """A LaTeX table float (booktabs), the words as its caption's notes."""
    table = ratings_table(res)
    table = Table(table.head, table.rows, table.align,
                  caption=tex(ratings_words(res)[0]))
    notes = [r"\par\footnotesize " + tex(w) for w in ratings_words(res)[1:]]
    notes += [r"\par\footnotesize warning: " + tex(w) for w in res.warnings]
    notes.append(r"\par\footnotesize " + tex(_signature(res)))
    return lines_text(latex_float(table, notes))


@writes(PreferenceResult, "json", schema="pairboot.compare_preferences/1")
def ratings_json(res: PreferenceResult, context=None) -> str:
    """The result's fields as JSON (not the bootstrap distribution), with the signature."""
    out = res.to_dict()
    out["signature"] = _signature(res)
    return json_report(res, out)


@writes(PreferenceResult, "html-fragment", part=True)
def ratings_fragment(res: PreferenceResult, context=None) -> str:
    """The fragment (a notebook's display): the words, the table, the ratings plot, the
    warnings, the signature."""
    out = [paragraphs(ratings_words(res)), plain_table(ratings_table(res), cls="ratings")]

    def draw():
        from pairboot.report.plot.ratings import plot_ratings

        return plot_ratings(res).figure

    out.append(svg_of(draw, "Each system's rating with its interval, best at the top; "
                            "its simultaneous rank set at the right."))
    out.append(warnings_section(res.warnings))
    out.append(signature_line(_signature(res)))
    return wrap_fragment("ratings", "".join(out))


@writes(PreferenceResult, "html")
def ratings_html(res: PreferenceResult, context=None) -> str:
    """One self-contained page: :func:`ratings_fragment` in a document."""
    return document(ratings_fragment(res, context), "pairboot: ratings from battles")
