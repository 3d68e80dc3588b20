"""Sentence embeddings of fixed texts with an on-disk cache (label answers and documents, dev queries,
community answers): the one cache every room uses for pooled MiniLM vectors."""

from __future__ import annotations

import fcntl
import hashlib
import os
import zipfile
from collections.abc import Generator, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import numpy as np

from assistant.progress import Progress, run_job
from assistant.text.encoder import TextEncoder
from models.checkpoint import write_npz_atomic
from models.pretrained import EMBEDDING_DIM, SentenceEncoder
from models.pretrained import SentenceEncoder as MiniLMSentenceEncoder  # the model itself, whatever replaces the name
from models.state_arrays import ZIP_ERRORS, DamagedCheckpoint, check_entries

# what reading a damaged cache raises (a cache that is not there: it is rebuilt)
_DAMAGE: tuple[type[Exception], ...] = (*ZIP_ERRORS, OSError, KeyError, MemoryError, DamagedCheckpoint)


@contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    """An exclusive ``flock`` on the folder itself, between processes: no lock file is left beside the cache,
    and the kernel drops it when its holder dies."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing drops the lock


class CachingSentenceEncoder:
    """A sentence encoder (default ``SentenceEncoder``) with an on-disk cache of fixed texts: label answers
    and documents, dev queries, community answers. Encoding them again costs a file read.

    The cache is a ``.npz`` of ``keys`` (SHA-1 of each text) [K] and ``vectors`` [K, D], written atomically
    whenever more than one new text was encoded (a lone new text is the user's query: not worth a write).
    Instances on one file (in one or several processes) merge their additions when they write (``save``).
    """

    def __init__(self, path: str | Path, encoder: TextEncoder | None = None) -> None:
        self.path = Path(path)
        self.encoder: TextEncoder = encoder or SentenceEncoder()
        self.dim = getattr(self.encoder, "dim", EMBEDDING_DIM)
        self.note = ""  # one line when the cache on disk was damaged (``_read``)
        self._vectors: dict[str, np.ndarray] = self._read()

    def _read(self) -> dict[str, np.ndarray]:
        """The cached vectors; {} for an absent, older or damaged cache (it holds nothing that cannot be
        recomputed), a damaged one also noted in ``note`` (one line) and rebuilt by the next ``save``."""
        if not self.path.is_file():
            return {}
        try:
            with zipfile.ZipFile(self.path) as archive:  # numpy writes every entry stored: no bomb is inflated
                check_entries(archive, self.path.stat().st_size)
            with np.load(self.path, allow_pickle=False) as data:
                keys, vectors = data["keys"], data["vectors"]
                if vectors.ndim != 2 or vectors.shape[1] != self.dim:
                    return {}  # another encoder's (an older Clarify): not damaged, only of no use
                if keys.shape != (len(vectors),) or (len(keys) and keys.dtype.kind != "U") or vectors.dtype.kind != "f":
                    raise ValueError(
                        f"keys {keys.shape} of {keys.dtype} for vectors {vectors.shape} of {vectors.dtype}"
                    )
                return dict(zip(keys.tolist(), vectors.astype(np.float32)))
        except _DAMAGE as exc:
            self.note = f"{self.path.name} was damaged ({type(exc).__name__}): it is rebuilt"
            return {}

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
        """Write the cache: under a lock between processes, what another process wrote meanwhile is read and
        kept (two programs encoding new texts at once keep both's; a plain replace kept only the last's)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with _folder_lock(self.path.parent):
            self._vectors = {**self._read(), **self._vectors}
            keys = sorted(self._vectors)
            vectors = np.stack([self._vectors[k] for k in keys]) if keys else np.zeros((0, self.dim), np.float32)
            write_npz_atomic(self.path, keys=np.array(keys), vectors=vectors.astype(np.float32))

    def warm(self, texts: list[str]) -> None:
        """Encode and cache ``texts`` now (e.g. all answers of a domain, in a background job)."""
        self.encode(texts)


class ServingSentenceEncoder:
    """Pooled MiniLM for a conversation: a few texts (the person's query, new in every session) through the numpy
    forward pass (``models.numpy_forward``: no torch or transformers to import, seconds a person would wait for
    at the first shortlist), many (a domain's answers, embedded once and cached) through the torch model in
    batches. The two agree to about 1e-6 (tests/models/test_numpy_forward.py).

    The numpy pass computes MiniLM's function only: where ``SentenceEncoder`` is replaced (a test's stand-in),
    the replacement encodes every text."""

    dim = EMBEDDING_DIM
    FEW_TEXTS = 8  # one text at a time in numpy: cheaper than loading the torch model up to a few of them

    def __init__(self) -> None:
        self._batched: TextEncoder | None = None

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """[N, 384] float32, each row of unit length (``SentenceEncoder.encode``)."""
        if self._batched is None:
            self._batched = SentenceEncoder()  # cheap: the model loads on its first batch
        if len(texts) <= self.FEW_TEXTS and type(self._batched) is MiniLMSentenceEncoder:
            from models.numpy_forward import minilm_sentence_vectors

            return minilm_sentence_vectors(list(texts))
        return self._batched.encode(texts)


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
