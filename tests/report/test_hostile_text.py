"""Text from a hostile data file, through every format and every kind of result: no raw
control character, bidi control or line separator reaches the output, and no line
begins with a workflow command (``::`` or ``##[``) that came from the data
(:mod:`pairboot.report.escape`); JSON stays exact."""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pytest
from helpers import run_in_process

import pairboot
from pairboot import report
from pairboot.report.escape import md, tex, visible

H = ("x\x1b[2J\x1b[31mFAKE VERDICT\n::error::injected\r\n##[error]legacy\u202eevil"
     "\u2066iso\u2028sep\x85nel\x7fdel\x00nul\t")
"""One hostile label: an escape sequence that clears the screen and paints a verdict,
line breaks before workflow commands (new and legacy syntax), a bidi override and
isolate, a line separator, a C1 control, DEL, NUL and a tab."""

RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
                 "\u2028\u2029]")
"""What must never appear raw (a line break only as the report's own)."""


def assert_safe(text: str, *, commands: tuple[str, ...] = ()) -> None:
    """No raw control character; no line that a runner would read as a workflow command
    (after leading whitespace, as the runner trims it), but the report's own
    ``commands``."""
    found = RAW.search(text)
    if found is not None:
        around = text[max(0, found.start() - 80):found.end() + 20]
        raise AssertionError(f"raw {found.group()!r} in {around!r}")
    for line in text.split("\n"):
        if line.startswith(commands) and commands:
            continue
        assert not line.lstrip().startswith(("::", "##[")), line


N = 60


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(33)
    a = rng.random(N)
    b = a + rng.normal(0.05, 0.1, N)
    return {"a": a, "b": b, "ids": [f"{H}{i}" for i in range(N)],
            "strata": [f"{H}s{i % 3}" for i in range(N)],
            "groups": [f"{H}g{i % 12}" for i in range(N)]}


def _context():
    return report.ReportContext(name_a=H + "A", name_b=H + "B", files=(H + ".csv",),
                                layout=H, group=H, stratum=H, notes=(H,), id=H, labels=H,
                                metric_source=H + ".py:m", stratum_weights=H,
                                stats=(H,), fail_if="worse")


