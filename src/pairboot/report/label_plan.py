"""Reports of a gold-label plan (:class:`pairboot.LabelPlan`): the labels needed with the
judge and without it; text, Markdown and JSON."""

from __future__ import annotations

from pairboot.report.escape import lines_text, md
from pairboot.report.numbers import percent
from pairboot.report.registry import writes
from pairboot.report.schemas import json_report
from pairboot.results.labels import LabelPlan

__all__ = ["labels_json", "labels_markdown", "labels_text"]


def _count(n: int | None, plan: LabelPlan) -> str:
    return f"{n:,}" if n is not None else f"more than the {plan.n_items:,} items"


def plan_lines(plan: LabelPlan) -> list[str]:
    """The plan in words."""
    level = percent(plan.confidence_level)
    goal = (f"a {level} interval of B - A within +-{plan.half_width:.4g}"
            if plan.delta is None else
            f"{plan.delta:g} detected with {percent(plan.power)} power ({level}, "
            f"{plan.alternative})")
    lines = [f"For {goal} on the gold metric, {plan.n_items:,} items scored by the judge:",
             f"  gold labels with the judge (prediction-powered): {_count(plan.n_gold, plan)}",
             f"  gold labels alone: {_count(plan.n_gold_alone, plan)}"]
    if plan.saved is not None:
        lines.append(f"  the judge saves {plan.saved:.0%} of the labels")
    source = ("" if plan.n_pilot is None
              else f" (from a pilot's {plan.n_pilot:,} labelled items)")
    lines.append(f"assumes: sd of the gold per-item differences {plan.sd:.4g}, the judge's "
                 f"correlation with them {plan.correlation:.3g}{source}, labels drawn at "
                 "random, PPI++ at its best weight, a normal interval")
    return lines


@writes(LabelPlan, "text")
def labels_text(plan: LabelPlan, context=None) -> str:
    return lines_text(plan_lines(plan))


@writes(LabelPlan, "markdown")
def labels_markdown(plan: LabelPlan, context=None) -> str:
    return lines_text(md(line.strip()) if not line.startswith("  ") else
                      f"- {md(line.strip())}" for line in plan_lines(plan))


@writes(LabelPlan, "json", schema="pairboot.gold_labels/1")
def labels_json(plan: LabelPlan, context=None) -> str:
    return json_report(plan, plan.to_dict())
