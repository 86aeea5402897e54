"""What the pictures of :mod:`pairboot.report.plot` say, apart from the drawing: the histogram's
bins on the lattice of gridded scores, the systems' names as shown, the words and
marks for a family's decisions, and a planned comparison's power curve.

No matplotlib here: numbers and text only.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

from pairboot.report.escape import visible
from pairboot.report.family import interval_name, is_corrected
from pairboot.report.power import (
    difference,
    in_points,
    monte_carlo_words,
    percent,
    plural,
    power_summary,
    size_words,
    test_words,
)
from pairboot.results.family import FamilyResult
from pairboot.results.power import PowerResult
from pairboot.stats.hypotheses import SHOWN, nulls, verdict_of

SEPARATORS = "/_-. "
"""Where a prefix or suffix that the names share may be cut off."""


def lattice_step(values) -> float | None:
    """The step of the lattice ``v0 + k * step`` (k whole) that every value lies on, or
    None when the values lie on none that their closest distinct pair reveals.

    The differences of two means of 0/1 (or other gridded) scores over ``n`` items are
    multiples of ``1/n``; with clusters or weights they generally are not, and the values
    say so: the step is the smallest gap between distinct values, kept only when every
    value is a whole number of steps (to a thousandth of one) from the smallest.
    """
    v = np.unique(np.asarray(values, dtype=float))
    v = v[np.isfinite(v)]
    if v.size < 2:
        return None
    span = v[-1] - v[0]
    noise = 1e-9 * max(abs(v[0]), abs(v[-1]), span)  # equal values summed in another order
    gaps = np.diff(v)
    gaps = gaps[gaps > noise]
    if gaps.size == 0:
        return None
    step = span / round(span / gaps.min())  # (more accurate than any one gap)
    k = (v - v[0]) / step
    return step if np.max(np.abs(k - np.round(k))) <= 1e-3 else None


def histogram_bins(values, bins: int):
    """The bins of ``values``' histogram: ``bins`` (matplotlib's equal bins), or on a
    lattice (:func:`lattice_step`) edges halfway between lattice points, each bin the
    whole number of steps nearest to spreading the values over ``bins`` bins; a single
    value is at the centre of its bin."""
    values = np.asarray(values, dtype=float)
    if values.size and values.min() == values.max():  # one value: the middle bin's centre
        n = bins | 1  # (odd, over matplotlib's range of the value +/- 0.5)
        return float(values[0]) + (np.arange(n + 1) - n / 2) / n
    step = lattice_step(values)
    if step is None:
        return bins
    low = float(values.min())
    points = round((float(values.max()) - low) / step) + 1
    width = max(1, round(points / bins))  # lattice steps per bin
    return low - step / 2 + step * width * np.arange(math.ceil(points / width) + 1)


def shown_names(names, width: int) -> tuple[dict[str, str], str | None]:
    """Each name as a picture shows it, and a line saying what was left out (or None).

    Names of at most ``width`` characters are shown whole.  Otherwise the prefix and the
    suffix that every name shares are left out, cut at a separator (``/ _ - .`` or a
    space), no more of them than makes the names fit, and the line says what they were;
    a name still too long loses its middle to "…", never so much that two names look
    alike.  Names are shown as :func:`~pairboot.report.escape.visible` shows them.

    >>> shown, said = shown_names(["meta-llama/Llama-3.1-8B-Instruct__mmlu_pro",
    ...                            "meta-llama/Llama-3.1-70B-Instruct__mmlu_pro"], 24)
    >>> sorted(shown.values()), said
    (['Llama-3.1-70B-Instruct', 'Llama-3.1-8B-Instruct'], 'names shown without their shared prefix “meta-llama/” and suffix “__mmlu_pro”')
    """  # noqa: E501
    unique = list(dict.fromkeys(str(name) for name in names))
    shown = {name: visible(name) for name in unique}  # (no control character drawn)
    left_out = None
    if len(unique) > 1 and max(map(len, shown.values())) > width:
        prefix, suffix = _shared_ends(list(shown.values()), width)
        shown = {name: text[len(prefix):len(text) - len(suffix)]
                 for name, text in shown.items()}
        ends = ([f"prefix “{prefix}”"] if prefix else []) + (
            [f"suffix “{suffix}”"] if suffix else [])
        if ends:
            left_out = f"names shown without their shared {' and '.join(ends)}"
    shown = _cut_middles(shown, width)
    return {str(name): shown[str(name)] for name in names}, left_out


def _shared_ends(names: list[str], width: int) -> tuple[str, str]:
    """The shared prefix and suffix to leave out of ``names``: among the cuts that make
    every name fit in ``width``, the one at the strongest separators (a folder before a
    word, a word before a part of one), then the fewest characters; when none fits, all
    that can go while each name keeps a character."""
    first = os.path.commonprefix(names)
    last = os.path.commonprefix([name[::-1] for name in names])[::-1]
    # a prefix ends with a run of separators, a suffix begins with one
    prefixes = [""] + [first[:i + 1] for i, ch in enumerate(first) if ch in SEPARATORS
                       and (i + 1 == len(first) or first[i + 1] not in SEPARATORS)]
    suffixes = [""] + [last[i:] for i, ch in enumerate(last) if ch in SEPARATORS
                       and (i == 0 or last[i - 1] not in SEPARATORS)]
    shortest, longest = min(map(len, names)), max(map(len, names))
    pairs = [(p, s) for p in prefixes for s in suffixes if len(p) + len(s) < shortest]
    fitting = [(p, s) for p, s in pairs if longest - len(p) - len(s) <= width]
    if not fitting:
        return max(pairs, key=lambda ps: len(ps[0]) + len(ps[1]))

    def weakness(ps):
        strengths = sorted((_strength(ps[0][-1:]), _strength(ps[1][:1])))
        return (-strengths[0], -strengths[1], len(ps[0]) + len(ps[1]), len(ps[0]))

    return min(fitting, key=weakness)


def _strength(separator: str) -> int:
    """How strongly a separator parts a name: a folder, a word, a part of one ("-"), a
    part of a number ("." as in "3.1"); "" (no cut at all) is the strongest."""
    return {"": 9, "/": 3, "_": 2, " ": 2, "-": 1}.get(separator, 0)


def _cut_middles(shown: dict[str, str], width: int) -> dict[str, str]:
    """Names longer than ``width`` with their middle replaced by "…", keeping as many
    characters as keeps every name distinct."""
    longest = max(map(len, shown.values()), default=0)
    for w in range(max(width, 3), longest + 1):
        cut = {name: _middle(text, w) for name, text in shown.items()}
        if len(set(cut.values())) == len(set(shown.values())):
            return cut
    return shown


def _middle(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    head = width // 2
    return text[:head] + "…" + text[len(text) - (width - 1 - head):]


def disagrees(comparison, result=None) -> bool:
    """Whether a comparison's decision (its adjusted p) and its family interval disagree
    about 0 (with a margin, about its boundary; ``result``: the family, which says what
    is tested): significant while the interval does not show it (the stepdown and Holm
    reject more than their single-step intervals show), or the other way round."""
    low, high = comparison.confidence_interval
    if math.isnan(low) or math.isnan(high):
        return False
    kind = getattr(result, "hypothesis", "difference")
    if kind != "difference":
        shown = verdict_of(kind, comparison.margin, comparison.confidence_interval,
                           result.lower_is_better) in SHOWN[kind]
        return comparison.significant != shown
    return comparison.significant == (low <= 0.0 <= high)


def procedure_words(result: FamilyResult) -> str:
    """A family picture's account of its correction: "max-t, 95% simultaneous
    intervals"."""
    family = interval_name(result)
    if not is_corrected(result):
        what = "no correction needed" if result.family_size == 1 else "no correction"
        return f"{what}, {family}s"
    what = {"max-t": "max-t", "holm": "Holm", "bonferroni": "Bonferroni"}.get(
        result.correction, result.correction)
    return f"{what}, {family} intervals"


