"""Malformed harness logs, in memory and on disk: each is read, or refused with an
InputError naming where the fault is; never a bare TypeError, AttributeError or
OverflowError (exit 3 on the command line instead of 2).

Every log starts from a small valid one: an Inspect log of two samples of two epochs,
an lm-eval run of one task of three docs.  The sweep replaces the value at every key
path of it (the first sample's fields, every results section) with a value of the wrong
kind (null, a bool, text, NaN, inf, an integer of 400 digits, empty and nested lists
and dicts) or deletes the key, in every form the readers take: a JSON log, a .eval zip,
an EvalLog object and its dict form; lm-eval's results dict and its output directory.
The table of cases below pins the message of each kind of fault: the file or object,
and the key path, sample or line.
"""

from __future__ import annotations

import copy
import json
import math
import re
import zipfile
from types import SimpleNamespace

import numpy as np
import pytest
from helpers import assert_one_line_error, run_in_process

from pairboot.errors import InputError
from pairboot.io import harness

DELETE = object()
"""The key is removed instead of replaced."""

BAD = {"null": None, "true": True, "minus-one": -1, "huge-int": 10**400,
       "nan": math.nan, "inf": math.inf, "text": "x", "empty-text": "", "empty-list": [],
       "nested-list": [[1]], "empty-dict": {}, "dict": {"k": [1]}, "deleted": DELETE}
"""The wrong values every key path is given (``10**400``: JSON's integers have no
limit, Python's floats do)."""

T1 = "2026-01-16T20-57-28.313639"


# --- the valid logs and their forms -----------------------------------------------------


def inspect_log() -> dict:
    """An Inspect log as its JSON file holds it: samples 1 and 2, epochs 1 and 2."""
    values = {1: ["C", "P"], 2: [0.5, 0]}
    return {"version": 2, "status": "success",
            "eval": {"task": "popularity", "model": "openai/m",
                     "config": {"epochs": 2, "epochs_reducer": ["mode"]}},
            "samples": [{"id": sid, "epoch": e + 1,
                         "scores": {"match": {"value": v, "answer": "a"}},
                         "metadata": {"topic": "x"}}
                        for sid, vs in values.items() for e, v in enumerate(vs)]}


def lm_results() -> dict:
    """The dict lm-eval's simple_evaluate(..., log_samples=True) returns, one task."""
    rows = [{"doc_id": i, "filter": "none", "metrics": ["acc"], "acc": v}
            for i, v in enumerate([1.0, 0.0, 1.0])]
    return {"results": {"boolq": {"alias": "boolq", "acc,none": 2 / 3}},
            "configs": {"boolq": {"metric_list": [{"metric": "acc", "aggregation": "mean"}]}},
            "n-shot": {"boolq": 0}, "n-samples": {"boolq": {"original": 3, "effective": 3}},
            "config": {"model": "hf", "model_args": {"pretrained": "org/m"}},
            "model_name": "org/m", "samples": {"boolq": rows}}


class Score:  # (Inspect's Score: attributes, no dict)
    def __init__(self, **fields):
        self.__dict__.update(fields)


def as_object(value, depth=0):
    """A log dict as Inspect's objects hold it: the log, its ``eval`` and ``config``,
    each sample and each Score are objects with attributes; the rest stays data."""
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        return value
    if depth == 2:  # a sample's scores: name -> Score
        return {k: Score(**v) if isinstance(v, dict) else v for k, v in value.items()}
    fields = {}
    for k, v in value.items():
        if k in ("eval", "config"):
            v = as_object(v)
        elif k == "samples" and isinstance(v, list):
            v = [as_object(s, 1) for s in v]
        elif k == "scores" and depth == 1:
            v = as_object(v, 2)
        fields[k] = v
    return SimpleNamespace(**fields)


def write_json(tmp_path, log):
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    return path


