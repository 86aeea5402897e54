"""``pairboot compare``: read the inputs, compare (two systems, a family, runs, parts in
chunks), write the report; :func:`run_compare` returns the exit status.

Imported by :func:`pairboot.cli.main` when the command is ``compare``, so that ``pairboot
--version`` and ``pairboot power`` do not load it.
"""

from __future__ import annotations

import dataclasses
import sys
import warnings

import pairboot
import pairboot.io as pbio
from pairboot.cli.arguments import given_options
from pairboot.cli.harness import check_named, load_harness, named_inputs, wants_harness
from pairboot.cli.inputs import (
    ManyInputs,
    as_two_systems,
    check_distinct_files,
    load_inputs,
    load_many,
    many_systems,
)
from pairboot.cli.options import (
    api_options,
    check_level,
    data_options,
    family_options,
    resampling_options,
    runs_options,
    test_options,
    wants_metrics,
    wants_ppi,
)
from pairboot.cli.output import check_output, check_plot, check_stdout, deliver, report_text
from pairboot.cli.parser import EXIT_FAILED, EXIT_OK, cli_spelling
from pairboot.cli.paths import input_files
from pairboot.cli.progress import ProgressBar, read_progress
from pairboot.cli.runs import load_runs, load_runs_many
from pairboot.cli.stats import metric_option
from pairboot.cli.stream import stream_compare
from pairboot.cli.weights import strata_weights_arg
from pairboot.errors import InputError
from pairboot.metrics import trials_metric
from pairboot.report import (
    decision,
    gate_conflict,
    gate_hypothesis,
    gate_text,
    kept_warnings,
    visible,
    workflow_commands,
)

__all__ = ["ResamplingMemoryError", "run_compare"]


def _feature(module: str, name: str):
    """A function of the command line's module for one feature (the curve, the tasks'
    aggregate, a judge with gold labels), imported when the feature is asked for: a
    plain comparison loads none of them (docs/performance.md, "Start-up")."""
    import importlib

    return getattr(importlib.import_module(f"pairboot.cli.{module}"), name)


def run_compare(args) -> int:
    """``pairboot compare``: read, compare, report; the exit status."""
    check_level(args)  # (a percentage: compare() would reject it without the hint)
    named = named_inputs(args.files)
    if named is not None:
        check_named(args)
    check_distinct_files(args, named)
    how = check_output(args.output, input_files(args)) if args.output is not None else None
    if how in (None, "stdout"):
        check_stdout()
    if wants_ppi(args):  # (a judge and gold labels)
        return _feature("ppi", "run_ppi")(args, how)
    args.plot_kind = (check_plot(args.plot, input_files(args), args.output) if args.plot
                      else None)
    if args.curve is not None or args.ks is not None:
        _feature("curve", "check_curve")(args)
    if args.aggregate is not None or args.vary is not None or args.gamma is not None:
        _feature("tasks", "check_tasks")(args)
    if args.gate is not None:
        return run_gate(args, how)
    if args.inconclusive is not None:
        raise InputError("--inconclusive is for --gate (a release gate's policy)")
    if wants_metrics(args):
        return run_metrics(args, how)
    args.metric_object = metric_option(args.metric)
    args.hypothesis = gate_hypothesis(args.fail_if, args.hypothesis, args.margin)
    conflict = gate_conflict(args.fail_if, args.alternative, args.lower_is_better)
    if conflict is not None:
        raise InputError(conflict)
    if args.scheduler is not None and not args.stream:
        raise InputError("--scheduler runs a --stream comparison on a Dask cluster: give "
                         "--stream too")
    if args.noise_floor is not None:
        _feature("noise", "check_floor")(args, logs=wants_harness(args),
                                           many=many_systems(args))
    if args.stream:
        return run_stream(args, how)
    if args.run is not None:
        if args.aggregate is not None and not many_systems(args):
            raise InputError("--aggregate with --run: give three systems or more (two "
                             "systems' runs are not read for an aggregate over tasks)")
        if many_systems(args):
            return run_many(args, how, load_runs_many(args))
        return run_runs(args, how)
    logs = wants_harness(args)
    if args.errors is not None and not logs:
        raise InputError("--errors settles the errored and missing items of harness logs "
                         "(--from FORMAT, or a log recognised without it)")
    if (args.runs is not None or args.paired_runs) and not logs:
        raise InputError("--runs and --paired-runs need --run (the column naming each "
                         "row's run), harness logs written NAME=PATH (a log per run), or "
                         "Inspect logs (epochs) with --runs samples")
    if many_systems(args) and not logs:
        return run_many(args, how)
    status = read_progress(not args.no_progress)
    try:
        inputs = load_harness(args, status) if logs else load_inputs(args, status)
    finally:
        status.close()
    if isinstance(inputs, ManyInputs):
        return run_many(args, how, inputs)
    if args.aggregate is not None:
        names = (inputs.context.name_a, inputs.context.name_b)
        return _feature("tasks", "run_tasks")(args, how, names, (inputs.a, inputs.b), inputs,
                                              _resampled)
    if args.tasks_as == "family":
        return run_strata_family(args, how, inputs)
    pbio.release_arrow_memory()  # the tables are gone: their text columns too
    return _compare_two(args, how, inputs)