def mark_meanings(result: FamilyResult) -> list[tuple[str, bool, str]]:
    """The marks of a family picture's estimates, as (marker, filled, meaning): a filled
    dot for a significant comparison, and a diamond (filled when significant) for each
    kind of disagreement (:func:`disagrees`) that occurs in the family."""
    alpha = f"{1 - result.confidence_level:.10g}"
    p, interval = "p", "interval"
    if is_corrected(result):
        p = {"max-t": "stepdown p", "holm": "Holm's p", "bonferroni": "Bonferroni's p",
             "bh": "q", "by": "q"}.get(
            result.correction, "adjusted p")
        interval = f"{interval_name(result).split(' ', 1)[1]} interval"
    test = f"{p} < {alpha}"
    what = "0" if getattr(result, "hypothesis", "difference") == "difference" else "its margin"
    out = [("o", True, f"significant: {test}")]
    kinds = {c.significant for c in result.comparisons if disagrees(c, result)}
    if True in kinds:
        out.append(("D", True, f"significant ({test}), though its {interval} includes {what}"))
    if False in kinds:
        out.append(("D", False, f"not significant, though its {interval} excludes {what}"))
    return out


def margin_marks(result, margin=None) -> tuple[tuple[float, ...], str | None]:
    """Where a plot draws the margin, and its legend's label: the boundaries of the
    hypothesis (``-margin`` for non-inferiority, ``+-margin`` for equivalence; for a
    difference with a margin, ``+-margin``: the difference that matters); none without
    a margin.  ``margin``: a family row's own."""
    margin = getattr(result, "margin", None) if margin is None else margin
    if margin is None:
        return (), None
    kind = getattr(result, "hypothesis", "difference")
    if kind == "difference":
        return (-margin, margin), f"margin +-{margin:g}"
    at = tuple(value for _, value in nulls(kind, margin, result.alternative,
                                           result.lower_is_better))
    return at, f"{kind} margin ({', '.join(f'{v:+g}' for v in at)})"


PANELS = ("size", "delta")
"""What a power curve is drawn against: the size (at the planned difference), or the
true difference (at the planned size)."""