def write_eval(tmp_path, log):
    """A .eval zip: header.json, and a member per sample named by its place in the
    valid log (so a bad id still has a member)."""
    path = tmp_path / "log.eval"
    header = {k: v for k, v in log.items() if k != "samples"} if isinstance(log, dict) \
        else log
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("header.json", json.dumps(header))
        samples = log.get("samples") if isinstance(log, dict) else None
        for k, s in enumerate(samples if isinstance(samples, list) else []):
            z.writestr(f"samples/{k // 2 + 1}_epoch_{k % 2 + 1}.json", json.dumps(s))
    return path


def write_lm_dir(tmp_path, results):
    """lm-eval's output directory of ``results``: its samples file and results file."""
    folder = tmp_path / "out" / "org__m"
    folder.mkdir(parents=True, exist_ok=True)
    rows = results["samples"]["boolq"]
    (folder / f"samples_boolq_{T1}.jsonl").write_text(
        "\n".join(json.dumps(r) for r in rows) + "\n")
    (folder / f"results_{T1}.json").write_text(
        json.dumps({k: v for k, v in results.items() if k != "samples"}))
    return tmp_path / "out"


INSPECT_FORMS = {
    "json": lambda tmp, log: harness.read(write_json(tmp, log), "inspect"),
    "eval": lambda tmp, log: harness.read(write_eval(tmp, log), "inspect"),
    "object": lambda tmp, log: harness.read(as_object(log), "inspect"),
    "dict": lambda tmp, log: harness.read(log, "inspect"),
}
LM_FORMS = {
    "dict": lambda tmp, results: harness.read(results, "lm-eval"),
    "directory": lambda tmp, results: harness.read(write_lm_dir(tmp, results), "lm-eval"),
}


# --- the sweep ----------------------------------------------------------------------------


