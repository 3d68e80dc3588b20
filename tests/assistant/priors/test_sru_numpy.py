"""The vectors a conversation needs from the encoder are stored once and read on later starts, only while
they belong to the same checkpoint and data (issue 33)."""

from __future__ import annotations

import numpy as np

from assistant.priors.sru_numpy import SERVING_FILE, load_or_store_vectors, serving_key


def test_vectors_are_computed_once_per_checkpoint_and_data(tmp_path):
    checkpoint = tmp_path / "encoder.pt"
    checkpoint.write_bytes(b"weights one")
    calls: list[int] = []

    def compute() -> dict[str, np.ndarray]:
        calls.append(1)
        return {"labels": np.full((3, 2), float(len(calls)), dtype=np.float32)}

    key = serving_key(checkpoint, "data-a")
    first = load_or_store_vectors(tmp_path, key, compute)
    again = load_or_store_vectors(tmp_path, key, compute)
    assert len(calls) == 1 and (tmp_path / SERVING_FILE).is_file()
    np.testing.assert_array_equal(first["labels"], again["labels"])
    checkpoint.write_bytes(b"weights two")  # retrained on the same data: other weights, other vectors
    retrained = load_or_store_vectors(tmp_path, serving_key(checkpoint, "data-a"), compute)
    assert len(calls) == 2 and retrained["labels"][0, 0] == 2.0
    load_or_store_vectors(tmp_path, serving_key(checkpoint, "data-b"), compute)  # the domain changed
    assert len(calls) == 3
    (tmp_path / SERVING_FILE).write_bytes(b"not a zip")  # damaged: computed again, never an error
    load_or_store_vectors(tmp_path, serving_key(checkpoint, "data-b"), compute)
    assert len(calls) == 4
