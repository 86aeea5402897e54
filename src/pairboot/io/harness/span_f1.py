"""Span F1 counts of MasakhaNER-style lm-eval tasks: a document's ``(tp, fp, fn)`` from
its gold and predicted ``label: entity $$ label: entity`` strings, normalised as the
tasks' ``span_f1_agg`` normalises them, so that summed over documents they give the
task's pooled span F1 (``counts="span-f1"`` of :mod:`pairboot.io.harness.lm_eval`)."""

from __future__ import annotations

import re
import string

__all__ = ["span_counts"]

_PUNCTUATION = re.compile("[" + re.escape(string.punctuation + "\u2022") + "]+")
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def _normalise(text: str) -> str:
    text = _ARTICLES.sub(" ", _PUNCTUATION.sub(" ", text))
    text = re.sub(r"\s+", " ", re.sub(r"\s{3,}|\t", "", text))
    return text.lower()


def _spans(text) -> list[tuple[str, str]]:
    """The ``(label, entity)`` spans of ``label: entity $$ label: entity`` text, as the
    MasakhaNER tasks' ``span_f1_agg`` reads them (pieces also split at ``$``, ``. ``
    and ``, ``; a piece without exactly one ``: `` is not a span)."""
    if isinstance(text, list):
        text = " ".join(str(t).strip() for t in text)
    pieces = [p.strip() for chunk in str(text).strip().split("$$")
              for p in chunk.split("$") if p]
    pieces = [q.strip() for p in pieces for s in p.split(". ") for q in s.split(", ")]
    out = []
    for piece in pieces:
        parts = piece.split(": ")
        if len(parts) == 2:
            out.append((_normalise(parts[0].strip()), _normalise(parts[1].strip())))
    return out


def span_counts(gold, predicted) -> tuple[int, int, int]:
    """``(tp, fp, fn)`` of one document's predicted spans against its gold spans.

    Each predicted span matching a gold span not yet matched is a true positive, any
    other a false positive; gold spans left unmatched are false negatives.  Summed over
    documents, ``2 tp / (2 tp + fp + fn)`` is the task's pooled span F1.

    >>> span_counts("PER: Ochieng $$ LOC: Kisumu", ["per: ochieng $ date: 2020"])
    (1, 1, 1)
    """
    gold_spans = _spans(gold)
    tp = fp = 0
    for span in _spans(predicted):
        if span in gold_spans:
            tp += 1
            gold_spans.remove(span)
        else:
            fp += 1
    return tp, fp, len(gold_spans)