def _compare_two(args, how: str | None, inputs) -> int:
    """compare() of two systems' aligned inputs (items, or items x runs with --runs),
    and its report (or --curve's)."""
    if args.curve is not None:
        return _feature("curve", "run_curve")(args, how, inputs.a, inputs.b, inputs.ids,
                         (inputs.context.name_a, inputs.context.name_b))
    keyed = resampling_options(args, inputs.ids)
    if inputs.ids is not None and not runs_options(args):
        keyed.setdefault("ids", inputs.ids)  # (the items behind the number by their ids)
    floor = None
    columns = (_feature("noise", "floor_columns")(args) if args.noise_floor is not None
               else None)
    if columns is not None:  # (two runs of A: read as A and B were, from the same file)
        aa = load_inputs(_feature("noise", "with_columns")(args, columns))
        aa_keyed = resampling_options(args, aa.ids)
        if aa.ids is not None and not runs_options(args):
            aa_keyed.setdefault("ids", aa.ids)
        floor = _resampled(args, args.resamples, lambda bar: _feature("noise", "measure_floor")(
            args, columns, aa.a, aa.b, **data_options(aa), keyed=aa_keyed, progress=bar))
    result = _resampled(args, args.resamples, lambda bar: pairboot.compare(
        inputs.a, inputs.b, **api_options(args), **data_options(inputs),
        **keyed, **runs_options(args), **test_options(args),
        progress=bar, top_items=args.top, noise_floor=floor,
    ))
    return _report(args, how, result, _with_bounds(args, inputs, result))


def _with_bounds(args, inputs, result):
    """The report's context, with the worst and best cases of B - A when the logs have
    errored or missing items (``Outcomes.bounds``)."""
    outcomes = inputs.outcomes
    if outcomes is None or not outcomes.any or len(outcomes.systems) != 2:
        return inputs.context
    low, high = result.confidence_interval
    bounds = outcomes.bounds(result.estimate, low, high)
    if result.metric not in ("mean", "accuracy") or args.lower_is_better or bounds is None:
        note = ("no bounds with the unscored items as failures or successes: they are "
                "for a mean score where higher is better")
    else:
        note = bounds.note
    return dataclasses.replace(inputs.context, notes=(*inputs.context.notes, note))


