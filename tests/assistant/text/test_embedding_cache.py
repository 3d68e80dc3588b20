"""assistant.text.embeddings: a damaged cache of answer vectors is a cache that is not there (issue 41): it is
read as empty, said in one line and rebuilt by the next write, never a traceback in every `ask`."""

from __future__ import annotations

import os
import zipfile

import numpy as np
import pytest

from assistant.text.embeddings import CachingSentenceEncoder
from tests.support import HashingEncoder

pytestmark = pytest.mark.reliability


def _cache(tmp_path):
    path = tmp_path / "text-embeddings.npz"
    vectors = CachingSentenceEncoder(path, HashingEncoder()).encode(["one text", "another text"])
    return path, vectors


def _truncated(path):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _random_after_the_magic(path):
    path.write_bytes(b"PK\x03\x04" + os.urandom(200))


def _keys_of_another_length(path):
    np.savez(path, keys=np.array(["a", "b", "c"]), vectors=np.zeros((2, HashingEncoder().dim), np.float32))


def _deflated(path):  # savez_compressed: a bomb would be inflated by np.load
    np.savez_compressed(path, keys=np.array(["a"]), vectors=np.zeros((1, HashingEncoder().dim), np.float32))


def _pickled_keys(path):
    np.savez(path, keys=np.array([{"a": 1}], dtype=object), vectors=np.zeros((1, HashingEncoder().dim)))


@pytest.mark.parametrize(
    "damage", [_truncated, _random_after_the_magic, _keys_of_another_length, _deflated, _pickled_keys]
)
def test_a_damaged_cache_is_read_as_empty_and_rebuilt(tmp_path, damage):
    path, vectors = _cache(tmp_path)
    damage(path)
    cache = CachingSentenceEncoder(path, HashingEncoder())
    assert cache.note.startswith("text-embeddings.npz was damaged (") and cache.note.endswith("it is rebuilt")
    np.testing.assert_allclose(cache.encode(["one text", "another text"]), vectors)
    with zipfile.ZipFile(path) as archive:  # written afresh, whole
        assert sorted(archive.namelist()) == ["keys.npy", "vectors.npy"]
    assert CachingSentenceEncoder(path, HashingEncoder()).note == ""


def test_a_sound_cache_says_nothing(tmp_path):
    path, _ = _cache(tmp_path)
    assert CachingSentenceEncoder(path, HashingEncoder()).note == ""
