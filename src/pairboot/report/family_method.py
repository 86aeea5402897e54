"""What a family's reports say of how it was computed: its signature line, its design, the
method in words, and its one-line summary of the procedure (every format's; the rest of
what a family's reports say is :mod:`pairboot.report.family`)."""

from __future__ import annotations

import math

from pairboot.report.family import FamilyContext, baseline_of, family_kind, plural, strata_count
from pairboot.report.numbers import percent
from pairboot.report.numbers import plural as count_of
from pairboot.report.parts import (
    signature,
)
from pairboot.results.family import FamilyResult


def family_signature(result: FamilyResult, context: FamilyContext | None = None) -> str:
    """The reproducibility line (:func:`pairboot.report.parts.signature`'s, with the
    correction and family size, lower-is-better and the plan's hash).

    The family itself (which comparisons) is in the report, or in the plan.
    """
    after = (["lower is better"] if result.lower_is_better else []) + (
        [f"plan sha256:{context.plan_sha256[:12]}"] if context and context.plan_sha256 else [])
    return signature(result, context or FamilyContext(),
                     first=[f"correction {result.correction} ({result.family_size})"],
                     after_seed=after)


def family_design(result: FamilyResult, context: FamilyContext | None = None) -> str:
    """What was resampled, in a few words: "paired cluster bootstrap over 130 groups
    (doc) in 3 strata (domain)"; for several runs per system, "t intervals over 300
    items and several runs"."""
    ctx = context or FamilyContext()
    if result.n_groups is not None:
        units = count_of(result.n_groups, "group") + (f" ({ctx.group})" if ctx.group
                                                          else "")
    else:
        units = count_of(result.n_items, "item")
    if result.n_strata:
        units += f" in {strata_count(result.n_strata)}" + (f" ({ctx.stratum})" if ctx.stratum
                                                       else "")
    if result.method == "t":
        return f"t intervals over {units} and several runs per system"
    if getattr(result, "estimand", "population") == "suite":
        return f"fixed-suite normal intervals over {units} (only the trials vary)"
    words = ["paired" if result.paired else "unpaired"]
    words += ["stratified"] if result.n_strata else []
    words += ["cluster"] if result.n_groups is not None else []
    if result.method != "percentile":
        words.append({"bca": "BCa"}.get(result.method, result.method))
    return f"{' '.join(words)} bootstrap over {units}"