def run_many(args, how: str | None, inputs: ManyInputs | None = None) -> int:
    """``pairboot compare`` with a family of systems: compare_many, its report.

    With ``--plan``, the plan's settings are the run's, its group and stratum columns
    are read, and any option given on the command line must be the plan's.  ``inputs``:
    already read (harness logs, runs); with ``--runs``, every system's values are items x
    runs."""
    from pairboot.report import UNPLANNED, FamilyContext  # (a family's: on first use)

    if args.plan is not None and args.runs is not None:
        raise InputError("--plan with --runs: a plan does not fix several runs per system "
                         "yet")
    plan = pairboot.read_plan(args.plan) if args.plan is not None else None
    if plan is not None:
        args.group = args.group if args.group is not None else plan.group
        args.stratum = args.stratum if args.stratum is not None else plan.stratum
    if inputs is None:
        status = read_progress(not args.no_progress)
        try:
            inputs = load_many(args, status)
        finally:
            status.close()
    pbio.release_arrow_memory()
    if args.aggregate is not None:
        return _feature("tasks", "run_tasks")(args, how, inputs.names, inputs.values, inputs,
                                              _resampled)
    two = as_two_systems(args, inputs)
    if two is not None and args.tasks_as == "family":  # (--correction, --baseline: its)
        return run_strata_family(args, how, two)
    if two is not None:
        return _compare_two(args, how, two)
    if args.curve is not None:
        raise InputError(f"--curve compares two systems; these are {len(inputs.names)}: "
                         "compare two of them")
    if args.tasks_as == "family":
        raise InputError(f"--tasks-as family compares two systems task by task (stratum by "
                         f"stratum); these are {len(inputs.names)} systems: leave out "
                         "--tasks-as, or compare two of them")
    if args.fail_if is not None:
        raise InputError("--fail-if decides between two systems; for a family, read the "
                         "adjusted p-values in the report (or compare two systems)")
    if args.test == "mcnemar":
        raise InputError("--test mcnemar compares two systems; for a family, use --test "
                         "permutation (Westfall-Young's max-T)")
    scores = dict(zip(inputs.names, inputs.values))
    if plan is None:
        keywords = {**family_options(args), **api_options(args), **data_options(inputs),
                    **resampling_options(args, inputs.ids), **runs_options(args),
                    **test_options(args)}
    else:
        given = given_options(args)
        plan.check_family(
            inputs.names, baseline=args.baseline,
            metric=args.metric if "metric" in given else None,
            confidence_level=args.level if "level" in given else None,
            correction=args.correction,
            n_resamples=args.resamples if "resamples" in given else None,
            seed=args.seed, method=args.method if "method" in given else None,
            paired=False if args.unpaired else None,
            lower_is_better=True if args.lower_is_better else None,
            alternative=args.alternative if "alternative" in given else None,
            hypothesis=args.hypothesis if "hypothesis" in given else None,
            margin=args.margin,
            group=args.group if "group" in given else None,
            group_weighting=args.group_weighting, stratum=args.stratum if "stratum" in given
            else None, stratum_weights=inputs.strata_weights,
        )
        scores = {name: scores[name] for name in plan.systems}  # (the plan's order)
        keywords = plan.compare_many_keywords(
            groups=inputs.groups, strata=inputs.strata,
            metric=args.metric_object if "metric" in given else None)
        keywords.update(resampling_options(args, inputs.ids))
        keywords.update(test_options(args))
    result = _resampled(args, keywords["n_resamples"],
                        lambda bar: pairboot.compare_many(scores, progress=bar, **keywords))
    context = FamilyContext(
        files=inputs.files, layout=inputs.layout, notes=inputs.notes,
        plan_sha256=None if plan is None else plan.sha256,
        family_note=None if plan is not None or len(scores) < 3 else UNPLANNED,
        reword=cli_spelling, items_kept=inputs.common, **_family_columns(args),
    )
    deliver(args, how, report_text(args, result, context),
            (*result.warnings, *kept_warnings(context)), lambda plot: plot.plot_family(result))
    return EXIT_OK


