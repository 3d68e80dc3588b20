"""ServingSentenceEncoder: a query through MiniLM in numpy (no torch for a conversation's shortlist), the same
vectors as the torch model to 1e-5; many texts, or a stand-in for MiniLM, go where they went before."""

from __future__ import annotations

import numpy as np

import assistant.text.embeddings as embeddings
from assistant.text.embeddings import ServingSentenceEncoder
from models.pretrained import SentenceEncoder
from tests.support import HashingEncoder


def test_a_query_is_embedded_in_numpy_as_the_torch_model_embeds_it():
    texts = ["my email does not sync", "Where do my emails go when I click on 'Archive' in Gmail?"]
    served = ServingSentenceEncoder().encode(texts)
    assert served.shape == (2, 384) and served.dtype == np.float32
    np.testing.assert_allclose(served, SentenceEncoder().encode(texts), atol=1e-5)


def test_a_stand_in_for_minilm_encodes_every_text(monkeypatch):
    monkeypatch.setattr(embeddings, "SentenceEncoder", HashingEncoder)  # as tests/gui's hashed MiniLM does
    served = ServingSentenceEncoder().encode(["red breast"])
    np.testing.assert_array_equal(served, HashingEncoder().encode(["red breast"]))
