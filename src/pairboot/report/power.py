"""Reports of a planned comparison (:class:`pairboot.PowerResult`): its one-line summary,
and the text, Markdown and JSON writers of :data:`POWER_WRITERS`."""

from __future__ import annotations

import math

from pairboot.report.escape import lines_text, md
from pairboot.report.registry import Writers, writes
from pairboot.report.schemas import json_report
from pairboot.report.table import Table, markdown, text
from pairboot.results.power import PowerResult

__all__ = ["POWER_WRITERS", "family_rows", "monte_carlo_words", "percent", "plural",
           "power_facts", "power_json", "power_markdown", "power_summary", "power_text",
           "trials_table"]


def in_points(res: PowerResult) -> bool:
    """Whether differences read as percentage points (0/1 scores)."""
    return res.model in ("connor", "exact mcnemar") or res.metric in ("accuracy",)


def difference(res: PowerResult, value: float | None) -> str:
    """A difference as the summary writes it: ``+2.0 points`` for 0/1 scores."""
    if value is None:
        return "none"
    if in_points(res):
        return f"{100.0 * value:+.1f} points"
    return f"{value:+.3g}"


def percent(p: float, decimals: int | None = None, *, exact: bool = True) -> str:
    """A probability as a percentage that reads 0% or 100% only when it is 0 or 1: a given
    one (``decimals`` None) in its shortest form (0.8 -> "80%", 0.999999 -> "99.9999%"),
    a computed one to ``decimals`` decimals, with as many more as it takes not to round
    to 0 or 100 (0.9999996 -> "99.99996%").  ``exact=False``: ``p`` is a model's power,
    whose 1 (or 0) is 1 to the floats' digits, not exactly: "over 99.9999%" ("under
    0.0001%")."""
    if not exact and (p == 0 or p == 1):
        return "over 99.9999%" if p == 1 else "under 0.0001%"
    if p == 0 or p == 1:
        return f"{100 * p:.0f}%"
    if decimals is None:
        for digits in range(10, 18):
            text = f"{100 * p:.{digits}g}"
            if float(text) not in (0.0, 100.0):
                return text + "%"
        return f"{100 * p!r}%"
    for d in range(decimals, 18):
        text = f"{100 * p:.{d}f}"
        if float(text) not in (0.0, 100.0):
            return text + "%"
    return f"{100 * p!r}%"


def plural(n: int, unit: str) -> str:
    """``"1 run"``, ``"3 runs"``: ``n`` with ``unit`` (given in the plural) agreeing."""
    return f"{n:,} {unit[:-1] if n == 1 else unit}"


def test_words(res: PowerResult) -> str:
    level = percent(res.confidence_level)
    sides = "two-sided" if res.alternative == "two-sided" else "one-sided"
    if res.hypothesis != "difference":
        margin = difference(res, res.margin).lstrip("+")
        return f"{res.hypothesis}, margin {margin}, {sides}, {level}"
    if res.test == "mcnemar":
        return f"exact McNemar test, {sides}, {level}"
    return f"{sides}, {level}"


def size_words(res: PowerResult) -> str:
    """The planned size in words: items, with their groups and runs (a k-trial metric:
    tasks and trials each)."""
    if res.model == "trials":
        text = "no number of tasks" if res.n_items is None else plural(res.n_items, "tasks")
        return text + ("" if res.n_runs is None else f", {plural(res.n_runs, 'trials')} each")
    if res.n_groups is not None and res.n_items is not None:
        text = f"{plural(res.n_groups, 'groups')} ({plural(res.n_items, 'paired items')})"
    elif res.n_items is not None:
        text = plural(res.n_items, "paired items")
    else:
        text = "no number of items"
    if res.n_runs is not None:
        text += f", {plural(res.n_runs, 'runs')} per system"
    return text


