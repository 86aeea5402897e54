"""Translations and their references as sacrebleu's BLEU statistics per sentence.

sacrebleu writes no file of per-sentence statistics (``--sentence-level`` prints each
sentence's own BLEU, which does not add up to corpus BLEU), so this reader starts from
what sacrebleu itself reads: plain-text files, one sentence per line.  ``path`` is the
reference (``sacrebleu REF -i HYP``), ``system`` the hypothesis files (``--systems
hyp_a.de,hyp_b.de``), ``refs`` more references.  Each sentence's ``sys_len, ref_len,
correct_1..N, total_1..N`` come from sacrebleu's own ``BLEU`` (an optional dependency,
imported here only), so ``metric="bleu"`` recomputes sacrebleu's corpus BLEU on every
resample, and on the full data gives ``sacrebleu.corpus_bleu``'s score.  Files are read
as sacrebleu's command line reads them (UTF-8, ``.gz`` too, trailing whitespace
stripped); an item is a line, its id the line number (from 1).
"""

from __future__ import annotations

import gzip
import os
from collections import Counter

import numpy as np

from pairboot.errors import InputError
from pairboot.io.harness import Scores
from pairboot.metrics import bleu_metric

NAME = "sacrebleu"
OPTIONS = ("system", "refs", "tokenize", "lowercase", "max_ngram_order")
FILES = ("system", "refs")
"""The options that name files this reader opens: the hypotheses and more references."""


def detect(path: str) -> bool:
    """Never: a plain-text reference cannot be told from any other text file."""
    return False


def _bleu_class():
    try:
        from sacrebleu.metrics import BLEU
    except ImportError:
        raise ImportError(
            "the sacrebleu reader computes BLEU statistics with sacrebleu: "
            "pip install sacrebleu") from None
    return BLEU


def _lines(path: str, what: str) -> list[str]:
    """The lines of a text file as sacrebleu's command line reads them."""
    if not os.path.isfile(path):
        raise InputError(f"{path}: no such file ({what})", param="system"
                         if what == "hypothesis" else None)
    out = []
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        for n, raw in enumerate(f, 1):
            try:
                out.append(raw.decode("utf-8").rstrip())
            except UnicodeDecodeError:
                raise InputError(f"{path}: line {n}: not UTF-8 text") from None
    return out


def _names(value, what: str) -> list[str]:
    names = [s.strip() for s in value.split(",")] if isinstance(value, str) else value
    names = [os.fspath(s) for s in names if str(s).strip()]
    twice = [s for s, k in Counter(names).items() if k > 1]
    if not names or twice:
        raise InputError(f"`{what}` must name each file once, got {value!r}", param=what)
    return names


def _integer(value) -> int:
    """``max_ngram_order``: a positive integer (``"3"`` from the command line too)."""
    text = value.strip() if isinstance(value, str) else None
    if text is not None and text.isdigit():
        value = int(text)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(f"`max_ngram_order` must be a positive integer, got {value!r}",
                         param="max_ngram_order")
    return int(value)


def _flag(value) -> bool:
    """``lowercase``: a bool, or its spelling on the command line (true/false, yes/no)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    words = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}
    if isinstance(value, str) and value.strip().lower() in words:
        return words[value.strip().lower()]
    raise InputError(f"`lowercase` must be true or false, got {value!r}", param="lowercase")


def _same_length(path: str, lines: list, ref: str, n_ref: int) -> None:
    if len(lines) != n_ref:
        where = f"line {n_ref + 1}" if len(lines) > n_ref else f"line {len(lines) + 1}"
        raise InputError(f"{path}: {where}: {len(lines):,} lines, but the reference {ref} "
                         f"has {n_ref:,}: every line must translate the same line")


def _bleu(tokenize, lowercase: bool, max_ngram_order: int):
    """sacrebleu's BLEU with these options (effective order changes scores, not counts)."""
    kwargs = {"lowercase": lowercase, "max_ngram_order": max_ngram_order,
              "effective_order": True}
    if tokenize is not None:
        kwargs["tokenize"] = tokenize
    try:
        return _bleu_class()(**kwargs)
    except (ValueError, KeyError, RuntimeError) as exc:
        raise InputError(f"sacrebleu's BLEU refuses `tokenize={tokenize!r}` with "
                         f"`max_ngram_order={max_ngram_order}`: {type(exc).__name__} {exc}",
                         param="tokenize") from None


def _statistics(bleu, hypotheses, references) -> np.ndarray:
    """(sentences x (2 + 2N)) BLEU statistics: ``sys_len, ref_len, correct_1..N,
    total_1..N`` per sentence, from ``BLEU.sentence_score`` (whose counts are the corpus
    computation's: ``corpus_bleu`` sums them)."""
    rows = []
    for hyp, *refs in zip(hypotheses, *references, strict=True):
        s = bleu.sentence_score(hyp, refs)
        rows.append([s.sys_len, s.ref_len, *s.counts, *s.totals])
    return np.array(rows, dtype=np.float64)


def read(path: str, system=None, refs=None, tokenize=None, lowercase=False,
         max_ngram_order=4) -> Scores:
    """BLEU statistics per sentence of each hypothesis file against the reference.

    ``path``: the reference, one sentence per line; ``system``: the hypothesis files
    (a list, or paths separated by commas), each a system named by its path;
    ``refs``: further references (multi-reference BLEU); ``tokenize``, ``lowercase``,
    ``max_ngram_order``: sacrebleu's BLEU options (default 13a, cased, 4).
    """
    if system is None:
        raise InputError(f"{path} is the reference: give the hypothesis files to score "
                         "against it with `system`", param="system")
    max_ngram_order = _integer(max_ngram_order)
    lowercase = _flag(lowercase)
    bleu = _bleu(tokenize, lowercase, max_ngram_order)
    hyp_paths = _names(system, "system")
    ref_paths = [os.fspath(path)] + ([] if refs is None else _names(refs, "refs"))
    references = [_lines(p, "reference") for p in ref_paths]
    n = len(references[0])
    if n == 0:
        raise InputError(f"{path}: an empty reference")
    for p, lines in zip(ref_paths[1:], references[1:]):
        _same_length(p, lines, path, n)
    stats = bleu_metric(max_ngram_order).stats
    systems = {}
    for p in hyp_paths:
        lines = _lines(p, "hypothesis")
        _same_length(p, lines, path, n)
        systems[p] = _statistics(bleu, lines, references)
    from sacrebleu import __version__

    empty = sum(1 for line in references[0] if not line)
    notes = [
        f"{path}: {n:,} reference lines" + (f" ({empty:,} empty)" if empty else "")
        + (f", with {len(ref_paths) - 1} more reference(s)" if len(ref_paths) > 1 else ""),
        f"{len(hyp_paths)} hypothesis files: {', '.join(hyp_paths)}",
        f"BLEU statistics per sentence by sacrebleu {__version__} (tokenize "
        f"{tokenize or '13a (its default)'}, {'lowercased' if lowercase else 'cased'}, "
        f"{max_ngram_order}-gram); corpus BLEU recomputed on every resample",
    ]
    return Scores(path=os.fspath(path), format=NAME,
                  ids=np.array([str(i) for i in range(1, n + 1)], dtype=object),
                  systems=systems, score="BLEU", metric="bleu", stats=stats,
                  notes=tuple(notes))
