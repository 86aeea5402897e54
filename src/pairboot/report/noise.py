"""The noise floor in words: beside a comparison's verdict (:func:`noise_floor_lines`,
every format of two systems) and as a report of its own (:class:`NoiseFloor`'s text,
Markdown and JSON)."""

from __future__ import annotations

import math

from pairboot.report.escape import lines_text, md
from pairboot.report.numbers import decimals, percent, plural
from pairboot.report.parts import format_p, interval_text, num
from pairboot.report.parts import wrap as _wrap
from pairboot.report.registry import writes
from pairboot.report.schemas import json_report
from pairboot.results.compare import CompareResult
from pairboot.results.noise import NoiseFloor

__all__ = ["floor_sentences", "noise_floor_lines"]


def _units(floor: NoiseFloor, n: int) -> str:
    return plural(n, floor.unit[:-1])


def floor_sentences(floor: NoiseFloor, d: int) -> list[str]:
    """What the floor says on its own: how far re-running moves a difference at its
    size, the smallest difference detectable over that noise, how it was measured, and
    when the A/A runs differ beyond it."""
    level = percent(floor.confidence_level)
    sign = {"greater": "+", "less": "-"}.get(floor.alternative, "+-")
    what = floor.metric + ("" if floor.n_trials is None else
                           f", {plural(floor.n_trials, 'trial')} an item")
    head = f"Noise floor (A/A: two runs of the same build compared, {what}): "
    if floor.half_width == 0 and not floor.rejects:  # (a deterministic evaluation)
        out = [head + "the two runs agree on every item, so re-running moved nothing at "
               f"{_units(floor, floor.n_units)}: any difference is more than re-running "
               "produces."]
    else:
        out = [head + "re-running alone moves a difference by "
               f"{interval_text(floor.floor, d, signed=True)} at "
               f"{_units(floor, floor.n_units)} ({level}; +-{num(floor.half_width, d)}). "
               "The smallest difference a test of this size detects with 80% power when "
               "re-running is its only noise: "
               + (f"{sign}{num(floor.minimum_detectable, d)}."
                  if floor.minimum_detectable is not None else "none (no standard error).")]
    if floor.measured_units != floor.n_units:
        out.append(f"Measured on {_units(floor, floor.measured_units)} and scaled to "
                   f"{floor.n_units:,} by sqrt({floor.measured_units:,} / "
                   f"{floor.n_units:,}) = {floor.scale:.3g}: the noise of a mean over "
                   "units shrinks as one over their root, if they are alike.")
    if floor.rejects:
        out.append(f"But the two runs differ by {num(floor.estimate, d, signed=True)} "
                   f"{interval_text(floor.confidence_interval, d, signed=True)} "
                   f"({format_p(floor.p_value, floor.n_resamples)}): more than re-running "
                   f"explains at {level}. Are they the same build, run independently? "
                   "(Identical builds differ so about "
                   f"{percent(round(1 - floor.confidence_level, 12))} of the time.)")
    return out


def noise_floor_lines(result: CompareResult) -> list[str]:
    """The floor beside the verdict (none without one): its sentences, and where B - A
    lies against it."""
    floor = getattr(result, "noise_floor", None)
    if floor is None:
        return []
    d = decimals(result.standard_error)
    out = floor_sentences(floor, d)
    if not math.isfinite(result.estimate):
        return out
    where = ("outside it: more than re-running alone moves it"
             if not floor.within(result.estimate)
             else "inside it: no more than re-running alone produces")
    out.append(f"B - A = {num(result.estimate, d, signed=True)} lies {where}.")
    return out


@writes(NoiseFloor, "text")
def floor_text(floor: NoiseFloor, context=None) -> str:
    """The plain-text report (``print(floor)``): the sentences, the A/A comparison, the
    warnings and a signature."""
    d = decimals(floor.standard_error)
    lines = []
    for sentence in floor_sentences(floor, d):
        lines.extend(_wrap(sentence))
    lines.append("")
    lines.append(f"A/A: rerun - base = {num(floor.estimate, d, signed=True)} "
                 f"{interval_text(floor.confidence_interval, d, signed=True)} "
                 f"({format_p(floor.p_value, floor.n_resamples)}); standard error "
                 f"{num(floor.standard_error, d)} at {floor.n_units:,}")
    lines += [f"warning: {w}" for w in floor.warnings]
    lines.append(_signature(floor))
    return lines_text(lines)


@writes(NoiseFloor, "markdown")
def floor_markdown(floor: NoiseFloor, context=None) -> str:
    """The Markdown report: the sentences, the warnings, the signature."""
    d = decimals(floor.standard_error)
    lines = [md(s) for s in floor_sentences(floor, d)]
    lines += [""] + [f"- warning: {md(w)}" for w in floor.warnings]
    lines.append(f"`{_signature(floor)}`")
    return lines_text(lines)


@writes(NoiseFloor, "json", schema="pairboot.noise/1")
def floor_json(floor: NoiseFloor, context=None) -> str:
    """The fields as JSON, with the signature."""

    out = floor.to_dict()
    out["signature"] = _signature(floor)
    return json_report(floor, out)


def _signature(floor: NoiseFloor) -> str:
    runs = "" if floor.runs is None else f" | runs {floor.runs}"
    return (f"pairboot {floor.version} | A/A {floor.method} | metric {floor.metric}{runs} | "
            f"resamples {floor.n_resamples} | level {floor.confidence_level:g} | seed "
            f"{floor.seed}")