def run_metrics(args, how: str | None) -> int:
    """``--score NAME[:lower][:MARGIN]`` repeated: several metrics of one comparison on
    the same draws (:func:`pairboot.compare_metrics`), and their report."""
    status = read_progress(not args.no_progress)
    try:
        inputs = _feature("metrics", "load_metrics")(args)
    finally:
        status.close()
    pbio.release_arrow_memory()
    result = _resampled(args, args.resamples, lambda bar: pairboot.compare_metrics(
        inputs.a, inputs.b, metrics=inputs.metrics, names=inputs.names,
        hypothesis=args.hypothesis or "difference", correction=args.correction or "none",
        groups=inputs.groups, strata=inputs.strata, strata_weights=inputs.strata_weights,
        group_weighting=args.group_weighting or "items", n_resamples=args.resamples,
        confidence_level=args.level, method=args.method, seed=args.seed, progress=bar,
        **resampling_options(args, inputs.ids)))
    deliver(args, how, report_text(args, result, inputs.context), result.warnings,
            lambda plot: None)
    return EXIT_OK


def run_gate(args, how: str | None) -> int:
    """``--gate FILE``: a release gate's rows over the policy's metrics (and tasks, from
    --stratum), their report, and the gate's exit status (:func:`pairboot.check_gate`)."""
    from pairboot.report import gate_annotations  # (the gate's writers: here only)

    gate = pairboot.read_gate(args.gate)
    if args.inconclusive is not None:
        gate = dataclasses.replace(gate, inconclusive=args.inconclusive)
    if getattr(args, "scores", None):
        raise InputError("--score does not go with --gate: the policy's [gate.metrics] "
                         "names the metrics and their columns")
    for dest, option in (("level", "--level"), ("fail_if", "--fail-if"),
                         ("correction", "--correction"), ("plot", "--plot")):
        if dest in given_options(args) or getattr(args, dest, None) not in (None, 0.95):
            raise InputError(f"{option} does not go with --gate: the policy decides "
                             "(its confidence_level and how its rows combine)")
    status = read_progress(not args.no_progress)
    try:
        inputs = _feature("metrics", "load_metrics")(args, gate.criteria)
    finally:
        status.close()
    pbio.release_arrow_memory()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = pairboot.check_gate(inputs.a, inputs.b, gate, tasks=inputs.strata,
                                     groups=inputs.groups, names=inputs.names,
                                     n_resamples=args.resamples, seed=args.seed)
    del caught  # (the result carries them)
    deliver(args, how, report_text(args, result), result.warnings, lambda plot: None)
    if args.format == "github":  # (annotations on the run, as --fail-if's ::error::)
        for line in gate_annotations(result):
            print(line, file=sys.stderr)
    return result.exit_status


def run_runs(args, how: str | None) -> int:
    """``--run COL --runs seeds|samples``: several runs per system."""
    a, b, ids, groups, strata, context = load_runs(args)
    if args.curve is not None:
        return _feature("curve", "run_curve")(args, how, a, b, ids,
                                              (context.name_a, context.name_b))
    keyed = resampling_options(args, ids)
    if trials_metric(args.metric_object) is not None or args.runs == "samples":
        keyed.setdefault("ids", ids)  # (pass^k, the flaky items: the items by their ids)
    floor = None
    columns = (_feature("noise", "floor_columns")(args) if args.noise_floor is not None
               else None)
    if columns is not None:  # (two runs of A's trials, from the same long table)
        runs = _feature("noise", "with_columns")(args, columns)
        base, rerun, aa_ids, aa_groups, aa_strata, _ = load_runs(runs)
        aa_keyed = {**keyed, "ids": aa_ids} if "ids" in keyed else keyed
        floor = _resampled(args, args.resamples, lambda bar: _feature("noise", "measure_floor")(
            args, columns, base, rerun, groups=aa_groups, strata=aa_strata,
            strata_weights=strata_weights_arg(args), keyed=aa_keyed, progress=bar))
    result = _resampled(args, args.resamples, lambda bar: pairboot.compare(
        a, b, **runs_options(args), **api_options(args), **test_options(args),
        groups=groups, strata=strata, strata_weights=strata_weights_arg(args),
        progress=bar, top_items=args.top, noise_floor=floor, **keyed))
    return _report(args, how, result, context)