def key_paths(value, prefix=()):
    """Every key path of ``value`` (a list's first element only: the others alike)."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from key_paths(v, (*prefix, k))
    elif isinstance(value, list) and value:
        yield from key_paths(value[0], (*prefix, 0))


def changed(log, path, value):
    """``log`` with the value at ``path`` replaced by ``value`` (or deleted)."""
    out = copy.deepcopy(log)
    *parents, last = path
    at = out
    for k in parents:
        at = at[k]
    if value is DELETE:
        del at[last]
    else:
        at[last] = copy.deepcopy(value)
    return out


def sane(scores):
    """A read that succeeded holds finite numbers, one per distinct id."""
    ids = scores.ids.tolist()
    assert len(set(ids)) == len(ids) == scores.n_items > 0
    for values in scores.systems.values():
        assert np.all(np.isfinite(np.asarray(values, dtype=np.float64)))


def where_tokens(form, path, tmp_path):
    """Texts of which a refusal must name one: the file or object read, and, for a
    fault inside a sample, that sample (its place, id, line or member), unless the
    refusal asks for an option (``param``: several scorers, choose one)."""
    sources = {"json": [str(tmp_path)], "eval": [str(tmp_path)], "directory": [str(tmp_path)],
               "object": ["EvalLog"], "dict": ["EvalLog", "lm-eval"]}[form]
    places = None
    if path[:1] == ("samples",) and len(path) >= 2 and path[1] == 0:  # Inspect sample 1
        places = ["samples[0]", "sample 1", "samples/1_epoch_1.json"]
    if path[:3] == ("samples", "boolq", 0) and len(path) >= 4:  # lm-eval's first doc
        places = ["line 1", "doc_id 0"]
    return sources, places


def check(read, tmp_path, form, path, value, tokens):
    """None when ``read`` reads the changed log sanely or refuses it naming where; else
    what went wrong."""
    try:
        scores = read(tmp_path, value)
    except InputError as exc:
        message = str(exc)
        sources, places = tokens
        if not any(s in message for s in sources):
            return f"names neither file nor object: {message}"
        if places is not None and exc.param is None and not any(p in message
                                                                for p in places):
            return f"does not name the sample: {message}"
        if "\n" in message:
            return f"more than one line: {message!r}"
        return None
    except Exception as exc:  # noqa: BLE001  (what this test is about)
        return f"{type(exc).__name__}: {exc}"
    try:
        sane(scores)
    except AssertionError:
        return f"read, but not sanely: {scores.ids.tolist()} {scores.systems}"
    return None


def sweep_cases(base, forms):
    for form in forms:
        for path in key_paths(base()):
            if path and not (form in ("eval", "directory") and path == ("samples",)):
                yield pytest.param(form, path, id=f"{form}:{'.'.join(map(str, path))}")


@pytest.mark.parametrize(("form", "path"), list(sweep_cases(inspect_log, INSPECT_FORMS)))
def test_every_inspect_field_given_every_wrong_value(tmp_path, form, path):
    read = INSPECT_FORMS[form]
    problems = {}
    for name, value in BAD.items():
        log = changed(inspect_log(), path, value)
        problem = check(lambda tmp, _, log=log: read(tmp, log), tmp_path, form, path, value,
                        where_tokens(form, path, tmp_path))
        if problem:
            problems[name] = problem
    assert problems == {}


def lm_paths():
    for case in sweep_cases(lm_results, LM_FORMS):
        form, path = case.values
        if form == "directory" and path[:2] == ("samples", "boolq") and len(path) == 2:
            continue  # (a file holds lines: the task's samples are a list there)
        yield case


@pytest.mark.parametrize(("form", "path"), list(lm_paths()))
def test_every_lm_eval_field_given_every_wrong_value(tmp_path, form, path):
    read = LM_FORMS[form]
    problems = {}
    for name, value in BAD.items():
        results = changed(lm_results(), path, value)
        problem = check(lambda tmp, _, r=results: read(tmp, r), tmp_path, form, path, value,
                        where_tokens(form, path, tmp_path))
        if problem:
            problems[name] = problem
    assert problems == {}


def test_the_sweep_starts_from_logs_that_read():
    """(Else every case would be refused for the same reason.)"""
    tmp = None
    for read in (INSPECT_FORMS["object"], INSPECT_FORMS["dict"]):
        s = read(tmp, inspect_log())
        assert s.ids.tolist() == ["1", "2"] and s.systems["openai/m"].tolist() == [0.75, 0.25]
    s = LM_FORMS["dict"](tmp, lm_results())
    assert s.ids.tolist() == ["0", "1", "2"]
    assert s.systems["org/m 0-shot"].tolist() == [1.0, 0.0, 1.0]


def test_the_sweep_covers_every_form_and_enough_cases():
    inspect = list(sweep_cases(inspect_log, INSPECT_FORMS))
    lm = list(lm_paths())
    assert {c.values[0] for c in inspect} == set(INSPECT_FORMS)
    assert {c.values[0] for c in lm} == set(LM_FORMS)
    assert (len(inspect) + len(lm)) * len(BAD) > 1000


# --- the messages, case by case -----------------------------------------------------------


def inspect_changed(*changes):
    """The valid Inspect log with ``(path, value)`` changes."""
    log = inspect_log()
    for path, value in changes:
        log = changed(log, path, value)
    return log


def lm_changed(*changes):
    results = lm_results()
    for path, value in changes:
        results = changed(results, path, value)
    return results


S0 = ("samples", 0)
"""The first sample (id 1, epoch 1) of the Inspect log."""
D0 = ("samples", "boolq", 0)
"""The first doc (line 1) of the lm-eval task."""


def cyclic_metadata():
    log = as_object(inspect_log())
    loop = {}
    loop["self"] = loop
    log.samples[0].metadata = loop
    return log


def score_object(value):
    log = as_object(inspect_log())
    log.samples[0].scores["match"] = Score(value=value)
    return log


INSPECT_CASES = [
    # (id, form, log, options, the message (a regex) or None: read)
    ("config-a-list", "json", inspect_changed((("eval", "config"), [1])), {},
     r"log\.json: 'eval\.config' is a list, not an object"),
    ("config-text-object", "object", inspect_changed((("eval", "config"), "x")), {},
     r"EvalLog of task popularity: 'eval\.config' is a str, not an object"),
    ("reducer-a-number", "json", inspect_changed((("eval", "config", "epochs_reducer"), 5)),
     {}, r"'eval\.config\.epochs_reducer' is 5, not a list of reducer names"),
    ("reducer-nan-object", "object",
     inspect_changed((("eval", "config", "epochs_reducer"), math.nan)), {},
     r"'eval\.config\.epochs_reducer' is nan, not a list"),
    ("reducer-as-text-reads", "json",
     inspect_changed((("eval", "config", "epochs_reducer"), "median")), {}, None),
    ("model-null", "dict", inspect_changed((("eval", "model"), None)), {},
     r"EvalLog dict of task popularity: the log names no model \(eval\.model is null\)"),
    ("model-a-list", "json", inspect_changed((("eval", "model"), ["m"])), {},
     r"names no model \(eval\.model is \['m'\]\)"),
    ("eval-null-object", "object", inspect_changed((("eval",), None)), {},
     r"EvalLog of task None: 'eval' is null, not the log's EvalSpec"),
    ("eval-a-number-object", "object", inspect_changed((("eval",), 3)), {},
     r"'eval' is an int, not the log's EvalSpec"),
    ("samples-text", "json", inspect_changed((("samples",), "x")), {},
     r"log\.json: 'samples' is a str, not a list"),
    ("samples-a-dict-object", "object", inspect_changed((("samples",), {"a": 1})), {},
     r"'samples' is a dict, not a list of samples"),
    ("samples-a-number-object", "object", inspect_changed((("samples",), 7)), {},
     r"'samples' is an int, not a list of samples"),
    ("samples-empty", "json", inspect_changed((("samples",), [])), {},
     r"'samples' is empty: the log holds no samples"),
    ("samples-empty-dict-form", "dict", inspect_changed((("samples",), [])), {},
     r"EvalLog dict .*'samples' is empty"),
    ("sample-null", "object", inspect_changed((S0, None)), {},
     r"samples\[0\]: not an Inspect sample \(no 'id'\)"),
    ("sample-a-list-eval", "eval", inspect_changed((S0, [1])), {},
     r"samples/1_epoch_1\.json: not an Inspect sample"),
    ("id-a-float", "json", inspect_changed(((*S0, "id"), 1.5)), {},
     r"samples\[0\]: sample id 1\.5 is neither a number nor text"),
    ("id-nan", "dict", inspect_changed(((*S0, "id"), math.nan)), {},
     r"samples\[0\]: sample id nan is neither"),
    ("id-5000-digits-object", "object", inspect_changed(((*S0, "id"), 10**5000)), {},
     r"samples\[0\]: sample id an integer of 16,610 bits has over 100 digits"),
    ("epoch-text", "eval", inspect_changed(((*S0, "epoch"), "1")), {},
     r"samples/1_epoch_1\.json: sample 1 has epoch '1', not a number"),
    ("scores-a-list", "json", inspect_changed(((*S0, "scores"), [])), {},
     r"samples\[0\]: sample 1: 'scores' is not an object"),
    ("score-text-not-object", "object", inspect_changed(((*S0, "scores", "match"), "C")),
     {}, r"samples\[0\]: sample 1: score 'match' is not an object with a 'value'"),
    ("value-400-digits", "json", inspect_changed(((*S0, "scores", "match", "value"),
                                                  10**400)), {},
     r"sample 1 \(epoch 1\): the 'match' value is 1000.*too large for a number"),
    ("value-inf", "json", inspect_changed(((*S0, "scores", "match", "value"), math.inf)),
     {}, r"sample 1 \(epoch 1\): the 'match' value is inf, not a finite number"),
    ("value-nan-is-unscored", "json",
     inspect_changed(((*S0, "scores", "match", "value"), math.nan)), {},
     r"sample 1 \(epoch 1\) has no 'match' score"),
    ("value-nan-skipped", "json",
     inspect_changed(((*S0, "scores", "match", "value"), math.nan)), {"missing": "skip"},
     None),
    ("value-a-list", "object", inspect_changed(((*S0, "scores", "match", "value"), [1])),
     {}, r"sample 1 \(epoch 1\): the 'match' value is a list \(\[1\]\), not one number"),
    ("value-a-dict", "json", inspect_changed(((*S0, "scores", "match", "value"),
                                              {"a": 1})), {},
     r"scorer 'match' gives several values per sample \('a'\)"),
    ("value-text", "json", inspect_changed(((*S0, "scores", "match", "value"), "maybe")),
     {}, r"sample 1 \(epoch 1\): the 'match' value is the text 'maybe'"),
    ("value-an-object", "object", score_object(object()), {},
     r"sample 1 \(epoch 1\): the 'match' value is object \(<object object"),
    ("value-numpy-int-reads", "object", score_object(np.int64(1)), {}, None),
    ("metadata-a-list", "json", inspect_changed(((*S0, "metadata"), ["x"])), {},
     r"samples\[0\]: sample 1: 'metadata' is not an object"),
    ("label-a-list", "json", inspect_changed(((*S0, "metadata", "topic"), [1])),
     {"stratum": "topic"}, r"sample 1: metadata 'topic' is list, not a label"),
    ("label-5000-digits-object", "object",
     inspect_changed(((*S0, "metadata", "topic"), 10**5000)), {"stratum": "topic"},
     r"sample 1: metadata 'topic' is an integer of 16,610 bits, not a label"),
    ("label-missing", "dict", inspect_changed(((*S0, "metadata", "topic"), DELETE)),
     {"group": "topic"}, r"sample 1 has no metadata field 'topic', named as the group"),
    ("metadata-holds-itself", "object", cyclic_metadata(), {},
     r"EvalLog of task popularity: samples\[0\]: its fields nest too deeply"),
    ("status-a-dict-reads", "json", inspect_changed((("status",), {"a": 1})), {}, None),
    ("task-a-list-reads", "object", inspect_changed((("eval", "task"), [1])), {}, None),
]


@pytest.mark.parametrize(("form", "log", "options", "message"),
                         [pytest.param(*c[1:], id=c[0]) for c in INSPECT_CASES])
def test_a_malformed_inspect_log(tmp_path, form, log, options, message):
    if form == "object" and not isinstance(log, SimpleNamespace):
        log = as_object(log)
    source = {"json": lambda: write_json(tmp_path, log), "eval": lambda: write_eval(
        tmp_path, log)}.get(form, lambda: log)()
    if message is None:
        sane(harness.read(source, "inspect", **options))
        return
    with pytest.raises(InputError, match=message):
        harness.read(source, "inspect", **options)


def test_a_dict_form_reads_as_its_file(tmp_path):
    """``json.load`` of a JSON log, or ``EvalLog.model_dump()``: an Inspect log, not
    lm-eval's results dict (both have a ``results`` mapping)."""
    log = inspect_log()
    log["results"] = {"scores": []}
    assert harness.object_format(log) == "inspect"
    from_file, in_memory = harness.read(write_json(tmp_path, log)), harness.read(log)
    assert in_memory.ids.tolist() == from_file.ids.tolist()
    assert in_memory.systems["openai/m"].tolist() == from_file.systems["openai/m"].tolist()


