"""Every file a run reads is an input that no output may replace: the files the harness
readers' options name, a metric module, and every option of the parser declared as
reading files, writing them, or naming none (:mod:`pairboot.cli.paths`)."""

from __future__ import annotations

import argparse
import hashlib
import os

import pytest
from helpers import assert_one_line_error, run_in_process

import pairboot.io as pbio
from pairboot.cli.parser import build_parser
from pairboot.cli.paths import NAMES_NO_FILE, READS, WRITES, input_files

FAST = ["--resamples", "100", "--seed", "7", "--no-progress"]


def sha(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


@pytest.mark.parametrize("command", sorted(_subparsers(build_parser())))
def test_every_option_says_whether_it_names_a_file(command):
    """A new option must be declared: read (its files are inputs), written, or naming
    no file; otherwise an --output over the file it names would go unchecked."""
    parser = _subparsers(build_parser())[command]
    dests = {a.dest for a in parser._actions if not isinstance(a, argparse._HelpAction)}
    declared = [set(READS), set(WRITES), set(NAMES_NO_FILE)]
    undeclared = sorted(d for d in dests if sum(d in s for s in declared) != 1)
    assert undeclared == []


def test_every_reader_declares_its_file_options_among_its_options():
    import importlib

    for name, module in pbio.harness.READERS.items():
        reader = importlib.import_module(f"pairboot.io.harness.{module}")
        assert set(getattr(reader, "FILES", ())) <= set(reader.OPTIONS), name
    assert pbio.harness.files_named("sacrebleu", {"system": "a.txt, b.txt", "refs": ["c"],
                                                   "tokenize": "13a"}) == ["a.txt", "b.txt", "c"]
    assert pbio.harness.files_named("wmt", {"docs": "d.txt", "system": "x"}) == ["d.txt"]
    assert pbio.harness.files_named("table", {"system": "a,b"}) == []
    assert pbio.harness.files_named("no such format", {"docs": "d.txt"}) == []


@pytest.fixture
def translations(tmp_path):
    pytest.importorskip("sacrebleu")
    lines = ["the cat sat on the mat", "a dog barked", "it rained all day", "we went home"]
    (tmp_path / "ref.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "ref2.txt").write_text("\n".join(lines[::-1]) + "\n")
    (tmp_path / "hypa.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "hypb.txt").write_text("\n".join(w.replace("a", "o") for w in lines) + "\n")
    return tmp_path


@pytest.mark.parametrize("victim, option", [
    ("hypa.txt", "--output"), ("hypb.txt", "--output"), ("ref2.txt", "--output"),
    ("hypa.txt.png", None), ("hypb.txt", "--plot-link"),
])
def test_output_never_overwrites_a_file_a_reader_option_names(translations, victim, option,
                                                             monkeypatch):
    """sacrebleu's --systems are files, and so is a --log-option refs=...; a link to one
    of them is that file."""
    monkeypatch.chdir(translations)
    if option == "--plot-link":
        os.symlink("hypb.txt", "link.png")
        victim, extra = "hypb.txt", ["--plot", "link.png"]
    elif option is None:
        os.symlink("hypa.txt", victim)
        extra = ["--plot", victim]
    else:
        extra = [option, victim]
    digest = sha(victim)
    proc = run_in_process("compare", "ref.txt", "--from", "sacrebleu", "--systems",
                          "hypa.txt,hypb.txt", "--log-option", "refs=ref2.txt", *extra, *FAST)
    assert_one_line_error(proc, "is an input", "it would be overwritten")
    assert sha(victim) == digest


def test_output_never_overwrites_wmts_details_file(tmp_path):
    rows = [("sysA", -1.0 - (i % 3) / 3, i + 1) for i in range(12)]
    rows += [("sysB", -0.5 - (i % 2) / 4, i + 1) for i in range(12)]
    (tmp_path / "mqm.tsv").write_text("system mqm_avg_score seg_id\n"
                                      + "".join(f"{s} {v} {i}\n" for s, v, i in rows))
    details = tmp_path / "details.txt"
    details.write_text("".join(f"{i + 1}\tnewstest\ten-de\tdoc{i // 3}\t{i % 3 + 1}\n"
                               for i in range(12)))
    digest = sha(details)
    for option in ("--output", "--plot"):
        target = details if option == "--output" else tmp_path / "details.png"
        if option == "--plot":
            os.symlink(details, target)
        proc = run_in_process("compare", tmp_path / "mqm.tsv", "--from", "wmt", "--systems",
                              "sysA,sysB", "--group", "doc", "--log-option",
                              f"docs={details}", option, target, *FAST)
        assert_one_line_error(proc, "is an input", "details.txt")
        assert sha(details) == digest


def test_a_metric_module_named_by_its_module_name_is_an_input(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_metric_i33.py").write_text("import pairboot\nok = pairboot.metrics.MEAN\n")
    (tmp_path / "pkg_i33").mkdir()
    (tmp_path / "pkg_i33" / "__init__.py").write_text("raise RuntimeError('never run')\n")
    (tmp_path / "pkg_i33" / "m.py").write_text("")
    args = build_parser().parse_args(["compare", "a.csv", "b.csv", "--metric",
                                      "my_metric_i33:ok"])
    assert os.path.samefile(input_files(args)[-1], tmp_path / "my_metric_i33.py")
    args.metric = "pkg_i33.m:ok"  # (found without running the package's code)
    assert os.path.samefile(input_files(args)[-1], tmp_path / "pkg_i33" / "m.py")
    args.metric = "mean"
    assert input_files(args) == ["a.csv", "b.csv"]
    base = tmp_path / "a.csv"
    base.write_text("id,score\n" + "".join(f"q{i},{i % 2}\n" for i in range(20)))
    (tmp_path / "b.csv").write_text("id,score\n" + "".join(f"q{i},{i % 3 // 2}\n"
                                                           for i in range(20)))
    digest = sha(tmp_path / "my_metric_i33.py")
    proc = run_in_process("compare", "a.csv", "b.csv", "--id", "id", "--metric",
                          "my_metric_i33:ok", "--output", "my_metric_i33.py", *FAST)
    assert_one_line_error(proc, "is an input", "my_metric_i33.py")
    assert sha(tmp_path / "my_metric_i33.py") == digest
