"""The prediction-powered comparison on real data: WMT20 en-de, chrF as the judge, MQM
(the average of 3 raters) as gold, per segment, documents as groups (docs/judges.md).

For each pair of systems: the gold-only and the prediction-powered B - A from a uniform
random 20% of the 1,418 segments labelled (the rest keep only chrF), against the
all-gold B - A (every segment's MQM, compare(groups=docs)).  One draw shown in full,
then DRAWS random draws of the subset: how often each interval covers the all-gold
B - A, their mean widths, lam and the effective number of gold labels.
Run: python docs/simulations/ppi_wmt20.py [DATA_DIR] (default ../shared/data/real/wmt20_ende
from the repository's root; about 20 s).
"""
import sys
import warnings

import numpy as np

import pairboot

DATA = sys.argv[1] if len(sys.argv) > 1 else "../shared/data/real/wmt20_ende"
PAIRS = [("Tohoku-AIP-NTT.890", "OPPO.1535"), ("Online-A.1574", "OPPO.1535"),
         ("OPPO.1535", "Human-B.0")]
SHARE, DRAWS = 0.2, 300


def load(data):
    mqm, det, chrf = {}, {}, {}
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


def main():
    mqm, chrf, docs = load(DATA)
    segs = sorted(docs)
    groups = np.array([docs[s] for s in segs])
    warnings.simplefilter("ignore")
    for a, b in PAIRS:
        gold = np.array([[mqm[a, s], mqm[b, s]] for s in segs])
        judge = np.array([[chrf[a, s], chrf[b, s]] for s in segs])
        full = pairboot.compare(gold[:, 0], gold[:, 1], groups=groups, seed=1)
        truth = full.estimate
        rng = np.random.default_rng(2024)
        low, high = full.confidence_interval
        print(f"\n## {b} - {a}: all gold {truth:+.3f} [{low:+.3f}, {high:+.3f}]"
              f", judge-gold correlation of the differences "
              f"{np.corrcoef(gold[:, 1] - gold[:, 0], judge[:, 1] - judge[:, 0])[0, 1]:.2f}")
        stats = {k: [] for k in ("gold", "ppi", "ppi_clip", "lam", "eff", "judge")}
        for t in range(DRAWS):
            lab = rng.random(len(segs)) < SHARE
            g = np.where(lab[:, None], gold, np.nan)
            kw = dict(gold_a=g[:, 0], gold_b=g[:, 1], groups=groups)
            if t == 0:
                one = pairboot.compare_ppi(judge[:, 0], judge[:, 1], clip=False, seed=1, **kw)
                print(one.summary(name_a=a, name_b=b))
            free = pairboot.compare_ppi(judge[:, 0], judge[:, 1], clip=False, method="clt", **kw)
            clipped = pairboot.compare_ppi(judge[:, 0], judge[:, 1], method="clt", **kw)
            for key, row in (("gold", free.gold_only), ("ppi", free.prediction_powered),
                             ("ppi_clip", clipped.prediction_powered),
                             ("judge", free.judge_only)):
                low, high = row.confidence_interval
                stats[key].append((low <= truth <= high, high - low))
            stats["lam"].append(free.lam)
            stats["eff"].append(free.effective_gold / free.n_gold)
        for key in ("judge", "gold", "ppi_clip", "ppi"):
            cover, width = np.mean(stats[key], axis=0)
            print(f"{key:9s} covers the all-gold B - A in {cover:.1%} of {DRAWS} draws, "
                  f"mean width {width:.3f}")
        print(f"lam (not clipped): median {np.median(stats['lam']):.2f}; effective gold "
              f"labels / labelled: median {np.median(stats['eff']):.3f}")


if __name__ == "__main__":
    main()