def span_results(reported):
    """A span-F1 task (its per-doc [gold, predictions] field) whose reported F1s are
    ``reported`` (the results' ``results`` object)."""
    results = lm_results()
    for row in results["samples"]["boolq"]:
        del row["acc"]
        row["metrics"], row["f1"] = ["f1"], ["PER: Ochieng", "PER: Ochieng"]
    results["configs"]["boolq"]["metric_list"] = [{"metric": "f1", "aggregation": "def f"}]
    results["results"] = reported
    return results


LM_CASES = [
    # (id, form, results, options, the message (a regex) or None: read)
    ("samples-a-list", "dict", lm_changed((("samples",), [1])), {},
     r"lm-eval results: 'samples' is \[1\], not an object of tasks' samples"),
    ("samples-text", "dict", lm_changed((("samples",), "x")), {},
     r"lm-eval results: 'samples' is 'x', not an object"),
    ("task-named-by-a-number", "dict", lm_changed((("samples", 1), []),
                                                  (("samples", "boolq"), DELETE)), {},
     r"lm-eval results: 'samples' has a task named 1, not text"),
    ("task-samples-null", "dict", lm_changed((("samples", "boolq"), None)), {},
     r"lm-eval results: samples\['boolq'\] is None, not a list of samples"),
    ("task-samples-a-number", "dict", lm_changed((("samples", "boolq"), 3)), {},
     r"samples\['boolq'\] is 3, not a list of samples"),
    ("task-samples-empty", "dict", lm_changed((("samples", "boolq"), [])), {},
     r"samples\['boolq'\]: no samples"),
    ("doc-null", "directory", lm_changed((D0, None)), {},
     r"samples_boolq_.*\.jsonl: line 1: expected a JSON object, got NoneType"),
    ("doc-id-null", "dict", lm_changed(((*D0, "doc_id"), None)), {},
     r"samples\['boolq'\]: line 1: doc_id None is not a document's number"),
    ("doc-id-a-float", "directory", lm_changed(((*D0, "doc_id"), 1.5)), {},
     r"\.jsonl: line 1: doc_id 1\.5 is not a document's number"),
    ("doc-id-a-bool", "dict", lm_changed(((*D0, "doc_id"), True)), {},
     r"line 1: doc_id True is not a document's number"),
    ("doc-id-a-list", "directory", lm_changed(((*D0, "doc_id"), [0])), {},
     r"line 1: doc_id \[0\] is not a document's number"),
    ("doc-id-5000-digits", "dict", lm_changed(((*D0, "doc_id"), 10**5000)), {},
     r"line 1: doc_id an integer of 16,610 bits is not a document's number"),
    ("doc-id-text-reads", "dict", lm_changed(((*D0, "doc_id"), "q-7")), {}, None),
    ("doc-id-missing", "directory", lm_changed(((*D0, "doc_id"), DELETE)), {},
     r"line 1: no doc_id"),
    ("filter-a-list", "directory", lm_changed(((*D0, "filter"), ["none"])), {},
     r"\.jsonl: line 1: filter \['none'\] is not a filter's name"),
    ("filter-a-dict", "dict", lm_changed(((*D0, "filter"), {})), {},
     r"line 1: filter \{\} is not a filter's name"),
    ("metrics-nested", "directory", lm_changed(((*D0, "metrics"), [["acc"]])), {},
     r"line 1: 'metrics' is \[\['acc'\]\], not a list of metric names"),
    ("metrics-text", "dict", lm_changed(((*D0, "metrics"), "acc")), {},
     r"line 1: 'metrics' is 'acc', not a list of metric names"),
    ("metrics-a-number", "dict", lm_changed(((*D0, "metrics", 0), 1)), {},
     r"line 1: 'metrics' is \[1\], not a list of metric names"),
    ("acc-400-digits", "directory", lm_changed(((*D0, "acc"), 10**400)), {},
     r"\.jsonl: line 1: acc is 1000.*, not a finite number"),
    ("acc-nan", "dict", lm_changed(((*D0, "acc"), math.nan)), {},
     r"samples\['boolq'\]: line 1: acc is nan, not a finite number"),
    ("acc-minus-inf", "directory", lm_changed(((*D0, "acc"), -math.inf)), {},
     r"line 1: acc is -inf, not a finite number"),
    ("acc-null-first", "dict", lm_changed(((*D0, "acc"), None)), {},
     r"samples\['boolq'\]: line 1: metric 'acc' is null"),
    ("acc-missing-first", "directory", lm_changed(((*D0, "acc"), DELETE)), {},
     r"\.jsonl: line 1: metric 'acc' is missing"),
    ("acc-null-later", "dict", lm_changed((("samples", "boolq", 1, "acc"), None)), {},
     r"line 2: acc is null"),
    ("acc-null-named", "dict", lm_changed(((*D0, "acc"), None)), {"score": "acc"},
     r"line 1: acc is null"),
    ("acc-numpy-reads", "dict", lm_changed(((*D0, "acc"), np.int64(1))), {}, None),
    ("configs-a-list", "directory", lm_changed((("configs",), [])), {},
     r"results_.*\.json: 'configs' is \[\], not an object"),
    ("configs-text", "dict", lm_changed((("configs",), "x")), {},
     r"lm-eval results \(in memory\): 'configs' is 'x', not an object"),
    ("task-config-a-number", "directory", lm_changed((("configs", "boolq"), 5)), {},
     r"results_.*\.json: 'configs' of task boolq is 5, not an object"),
    ("n-shot-a-list", "dict", lm_changed((("n-shot",), [0])), {},
     r"'n-shot' is \[0\], not an object"),
    ("n-shot-of-task-a-list-reads", "directory", lm_changed((("n-shot", "boolq"), [0])),
     {}, None),
    ("n-samples-text", "directory", lm_changed((("n-samples",), "x")), {},
     r"results_.*\.json: 'n-samples' is 'x', not an object"),
    ("effective-a-bool-reads", "dict", lm_changed((("n-samples", "boolq", "effective"),
                                                   True)), {}, None),
    ("results-a-list", "directory", span_results([]), {"counts": "span-f1"},
     r"results_.*\.json: 'results' is \[\], not an object"),
    ("reported-f1-nan-is-none", "dict", span_results({"boolq": {"f1,none": math.nan}}),
     {"counts": "span-f1"}, None),
    ("reported-f1-400-digits-is-none", "directory",
     span_results({"boolq": {"f1,none": 10**400}}), {"counts": "span-f1"}, None),
    ("model-args-a-number-reads", "dict", lm_changed((("config", "model_args"), 5)), {},
     None),
    ("tasks-a-number", "dict", lm_results(), {"tasks": 5},
     r"`tasks` must be a task's name or a list of names, got 5"),
    ("tasks-of-numbers", "directory", lm_results(), {"tasks": [1]},
     r"`tasks` must be a task's name or a list of names, got \[1\]"),
    ("score-a-list", "dict", lm_results(), {"score": ["acc"]},
     r"`score` must be a non-empty name, got \['acc'\]"),
    ("filter-a-number", "directory", lm_results(), {"filter": 1},
     r"`filter` must be a non-empty name, got 1"),
]