@writes(PowerResult, "summary", part=True)
def power_summary(res: PowerResult, context=None) -> str:
    """``PowerResult.summary()``: the answer in one line."""
    test = test_words(res)
    pct = ("?" if res.power is None else percent(res.power, 1, exact=False)
           if res.solved == "power" else percent(res.power))
    if res.hypothesis != "difference":
        goal = (f"to show {res.hypothesis} when the true difference is "
                f"{difference(res, res.delta)}, with {pct} power ({test})")
    else:
        goal = f"to detect {difference(res, res.delta)} with {pct} power ({test})"
    if res.solved in ("n_items", "n_groups"):
        head = goal + ": "
        if res.n_items is None:
            text = head + "no number of items reaches it"
            if res.n_runs is not None:
                text += (f" with {plural(res.n_runs, 'runs')} per system (the runs' "
                         f"variance floor {res.floor:.3g})")
                if res.n_runs_needed is not None:
                    text += f"; {plural(res.n_runs_needed, 'runs')} per system would"
            return text
        text = head + "about " + size_words(res)
        if res.family is not None:
            f = res.family
            text += (f" for each of {plural(len(f.comparisons), 'comparisons')} "
                     f"({f.correction})"
                     + ("" if f.n_all is None else f"; {f.n_all:,} for all detected "
                        "together"))
        if res.n_items_unpaired is not None:
            text += f"; unpaired, about {res.n_items_unpaired:,} per system"
        return text
    if res.solved == "n_runs":
        head = goal + " with "
        items = (plural(res.n_groups, "groups") if res.unit == "groups" or (
            res.n_groups is not None and res.n_items is None) else plural(res.n_items, "items"))
        if res.model == "trials":
            items = plural(res.n_items, "tasks")
            if res.n_runs is None:
                return head + items + ": no number of trials up to 10,000 reaches it"
            return head + items + f": about {plural(res.n_runs, 'trials')} per task"
        if res.n_runs is None:
            return head + items + ": no number of runs up to 10,000 reaches it"
        return head + items + f": about {plural(res.n_runs, 'runs')} per system"
    if res.solved == "power":
        return (f"with {size_words(res)}, a difference of {difference(res, res.delta)} is "
                f"detected with {pct} power ({test})")
    if res.delta is None:
        return (f"with {size_words(res)}, no difference the metric allows is detected with "
                f"{pct} power ({test})")
    return (f"with {size_words(res)}, the smallest difference detected with {pct} power "
            f"({test}) is {difference(res, res.delta)}")


def power_facts(res: PowerResult) -> list[tuple[str, str]]:
    """The inputs and what was read off them, as (label, value) rows."""
    rows = [("model", res.model), ("source", res.source)]

    def add(label, value, fmt="{:.4g}"):
        if value is not None and not (isinstance(value, float) and math.isnan(value)):
            rows.append((label, fmt.format(value)))

    add("sd of a unit's difference", res.sd)
    add("variance per unit", res.unit_variance)
    if res.variance is not None:
        add("standard error at the size", math.sqrt(res.variance))
    add("sd A", res.sd_a)
    add("sd B", res.sd_b)
    add("correlation of A and B", res.correlation)
    add("accuracy A", res.accuracy_a)
    add("accuracy B", res.accuracy_b)
    add("discordant share", res.discordant)
    add("mean group size", res.group_size)
    add("group size cv", res.group_size_cv)
    add("intra-cluster correlation", res.icc)
    add("design effect", res.design_effect)
    if res.run_variance:
        rows.append(("run variance", ", ".join(f"{v:.4g}" for v in res.run_variance)))
        rows.append(("residual variance",
                     ", ".join(f"{v:.4g}" for v in res.residual_variance)))
    add("variance floor of the runs", res.floor)
    add("between-task variance", res.between_variance)
    if res.within_variance is not None:
        add(f"within-task variance at {plural(res.n_runs, 'trials')}", res.within_variance)
    add("pilot trials per task (fewest)", res.pilot_trials, "{:,}")
    add("A's mean success rate", res.rate_a)
    add("sd of A's success rates", res.rate_sd)
    add("sd of B's logit shift", res.shift_sd)
    add(f"{res.metric} of A", res.metric_a)
    add("runs needed", res.n_runs_needed, "{:,}")
    add("pilot items", res.pilot_items, "{:,}")
    add("pilot groups", res.pilot_groups, "{:,}")
    if res.pilot_range is not None:
        rows.append(("95% range from the pilot", range_words(res)))
    add("unpaired items per system", res.n_items_unpaired, "{:,}")
    if res.pairing_saving is not None and res.pairing_saving < 0:
        rows.append(("pairing costs", f"{percent(-res.pairing_saving, 0)} more items than "
                                      "unpaired"))
    elif res.pairing_saving is not None:
        rows.append(("saved by pairing", percent(res.pairing_saving, 0)))
    if res.exact_mcnemar is not None:
        value = (f"{res.exact_mcnemar:,} items" if res.solved == "n_items" else
                 f"power {percent(res.exact_mcnemar, 1, exact=False)}"
                 if res.solved == "power" else difference(res, res.exact_mcnemar))
        rows.append(("exact McNemar test", f"{value}, with `test='mcnemar'`"))
    for s in res.strata:
        rows.append((f"stratum {s.name}", f"weight {s.weight:.3g}, share {s.share:.3g}, "
                                          f"variance {s.variance:.4g}"))
    return rows


def range_words(res: PowerResult) -> str:
    """:attr:`PowerResult.pilot_range` in words: the solved quantity at both ends of the
    interval of the pilot's spread."""
    low, high = res.pilot_range
    if res.solved in ("n_items", "n_groups"):
        unit = "groups" if res.unit == "groups" else "items"
        if low is None:
            return f"no number of {unit} reaches it"
        return f"{low:,} to " + (f"{high:,} {unit}" if high is not None
                                 else f"none reaches it ({unit})")
    if res.solved == "power":
        return f"{percent(low, 1, exact=False)} to {percent(high, 1, exact=False)} power"
    if low is None:
        return "no difference detected"
    return f"{difference(res, low)} to " + (difference(res, high) if high is not None
                                            else "none detected")


