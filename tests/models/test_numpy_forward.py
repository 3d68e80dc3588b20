"""The numpy forward passes that serve a conversation (issue 33) compute what the torch modules compute: the
SRU encoder (``SRUTextEncoder`` in eval mode) and pooled MiniLM (``SentenceEncoder``), to 1e-5, with the same
word-piece ids as transformers' tokenizer."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from models.numpy_forward import (
    SRUState,
    minilm_sentence_vectors,
    sru_finish,
    sru_raw,
    word_piece_ids,
    word_piece_table,
)
from models.sru_encoder import SRUEncoderConfig, SRUTextEncoder, WordVectors, pad_batch

TEXTS = [
    "my email does not sync",
    "",
    "wifi",
    "How do I move my contacts from an old phone to a new one? It's a Samsung Galaxy",
    "résumé naïve café 東京 don't   spaces\ttab",
]


@pytest.mark.parametrize(("proj_dim", "pooling", "layers"), [(12, "meanmax", 1), (0, "mean", 2), (8, "max", 1)])
def test_the_numpy_sru_encoder_gives_the_torch_encoders_vectors(proj_dim, pooling, layers):
    torch.manual_seed(proj_dim + layers)
    rng = np.random.default_rng(0)
    table = torch.from_numpy(rng.normal(size=(50, 10)).astype(np.float32))
    table[0] = 0.0
    vectors = WordVectors("test", table, lambda texts: [[1 + (ord(c) % 49) for c in t] for t in texts])
    config = SRUEncoderConfig(vectors="minilm", proj_dim=proj_dim, hidden=6, layers=layers, pooling=pooling, out_dim=5)
    encoder = SRUTextEncoder(config, vectors)
    with torch.no_grad():  # trained-looking weights: sru's init leaves weight_c at 0 and the biases small
        for name, parameter in encoder.named_parameters():
            if "rnn" in name:
                parameter.copy_(torch.randn_like(parameter) * 0.5)
    encoder.eval()
    ids = vectors.token_ids(TEXTS, config.max_len)
    with torch.no_grad():
        expected_raw = encoder.raw(*pad_batch(ids)).numpy()
        expected = encoder.encode_ids(ids).numpy()
    state = SRUState.from_state(encoder.state_dict(), config.hidden, config.pooling)
    raw = sru_raw(state, table.numpy(), ids)
    np.testing.assert_allclose(raw, expected_raw, atol=1e-5)
    np.testing.assert_allclose(sru_finish(state, raw), expected, atol=1e-5)


def test_the_word_pieces_and_the_table_are_transformers_ones():
    from models.pretrained import load_tokenizer, word_piece_embeddings

    expected = load_tokenizer()(TEXTS, add_special_tokens=False)["input_ids"]
    assert word_piece_ids(TEXTS) == expected
    table = word_piece_embeddings().numpy().copy()
    table[0] = 0.0
    np.testing.assert_array_equal(word_piece_table(), table)


def test_pooled_minilm_in_numpy_gives_the_sentence_encoders_vectors():
    from models.pretrained import SentenceEncoder

    texts = [*TEXTS, "word " * 300]  # the last is cut at 256 word pieces, as transformers cuts it
    np.testing.assert_allclose(minilm_sentence_vectors(texts), SentenceEncoder().encode(texts), atol=1e-5)
