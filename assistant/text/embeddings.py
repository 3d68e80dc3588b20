"""Sentence embeddings of fixed texts with an on-disk cache (label answers and documents, dev queries,
community answers): the one cache every room uses for pooled MiniLM vectors."""

from __future__ import annotations

import hashlib
from collections.abc import Generator, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from assistant.progress import Progress, run_job
from assistant.text.encoder import TextEncoder
from models.checkpoint import write_npz_atomic
from models.pretrained import EMBEDDING_DIM, SentenceEncoder


class CachingSentenceEncoder:
    """A sentence encoder (default ``SentenceEncoder``) with an on-disk cache of fixed texts: label answers
    and documents, dev queries, community answers. Encoding them again costs a file read.

    The cache is a ``.npz`` of ``keys`` (SHA-1 of each text) [K] and ``vectors`` [K, D], written atomically
    whenever more than one new text was encoded (a lone new text is the user's query: not worth a write).
    One file per encoder: two instances on one file would each keep only their own additions.
    """

    def __init__(self, path: str | Path, encoder: TextEncoder | None = None) -> None:
        self.path = Path(path)
        self.encoder: TextEncoder = encoder or SentenceEncoder()
        self.dim = getattr(self.encoder, "dim", EMBEDDING_DIM)
        self._vectors: dict[str, np.ndarray] = {}
        if self.path.is_file():
            try:
                with np.load(self.path, allow_pickle=False) as data:
                    self._vectors = dict(zip(data["keys"].tolist(), data["vectors"]))
            except (OSError, ValueError, KeyError):
                self._vectors = {}  # a damaged or older cache is rebuilt: it holds nothing that cannot be recomputed

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.sha1(text.encode("utf-8")).hexdigest()

    def encode_job(self, texts: Sequence[str], batch: int = 256) -> Generator[Progress, None, np.ndarray]:
        """[N, D] float32 embeddings of ``texts``; yields Progress per batch of texts not cached yet."""
        keys = [self._key(t) for t in texts]
        missing = sorted({k: t for k, t in zip(keys, texts) if k not in self._vectors}.items())
        for start in range(0, len(missing), batch):
            chunk = missing[start : start + batch]
            vectors = self.encoder.encode([t for _, t in chunk])
            self._vectors.update({k: v for (k, _), v in zip(chunk, vectors)})
            yield Progress(min(start + batch, len(missing)), len(missing), "embedding texts")
        if len(missing) > 1:
            self.save()
        if not keys:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vectors[k] for k in keys]).astype(np.float32)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return run_job(self.encode_job(texts))

    def save(self) -> None:
        keys = sorted(self._vectors)
        vectors = np.stack([self._vectors[k] for k in keys]) if keys else np.zeros((0, self.dim), np.float32)
        write_npz_atomic(self.path, keys=np.array(keys), vectors=vectors.astype(np.float32))

    def warm(self, texts: list[str]) -> None:
        """Encode and cache ``texts`` now (e.g. all answers of a domain, in a background job)."""
        self.encode(texts)


@lru_cache(maxsize=1)
def _phrase_encoder() -> SentenceEncoder:
    return SentenceEncoder()


def phrase_vectors(phrases: Sequence[str]) -> np.ndarray:
    """[N, D] unit-length pooled MiniLM vectors of short phrases (facet values: "delete", "exchange rate"),
    not cached on disk: question induction compares a few hundred of them once per build."""
    if not phrases:
        return np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a few words per text: one thread is several times faster on a busy 2-core machine
    try:
        return _phrase_encoder().encode(list(phrases)).astype(np.float32)
    finally:
        torch.set_num_threads(threads)