def family_rows(res: PowerResult) -> list[tuple[str, str]]:
    f = res.family
    if f is None:
        return []

    def n(v):
        return "none" if v is None else f"{v:,}"

    return [
        ("comparisons", ", ".join(f"{b} - {a}" for a, b in f.comparisons)),
        ("correction", f.correction),
        ("level per comparison", f"{f.alpha_per_comparison:.3g}"),
        ("max-t critical value", f"{f.critical_value:.3f} (Monte Carlo error "
                                 f"{f.critical_value_error:.3f}, {f.n_simulations:,} draws)"),
        ("Bonferroni critical value", f"{f.bonferroni_critical_value:.3f}"),
        ("units, each comparison", f"Bonferroni {n(f.n_each_bonferroni)}, max-t "
                                   f"{n(f.n_each_max_t)}"),
        ("units, all detected together", f"Bonferroni {n(f.n_all_bonferroni)}, max-t "
                                         f"{n(f.n_all_max_t)}"),
    ] + ([] if not math.isfinite(f.power_each) else [
        ("power at the size", f"each at least {percent(f.power_each, 1, exact=False)}; all "
                              f"together {percent(f.power_all, 1)} (Monte Carlo error "
                              f"{percent(f.power_all_error, 1)})")])


def simulation_line(res: PowerResult) -> str | None:
    """The simulation check in a sentence (None when it was not run)."""
    sim = res.simulation
    if sim is None:
        return None
    size = (f"{plural(sim.n_groups, 'groups')} (about {plural(sim.n_items, 'items')})"
            if sim.n_groups else plural(sim.n_items, "items"))
    return (f"Checked by simulation: {percent(sim.power, 1)} power ({monte_carlo_words(sim)})"
            f" in {plural(sim.n_simulations, 'simulated evaluations')} of {size} with B - A "
            f"= {difference(res, sim.delta)} ({sim.seconds:.1f} s, seed {sim.seed}): "
            f"{sim.method_words}.")


def monte_carlo_words(sim) -> str:
    """The simulated power's uncertainty: its Monte Carlo error, or where that is rough
    (fewer than 10 rejections, or fewer than 10 not), Wilson's 95% interval."""
    if sim.rough and sim.monte_carlo_interval is not None:
        low, high = sim.monte_carlo_interval
        return f"95% Monte Carlo interval {percent(low, 1)} to {percent(high, 1)}"
    return f"Monte Carlo error {percent(sim.monte_carlo_error, 1)}"


def trials_table(res: PowerResult) -> Table | None:
    """A k-trial metric's plan at each number of trials per task (None: no grid)."""
    if not res.trials_grid:
        return None
    rows = [(f"{g.trials:,}", "none" if g.n_items is None else f"{g.n_items:,}",
             "" if g.total_trials is None else f"{g.total_trials:,}",
             "?" if g.power is None else percent(g.power, 1, exact=False),
             difference(res, g.delta), f"{g.within_variance:.4g}")
            for g in res.trials_grid]
    return Table(("trials per task", "tasks", "trials per system", "power", "B - A",
                  "within variance"), rows, "rrrrrr")


@writes(PowerResult, "text")
def power_text(res: PowerResult, context=None) -> str:
    """The plain-text report: the summary, then the inputs and the assumptions."""
    facts = Table(None, power_facts(res) + family_rows(res), "ll")
    lines = [power_summary(res), ""]
    lines += text(facts, raw=True)  # (the lines are made visible whole)
    grid = trials_table(res)
    if grid is not None:
        lines += ["", "By trials per task (more trials shrink only the within part):"]
        lines += text(grid, raw=True)
    if res.simulation is not None:
        lines += ["", simulation_line(res)]
    if res.assumptions:
        lines += ["", "assumes:"] + [f"  - {a}" for a in res.assumptions]
    return lines_text(lines)


@writes(PowerResult, "markdown")
def power_markdown(res: PowerResult, context=None) -> str:
    """A Markdown report: the summary, a table of the inputs, the assumptions."""
    facts = Table(None, power_facts(res) + family_rows(res), "ll")
    lines = [f"**{md(power_summary(res))}**", "", *markdown(facts)]
    grid = trials_table(res)
    if grid is not None:
        lines += ["", "By trials per task (more trials shrink only the within part):", "",
                  *markdown(grid)]
    if res.simulation is not None:
        lines += ["", md(simulation_line(res))]
    if res.assumptions:
        lines += ["", "Assumes:", ""] + [f"- {md(a)}" for a in res.assumptions]
    return lines_text(lines)


@writes(PowerResult, "json", schema="pairboot.power/1")
def power_json(res: PowerResult, context=None) -> str:
    """The result's fields as JSON, with the summary."""
    out = res.to_dict()
    out["summary"] = power_summary(res)
    return json_report(res, out)


POWER_WRITERS = Writers(PowerResult)
"""Format name -> writer of a planned comparison's report (a view of the registry)."""
