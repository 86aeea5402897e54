"""The prediction-powered comparison on real data (docs/judges.md).

- OpinSummEval: ChatGPT (CoT prompt, 1-5) as the judge of opinion summaries, the mean of
  two human raters (1-5) as gold, on a uniform random 30% of the 100 cases.
- WMT20 en-de: chrF as the judge, MQM (the average of 3 raters) as gold, per segment, on
  a uniform random 20% of the 1,418 segments, documents as groups.

For each pair of systems, against the all-gold B - A (every item's gold score,
compare()): one draw of the labelled subset shown in full, then DRAWS draws, and how
often each interval (judge only, gold only, prediction-powered with lam clipped to
[0, 1] and not) covers the all-gold B - A, their mean widths, lam and the effective
number of gold labels.  The all-gold value shares the labelled items with each interval,
so coverage of it runs above the level.  And the agreement of the judge with the first
rater against that of the two raters, on the 1,400 summaries (cases as groups).
Run: python docs/simulations/ppi_real_data.py [DATA_DIR] (default ../shared/data/real
from the repository's root; about 30 s).
"""
import json
import sys
import warnings

import numpy as np

import pairboot

DATA = sys.argv[1] if len(sys.argv) > 1 else "../shared/data/real"
WMT_PAIRS = [("Tohoku-AIP-NTT.890", "OPPO.1535"), ("Online-A.1574", "OPPO.1535"),
             ("OPPO.1535", "Human-B.0")]
OPINSUMM_PAIRS = [("pegasus", "gpt3", "chatgpt_CoT_Readability", "readblty"),
                  ("meansum", "gpt3", "chatgpt_CoT_Aspect Relevance", "asp_rel")]
DRAWS = 300


def load_wmt(data):
    mqm, det, chrf = {}, {}, {}
    data = f"{data}/wmt20_ende"
    with open(f"{data}/mqm_newstest2020_ende.avg_seg_scores.tsv") as f:
        for line in f.read().splitlines()[1:]:
            system, score, seg = line.split()
            mqm[system, int(seg)] = float(score)
    with open(f"{data}/wmt20_details_en-de.txt") as f:
        for line in f:
            seg, _, _, doc, k = line.rstrip("\n").split("\t")
            det[doc, int(k)] = int(seg)
    docs = {seg: doc for (doc, _), seg in det.items()}
    with open(f"{data}/wmt20_chrF.seg.score.en-de.ref-newstest2020.tsv") as f:
        for line in f:
            cells = line.rstrip("\n").split("\t")
            chrf[cells[4], det[cells[5], int(cells[6])]] = float(cells[7])
    return mqm, chrf, docs


def header(a, b, what, judge, gold, full):
    low, high = full.confidence_interval
    r = np.corrcoef(gold[:, 1] - gold[:, 0], judge[:, 1] - judge[:, 0])[0, 1]
    print(f"\n## {b} - {a}{what}: all gold {full.estimate:+.3f} [{low:+.3f}, {high:+.3f}], "
          f"judge-gold correlation of the differences {r:.2f}")