def describe_family(result: FamilyResult) -> str:
    """One sentence: what was resampled, and how the family's error rate is controlled."""
    m = result.family_size
    alpha = 1 - result.confidence_level
    if result.n_groups is not None:
        unit = (f"{count_of(result.n_groups, 'whole group')} "
                f"({count_of(result.n_items, 'item')})")
    else:
        unit = count_of(result.n_items, "item")
    within = f" within each of {strata_count(result.n_strata)}" if result.n_strata else ""
    draws = ("the same draws for every system" if result.paired
             else "each system's units drawn independently (unpaired)")
    marginal = ("the marginal ones are symmetric bootstrap-t intervals on the same roots"
                if result.correction == "max-t" and m > 1 and result.hypothesis != "equivalence"
                else "for the marginal ones")
    shared = (f"{result.n_resamples:,} resamples of {unit}{within}, {draws}; "
              f"{result.method} intervals for each system, {marginal}")
    if result.method == "t":  # several runs per system (runs='seeds')
        shared = (f"{unit}{within}, several training runs per system: each comparison is "
                  "a t interval on the two-way (items x runs) variance with "
                  "Satterthwaite's degrees of freedom, as pairboot.compare(..., "
                  "runs='seeds') gives it")
    suite = getattr(result, "estimand", "population") == "suite"
    if suite:  # (runs='samples', estimand='suite')
        shared = (f"the {unit}{within} held fixed, only their trials vary (a fixed suite, "
                  "estimand='suite'): each system's score and each comparison a normal "
                  "interval on the trials' variance sum_i w_i^2 v_i, v_i the unbiased "
                  "variance of item i's estimate over its trials (the systems' trials "
                  "independent given the items), as pairboot.compare(..., "
                  "estimand='suite') gives it")
    if m == 1:
        how = "a family of one comparison needs no correction"
    elif result.correction == "max-t" and suite:
        c = result.critical_value
        sides = ("lower bounds estimate - c * se", "z") if result.alternative != (
            "two-sided") else ("intervals estimate +/- c * se", "|z|")
        how = (f"max-t: simultaneous {sides[0]} with c = {c:.3f}, the "
               f"{percent(result.confidence_level)} quantile of the largest {sides[1]} over "
               f"the {m} comparisons ({result.n_resamples:,} normal draws with their exact "
               "correlation, from the variances of the systems they share); adjusted "
               "p-values by the stepdown on the same draws")
    elif result.correction == "max-t" and result.method == "t":
        c = result.critical_value
        level = math.erfc(c / math.sqrt(2.0)) if c is not None else math.nan
        one = result.alternative != "two-sided"
        sides = ("one-sided", level / 2, "1 - Phi(c)", "z") if one else (
            "two-sided", level, "2 (1 - Phi(c))", "|z|")
        how = (f"max-t on the comparisons' p-values: c = {c:.3f} is the "
               f"{percent(result.confidence_level)} quantile of the largest {sides[3]} over "
               f"the {m} comparisons ({result.n_resamples:,} normal draws, correlated "
               "through the items' share of each variance), and each simultaneous interval "
               f"is its own t interval at the {sides[0]} level {sides[1]:.3g} ({sides[2]}); "
               "adjusted p-values by the stepdown on the same draws")
    elif result.correction == "max-t":
        c = result.critical_value
        c_text = (f"{c:.3f}" if c is not None and math.isfinite(c)
                  else "infinite (too few resamples for the level)")
        bound, root = {"greater": ("lower bounds estimate - c * se",
                                   "(resample - estimate) / se"),
                       "less": ("upper bounds estimate + c * se",
                                "(estimate - resample) / se")}.get(
            result.alternative, ("intervals are estimate +/- c * se",
                                 "|(resample - estimate) / se|"))
        own = ""
        if result.method == "studentized":  # (each resample's own se: core.family)
            root = root.replace("/ se", "/ se*")
            own = " (se* each resample's own standard error, se the data's)"
        how = (f"max-t: simultaneous {bound} with c = {c_text}, the "
               f"{percent(result.confidence_level)} quantile of the largest standardised "
               f"root {root} over the {m} comparisons{own}; adjusted "
               "p-values by the Romano-Wolf stepdown on the same roots")
        if getattr(result, "hypothesis", "difference") == "equivalence":
            how = (f"max-t for equivalence: simultaneous intervals estimate +/- c * se with "
                   f"c = {c_text}, the {percent(result.confidence_level)} quantile of the "
                   f"largest |(resample - estimate) / se| over the {m} comparisons (each "
                   "null lies on one side, unknown: both are covered), a comparison "
                   "equivalent when its interval lies within +-margin; adjusted p-values "
                   "single-step")
        elif getattr(result, "hypothesis", "difference") != "difference":
            how += ", each comparison against its margin's boundary"
    elif result.correction == "holm":
        how = (f"Holm's step-down adjusted p-values; intervals at level 1 - {alpha:g}/{m} "
               "(Bonferroni's)")
    elif result.correction in ("bh", "by"):
        who = ("Benjamini-Hochberg (for independent or positively dependent comparisons)"
               if result.correction == "bh" else
               "Benjamini-Yekutieli (under any dependence: BH times 1 + 1/2 + ... + 1/m)")
        q = f"{alpha:g}" if result.correction == "bh" else f"({alpha:g} / c(m))"
        how = (f"{who} q-values control the false discovery rate at {alpha:g}; each "
               f"interval at the false-coverage-rate adjusted level 1 - R {q} / m "
               f"for the R discoveries of the m comparisons ({percent(result.fcr_level)})")
    elif result.correction == "bonferroni":
        how = (f"Bonferroni: p-values times {m} (at most 1), intervals at level "
               f"1 - {alpha:g}/{m}")
    else:
        how = (f"no correction: with {m} comparisons the chance that one of them excludes 0 "
               f"by luck is above {alpha:g}")
    return f"{shared}; {how}."


def family_line(result: FamilyResult) -> str:
    m = len(result.comparisons)
    kind = family_kind(result)
    n = len(result.systems)
    if kind == "one per stratum":
        return (f"B - A within each of {strata_count(m)} "
                f"({', '.join(result.strata_family)})")
    if kind == "all pairs":
        return (f"all pairs of {n} systems ({plural(m, 'comparison')}, each the later "
                "system minus the earlier)")
    base = baseline_of(result)
    if base is not None:
        return f"{plural(m, 'system')} against the baseline {base} (each minus {base})"
    return f"{plural(m, 'chosen pair')} of {n} systems (each the second minus the first)"
