"""Every writer's output for a fixed set of results: the cases of
``tests/report/golden/writers.json`` (test_writers_golden.py checks them).

Each case is a result (two systems, a family, a planned comparison, a test) made with a
fixed seed and few resamples, and the context a report of it is written with; every
output of it is recorded: each ``--format`` of its report, and what the result writes
itself (``str``, ``summary()``, ``reading``, ``repr``, ``_repr_html_``, ``to_html()``).

Re-record only deliberately (a change of a report that is meant), and read what
changed (``--dump`` writes every recorded output to a folder, one file each)::

    PYTHONPATH=src python tests/report/writer_cases.py --dump /tmp/before
    PYTHONPATH=src python tests/report/writer_cases.py
    PYTHONPATH=src python tests/report/writer_cases.py --dump /tmp/after
    diff -r /tmp/before /tmp/after

The file is gzipped JSON (the texts repeat one another: a fraction of their size).

The HTML outputs hold matplotlib's SVG, whose bytes vary with matplotlib's version: each
``<svg ...>...</svg>`` is recorded as ``<svg/>`` (the test checks that every figure is
there, and the page around it byte for byte).  The versions of pairboot and numpy in
the signatures, and the simulation's wall time, are written as placeholders.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import json
import re
import sys
import warnings
from pathlib import Path

import numpy as np

GOLDEN = Path(__file__).parent / "golden" / "writers.json.gz"

R = 400
SVG = re.compile(r"<svg\b.*?</svg>", re.S)
VERSION = re.compile(r"pairboot \d[^\s|\"<]*")
NUMPY = re.compile(r"numpy \d[^\s|\"<]*")
JSON_VERSION = re.compile(r'"version": "[^"]*"')
STYLE = re.compile(r"<style>(.*?)</style>", re.S)


def normalise(text: str, styles: dict[str, str]) -> str:
    """``text`` with its SVG figures and the versions as placeholders, and each
    stylesheet as its digest (its text kept once in ``styles``)."""
    text = SVG.sub("<svg/>", text)
    text = VERSION.sub("pairboot VERSION", text)
    text = NUMPY.sub("numpy VERSION", text)
    text = JSON_VERSION.sub('"version": "VERSION"', text)

    def style(match: re.Match) -> str:
        key = hashlib.sha256(match.group(1).encode()).hexdigest()[:16]
        styles[key] = match.group(1)
        return f"<style>{key}</style>"

    return STYLE.sub(style, text)


def _data():
    rng = np.random.default_rng(20240611)
    n = 96
    a = rng.random(n)
    b = np.clip(a + rng.normal(0.04, 0.12, n), 0, 1)
    bin_a = (rng.random(n) < 0.6).astype(float)
    bin_b = np.where(rng.random(n) < 0.25, 1 - bin_a, bin_a)
    strata = np.repeat(["easy", "hard", "mid"], n // 3)
    groups = np.repeat([f"doc{k:02d}" for k in range(n // 4)], 4)
    runs_a = a[:, None] + rng.normal(0, 0.05, (n, 3))
    runs_b = b[:, None] + rng.normal(0, 0.05, (n, 3))
    tp = rng.integers(0, 6, n)
    fp_a, fn_a = rng.integers(0, 3, n), rng.integers(0, 3, n)
    fp_b, fn_b = rng.integers(0, 2, n), rng.integers(0, 3, n)
    f1_a = np.column_stack([tp, fp_a, fn_a]).astype(float)
    f1_b = np.column_stack([tp + rng.integers(0, 2, n), fp_b, fn_b]).astype(float)
    scores = {f"sys-{k}": np.clip(a + rng.normal(0.02 * k, 0.1, n), 0, 1) for k in range(4)}
    many = {f"m{k}": a + rng.normal(0.01 * k, 0.1, n) for k in range(7)}
    return dict(a=a, b=b, bin_a=bin_a, bin_b=bin_b, strata=strata, groups=groups,
                runs_a=runs_a, runs_b=runs_b, f1_a=f1_a, f1_b=f1_b, scores=scores,
                many=many, ids=np.array([f"q{k}" for k in range(n)]))


def _reword(text: str) -> str:
    return text.replace("`n_resamples`", "--resamples")


def cases():
    """``(name, kind, result, context)`` for every case, kind one of ``compare``,
    ``family``, ``power``, ``test``."""
    import pairboot
    from pairboot.io.common import CommonItems
    from pairboot.report import UNPLANNED, FamilyContext, ReportContext

    d = _data()
    a, b, strata, groups = d["a"], d["b"], d["strata"], d["groups"]
    common = dict(n_resamples=R, seed=7, backend="numpy")
    named = ReportContext(name_a="base.jsonl", name_b="new|<b>model</b>", files=(
        "base.jsonl", "new.jsonl"), layout="joined on column 'id'", id="id",
        notes=("scores read from two files",))
    out = []

    def two(name, context=None, **kw):
        args = {**common, **kw}
        x, y = args.pop("x", a), args.pop("y", b)
        out.append((name, "compare", pairboot.compare(x, y, **args), context))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        two("plain")
        two("plain named", named)
        two("strata", ReportContext(stratum="task"), strata=strata)
        two("groups", ReportContext(group="doc"), groups=groups)
        two("groups weighted", ReportContext(group="doc", stratum="task"), groups=groups,
            strata=strata, group_weighting="groups")
        two("non-inferiority", ReportContext(fail_if="inferior"),
            hypothesis="non-inferiority", margin=0.05)
        two("equivalence", ReportContext(fail_if="not-equivalent"),
            hypothesis="equivalence", margin=0.1)
        two("superiority", None, hypothesis="superiority", margin=0.01)
        two("one-sided", ReportContext(fail_if="not-better"), alternative="greater")
        two("lower is better", ReportContext(lower_is_better=True, fail_if="worse"),
            lower_is_better=True)
        two("bca", None, method="bca")
        two("studentized", None, method="studentized")
        two("unpaired", None, paired=False)
        two("runs seeds", None, x=d["runs_a"], y=d["runs_b"], runs="seeds")
        two("runs samples", None, x=d["runs_a"], y=d["runs_b"], runs="samples")
        two("runs strata", ReportContext(stratum="task"), x=d["runs_a"], y=d["runs_b"],
            runs="seeds", strata=strata)
        two("mcnemar", None, x=d["bin_a"], y=d["bin_b"], test="mcnemar")
        two("permutation", None, test="permutation")
        two("score", None, x=d["bin_a"], y=d["bin_b"], method="score")
        two("score groups", ReportContext(group="doc"), x=d["bin_a"], y=d["bin_b"],
            method="score", groups=groups)
        two("f1", ReportContext(stats=("tp", "fp", "fn")), x=d["f1_a"], y=d["f1_b"],
            metric="f1")
        two("items ids strata groups", ReportContext(group="doc", stratum="task"),
            ids=d["ids"], strata=strata, groups=groups, top_items=3)
        two("small", None, x=a[:6], y=b[:6])
        two("kept and reworded", ReportContext(
            items_kept=CommonItems(kept=90, total=120, sources=("a.csv", "b.csv"),
                                   sizes=(120, 90)), common_items=True, reword=_reword,
            metric_source="m.py:acc", stratum_weights="easy=1,hard=2,mid=1",
            labels="labels.csv", fail_if="different"), strata=strata)
        hostile = "q1\x1b[2J\n::error::x \u202e|[a](b)<i>&$_%"
        two("hostile names", ReportContext(name_a=hostile, name_b=hostile + "B",
                                           stratum=hostile, notes=(hostile,)),
            ids=np.array([hostile + str(k) for k in range(len(a))]),
            strata=np.array([hostile + s for s in strata]))

        def family(name, context=None, scores=None, **kw):
            args = {**common, **kw}
            out.append((name, "family",
                        pairboot.compare_many(d["scores"] if scores is None else scores,
                                              **args), context))

        plan = FamilyContext(plan_sha256="ab" * 32, files=("a.csv", "b.csv"),
                             layout="joined on column 'id'", notes=("a note",), id="id")
        family("all pairs max-t", plan)
        family("all pairs unplanned", FamilyContext(family_note=UNPLANNED))
        family("baseline holm", None, baseline="sys-0", correction="holm")
        family("baseline bonferroni", None, baseline="sys-0", correction="bonferroni")
        family("baseline none", None, baseline="sys-0", correction="none")
        family("baseline bh", None, baseline="sys-0", correction="bh")
        family("all pairs by", None, correction="by")
        family("margins", None, baseline="sys-0", hypothesis="non-inferiority",
               margin=0.03)
        family("equivalence", None, baseline="sys-0", hypothesis="equivalence",
               margin=0.05)
        family("lower is better", None, lower_is_better=True)
        family("one-sided", None, baseline="sys-0", alternative="greater")
        family("strata groups", FamilyContext(group="doc", stratum="task"), strata=strata,
               groups=groups)
        family("permutation", None, baseline="sys-0", test="permutation")
        family("permutation all pairs", None, test="permutation")
        family("seven systems", None, scores=d["many"])
        family("runs", None, scores={k: v[:, None] + np.random.default_rng(3).normal(
            0, 0.05, (len(v), 3)) for k, v in list(d["scores"].items())[:3]}, runs="seeds")
        out.append(("strata family", "family", pairboot.compare_strata(
            a, b, strata=strata, names=("base", "new"), **common),
            FamilyContext(stratum="task")))
        out.append(("strata family margin", "family", pairboot.compare_strata(
            a, b, strata=strata, hypothesis="non-inferiority", margin=0.05, **common),
            None))

        def plan_of(name, *args, **kw):
            res = pairboot.power(*args, **kw)
            if res.simulation is not None:  # (its wall time: a placeholder)
                res = dataclasses.replace(
                    res, simulation=dataclasses.replace(res.simulation, seconds=1.25))
            out.append((name, "power", res, None))

        plan_of("power sd", sd=0.5, delta=0.1, power=0.8)
        plan_of("power accuracies", accuracy_a=0.7, accuracy_b=0.75, discordant=0.2,
                n_items=500)
        plan_of("power smallest", sd=0.5, n_items=400, power=0.8)
        plan_of("power groups", sd=0.5, delta=0.1, power=0.8, group_size=5, icc=0.1)
        plan_of("power non-inferiority", sd=0.5, delta=0.0, power=0.8,
                hypothesis="non-inferiority", margin=0.1)
        plan_of("power pilot", a, b, delta=0.05, power=0.8)
        plan_of("power pilot strata", a, b, delta=0.05, power=0.8, strata=strata)
        plan_of("power pilot family", scores=d["scores"], baseline="sys-0", delta=0.05,
                power=0.8)
        plan_of("power simulated", d["bin_a"], d["bin_b"], delta=0.05, power=0.8,
                simulate=True, n_simulations=20, seed=3)
        out.append(("test mcnemar", "test", pairboot.compare(
            d["bin_a"], d["bin_b"], test="mcnemar", **common).test, None))
        out.append(("test permutation", "test", pairboot.compare(
            a, b, test="permutation", **common).test, None))
        out += _judged()
    return out


def _judged() -> list:
    """The cases of a judge and gold labels (prediction-powered comparisons, a family of
    them, the gold labels to plan, two raters' agreement) and of confidence sequences,
    on data of their own (the cases above keep theirs)."""
    import pairboot
    from pairboot.report import AgreementContext, PPIContext

    rng = np.random.default_rng(20261206)
    n = 120
    quality = rng.normal(0.5, 0.2, (n, 2)) + [0.0, 0.05]
    judge = quality + [0.1, 0.0] + rng.normal(0, 0.05, (n, 2))  # (A's flattered)
    gold = np.where(rng.random(n)[:, None] < 0.3, quality, np.nan)
    ppi = dict(gold_a=gold[:, 0], gold_b=gold[:, 1])
    docs = np.repeat(np.arange(n // 4), 4)
    hostile = "q1\x1b[2J\n::error::x \u202e|[a](b)<i>&$_%"
    out = [
        ("ppi percentile named", "ppi", pairboot.compare_ppi(
            judge[:, 0], judge[:, 1], **ppi, n_resamples=R, seed=1),
         PPIContext(name_a="base_1", name_b="new|<b>x</b>", files=("judged.csv",),
                    columns=("ja", "jb", "ga", "gb"))),
        ("ppi clt groups one-sided", "ppi", pairboot.compare_ppi(
            judge[:, 0], judge[:, 1], **ppi, groups=docs, method="clt",
            alternative="greater"), None),
        ("ppi non-inferiority strata", "ppi", pairboot.compare_ppi(
            judge[:, 0], judge[:, 1], **ppi, strata=np.repeat(["x", "y"], n // 2),
            hypothesis="non-inferiority", margin=0.05, method="basic", n_resamples=R,
            seed=2), PPIContext(name_a=hostile, name_b=hostile + "B")),
    ]
    tp = rng.integers(0, 4, (n, 2)).astype(float)
    counts = [np.column_stack([tp[:, k], rng.integers(0, 2, n), rng.integers(0, 2, n)])
              .astype(float) for k in (0, 1)]
    labelled = rng.random(n) < 0.4
    out.append(("ppi f1", "ppi", pairboot.compare_ppi(
        counts[0], counts[1], gold_a=np.where(labelled[:, None], counts[0], np.nan),
        gold_b=np.where(labelled[:, None], counts[1], np.nan), metric="f1",
        n_resamples=R, seed=3), None))
    calls = judge[:, None, :] + rng.normal(0, 0.05, (n, 3, 2))
    calls[::5, 2, :] = np.nan  # (an item with two calls here and there)
    out.append(("ppi judge calls", "ppi", pairboot.compare_ppi(
        calls[:, :, 0], calls[:, :, 1], **ppi, runs="samples", method="clt"), None))
    judges = {"base": judge[:, 0], "new": judge[:, 1], "third|x": judge[:, 1] + 0.02}
    golds = {"base": gold[:, 0], "new": gold[:, 1], "third|x": gold[:, 1]}
    out.append(("ppi family max-t", "ppi family", pairboot.compare_ppi_many(
        judges, golds, n_resamples=R, seed=1), None))
    out.append(("ppi family bonferroni clt baseline", "ppi family",
                pairboot.compare_ppi_many(judges, golds, baseline="base",
                                          correction="bonferroni", method="clt",
                                          groups=docs), None))
    out.append(("labels half-width", "labels", pairboot.gold_labels(
        sd=1.0, correlation=0.7, n_items=5000, half_width=0.1), None))
    out.append(("labels delta one-sided pilot", "labels", pairboot.gold_labels(
        judge[:, 0], judge[:, 1], **ppi, delta=0.05, power=0.9, alternative="greater"),
        None))
    out.append(("labels out of reach", "labels", pairboot.gold_labels(
        sd=1.0, correlation=0.3, n_items=100, half_width=0.01), None))
    first = rng.integers(1, 6, n)
    second = np.clip(first + rng.integers(-1, 2, n), 1, 5)
    out.append(("agreement default named", "agreement", pairboot.agreement(
        first, second, n_resamples=R, seed=1),
        AgreementContext(name_a="judge&co", name_b="people", files=("r.csv",))))
    verdict = (rng.random(80) < 0.7) * 1
    people = np.where(rng.random(80) < 0.85, verdict, 1 - verdict)
    out.append(("agreement verdicts groups", "agreement", pairboot.agreement(
        verdict, people, statistics=("accuracy", "sensitivity", "specificity", "kappa"),
        groups=np.repeat(np.arange(20), 4), method="normal", n_resamples=R, seed=3),
        None))
    u = rng.random(600)
    d = np.where(u < 0.06, -1.0, np.where(u < 0.2, 1.0, 0.0))
    x = np.where(d == 0, rng.random(600) < 0.6, d < 0).astype(float)
    y = x + d
    z = rng.normal(0.0, 1.0, 200)
    out += [
        ("sequential betting", "sequential", pairboot.sequential(
            bounds=(0, 1), grid_size=200).update(x, y), None),
        ("sequential budget", "sequential", pairboot.sequential(
            bounds=(0, 1), budget=40, grid_size=200).update(x, y), None),
        ("sequential asymptotic non-inferiority", "sequential", pairboot.sequential(
            hypothesis="non-inferiority", margin=0.1, alternative="greater",
            lower_is_better=True).update(z, z + rng.normal(0.02, 0.5, 200)), None),
        ("sequential f1 groups", "sequential", pairboot.sequential(metric="f1").update(
            np.column_stack([x, 1 - x, 1 - x]), np.column_stack([y, 1 - y, 1 - y]),
            groups=np.repeat(np.arange(300), 2)), None),
    ]
    return out


FORMATS = {
    "compare": ("text", "json", "markdown", "latex", "github", "html"),
    "family": ("text", "json", "markdown", "latex", "github", "html"),
    "power": ("text", "markdown", "json", "html"),
    "test": (),
    "ppi": ("text", "json", "markdown", "latex", "github", "html"),
    "ppi family": ("text", "json", "markdown", "latex", "github", "html"),
    "agreement": ("text", "json", "markdown", "latex", "github", "html"),
    "labels": ("text", "json", "markdown"),
    "sequential": ("text", "json", "markdown", "latex", "github"),
}
JUDGED = ("ppi", "ppi family", "agreement", "labels", "sequential")
"""The kinds rendered by their type's own writers (:func:`pairboot.report.render`)."""
HTML = ("html", "html fragment", "to_html", "_repr_html_")
"""The outputs that draw (matplotlib's SVG)."""


def outputs(kind: str, result, context, styles: dict[str, str], *,
            html: bool | None = None, raw: dict[str, str] | None = None) -> dict[str, str]:
    """Every output of one case (:func:`normalise`, its stylesheets into ``styles``);
    ``html``: only the drawing ones (True), only the others (False), or all (None);
    ``raw``: filled with the outputs as written, before :func:`normalise`."""
    from pairboot import report
    from pairboot.report import html as page
    from pairboot.report import html_family

    render = {"compare": report.render, "family": report.render_family,
              "power": report.render_power}.get(kind, report.render)
    shown = {}
    for fmt in FORMATS[kind]:
        shown[fmt] = lambda fmt=fmt: render(result, fmt, context)
    if kind == "compare":
        ctx = context or report.ReportContext()
        names = dict(name_a=ctx.name_a, name_b=ctx.name_b, lower_is_better=ctx.lower_is_better)
        shown["html fragment"] = lambda: page.fragment_compare(result, context)
        shown["summary"] = lambda: result.summary(**names)
        shown["reading"] = lambda: result.reading
        shown["to_html"] = lambda: result.to_html(**names)
    elif kind == "family":
        shown["html fragment"] = lambda: html_family.fragment_family(result, context)
        shown["summary"] = lambda: result.summary()
        shown["to_html"] = lambda: result.to_html()
    elif kind in JUDGED:
        _judged_outputs(shown, kind, result, context)
    else:
        shown["summary"] = lambda: result.summary() if kind == "power" else str(result)
        shown["to_html"] = lambda: result.to_html()
    shown["str"] = lambda: str(result)
    shown["repr"] = lambda: repr(result)
    if hasattr(result, "_repr_html_"):
        shown["_repr_html_"] = lambda: result._repr_html_()
    texts = {name: write() for name, write in shown.items()
             if html is None or (name in HTML) == html}
    if raw is not None:
        raw.update(texts)
    return {name: normalise(text, styles) for name, text in texts.items()}


def _judged_outputs(shown: dict, kind: str, result, context) -> None:
    """What a result of the judge's kinds writes itself, beside its formats: the HTML
    fragment, ``summary()`` and ``to_html()`` where it has them (with the context's
    names where it takes them)."""
    from pairboot import report

    if "html" in FORMATS[kind]:
        shown["html fragment"] = lambda: report.render(result, "html-fragment", context)
    if kind == "ppi":
        names = {} if context is None else dict(name_a=context.name_a,
                                                name_b=context.name_b)
        shown["summary"] = lambda: result.summary(**names)
        shown["to_html"] = lambda: result.to_html(**names)
    elif kind == "ppi family":
        shown["summary"] = lambda: result.summary()
        shown["to_html"] = lambda: result.to_html()
    elif kind == "agreement":
        shown["to_html"] = lambda: result.to_html()


def stored(written: dict[str, str]) -> dict:
    """One case's outputs as recorded: an output equal to one before it as
    ``{"same as": name}``."""
    out: dict = {}
    for name, text in written.items():
        first = next((k for k, v in written.items() if v == text), name)
        out[name] = text if first == name else {"same as": first}
    return out


def expand(recorded: dict) -> dict[str, str]:
    """:func:`stored`'s outputs as texts."""
    return {name: recorded[value["same as"]] if isinstance(value, dict) else value
            for name, value in recorded.items()}


def record() -> dict:
    import pairboot

    print(f"pairboot {pairboot.__version__} from {pairboot.__file__}", file=sys.stderr)
    styles: dict[str, str] = {}
    golden = {name: {"kind": kind, "outputs": stored(outputs(kind, result, context, styles))}
              for name, kind, result, context in cases()}
    return {"styles": styles, "cases": golden}


def load() -> dict:
    """The recorded file."""
    return json.loads(gzip.decompress(GOLDEN.read_bytes()).decode("utf-8"))


def dump(golden: dict, folder: Path) -> None:
    """Every recorded output as a file of ``folder`` (``case--output.txt``), to read."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, case in golden["cases"].items():
        for output, text in expand(case["outputs"]).items():
            slug = re.sub(r"[^A-Za-z0-9]+", "-", f"{name}--{output}").strip("-")
            (folder / f"{slug}.txt").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--dump"]:  # (read the recorded outputs: --dump FOLDER)
        dump(load(), Path(sys.argv[2]))
        sys.exit(0)
    golden = record()
    data = json.dumps(golden, indent=1, ensure_ascii=True) + "\n"
    GOLDEN.write_bytes(gzip.compress(data.encode("utf-8"), 9, mtime=0))
    print(f"{GOLDEN}: {len(golden['cases'])} cases", file=sys.stderr)