def repeat(judge, gold, truth, share, groups=None, clip=True, names=("A", "B")):
    """One draw of the labelled subset in full, then DRAWS draws."""
    rng = np.random.default_rng(2024)
    stats = {k: [] for k in ("gold", "ppi", "ppi_clip", "lam", "eff", "judge")}
    for t in range(DRAWS):
        lab = rng.random(len(judge)) < share
        g = np.where(lab[:, None], gold, np.nan)
        kw = dict(gold_a=g[:, 0], gold_b=g[:, 1], groups=groups)
        if t == 0:
            one = pairboot.compare_ppi(judge[:, 0], judge[:, 1], clip=clip, seed=1, **kw)
            print(one.summary(name_a=names[0], name_b=names[1]))
        free = pairboot.compare_ppi(judge[:, 0], judge[:, 1], clip=False, method="clt", **kw)
        clipped = pairboot.compare_ppi(judge[:, 0], judge[:, 1], method="clt", **kw)
        for key, row in (("gold", free.gold_only), ("ppi", free.prediction_powered),
                         ("ppi_clip", clipped.prediction_powered),
                         ("judge", free.judge_only)):
            low, high = row.confidence_interval
            stats[key].append((low <= truth <= high, high - low))
        stats["lam"].append((free.lam, clipped.lam))
        stats["eff"].append((free.effective_gold / free.n_gold,
                             clipped.effective_gold / clipped.n_gold))
    for key in ("judge", "gold", "ppi_clip", "ppi"):
        cover, width = np.mean(stats[key], axis=0)
        print(f"{key:9s} covers the all-gold B - A in {cover:.1%} of {DRAWS} draws, "
              f"mean width {width:.3f}")
    lam, eff = np.median(stats["lam"], axis=0), np.median(stats["eff"], axis=0)
    print(f"median lam: {lam[0]:.2f} free, {lam[1]:.2f} clipped; effective gold labels / "
          f"labelled: median {eff[0]:.3f} free, {eff[1]:.3f} clipped")


def opinsumm(data):
    with open(f"{data}/opinsummeval/scores.jsonl") as f:
        rows = [json.loads(line) for line in f]
    for a, b, judge_key, gold_key in OPINSUMM_PAIRS:
        judge = np.array([[r[s][judge_key] for s in (a, b)] for r in rows], float)
        gold = np.array([[(r[s]["annot1"][gold_key] + r[s]["annot2"][gold_key]) / 2
                          for s in (a, b)] for r in rows])
        full = pairboot.compare(gold[:, 0], gold[:, 1], seed=1)
        header(a, b, f", {gold_key}", judge, gold, full)
        repeat(judge, gold, full.estimate, 0.3, names=(a, b))


def opinsumm_agreement(data):
    with open(f"{data}/opinsummeval/scores.jsonl") as f:
        rows = [json.loads(line) for line in f]
    systems = [k for k, v in rows[0].items() if isinstance(v, dict)]
    stats = ("kappa-quadratic", "ac1", "alpha-ordinal")
    for judge_key, gold_key in (("chatgpt_CoT_Aspect Relevance", "asp_rel"),
                                ("chatgpt_CoT_Readability", "readblty")):
        judge, first, second, case = [], [], [], []
        for c, r in enumerate(rows):
            for s in systems:
                judge.append(int(r[s][judge_key]))
                first.append(int(r[s]["annot1"][gold_key]))
                second.append(int(r[s]["annot2"][gold_key]))
                case.append(c)
        kw = dict(statistics=stats, categories=[1, 2, 3, 4, 5], groups=case, seed=1,
                  n_resamples=2000)
        print(f"\n## agreement, {gold_key} ({len(judge):,} summaries in {len(rows)} cases)")
        for who, res in (("judge - rater 1", pairboot.agreement(judge, first, **kw)),
                         ("rater 2 - rater 1", pairboot.agreement(second, first, **kw))):
            print(f"{who}: " + "; ".join(
                f"{r.statistic} {r.estimate:.3f} [{r.confidence_interval.low:.3f}, "
                f"{r.confidence_interval.high:.3f}]" for r in res.rows))


def wmt(data):
    mqm, chrf, docs = load_wmt(data)
    segs = sorted(docs)
    groups = np.array([docs[s] for s in segs])
    for a, b in WMT_PAIRS:
        gold = np.array([[mqm[a, s], mqm[b, s]] for s in segs])
        judge = np.array([[chrf[a, s], chrf[b, s]] for s in segs])
        full = pairboot.compare(gold[:, 0], gold[:, 1], groups=groups, seed=1)
        header(a, b, "", judge, gold, full)
        repeat(judge, gold, full.estimate, 0.2, groups=groups, clip=False, names=(a, b))


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    opinsumm(DATA)
    opinsumm_agreement(DATA)
    wmt(DATA)
