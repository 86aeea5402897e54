"""The replicates' keys are numpy's ``SeedSequence`` words, computed without numpy.random.

``engine/seedseq.py`` hashes ``SeedSequence(seed, spawn_key=(stream, j))`` for all
blocks ``j`` at once; every draw depends on these keys, so they must be numpy's words
exactly, for seeds of one to several 32-bit words and any stream.
"""

from __future__ import annotations

import numpy as np
import pytest

from pairboot.engine.seedseq import spawned_words
from pairboot.engine.spec import BLOCK, replicate_keys

SEEDS = [0, 1, 7, 2**32 - 1, 2**32, 2**64 + 5, 2**127, 2**128 - 1, 2**128, 2**200 + 3,
         12345678901234567890]
STREAMS = [0, 1, 0x706F6973, 2**32 + 7]


def numpy_words(seed, stream, blocks, n_words):
    return np.stack([np.random.SeedSequence(seed, spawn_key=(stream, int(j)))
                     .generate_state(n_words, np.uint64) for j in blocks])


@pytest.mark.parametrize("seed", SEEDS)
def test_the_words_are_numpys(seed):
    blocks = np.array([0, 1, 5, 300, 2**32 - 1])
    for stream in STREAMS:
        for n_words in (1, 3, BLOCK):
            got = spawned_words(seed, stream, blocks, n_words)
            assert got.dtype == np.uint64 and got.shape == (len(blocks), n_words)
            np.testing.assert_array_equal(got, numpy_words(seed, stream, blocks, n_words))


def test_the_replicates_keys_are_the_blocks_words():
    for n in (0, 1, BLOCK, BLOCK + 1, 1000):
        blocks = range(-(-n // BLOCK))
        want = (numpy_words(12345, 0, blocks, BLOCK).reshape(-1) if n else
                np.empty(0, dtype=np.uint64))
        np.testing.assert_array_equal(replicate_keys(12345, 0, n), want[:n])


def test_other_seeds_and_blocks_go_through_numpy():
    """A numpy integer seed, blocks beyond 32 bits: SeedSequence itself."""
    blocks = np.array([3, 2**32, 2**40])
    np.testing.assert_array_equal(spawned_words(np.int64(9), 2, blocks, 4),
                                  numpy_words(9, 2, blocks, 4))
    with pytest.raises(ValueError):
        spawned_words(-1, 0, blocks, 4)