@dataclass(frozen=True, slots=True)
class PowerPanel:
    """One panel of a power curve (:func:`power_panel`): the points, the planned point
    and what to call them."""

    x: tuple[float, ...]
    power: tuple[float, ...]
    planned: float
    """The planned size or difference (the vertical mark)."""
    target: float
    """The power asked for, or solved for (the horizontal mark)."""
    at_plan: float
    """The curve's power at the planned point (above ``target`` by the size's rounding
    up)."""
    points: bool
    """Whether x is a difference to write in percentage points (0/1 scores)."""
    title: str
    xlabel: str
    planned_label: str
    target_label: str
    simulated: tuple[float, float] | None = None
    """The simulation check at the plan: its power and Monte Carlo error (or None)."""
    simulated_label: str = ""


def power_panels(result: PowerResult) -> tuple[str, ...]:
    """The panels a planned comparison can draw: the size's when it has a size and a
    difference, the difference's when that difference is not 0 too."""
    if result.size is None or result.delta is None or result.power is None:
        return ()
    return PANELS if result.delta != 0 else PANELS[:1]


def power_panel(result: PowerResult, against: str = "size") -> PowerPanel:
    """The curve of ``result`` against the size (:attr:`~pairboot.PowerResult.unit`, at
    the planned difference) or the true difference (at the planned size): the numbers
    of :meth:`~pairboot.PowerResult.curve` and the words of the picture."""
    if against not in PANELS:
        raise ValueError(f"`against` must be one of {', '.join(PANELS)}, got {against!r}")
    if against not in power_panels(result):
        why = ("no planned size and difference to draw around: " + power_summary(result)
               if against == "size" or result.delta != 0
               else "the planned difference is 0: there is no curve against it")
        raise ValueError(why)
    solved = result.solved == "power"
    target_label = (f"power at the plan: {percent(result.power, 1, exact=False)}" if solved
                    else f"target power: {percent(result.power)}")
    if against == "size":
        curve = result.curve()
        unit = _unit_words(result)
        planned = float(result.size)
        return PowerPanel(
            x=tuple(float(v) for v in curve["values"]),
            power=tuple(float(p) for p in curve["power"]), planned=planned,
            target=float(result.power), points=in_points(result),
            at_plan=float(result.curve(sizes=[result.size])["power"][0]),
            title=f"Power to detect {difference(result, result.delta)}\n"
                  f"({test_words(result)})",
            xlabel=unit, planned_label=f"planned: {int(planned):,} {_unit_name(result)}",
            target_label=target_label, **_simulated(result))
    curve = result.curve(deltas=_deltas(result))
    points = in_points(result)
    scale = " (points)" if points else f" ({result.metric})"
    return PowerPanel(
        x=tuple(float(v) for v in curve["values"]),
        power=tuple(float(p) for p in curve["power"]), planned=float(result.delta),
        target=float(result.power), points=points,
        at_plan=float(result.curve(deltas=[result.delta])["power"][0]),
        title=f"Power at {size_words(result)}\n({test_words(result)})",
        xlabel=f"true difference B − A{scale}",
        planned_label=f"planned difference: {difference(result, result.delta)}",
        target_label=target_label, **_simulated(result))


def _simulated(result: PowerResult) -> dict:
    """The simulation check's point (at the plan), when it was run."""
    sim = result.simulation
    if sim is None:
        return {}
    error = float(sim.monte_carlo_error)
    if sim.rough and sim.monte_carlo_interval is not None:  # (bars that cover Wilson's)
        error = max(sim.power - sim.monte_carlo_interval[0],
                    sim.monte_carlo_interval[1] - sim.power) / 2
    return {"simulated": (float(sim.power), error),
            "simulated_label": f"simulated: {percent(sim.power, 1)} "
                               f"({monte_carlo_words(sim)}, "
                               f"{plural(sim.n_simulations, 'simulations')})"}


def _deltas(result: PowerResult, n: int = 25) -> np.ndarray:
    """The differences of the curve: from 0 (excluded) to twice the planned one."""
    return np.linspace(0.0, 2.0 * float(result.delta), n)[1:]


def _unit_name(result: PowerResult) -> str:
    return {"items": "paired items", "groups": "groups", "runs": "runs per system"}[
        result.unit]


def _unit_words(result: PowerResult) -> str:
    """The size axis' label: what is counted, and the rest of the plan held fixed."""
    if result.unit == "groups" and result.n_items and result.n_groups:
        return f"groups (about {result.n_items / result.n_groups:.3g} items each)"
    if result.unit == "runs" and result.model == "trials":
        return f"trials per task ({result.n_items:,} tasks)"
    if result.unit == "runs":
        if result.n_groups is not None:
            return f"runs per system ({result.n_groups:,} groups)"
        return f"runs per system ({result.n_items:,} items)"
    if result.model == "trials":
        return "tasks" + ("" if result.n_runs is None else f" ({result.n_runs:,} trials each)")
    text = "paired items"
    if result.n_runs is not None:
        text += f" ({result.n_runs:,} runs per system)"
    return text
