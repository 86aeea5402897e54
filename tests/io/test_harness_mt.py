"""Machine-translation readers: WMT segment scores and MQM, COMET, sacrebleu.

Every fixture is written here, shaped like the real files (WMT20's chrF TSV and MQM
average scores, comet-score's printed lines and JSON, comet-compare's JSON, plain-text
translations); one optional test reads the real WMT20 file when it is present.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import error, real_data

import pairboot
import pairboot.io.harness as harness
from pairboot.io.harness import comet, sacrebleu, wmt


def _compare_same(joined, a, b, **kwargs):
    """The log's comparison and the plain arrays' give the same result."""
    groups = kwargs.pop("plain_groups", None)
    via_log = pairboot.compare(joined.values[0], joined.values[1], n_resamples=2000, seed=7,
                               **kwargs)
    kwargs.pop("groups", None)
    plain = pairboot.compare(a, b, n_resamples=2000, seed=7, groups=groups, **kwargs)
    assert via_log.estimate == plain.estimate
    assert via_log.confidence_interval == plain.confidence_interval
    assert via_log.p_value == plain.p_value
    return via_log


# --- WMT metrics-task TSV --------------------------------------------------------------------


def _wmt_rows(systems=("SysA.1", "SysB.2", "SysC.3"), n_docs=30, per_doc=2, seed=0,
              metric="chrF", lp="en-de", testset="newstest2020", ref="newstest2020"):
    rng = np.random.default_rng(seed)
    rows = []
    for k, system in enumerate(systems):
        for d in range(n_docs):
            for s in range(1, per_doc + 1):
                score = round(float(np.clip(rng.normal(0.6 + 0.02 * k, 0.1), 0, 1)), 5)
                text = "0" if (d, s) == (3, 1) else repr(score)  # the integer 0 of real files
                rows.append((metric, lp, testset, ref, system, f"news.{d}", str(s), text))
    return rows


def _write_tsv(path, rows):
    path.write_text("".join("\t".join(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def _plain(rows, system):
    """The plain table: id, doc and score of one system, as a CSV user would hold them."""
    got = [(f"{r[5]}:{r[6]}", r[5], float(r[7])) for r in rows if r[4] == system]
    return [g[0] for g in got], np.array([g[1] for g in got], dtype=object), \
        np.array([g[2] for g in got])


def test_wmt_tsv_reads_systems_in_the_order_asked(tmp_path):
    rows = _wmt_rows()
    path = _write_tsv(tmp_path / "chrF.seg.score.tsv", rows)
    got = harness.read(path, format="wmt", system="SysC.3,SysA.1")
    assert list(got.systems) == ["SysC.3", "SysA.1"]
    ids, _, scores = _plain(rows, "SysA.1")
    assert got.ids.tolist() == ids
    np.testing.assert_array_equal(got.systems["SysA.1"], scores)
    assert got.score == "chrF" and got.metric == "mean" and got.groups is None
    assert got.systems["SysA.1"][got.ids.tolist().index("news.3:1")] == 0.0
    notes = " ".join(got.notes)
    assert "180 rows read" in notes and "2 of the 3 systems" in notes
    assert "60 segments (id docid:seg_no) in 30 documents" in notes
    assert "`group='doc'`" in notes
    every = harness.read(path, format="wmt")
    assert list(every.systems) == ["SysA.1", "SysB.2", "SysC.3"]
    as_list = harness.read(path, format="wmt", system=["SysB.2", "SysA.1"])
    assert list(as_list.systems) == ["SysB.2", "SysA.1"]


def test_wmt_documents_as_groups(tmp_path):
    path = _write_tsv(tmp_path / "seg.tsv", _wmt_rows())
    got = harness.read(path, format="wmt", group="doc", system="SysA.1,SysB.2")
    assert got.groups.tolist()[:3] == ["news.0", "news.0", "news.1"]
    assert "doc" in error(harness.read, path, format="wmt", group="system")


def test_wmt_same_comparison_as_plain_arrays(tmp_path):
    rows = _wmt_rows()
    path = _write_tsv(tmp_path / "seg.tsv", rows)
    joined = harness.join([harness.read(path, format="wmt", system=["SysA.1", "SysB.2"],
                                        group="doc")])
    assert joined.names == ("SysA.1", "SysB.2")
    ids_a, docs, a = _plain(rows, "SysA.1")
    _, _, b = _plain(rows, "SysB.2")
    assert joined.ids.tolist() == ids_a
    _compare_same(joined, a, b, groups=joined.groups, plain_groups=docs)
    # and a CSV of the same numbers, read by the plain-table reader
    csv = tmp_path / "plain.csv"
    csv.write_text("id,doc,A,B\n" + "".join(f"{i},{d},{float(x)!r},{float(y)!r}\n"
                                              for i, d, x, y in zip(ids_a, docs, a, b)))
    table = harness.join([harness.read(str(csv), format="table", id="id", system="A,B",
                                       group="doc")])
    np.testing.assert_array_equal(table.groups, docs)
    _compare_same(joined, *table.values, groups=joined.groups, plain_groups=table.groups)


def test_wmt_several_metrics_lps_refs_must_be_chosen(tmp_path):
    rows = (_wmt_rows() + _wmt_rows(metric="BLEU") + _wmt_rows(lp="de-en")
            + _wmt_rows(ref="newstestB2020"))
    path = _write_tsv(tmp_path / "seg.tsv", rows)
    msg = error(harness.read, path, format="wmt")
    assert "2 values of metric" in msg and "BLEU (180 rows)" in msg and "`score`" in msg
    msg = error(harness.read, path, format="wmt", score="chrF")
    assert "2 values of lp" in msg and "de-en" in msg and "`lp`" in msg
    msg = error(harness.read, path, format="wmt", score="chrF", lp="en-de")
    assert "`ref`" in msg and "newstestB2020" in msg
    got = harness.read(path, format="wmt", score="chrF", lp="en-de", ref="newstest2020")
    assert got.n_items == 60 and got.score == "chrF"
    assert any("rows of other metric values than 'chrF'" in n for n in got.notes)
    msg = error(harness.read, path, format="wmt", score="COMET")
    assert "no rows with metric 'COMET'" in msg and "chrF" in msg


def test_wmt_unknown_system_and_options(tmp_path):
    path = _write_tsv(tmp_path / "seg.tsv", _wmt_rows())
    msg = error(harness.read, path, format="wmt", system="SysA.1,Nope")
    assert "no system 'Nope'" in msg and "SysB.2" in msg
    assert "twice" in error(harness.read, path, format="wmt", system="SysA.1,SysA.1")
    assert "takes no option `stratum`" in error(harness.read, path, format="wmt",
                                                stratum="doc")
    assert "`docs` is for MQM" in error(harness.read, path, format="wmt", docs="x")


@pytest.mark.parametrize("line, expected", [
    ("chrF\ten-de\tnewstest2020\tnewstest2020\tSysA.1\tnews.99\t1", "7 tab-separated fields"),
    ("chrF\ten-de\tnt\tnt\tSysA.1\tnews.99\tone\t0.5", "seg_no 'one'"),
    ("chrF\ten-de\tnt\tnt\tSysA.1\tnews.99\t1\thigh", "score 'high' is not a number"),
    ("chrF\ten-de\tnt\tnt\tSysA.1\tnews.99\t1\tnan", "not a finite number"),
])
def test_wmt_malformed_lines_name_file_and_line(tmp_path, line, expected):
    rows = _wmt_rows(testset="nt", ref="nt")
    path = tmp_path / "seg.tsv"
    text = "".join("\t".join(r) + "\n" for r in rows[:4]) + line + "\n"
    path.write_text(text)
    msg = error(harness.read, str(path), format="wmt")
    assert msg.startswith(f"{path}: line 5: ") and expected in msg


def test_wmt_duplicate_and_missing_segments(tmp_path):
    rows = _wmt_rows()
    path = _write_tsv(tmp_path / "dup.tsv", rows + [rows[0]])
    msg = error(harness.read, path, format="wmt")
    assert "line 181: a second score of system 'SysA.1' for segment news.0:1" in msg
    assert "line 1" in msg
    short = [r for r in rows if not (r[4] == "SysB.2" and r[5] == "news.7")]
    path = _write_tsv(tmp_path / "short.tsv", short)
    msg = error(harness.read, path, format="wmt", system="SysA.1,SysB.2")
    assert "system 'SysB.2' has no row for segment news.7:1" in msg and "unrated" in msg
    got = harness.read(path, format="wmt", system="SysA.1,SysB.2", unrated="drop")
    assert got.n_items == 58 and "news.7:1" not in got.ids.tolist()
    assert any("2 of 60 segments dropped" in n and "SysB.2 2" in n for n in got.notes)
    # a system with every segment is not affected by another's gaps
    assert harness.read(path, format="wmt", system="SysA.1,SysC.3").n_items == 60
    assert "'error' or 'drop'" in error(harness.read, path, format="wmt", unrated="keep")


def test_wmt_empty_file(tmp_path):
    path = tmp_path / "empty.tsv"
    path.write_text("\n")
    assert "no rows" in error(wmt.read, str(path))


# --- MQM average scores ------------------------------------------------------------------------


def _mqm(path, systems=("SysA.1", "SysB.2"), n=40, none=(), tab=False, seed=1):
    rng = np.random.default_rng(seed)
    lines = ["system mqm_avg_score seg_id"]
    values = {}
    for k, system in enumerate(systems):
        v = np.round(-np.abs(rng.normal(2 - 0.3 * k, 1.5, n)), 6)
        values[system] = v
        for i in range(1, n + 1):
            text = "None" if (system, i) in none else f"{v[i - 1]:.6f}"
            lines.append(f"{system}{chr(9) if tab else ' '}{text} {i}")
    path.write_text("\n".join(lines) + "\n")
    return str(path), values


def test_mqm_reads_and_compares_like_arrays(tmp_path):
    path, values = _mqm(tmp_path / "mqm.avg_seg_scores.tsv")
    got = harness.read(path, format="wmt", system="SysB.2,SysA.1")
    assert got.ids.tolist() == [str(i) for i in range(1, 41)]
    assert got.score == "mqm_avg_score" and got.groups is None
    np.testing.assert_array_equal(got.systems["SysA.1"], values["SysA.1"])
    joined = harness.join([got])
    _compare_same(joined, values["SysB.2"], values["SysA.1"])
    assert "holds only mqm_avg_score" in error(harness.read, path, format="wmt", score="chrF")
    assert "no lp to choose" in error(harness.read, path, format="wmt", lp="en-de")


def test_mqm_unrated_segments_refused_or_dropped(tmp_path):
    none = {("SysA.1", 5), ("SysB.2", 5), ("SysB.2", 9)}
    path, values = _mqm(tmp_path / "mqm21.tsv", systems=("SysA.1", "SysB.2", "SysC.3"),
                        none=none, tab=True)
    msg = error(harness.read, path, format="wmt")
    assert msg.startswith(f"{path}: line 6: system 'SysA.1' has None for seg_id 5")
    got = harness.read(path, format="wmt", unrated="drop", system="SysA.1,SysB.2")
    assert got.n_items == 38 and "5" not in got.ids.tolist() and "9" not in got.ids.tolist()
    assert any("2 of 40 segments dropped" in n and "SysA.1 1, SysB.2 2" in n
               for n in got.notes)
    assert any("3 rows are None" in n for n in got.notes)
    keep = [i for i in range(40) if i not in (4, 8)]
    np.testing.assert_array_equal(got.systems["SysB.2"], values["SysB.2"][keep])
    assert harness.read(path, format="wmt", system="SysA.1,SysC.3",
                        unrated="drop").n_items == 39


def test_mqm_documents_from_the_details_file(tmp_path):
    path, _ = _mqm(tmp_path / "mqm.tsv")
    assert "`docs`" in error(harness.read, path, format="wmt", group="doc")
    details = tmp_path / "details.txt"
    details.write_text("".join(f"{i}\tnewstest2020\ten-de\tdoc{(i - 1) // 4}\t{(i - 1) % 4 + 1}\n"
                               for i in range(1, 41)))
    got = harness.read(path, format="wmt", group="doc", docs=str(details))
    assert got.groups.tolist()[:5] == ["doc0"] * 4 + ["doc1"]
    details.write_text("1\tnewstest2020\ten-de\tdoc0\t1\n")
    msg = error(harness.read, path, format="wmt", group="doc", docs=str(details))
    assert "no document for seg_id 2" in msg


@pytest.mark.parametrize("body, expected", [
    ("SysA.1 -1.0\n", "line 2: 2 fields, expected 3"),
    ("SysA.1 -1.0 x\n", "line 2: seg_id 'x' is not a number"),
    ("SysA.1 bad 1\n", "line 2: score 'bad' is not a number"),
])
def test_mqm_malformed(tmp_path, body, expected):
    path = tmp_path / "mqm.tsv"
    path.write_text("system mqm_avg_score seg_id\n" + body)
    msg = error(harness.read, str(path), format="wmt")
    assert msg.startswith(str(path)) and expected in msg


def test_wmt_detection(tmp_path):
    tsv = _write_tsv(tmp_path / "seg.tsv", _wmt_rows())
    mqm, _ = _mqm(tmp_path / "mqm.tsv")
    assert wmt.detect(tsv) and wmt.detect(mqm)
    assert harness.detect(tsv) == "wmt" and harness.detect(mqm) == "wmt"
    other = tmp_path / "scores.tsv"
    other.write_text("id\tscore\n1\t0.5\n")
    assert not wmt.detect(str(other)) and not wmt.detect(str(tmp_path))
    details = tmp_path / "details.txt"
    details.write_text("1\tnewstest2020\ten-de\tdoc0\t1\n")
    assert not wmt.detect(str(details))


@pytest.mark.slow
def test_wmt_real_chrf_file():
    path = str(real_data("wmt20_ende", "wmt20_chrF.seg.score.en-de.ref-newstest2020.tsv"))
    got = harness.read(path, format="wmt", system="OPPO.1535,Tohoku-AIP-NTT.890",
                       group="doc")
    assert got.n_items == 1418 and len(set(got.groups.tolist())) == 130
    assert got.ids[0] == "independent.281139:1"
    assert len(harness.read(path, format="wmt").systems) == 16


def test_wmt_real_da_file():
    """WMT20 en-de DA: 17 systems each rated on a sample of segments; two of them share
    357 (SOURCES.md), which ``unrated='drop'`` compares, documents from the SIDs."""
    path = str(real_data("wmt20_ende", "wmt20_DA_ad-seg-scores-en-de.csv"))
    assert harness.detect(path) == "wmt"
    assert "is a WMT DA segment-score file" in error(harness.read, path, format="wmt")
    got = harness.read(path, format="wmt", score="z", system="OPPO.1535,Tohoku-AIP-NTT.890",
                       unrated="drop", group="doc")
    assert got.n_items == 357 and got.score == "Z.SCR"
    assert got.ids[0].rpartition("_")[0] == got.groups[0]
    assert len(set(got.groups.tolist())) < got.n_items  # (documents, not segments)


# --- WMT direct assessment (DA) -------------------------------------------------------------


def _da(path, ratings: dict, header="SYS SID RAW.SCR Z.SCR N "):
    """A DA segment-score file as WMT writes it (``ad-seg-scores-*.csv``: space-separated,
    a trailing space): ``ratings`` maps a system to {SID: (raw, z, n)}."""
    lines = [header]
    for system, rows in ratings.items():
        lines += [f"{system} {sid} {raw} {z} {n} " for sid, (raw, z, n) in rows.items()]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


DA = {
    "SysA.1": {"news.7_0": (71.5, 0.12, 2), "news.7_1": (40, -1.3, 1), "blog.2_0": (88, 0.9, 3),
               "blog.2_5": (60, -0.2, 2)},
    "SysB.2": {"news.7_1": (55, -0.4, 2), "blog.2_0": (91, 1.1, 1), "blog.2_5": (62.5, 0.05, 2),
               "news.9_3": (10, -2.2, 1)},
}


def test_da_file_is_named_and_its_score_chosen(tmp_path):
    """`--from wmt` on a DA file says it is one (not "1 tab-separated fields") and asks
    which of its two scores to read."""
    path = _da(tmp_path / "ad-seg-scores-en-de.csv", DA)
    assert wmt.detect(path) and harness.detect(path) == "wmt"
    msg = error(harness.read, path, format="wmt")
    assert "is a WMT DA segment-score file" in msg and "`score`" in msg
    assert "'z' (Z.SCR)" in msg and "'raw' (RAW.SCR)" in msg
    assert "'z' (Z.SCR)" in error(harness.read, path, format="wmt", score="chrF")
    assert "no lp" in error(harness.read, path, format="wmt", score="z", lp="en-de")


def test_da_segments_both_systems_rated(tmp_path):
    path = _da(tmp_path / "da.csv", DA)
    msg = error(harness.read, path, format="wmt", score="z")
    assert "has no row for SID" in msg and "unrated='drop'" in msg
    got = harness.read(path, format="wmt", score="z", unrated="drop", group="doc")
    assert got.ids.tolist() == ["news.7_1", "blog.2_0", "blog.2_5"]  # in file order
    assert got.systems["SysA.1"].tolist() == [-1.3, 0.9, -0.2]
    assert got.systems["SysB.2"].tolist() == [-0.4, 1.1, 0.05]
    assert got.groups.tolist() == ["news.7", "blog.2", "blog.2"]
    assert any("2 of 5 segments dropped" in n for n in got.notes)
    assert any("N = 1 to 3" in n for n in got.notes)
    raw = harness.read(path, format="wmt", score="RAW.SCR", unrated="drop")
    assert raw.systems["SysB.2"].tolist() == [55, 91, 62.5] and raw.score == "RAW.SCR"


def test_da_malformed(tmp_path):
    path = _da(tmp_path / "da.csv", DA)
    with open(path, "a") as f:
        f.write("SysA.1 news.1_0 50\n")
    msg = error(harness.read, path, format="wmt", score="z")
    assert msg.startswith(f"{path}: line 10: 3 fields, expected 5")


def test_an_unknown_first_line_lists_what_the_reader_reads(tmp_path):
    path = tmp_path / "other.csv"
    path.write_text("system score\nA 1\n")
    msg = error(harness.read, str(path), format="wmt")
    assert "line 1: 1 tab-separated fields" in msg and "SYS SID RAW.SCR Z.SCR N" in msg


# --- COMET ---------------------------------------------------------------------------------------


def _comet_scores(n=40, systems=("hyp_a.de", "hyp_b.de"), seed=2):
    rng = np.random.default_rng(seed)
    return {s: np.round(rng.uniform(0.5, 0.95, n) + 0.02 * k, 4)
            for k, s in enumerate(systems)}


def _comet_printed(path, scores, named=True, variance=False, total=True):
    lines = []
    n = len(next(iter(scores.values())))
    for i in range(n):  # comet-score loops over segments, then systems
        for s, v in scores.items():
            head = f"{s}\t" if named else ""
            tail = "\tvariance: 0.0012" if variance else ""
            lines.append(f"{head}Segment {i}\tscore: {v[i]:.4f}{tail}")
    if total:
        for s, v in scores.items():
            lines.append(f"{s}\tscore: {v.mean():.4f}" if named
                         else f"System score: {v.mean():.4f}")
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_comet_printed_output(tmp_path):
    scores = _comet_scores()
    path = _comet_printed(tmp_path / "comet.txt", scores)
    got = harness.read(path, format="comet")
    assert list(got.systems) == ["hyp_a.de", "hyp_b.de"] and got.score == "COMET"
    assert got.ids.tolist() == [str(i) for i in range(40)]
    np.testing.assert_array_equal(got.systems["hyp_b.de"], scores["hyp_b.de"])
    assert any("4 decimals" in n for n in got.notes)
    picked = harness.read(path, format="comet", system=["hyp_b.de"])
    assert list(picked.systems) == ["hyp_b.de"]
    assert "no system 'hyp_c.de'" in error(harness.read, path, format="comet",
                                           system="hyp_c.de")
    joined = harness.join([got])
    _compare_same(joined, scores["hyp_a.de"], scores["hyp_b.de"])


def test_comet_old_unnamed_output_and_two_logs(tmp_path):
    scores = _comet_scores()
    a = _comet_printed(tmp_path / "run_a.log", {"x": scores["hyp_a.de"]}, named=False,
                       variance=True)
    b = _comet_printed(tmp_path / "run_b.log", {"x": scores["hyp_b.de"]}, named=False)
    ra, rb = harness.read(a, format="comet"), harness.read(b, format="comet")
    assert list(ra.systems) == ["run_a"] and any("variance" in n for n in ra.notes)
    joined = harness.join([ra, rb])
    assert joined.names == ("run_a", "run_b")
    _compare_same(joined, scores["hyp_a.de"], scores["hyp_b.de"])


def test_comet_truncated_and_malformed_logs(tmp_path):
    scores = _comet_scores(n=5)
    path = _comet_printed(tmp_path / "cut.txt", scores, total=False)
    assert "cut short" in error(harness.read, path, format="comet")
    lines = open(_comet_printed(tmp_path / "ok.txt", scores)).read().splitlines()
    missing = tmp_path / "missing.txt"
    missing.write_text("\n".join(lines[:4] + lines[6:]) + "\n")  # segment 2 of both
    assert "no segment 2" in error(harness.read, str(missing), format="comet")
    changed = tmp_path / "changed.txt"
    changed.write_text("\n".join(lines[:-1] + ["hyp_b.de\tscore: 0.1000"]) + "\n")
    msg = error(harness.read, str(changed), format="comet")
    assert msg.startswith(f"{changed}: line 12: system score 0.1000")
    junk = tmp_path / "junk.txt"
    junk.write_text("\n".join(lines[:3] + ["Lightning automatically upgraded"] + lines[3:]))
    assert f"{junk}: line 4: not a comet-score line" in error(harness.read, str(junk),
                                                              format="comet")
    bad = tmp_path / "bad.txt"
    bad.write_text(lines[0].replace("score: ", "score: nan") + "\n")
    assert "line 1: score" in error(harness.read, str(bad), format="comet")
    saved = tmp_path / "saved.txt"
    saved.write_text("\n".join(lines + ["Predictions saved in: out.json."]) + "\n")
    assert any("1 other comet-score lines skipped" in n
               for n in harness.read(str(saved), format="comet").notes)


def test_comet_score_json(tmp_path):
    scores = _comet_scores(n=35)
    data = {s: [{"src": f"s{i}", "mt": f"m{i}", "ref": f"r{i}", "COMET": float(x)}
                for i, x in enumerate(v)] for s, v in scores.items()}
    path = tmp_path / "comet.json"
    path.write_text(json.dumps(data, indent=4))
    got = harness.read(str(path), format="comet")
    np.testing.assert_array_equal(got.systems["hyp_a.de"], scores["hyp_a.de"])
    _compare_same(harness.join([got]), scores["hyp_a.de"], scores["hyp_b.de"])
    del data["hyp_b.de"][3]["COMET"]
    path.write_text(json.dumps(data))
    assert "'hyp_b.de'[3] has no \"COMET\"" in error(harness.read, str(path), format="comet")


def _compare_json(scores):
    return {
        "model": "Unbabel/wmt22-comet-da",
        "statistical_results": [{"x_name": "hyp_a.de", "y_name": "hyp_b.de",
                                 "bootstrap_resampling": {}, "paired_t-test": {}}],
        "source": ["s"] * len(next(iter(scores.values()))),
        "translations": [{"name": s, "mt": ["m"] * len(v), "scores": v.tolist()}
                         for s, v in scores.items()],
        "reference": ["r"] * len(next(iter(scores.values()))),
    }


def test_comet_compare_json(tmp_path):
    scores = _comet_scores(systems=("a.txt", "b.txt", "c.txt"))
    path = tmp_path / "compare.json"
    path.write_text(json.dumps(_compare_json(scores), indent=4))
    got = harness.read(str(path), format="comet", system="c.txt,a.txt")
    assert list(got.systems) == ["c.txt", "a.txt"]
    _compare_same(harness.join([got]), scores["c.txt"], scores["a.txt"])
    csv = tmp_path / "plain.csv"
    csv.write_text("segment,c,a\n" + "".join(f"{i},{float(x)!r},{float(y)!r}\n" for i, (x, y)
                                             in enumerate(zip(scores["c.txt"], scores["a.txt"]))))
    table = harness.join([harness.read(str(csv), format="table", id="segment", system="c,a")])
    assert table.ids.tolist() == got.ids.tolist()
    _compare_same(harness.join([got]), *table.values)
    many = harness.join([harness.read(str(path), format="comet")])
    res = pairboot.compare_many(dict(zip(many.names, many.values)), seed=3,
                                n_resamples=500)
    assert len(res.comparisons) == 3
    data = _compare_json(scores)
    data["translations"][1]["scores"] = data["translations"][1]["scores"][:-1]
    path.write_text(json.dumps(data))
    assert "different numbers of segments" in error(harness.read, str(path), format="comet")
    path.write_text('{"model": "x", "statistical_results": [,]}')
    assert f"{path}: line 1: not valid JSON" in error(harness.read, str(path), format="comet")


def test_comet_detection(tmp_path):
    scores = _comet_scores(n=3)
    printed = _comet_printed(tmp_path / "a.txt", scores)
    old = _comet_printed(tmp_path / "b.txt", {"x": scores["hyp_a.de"]}, named=False)
    compare_json = tmp_path / "c.json"
    compare_json.write_text(json.dumps(_compare_json(scores), indent=4))
    score_json = tmp_path / "d.json"
    score_json.write_text(json.dumps({"h.txt": [{"src": "s", "mt": "m", "COMET": 0.5}]}))
    for p in (printed, old, str(compare_json), str(score_json)):
        assert comet.detect(p) and harness.detect(p) == "comet", p
    other = tmp_path / "e.json"
    other.write_text(json.dumps({"h.txt": [{"src": "s", "score": 0.5}]}))
    assert not comet.detect(str(other))
    assert not comet.detect(_write_tsv(tmp_path / "seg.tsv", _wmt_rows()))


# --- sacrebleu -----------------------------------------------------------------------------------

_WORDS = ("the a cat dog sat on mat big small red house ran quickly over under tree "
          "and of to in").split()


def _texts(n=45, seed=3):
    rng = np.random.default_rng(seed)
    refs = [" ".join(rng.choice(_WORDS, size=int(rng.integers(2, 20)))) + "."
            for _ in range(n)]

    def noisy(p):
        out = []
        for r in refs:
            words = [w if rng.random() > p else str(rng.choice(_WORDS)) for w in r.split()]
            out.append(" ".join(w for w in words if rng.random() > 0.05))
        return out

    return refs, noisy(0.35), noisy(0.2)


def _write_lines(path, lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_sacrebleu_statistics_give_corpus_bleu(tmp_path):
    sb = pytest.importorskip("sacrebleu")
    refs, hyp_a, hyp_b = _texts()
    hyp_a[4] = ""  # an empty translation
    ref = _write_lines(tmp_path / "ref.de", refs)
    a, b = _write_lines(tmp_path / "a.de", hyp_a), _write_lines(tmp_path / "b.de", hyp_b)
    got = harness.read(ref, format="sacrebleu", system=f"{a},{b}")
    assert got.metric == "bleu" and got.stats == pairboot.metrics.builtin_stats("bleu")
    assert got.ids.tolist() == [str(i) for i in range(1, 46)]
    joined = harness.join([got])
    res = pairboot.compare(joined.values[0], joined.values[1], metric=joined.metric,
                           n_resamples=500, seed=0)
    assert abs(res.score_a.estimate - sb.corpus_bleu(hyp_a, [refs]).score) < 1e-9
    assert abs(res.score_b.estimate - sb.corpus_bleu(hyp_b, [refs]).score) < 1e-9
    # the same comparison from the statistics computed by hand, as docs/metrics.md does
    bleu = sb.metrics.BLEU(effective_order=True)

    def rows(hyps):
        return np.array([[s.sys_len, s.ref_len, *s.counts, *s.totals]
                         for s in (bleu.sentence_score(h, [r]) for h, r in zip(hyps, refs))])

    plain = pairboot.compare(rows(hyp_a), rows(hyp_b), metric="bleu", n_resamples=500,
                             seed=0)
    assert (res.estimate, res.confidence_interval) == (plain.estimate,
                                                       plain.confidence_interval)


def test_sacrebleu_options_match_sacrebleu(tmp_path):
    sb = pytest.importorskip("sacrebleu")
    refs, hyp_a, _ = _texts(n=35, seed=5)
    refs2 = [r.upper() for r in refs]
    ref = _write_lines(tmp_path / "ref.txt", refs)
    ref2 = _write_lines(tmp_path / "ref2.txt", refs2)
    a = _write_lines(tmp_path / "a.txt", [h.capitalize() for h in hyp_a])
    got = sacrebleu.read(ref, system=[a], refs=[ref2], lowercase=True, tokenize="intl",
                         max_ngram_order=3)
    # the command line's --log-option passes text: the same read
    as_text = sacrebleu.read(ref, system=a, refs=ref2, lowercase="true", tokenize="intl",
                             max_ngram_order="3")
    np.testing.assert_array_equal(as_text.systems[a], got.systems[a])
    stats = got.systems[a]
    assert stats.shape == (35, 8)
    score = pairboot.metrics.bleu_metric(3).evaluate(stats.sum(axis=0))[0][0]
    want = sb.metrics.BLEU(lowercase=True, tokenize="intl", max_ngram_order=3).corpus_score(
        [h.capitalize() for h in hyp_a], [refs, refs2])
    assert abs(float(score) - want.score) < 1e-9


def test_sacrebleu_refusals(tmp_path):
    pytest.importorskip("sacrebleu")
    refs, hyp_a, _ = _texts(n=5)
    ref = _write_lines(tmp_path / "ref.txt", refs)
    short = _write_lines(tmp_path / "short.txt", hyp_a[:4])
    long = _write_lines(tmp_path / "long.txt", hyp_a + ["extra"])
    assert "`system`" in error(harness.read, ref, format="sacrebleu")
    msg = error(harness.read, ref, format="sacrebleu", system=short)
    assert msg.startswith(f"{short}: line 5: 4 lines, but the reference")
    assert f"{long}: line 6: 6 lines" in error(harness.read, ref, format="sacrebleu",
                                               system=long)
    assert "no such file (hypothesis)" in error(harness.read, ref, format="sacrebleu",
                                                system=str(tmp_path / "none.txt"))
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"ok\n" * 2 + "caf\xe9\n".encode("latin-1") + b"ok\n" * 2)
    assert f"{latin}: line 3: not UTF-8" in error(harness.read, ref, format="sacrebleu",
                                                  system=str(latin))
    assert "max_ngram_order" in error(harness.read, ref, format="sacrebleu",
                                      system=short, max_ngram_order=0)
    assert "`lowercase` must be true or false" in error(harness.read, ref, format="sacrebleu",
                                                        system=short, lowercase="maybe")
    assert "refuses `tokenize='bogus'`" in error(harness.read, ref, format="sacrebleu",
                                                 system=short, tokenize="bogus")
    assert not sacrebleu.detect(ref)
