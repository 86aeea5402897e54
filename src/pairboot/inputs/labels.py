"""Per-item labels (groups, strata) as codes, checked once, with messages that name them.

:func:`item_labels` turns one label per item (a list, a numpy array, a pandas Series or
``Categorical``, or the codes and categories :func:`pairboot.io.merge_labels` returns)
into codes and the distinct labels; :func:`group_strata` applies the rule that a group
lies within one stratum; :func:`merged_labels` adds the labels of parts of the items
under the same rules.  :mod:`pairboot.core.units` turns them into units.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from pairboot.errors import InputError

__all__ = ["item_labels", "group_strata", "merged_labels", "normalisation_hint", "plain",
           "shown", "spans_strata"]


def item_labels(values, name: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Codes 0..L-1 and the distinct labels for one label per item.

    Labels given as codes into categories (a pandas ``Categorical`` or category Series,
    or what :func:`pairboot.io.merge_labels` returns for a large file) are read as
    the labels they stand for, without making one object per item: the same codes and
    labels, and the same messages, as a list of the labels.
    """
    coded = getattr(getattr(values, "cat", None), "codes", None) is not None
    if coded:  # a pandas Series of category dtype
        values = values.array
    if hasattr(values, "codes") and hasattr(values, "categories"):
        return _coded_labels(np.asarray(values.codes), list(values.categories), name, n)
    if hasattr(values, "to_numpy"):
        values = values.to_numpy()
    if isinstance(values, np.ndarray) and values.dtype.kind != "O":
        arr, missing = values, _missing(values)
    else:  # a list or objects: numpy alone would turn 1 and "1" into the same "1"
        items = list(values.ravel()) if isinstance(values, np.ndarray) else list(values)
        arr, missing = _label_array(items, name)
    if arr.ndim != 1 or len(arr) != n:
        raise InputError(
            f"`{name}` must have one label per item ({n}), got shape {arr.shape}", param=name
        )
    _refuse_missing(missing, name)
    uniq, codes = np.unique(arr, return_inverse=True)
    return codes.reshape(-1), uniq


def _label_array(items: list, name: str) -> tuple[np.ndarray, np.ndarray]:
    """A list of labels as an array ``np.unique`` can sort, and which of them are missing.

    Text only: a numpy string array (unless some label holds a NUL, which numpy's strings
    would drop at the end: "a\\0" and "a" would become one label).  Otherwise objects, of
    one kind: 1 and "1" would be different labels.
    """
    if set(map(type, items)) == {str} and not any("\0" in v for v in items):
        arr = np.array(items)
        return arr, _missing(arr)
    _refuse_mixed(items, name)
    arr = np.empty(len(items), dtype=object)
    arr[:] = items
    return arr, _missing(arr)


def _refuse_mixed(labels, name: str) -> None:
    """Refuse labels of more than one type (numbers and text: 1 and "1")."""
    kinds = {_label_kind(v) for v in labels} - {"missing"}
    if len(kinds) > 1:
        raise InputError(
            f"`{name}` mixes label types ({', '.join(sorted(kinds))}): 1 and '1' "
            "would be different labels; convert them to one type",
            param=name,
        )


def merged_labels(parts: list[np.ndarray], name: str) -> tuple[np.ndarray, list[np.ndarray]]:
    """The distinct labels of several parts of the items (each part's distinct labels,
    as :func:`item_labels` returns them), and where every part's labels sit among them;
    labels of more than one type are refused as in one list of labels."""
    _refuse_mixed((v for p in parts for v in p), name)
    labels = np.unique(np.concatenate(parts))
    return labels, [np.searchsorted(labels, p) for p in parts]


def _missing(arr: np.ndarray) -> np.ndarray:
    """Which labels are missing: NaN, blank text or bytes, None."""
    if arr.dtype.kind == "f":
        return np.isnan(arr)
    if arr.dtype.kind in "US":
        return np.char.str_len(np.char.strip(arr)) == 0
    if arr.dtype.kind == "O":
        return np.array([_label_kind(v) == "missing" for v in arr.ravel()], dtype=bool)
    return np.zeros(arr.shape, dtype=bool).ravel()


def _refuse_missing(missing: np.ndarray, name: str) -> None:
    if missing.any():
        i = int(np.argmax(missing))
        raise InputError(
            f"`{name}` has no label for item {i} ({int(missing.sum())} item(s) without one)",
            param=name,
        )