@pytest.mark.parametrize(("form", "results", "options", "message"),
                         [pytest.param(*c[1:], id=c[0]) for c in LM_CASES])
def test_a_malformed_lm_eval_run(tmp_path, form, results, options, message):
    source = write_lm_dir(tmp_path, results) if form == "directory" else results
    if message is None:
        sane(harness.read(source, "lm-eval", **options))
        return
    with pytest.raises(InputError, match=message):
        harness.read(source, "lm-eval", **options)


def test_a_results_file_that_is_not_an_object_is_noted(tmp_path):
    folder = write_lm_dir(tmp_path, lm_results())
    (folder / "org__m" / f"results_{T1}.json").write_text("[1, 2]")
    s = harness.read(folder)
    assert list(s.systems) == ["org__m"]
    assert any("not a results object; the run is unnamed" in n for n in s.notes)


# --- what is neither log nor table, and the other readers' JSON ---------------------------


@pytest.mark.parametrize(("obj", "format", "message"), [
    (None, None, r"a NoneType is neither a table .* nor a log in memory"),
    (5, None, r"an int is neither a table"),
    ([{"id": 1}], None, r"a list is neither a table"),
    (SimpleNamespace(eval=None), None, r"a SimpleNamespace is neither a table"),
    (5, "inspect", r"an int is not an Inspect EvalLog \(attributes `eval` and `samples`\)"),
    (None, "lm-eval", r"a NoneType is not the dict lm-eval's simple_evaluate returns"),
    ({"id": "abc", "score": [1, 0, 1]}, None, r"<mapping>: column 'id' is 'abc', not a list"),
    ({"id": [1, 2], "score": None}, None, r"<mapping>: column 'score' is None, not a list"),
    ({"results": [1], "samples": [1]}, None, r"<mapping>: the columns differ|no column"),
])
def test_neither_a_log_nor_a_table(obj, format, message):
    with pytest.raises(InputError, match=message):
        harness.read(obj, format)


