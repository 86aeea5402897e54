"""Unit keys and Poisson(1) weights: the Poisson bootstrap's draws, as pure functions.

The Poisson bootstrap (Chamandy, Muralidharan, Najmi & Naidu 2012) gives every unit an
independent Poisson(1) weight in every replicate.  Here the weight of a unit in replicate
``r`` depends only on the seed, the unit's 64-bit key and ``r``, so any partition of the
units, in any order, on any machine, gets the same weights.  Both definitions are fixed
and documented, and the tests pin them with recorded values:

*Key of an id* (:func:`id_keys`): the id's text, UTF-8 encoded (an integer's text is its
decimal form, so ``17`` and ``"17"`` are one id, whether a file's reader saw a number or
text), as ``L`` bytes, zero-padded to whole 8-byte little-endian words ``w_1..w_m``::

    h = mix64(KEY_BASIS + L);  h = mix64(h ^ w_i) for i = 1..m;  key = h

*Weight* (:func:`poisson_weights`): with ``s`` the run's 64-bit seed word
(:func:`seed_word`, one per seed and salt) and ``z = mix64(key ^ s)``, the weight of
replicate ``r`` is the number of thresholds ``T_0 < T_1 < ... < T_19`` at or below
``v = mix64(z + (r + 1) * GAMMA)``, where ``T_j = ceil(2**64 P(X <= j))`` for ``X ~
Poisson(1)``: an inverse-CDF draw, exact to 2**-64 in every probability.

``mix64`` and ``GAMMA`` are those of :mod:`.spec` (SplitMix64's finaliser and increment).
"""

from __future__ import annotations

import numpy as np

from pairboot.engine.spec import GAMMA, mix64

__all__ = ["KEY_BASIS", "POISSON_THRESHOLDS", "id_keys", "text_keys", "position_keys",
           "seed_word",
           "poisson_weights", "key_checksum"]

KEY_BASIS = np.uint64(0x70616972626F6F74)
"""The hash's starting constant (the bytes of "pairboot")."""

POISSON_THRESHOLDS = np.array([
    0x5E2D58D8B3BCDF1B, 0xBC5AB1B16779BE36, 0xEB715E1DC1582DC3, 0xFB23979734A252F2,
    0xFF1025F59174DC3E, 0xFFD90F3BA4055E1A, 0xFFFA8B71FC72C914, 0xFFFF540C0914B3CA,
    0xFFFFED1F4AA8F121, 0xFFFFFE216E641463, 0xFFFFFFD4D85D3184, 0xFFFFFFFC6DA262B5,
    0xFFFFFFFFBA12D179, 0xFFFFFFFFFB07C64D, 0xFFFFFFFFFFAB8EA6, 0xFFFFFFFFFFFABE23,
    0xFFFFFFFFFFFFB11B, 0xFFFFFFFFFFFFFBA2, 0xFFFFFFFFFFFFFFC6, 0xFFFFFFFFFFFFFFFE,
], dtype=np.uint64)
"""``T_j = ceil(2**64 P(X <= j))``, X ~ Poisson(1), j = 0..19 (T_20 would be 2**64)."""

_POISSON_STREAM = 0x706F6973  # "pois": SeedSequence spawn key of the Poisson seed words


def seed_word(seed: int, salt: int = 0) -> np.uint64:
    """The 64-bit word ``s`` of a seed: ``SeedSequence(seed, spawn_key=(0x706F6973,
    salt))``'s first uint64.  ``salt`` tells apart draws that must be independent for the
    same keys (each system's draw in an unpaired comparison)."""
    seq = np.random.SeedSequence(int(seed), spawn_key=(_POISSON_STREAM, int(salt)))
    return np.uint64(seq.generate_state(1, np.uint64)[0])