def run_strata_family(args, how: str | None, inputs) -> int:
    """``--tasks-as family``: one comparison per task (stratum), as a family with its
    error rate controlled (:func:`pairboot.compare_strata`)."""
    from pairboot.report import UNPLANNED, FamilyContext  # (a family's: on first use)

    if inputs.strata is None:
        raise InputError("--tasks-as family needs tasks: several lm-eval tasks, or --stratum")
    if args.test is not None:
        raise InputError(f"--test {args.test} is not available with --tasks-as family: "
                         "leave out --tasks-as for the test of the combined difference")
    context = inputs.context
    result = _resampled(args, args.resamples, lambda bar: pairboot.compare_strata(
        inputs.a, inputs.b, strata=inputs.strata, names=(context.name_a, context.name_b),
        **family_options(args, baseline=False), **api_options(args), groups=inputs.groups,
        progress=bar, **resampling_options(args, inputs.ids)))
    family = FamilyContext(files=context.files, layout=context.layout, notes=context.notes,
                           plan_sha256=None, family_note=UNPLANNED, reword=cli_spelling,
                           strata_are="tasks" if args.stratum is None else "strata",
                           items_kept=context.items_kept, **_family_columns(args))
    deliver(args, how, report_text(args, result, family),
            (*result.warnings, *kept_warnings(family)), lambda plot: plot.plot_family(result))
    return EXIT_OK


def _family_columns(args) -> dict:
    """The columns a family's report names (the group and stratum columns in its
    caption, and with the id column and the stratum weights in its signature)."""
    return {"id": args.id, "group": args.group, "stratum": args.stratum,
            "stratum_weights": args.stratum_weights, "labels": args.labels,
            "common_items": args.common_items}


def run_stream(args, how: str | None) -> int:
    """``pairboot compare --stream``: the files read once in chunks, then the report."""
    status = read_progress(not args.no_progress)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result, context, family = stream_compare(args, status)
    except MemoryError as exc:  # (a chunk and every resample's sums)
        raise ResamplingMemoryError(*exc.args, hint=(
            "while reading in chunks and resampling; try fewer --resamples")) from None
    finally:
        status.close()
    if family:
        deliver(args, how, report_text(args, result, context), result.warnings,
                 lambda plot: plot.plot_family(result))
        return EXIT_OK
    return _report(args, how, result, context)


def _report(args, how: str | None, result, context) -> int:
    """Deliver the report of a comparison of two systems, and its exit status (1 when
    --fail-if fails the verdict)."""
    deliver(args, how, report_text(args, result, context),
            (*result.warnings, *kept_warnings(context)),
            lambda plot: plot.plot(result, name_a=context.name_a, name_b=context.name_b))
    verdict = decision(result, context)
    if verdict["failed"]:
        failure = gate_text(args.fail_if, verdict)
        if args.format == "github":  # (an annotation on the run: an ::error:: command)
            print(workflow_commands((), failure)[0], file=sys.stderr)
        else:
            print(visible(failure), file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _resampled(args, total: int, run):
    """``run(bar)``, with a progress bar of ``total`` resamples and the library's
    warnings held back (the report shows the result's warnings instead)."""
    bar = ProgressBar(total, enabled=not args.no_progress)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return run(bar)
    except MemoryError as exc:
        raise ResamplingMemoryError(*exc.args) from None
    finally:
        bar.close()


class ResamplingMemoryError(MemoryError):
    """Memory ran out after the inputs were read: fewer resamples would help."""

    def __init__(self, *args, hint: str = "while resampling; try fewer --resamples"):
        super().__init__(*args)
        self.hint = hint