def comet_compare(score):
    return {"model": "Unbabel/wmt22-comet-da", "statistical_results": {},
            "translations": [{"name": "a.txt", "mt": ["x", "y"], "scores": [0.5, score]},
                             {"name": "b.txt", "mt": ["x", "y"], "scores": [0.4, 0.6]}]}


@pytest.mark.parametrize(("data", "message"), [
    (comet_compare(10**400), r"translations\[0\]\.scores\[1\]: score 1000.* is not a finite"),
    (comet_compare(math.nan), r"translations\[0\]\.scores\[1\]: score nan is not a finite"),
    (comet_compare(True), r"translations\[0\]\.scores\[1\]: score True is not a finite"),
    (comet_compare([1]), r"translations\[0\]\.scores\[1\]: score \[1\] is not a number"),
    ({**comet_compare(0.5), "translations": [[1]]}, r"translations\[0\] has no \"name\""),
    ({**comet_compare(0.5), "translations": {}}, r"without a list of \"translations\""),
    ({"a.txt": [{"COMET": 10**400}]}, r"'a\.txt'\[0\]: score 1000.* is not a finite"),
    ({"a.txt": [{"COMET": None}]}, r"'a\.txt'\[0\]: score None is not a number"),
    ({"a.txt": {"COMET": 1}}, r"'a\.txt' is not a list of segments"),
])
def test_a_malformed_comet_json(tmp_path, data, message):
    path = tmp_path / "comet.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=re.escape(str(path)) + ".*" + message):
        harness.read(path, "comet")


