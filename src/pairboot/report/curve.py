"""Reports of a pass^k / pass@k curve (:class:`pairboot.TrialsCurve`): one table, a row
per k, with each system's value and pointwise interval and ``B - A`` with its pointwise
and simultaneous intervals; text, Markdown and JSON."""

from __future__ import annotations

import json

from pairboot.report.escape import lines_text, md
from pairboot.report.registry import writes
from pairboot.report.table import Table, markdown, text
from pairboot.results.family import TrialsCurve

__all__ = ["curve_json", "curve_markdown", "curve_table", "curve_text"]


def _ci(low: float, high: float, sign: str = "") -> str:
    return f"[{low:{sign}.3f}, {high:{sign}.3f}]"


def curve_table(res: TrialsCurve) -> Table:
    """A row per k: A, B (each with its interval), B - A, its pointwise and simultaneous
    intervals, its own p and the stepdown p over the ks."""
    a, b = res.names
    level = f"{100 * res.confidence_level:g}%"
    head = ("k", a, f"{level} interval", b, f"{level} interval", f"{b} - {a}",
            "pointwise", "simultaneous", "p", "p adjusted")
    rows = [(str(p.k), f"{p.a.estimate:.3f}", _ci(*p.a.confidence_interval),
             f"{p.b.estimate:.3f}", _ci(*p.b.confidence_interval), f"{p.difference:+.3f}",
             _ci(*p.interval, "+"), _ci(*p.simultaneous, "+"), f"{p.p_value:.3g}",
             f"{p.p_adjusted:.3g}") for p in res.points]
    return Table(head, rows, "rrlrlrllrr")


def _words(res: TrialsCurve) -> list[str]:
    return [
        f"{res.kind} of {res.names[0]} and {res.names[1]} over k = "
        f"{', '.join(map(str, res.ks))} ({res.n_items:,} items), from one bootstrap of the "
        "items for every k and both systems.",
        "B - A: pointwise, each k's interval on its own (the bootstrap-t on the draws "
        "compare(runs='samples', metric=...) makes with the same seed); simultaneous, "
        f"max-t over the ks (c = {res.critical_value:.3f}): all hold together at the "
        f"level. {res.names[0]}'s and {res.names[1]}'s intervals are pointwise "
        f"({res.method}).",
    ]


def _signature(res: TrialsCurve) -> str:
    return (f"pairboot {res.version} | paired {res.method} | curve {res.kind} | "
            f"resamples {res.n_resamples} | level {res.confidence_level:g} | seed {res.seed}")


@writes(TrialsCurve, "text")
def curve_text(res: TrialsCurve, context=None) -> str:
    """The plain-text report (``print(result)``)."""
    lines = _words(res) + [""] + text(curve_table(res))
    lines += [""] + [f"warning: {w}" for w in res.warnings] + [_signature(res)]
    return lines_text(line for line in lines)


@writes(TrialsCurve, "markdown")
def curve_markdown(res: TrialsCurve, context=None) -> str:
    """The Markdown report: the words, the table, the signature."""
    lines = [md(w) for w in _words(res)] + [""] + markdown(curve_table(res))
    lines += [""] + [f"- warning: {md(w)}" for w in res.warnings] + [f"`{_signature(res)}`"]
    return lines_text(lines)


@writes(TrialsCurve, "json")
def curve_json(res: TrialsCurve, context=None) -> str:
    """The result's fields as JSON, with the signature."""
    out = res.to_dict()
    out["signature"] = _signature(res)
    return json.dumps(out, indent=2) + "\n"