def _hash_words(words: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The key hash of rows of zero-padded little-endian words, ``lengths`` bytes each."""
    with np.errstate(over="ignore"):
        h = mix64(KEY_BASIS + lengths.astype(np.uint64))
        n_words = (lengths + 7) // 8
        for i in range(words.shape[1]):
            live = n_words > i
            h = np.where(live, mix64(h ^ words[:, i]), h)
    return h


def text_keys(offsets: np.ndarray, data: np.ndarray) -> np.ndarray:
    """Keys of texts stored end to end: text ``i`` is the UTF-8 bytes
    ``data[offsets[i]:offsets[i + 1]]`` (Arrow's layout of a string column), hashed in
    numpy without a Python object per text.

    The texts are taken in order of their number of words, so those that have an
    ``i``-th word are a tail of that order: word ``i`` is read (8 bytes from the text's
    start + 8i, its bytes past the text's end cleared) and hashed for that tail only,
    and a long text costs its own length, not its length times the number of texts."""
    offsets = np.asarray(offsets, dtype=np.int64)
    data = np.frombuffer(data, dtype=np.uint8) if not isinstance(data, np.ndarray) else data
    lengths = np.diff(offsets)
    n_words = (lengths + 7) // 8
    order = np.argsort(n_words, kind="stable")
    size = lengths[order]
    lo, hi = (int(offsets[0]), int(offsets[-1])) if len(offsets) else (0, 0)
    start = offsets[:-1][order] - lo
    padded = np.zeros(hi - lo + 8, dtype=np.uint8)  # (a last word reads past the end)
    padded[: hi - lo] = data[lo:hi]
    # the 8 bytes from every position, as one little-endian word each
    word_at = np.ndarray((hi - lo + 1,), dtype="<u8", buffer=padded, strides=(1,))
    ones = np.uint64(0xFFFFFFFFFFFFFFFF)
    with np.errstate(over="ignore"):
        h = mix64(KEY_BASIS + size.astype(np.uint64))
        tails = np.searchsorted(n_words[order], np.arange(int(n_words.max(initial=0))),
                                side="right")
        for i, t in enumerate(tails.tolist()):  # the texts with more than i words
            w = word_at[start[t:] + 8 * i]
            spare = np.maximum(8 * (i + 1) - size[t:], 0)  # bytes past the text's end
            w &= ones >> (8 * spare).astype(np.uint64)
            h[t:] = mix64(h[t:] ^ w)
    keys = np.empty(len(lengths), dtype=np.uint64)
    keys[order] = h
    return keys


def _text_keys(texts: list[str]) -> np.ndarray:
    encoded = [t.encode("utf-8", "surrogatepass") for t in texts]
    lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    return text_keys(offsets, np.frombuffer(b"".join(encoded), dtype=np.uint8))


def _integer_keys(values: np.ndarray) -> np.ndarray:
    """Keys of integers from their decimal text, built digit by digit in numpy."""
    v = values.astype(np.int64)
    neg = v < 0
    mag = np.where(neg, np.uint64(0) - v.astype(np.uint64), v.astype(np.uint64))
    digits = np.ones(len(v), dtype=np.int64)
    power = np.uint64(10)
    for d in range(1, 20):
        digits += mag >= power
        if d < 19:
            power = power * np.uint64(10)
    lengths = digits + neg
    raw = np.zeros((len(v), 24), dtype=np.uint8)
    raw[neg, 0] = ord("-")
    rest = mag.copy()
    for j in range(20):  # the j-th digit from the right sits at byte lengths - 1 - j
        pos = lengths - 1 - j
        ok = j < digits
        raw[np.flatnonzero(ok), pos[ok]] = (rest[ok] % np.uint64(10)).astype(np.uint8) + ord("0")
        rest //= np.uint64(10)
    return _hash_words(raw.view("<u8"), lengths)


def id_keys(ids, name: str = "ids") -> np.ndarray:
    """The 64-bit key of every id (text, or integers as their decimal text).

    Integral floats (ids read with a missing value elsewhere in the column) are integers;
    other floats, missing ids and other objects are refused with ``ValueError``.
    """
    if hasattr(ids, "to_numpy"):
        ids = ids.to_numpy()
    if isinstance(ids, (list, tuple)):  # (numpy text would drop a trailing NUL)
        arr = np.empty(len(ids), dtype=object)
        arr[:] = ids
        kinds = set(map(type, ids))
        if kinds <= {int} and ids:
            arr = np.asarray(ids) if all(-(2**63) <= v < 2**63 for v in ids) else arr
    else:
        arr = np.asarray(ids)
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be one id per item, got shape {arr.shape}")
    if arr.dtype.kind in "iu":
        if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
            return _text_keys([str(int(v)) for v in arr.tolist()])
        return _integer_keys(arr)
    if arr.dtype.kind == "b":
        raise ValueError(f"`{name}` must be text or integers, got booleans")
    if arr.dtype.kind == "f":
        whole = np.isfinite(arr) & (arr == np.round(arr)) & (np.abs(arr) < 2.0**63)
        if not whole.all():
            i = int(np.argmin(whole))
            raise ValueError(f"`{name}` must be text or integers, got {arr[i]!r} at item {i}")
        return _integer_keys(arr.astype(np.int64))
    if arr.dtype.kind == "U":
        return _text_keys(arr.tolist())
    texts = []
    for i, v in enumerate(arr.tolist()):
        if isinstance(v, str):
            texts.append(v)
        elif isinstance(v, (int, np.integer)) and not isinstance(v, bool):
            texts.append(str(int(v)))
        elif isinstance(v, float) and v.is_integer():
            texts.append(str(int(v)))
        elif isinstance(v, bytes):
            texts.append(v.decode("utf-8", "surrogateescape"))
        else:
            raise ValueError(f"`{name}` must be text or integers, got {v!r} at item {i}")
    return _text_keys(texts)


def position_keys(start: int, n: int) -> np.ndarray:
    """The keys of rows ``start .. start + n - 1`` taken as ids (no ids given)."""
    return _integer_keys(np.arange(start, start + n, dtype=np.int64))


def poisson_weights(keys: np.ndarray, word: np.uint64, replicates: np.ndarray) -> np.ndarray:
    """(len(replicates), len(keys)) Poisson(1) weights, as uint8 (the numpy reference)."""
    with np.errstate(over="ignore"):
        z = mix64(np.asarray(keys, dtype=np.uint64) ^ np.uint64(word))
        r = np.asarray(replicates, dtype=np.uint64)[:, None]
        v = mix64(z[None, :] + (r + np.uint64(1)) * GAMMA)
    return np.searchsorted(POISSON_THRESHOLDS, v, side="right").astype(np.uint8)


def key_checksum(keys: np.ndarray) -> tuple[int, int]:
    """An order-independent checksum of a set of keys: (count, sum of mix64(key) mod 2**64).

    Two sets with the same checksum hold the same keys but with chance about 2**-64."""
    with np.errstate(over="ignore"):
        total = mix64(np.asarray(keys, dtype=np.uint64) ^ GAMMA).sum(dtype=np.uint64)
    return len(keys), int(total)