@pytest.mark.parametrize(("record", "message"), [
    ({"query_id": "1", "measure": "P@5", "value": [1]}, r"line 2: measure 'P@5', query '1'"),
    ({"query_id": "1", "measure": "P@5", "value": 10**400}, r"line 2: measure 'P@5'"),
    ({"query_id": "1", "measure": "P@5", "value": None}, r"line 2: measure 'P@5'"),
    ({"query_id": "1", "value": 0.5}, r"line 2: expected an ir_measures record"),
    ([1], r"line 2: expected an ir_measures record"),
])
def test_a_malformed_ir_measures_line(tmp_path, record, message):
    path = tmp_path / "run.jsonl"
    good = {"query_id": "0", "measure": "P@5", "value": 0.5}
    path.write_text(json.dumps(good) + "\n" + json.dumps(record) + "\n")
    with pytest.raises(InputError, match=re.escape(str(path)) + ": " + message):
        harness.read(path, "trec")


def test_on_the_command_line_a_malformed_log_is_exit_2(tmp_path):
    """(It was a traceback, exit 3: ``'list' object has no attribute 'get'``.)"""
    good = write_json(tmp_path, inspect_log()).rename(tmp_path / "good.json")
    bad = write_json(tmp_path, inspect_changed((("eval", "config"), [1])))
    proc = run_in_process("compare", good, bad, "--from", "inspect", "--no-progress")
    assert_one_line_error(proc, str(bad), "'eval.config' is a list, not an object")
    other = write_lm_dir(tmp_path / "base", lm_results())
    folder = write_lm_dir(tmp_path / "new", lm_changed(((*D0, "filter"), ["none"])))
    proc = run_in_process("compare", other, folder, "--from", "lm-eval", "--no-progress")
    assert_one_line_error(proc, "line 1: filter ['none'] is not a filter's name")