def _kinds(data):
    """Every kind of result a report is written for, each labelled with ``H``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b, ids, strata, groups = (data[k] for k in ("a", "b", "ids", "strata", "groups"))
        zero_one = ((a > 0.5).astype(float), (b > 0.45).astype(float))
        runs_a = np.column_stack([a, a + 0.01, a - 0.02])
        two = {
            "two systems, strata and groups, top items": pairboot.compare(
                a, b, ids=ids, strata=strata, groups=groups, n_resamples=200, seed=1),
            "two systems, items": pairboot.compare(a, b, ids=ids, strata=strata,
                                                   n_resamples=200, seed=1),
            "mcnemar": pairboot.compare(*zero_one, ids=ids, test="mcnemar",
                                        n_resamples=200, seed=1),
            "runs": pairboot.compare(runs_a, runs_a + 0.05, runs="seeds", strata=strata,
                                     n_resamples=200, seed=1),
        }
        family = {
            "family": pairboot.compare_many({H + "a": a, H + "b": b, H + "c": 0.9 * a},
                                            strata=strata, n_resamples=200, seed=1),
            "family with a baseline": pairboot.compare_many(
                {H + "a": a, H + "b": b, H + "c": 0.9 * a}, baseline=H + "a",
                n_resamples=200, seed=1),
            "strata as a family": pairboot.compare_strata(
                a, b, strata=strata, names=(H + "A", H + "B"), n_resamples=200, seed=1),
        }
        power = {
            "power, a family's pilot": pairboot.power(
                scores={H + "a": a, H + "b": b, H + "c": 0.7 * a + 0.1}, baseline=H + "a",
                delta=0.05, power=0.8, strata=strata),
            "power, a pilot": pairboot.power(a, b, delta=0.05, power=0.8, strata=strata),
        }
    return two, family, power


def _written(data, html: bool) -> dict:
    """Every report of every kind of result: the HTML ones (pages and notebook
    fragments, with their plots) or all the others."""
    two, family, power = _kinds(data)
    family_context = report.FamilyContext(files=(H,), layout=H, notes=(H,), id=H, group=H,
                                          stratum=H, labels=H)
    written = {}
    for kind, result in two.items():
        for fmt in report.WRITERS:
            if (fmt == "html") == html:
                written[kind, fmt] = report.render(result, fmt, _context())
        if html:
            written[kind, "notebook"] = result._repr_html_()
        else:
            written[kind, "summary"] = result.summary(name_a=H, name_b=H)
            written[kind, "print"] = str(result)
    for kind, result in family.items():
        for fmt in report.FAMILY_WRITERS:
            if (fmt == "html") == html:
                written[kind, fmt] = report.render_family(result, fmt, family_context)
        if not html:
            written[kind, "print"] = str(result)
    for kind, result in power.items():
        for fmt in report.POWER_WRITERS:
            if (fmt == "html") == html:
                written[kind, fmt] = report.render_power(result, fmt)
        if not html:
            written[kind, "summary"] = result.summary()
    for (kind, fmt), text in written.items():
        if fmt == "json":  # data, exact (test_json_keeps_the_labels_exact)
            json.loads(text)
            continue
        try:
            assert_safe(text)
        except AssertionError as exc:
            raise AssertionError(f"{kind}, {fmt}: {exc}") from None
    return written


def test_no_format_shows_a_hostile_label_raw(data):
    written = _written(data, html=False)
    # the label is shown, escaped, not dropped
    text = written["two systems, items", "text"]
    assert visible(H + "A") in text and "\\x1b[2J" in text and "\\u202e" in text
    assert md(H + "B") in written["two systems, items", "markdown"]
    assert tex(H + "B") in written["two systems, items", "latex"]


@pytest.mark.slow  # (every HTML page and notebook fragment draws its plots)
def test_no_html_shows_a_hostile_label_raw(data):
    written = _written(data, html=True)
    assert "\\u202eevil" in written["two systems, items", "html"]


def test_json_keeps_the_labels_exact(data):
    two, family, _ = _kinds(data)
    out = json.loads(report.render(two["two systems, items"], "json", _context()))
    assert out["input"]["a"] == H + "A"
    assert {s["name"] for s in out["strata"]} == {f"{H}s{k}" for k in range(3)}
    fam = json.loads(report.render_family(family["family"], "json"))
    assert {c["b"] for c in fam["comparisons"]} >= {H + "b", H + "c"}


@pytest.mark.parametrize("text, shown", [
    ("plain name", "plain name"),
    ("C:\\data\\x.csv", "C:\\data\\x.csv"),  # (a backslash of the data stays as it is)
    ("a\x1b[31mb", "a\\x1b[31mb"),
    ("\n::add-mask::secret", "\\n\\x3a:add-mask::secret"),
    ("  ::error::x", "  \\x3a:error::x"),
    ("tab\t##[group]x", "tab\\t\\x23#[group]x"),
    ("model::v2", "model::v2"),  # (inside a word: no line can begin there)
    ("a\u202eb\u2069c\u200fd\u061ce", "a\\u202eb\\u2069c\\u200fd\\u061ce"),
    ("l\u2028p\u2029c1\x85\x9bdel\x7f", "l\\u2028p\\u2029c1\\x85\\x9bdel\\x7f"),
])
def test_visible(text, shown):
    assert visible(text) == shown
    assert visible(visible(text)) == visible(text)


def test_markdown_shows_links_images_and_html_of_the_data_as_text():
    assert md("[approve](https://x) ![i][r] [d]: u <img src=x> a|b") == (
        "[approve\\](https://x) ![i\\][r] [d\\]: u \\<img src=x> a\\|b")
    assert md("p < 0.05 in [0.01, 0.03]; \x1b") == "p < 0.05 in [0.01, 0.03]; \\\\x1b"


def test_latex_escapes_its_own_characters_after_the_controls():
    assert tex("a_b%c$d#e&f{g}~^\\\x1b") == (
        r"a\_b\%c\$d\#e\&f\{g\}\textasciitilde{}\textasciicircum{}\textbackslash{}"
        r"\textbackslash{}x1b")


# --- the command line: standard output and standard error --------------------------------


@pytest.fixture
def hostile_files(tmp_path):
    """Two JSON Lines files of hostile ids, strata and a hostile column, one of them
    with a hostile file name."""
    rng = np.random.default_rng(7)
    paths = []
    for name, shift in (("base", 0.25), ("new\x1b[2J\u202etxt", 0.0)):
        path = tmp_path / f"{name}.jsonl"
        rows = [{"id": f"{H}{i}", "score": float(rng.random() + shift),
                 "topic": f"{H}{i % 2}", H: 1} for i in range(40)]
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        paths.append(path)
    return paths


@pytest.mark.parametrize("fmt", ["text", "markdown", "github", "latex", "html"])
def test_the_command_line_shows_hostile_data_escaped(hostile_files, fmt):
    proc = run_in_process("compare", *hostile_files, "--id", "id", "--stratum", "topic",
                          "--resamples", "100", "--no-progress", "--format", fmt,
                          "--fail-if", "worse", "--seed", "1")
    assert proc.returncode == 1, proc.stderr.decode()  # (the gate failed: its line too)
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert_safe(out)
    assert_safe(err, commands=("::warning title=pairboot::", "::error title=pairboot::"))
    assert err.strip()
    if fmt != "github":  # (every stderr line is the CLI's own: warning or the gate)
        assert all(line.startswith(("warning: ", "pairboot: --fail-if"))
                   for line in err.splitlines()), err


def test_an_error_naming_data_is_one_escaped_line(tmp_path):
    rows = [("sys\x1b[2JA\u202e", -1.0 - (i % 3) / 3, i + 1) for i in range(6)]
    rows += [("sysB", -0.5, i + 1) for i in range(6)]
    path = tmp_path / "mqm.tsv"
    path.write_text("system mqm_avg_score seg_id\n"
                    + "".join(f"{s} {v} {i}\n" for s, v, i in rows), encoding="utf-8")
    proc = run_in_process("compare", path, "--from", "wmt", "--systems", "nope,sysB")
    err = proc.stderr.decode()
    assert proc.returncode == 2 and err.count("\n") == 1 and err.startswith("error: ")
    assert_safe(err)
    assert "sys\\x1b[2JA\\u202e" in err
