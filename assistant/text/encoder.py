"""The seam between text and vectors: what every room that embeds texts needs of an encoder.

Pooled MiniLM (``models.pretrained.SentenceEncoder``), its cached form (``assistant.text.embeddings.
CachingSentenceEncoder``), the SRU encoder (``models.sru_encoder``) and the tests' hashed bag-of-words
encoders are used interchangeably by the comparison phase, the priors and the summarizer: they only ever call
``encode``. The Protocol says so, and the type checker holds each of them to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class TextEncoder(Protocol):
    """Texts to vectors: ``encode(texts)`` gives an [N, D] float array, one row per text, in order (an empty
    list gives [0, D]). D is fixed per encoder; whether rows are unit length is the encoder's own affair."""

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...