def _coded_labels(
    codes: np.ndarray, categories: list, name: str, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`item_labels` of ``categories[codes]`` (a code of -1: no label, None).

    The categories that some item uses go through :func:`_label_array` with a None
    when an item has no label, so that they are read as the list of labels would be
    (numpy text or objects, the same checks and messages)."""
    if codes.ndim != 1 or len(codes) != n:
        raise InputError(
            f"`{name}` must have one label per item ({n}), got shape {codes.shape}", param=name
        )
    absent = codes < 0
    if absent.all():
        _refuse_missing(absent, name)  # (a list of Nones says the same)
    used = np.flatnonzero(np.bincount(codes[~absent], minlength=len(categories)))
    items = [categories[j] for j in used.tolist()]
    arr, missing = _label_array(items + [None] * bool(absent.any()), name)
    arr, missing = arr[: len(items)], missing[: len(items)]
    lookup = np.full(len(categories), -1, dtype=np.intp)
    lookup[used] = np.arange(len(used))
    position = lookup[np.where(absent, 0, codes)]  # (a placeholder where absent)
    _refuse_missing(absent | missing[position], name)
    uniq, category_codes = np.unique(arr, return_inverse=True)
    return category_codes.reshape(-1)[position], uniq


def plain(label):
    """A numpy scalar label as the Python value it stands for (for messages)."""
    return label.item() if isinstance(label, np.generic) else label


SHOWN_CHARACTERS = 60
"""How much of a long id or label a message shows."""


def shown(label) -> str:
    """An id or label as a message writes it: its repr, cut after
    :data:`SHOWN_CHARACTERS` characters with "…" and the length (an id of 100 KB would
    make an error line of 100 KB)."""
    label = plain(label)
    if isinstance(label, str):
        if len(label) <= SHOWN_CHARACTERS:
            return repr(label)
        return f"{label[:SHOWN_CHARACTERS] + '…'!r} ({len(label):,} characters)"
    try:
        text = repr(label)
    except ValueError:  # an integer of more digits than Python turns into text
        return f"an integer of {label.bit_length():,} bits"
    if len(text) <= SHOWN_CHARACTERS + 20:
        return text
    return f"{text[:SHOWN_CHARACTERS]}… ({len(text):,} characters)"


def normalisation_hint(only_a, only_b, name_a: str, name_b: str,
                       every: tuple[int, int] | None = None) -> str:
    """A sentence for a message about ids found in only one of two sources: when some
    of ``only_a`` and ``only_b`` are the same text in another Unicode normal form
    (``café`` as U+00E9 or as e + U+0301, which print alike), how many, with the code
    points of one; else ``""``.  Looks at the first 10,000 of each; ``every``, how many
    ids each source has alone when ``only_a`` and ``only_b`` are only some of them."""
    import unicodedata

    limit = 10_000
    by_form = {}
    for b in list(only_b)[:limit]:
        if isinstance(b, str):
            by_form.setdefault(unicodedata.normalize("NFC", b), b)
    pairs = []
    for a in list(only_a)[:limit]:
        b = by_form.get(unicodedata.normalize("NFC", a)) if isinstance(a, str) else None
        if b is not None and b != a:
            pairs.append((a, b))
    if not pairs:
        return ""
    a, b = pairs[0]
    start = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    end = 0
    while end < min(len(a), len(b)) - start and a[len(a) - 1 - end] == b[len(b) - 1 - end]:
        end += 1

    def points(text: str) -> str:
        return " ".join(f"U+{ord(c):04X}" for c in text[start:len(text) - end][:12])

    def form(text: str) -> str:
        return next((f for f in ("NFC", "NFD") if unicodedata.is_normalized(f, text)), "mixed")

    total = every if every is not None else (len(only_a), len(only_b))
    every = len(pairs) == total[0] == total[1]
    count = ("the ids differ" if every else
             f"{len(pairs):,} of them differ{'s' if len(pairs) == 1 else ''}")
    return (f"; {count} only in Unicode normalisation ({form(a)} in {name_a}, {form(b)} in "
            f"{name_b}): {shown(a)} has {points(a)} at character {start + 1} in {name_a}, "
            f"{points(b)} in {name_b}; normalise the ids (unicodedata.normalize('NFC', id))")


def _label_kind(v) -> str:
    if v is None or (isinstance(v, (float, np.floating)) and math.isnan(v)):
        return "missing"
    if type(v).__name__ in ("NAType", "NaTType"):  # pandas' missing values
        return "missing"
    if isinstance(v, str):
        return "missing" if not v.strip() else "text"
    if isinstance(v, bytes):  # blank is missing, as in a numpy bytes array
        return "missing" if not v.strip() else "bytes"
    if isinstance(v, (numbers.Number, np.number)):
        return "number"
    return type(v).__name__


def group_strata(gcodes: np.ndarray, gnames, scodes: np.ndarray, snames) -> np.ndarray:
    """The stratum of every group (its items' codes ``gcodes``, their strata ``scodes``);
    a group with items in two strata is an error naming both (its first item's first)."""
    home = np.full(len(gnames), -1)
    home[gcodes] = scodes
    split = home[gcodes] != scodes
    if split.any():
        g = gcodes[int(np.flatnonzero(split)[0])]
        strata = scodes[gcodes == g]
        raise spans_strata(f"group {shown(gnames[g])}", snames[strata[0]],
                           snames[strata[strata != strata[0]][0]])
    return home


def spans_strata(group: str, first, second) -> InputError:
    """The error for ``group`` (its words: "group 'g'") found in strata ``first`` and
    ``second``."""
    return InputError(
        f"{group} spans more than one stratum ({shown(first)} and {shown(second)}); a "
        "group must lie within one stratum (whole groups are resampled within it)",
        param="groups")
