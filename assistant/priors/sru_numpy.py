"""The trained SRU encoder for inference without sru or transformers (issue 33): ``NumpySRUEncoder`` runs
``models.numpy_forward`` on the checkpoint's weights and offers what ``assistant.priors.sru.EncoderPrior``
uses of an encoder (``vectors.token_ids``, ``config``, ``encode_ids``, ``finish``, ``state_dict``). Training
and MC dropout keep the torch module (``load_encoder_prior(numpy_forward=False)``, the default)."""

from __future__ import annotations

import contextlib
import hashlib
import zipfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from models.checkpoint import write_npz_atomic
from models.numpy_forward import PAD_ID, SRUState, sru_finish, sru_raw, word_piece_ids, word_piece_table


class NumpyWordVectors:
    """MiniLM's word pieces through the ``tokenizers`` library (``models.sru_encoder.WordVectors``' ids)."""

    name = "minilm"

    def token_ids(self, texts: Sequence[str], max_len: int) -> list[list[int]]:
        return [ids[:max_len] or [PAD_ID] for ids in word_piece_ids(list(texts))]


class NumpySRUEncoder:
    """``SRUTextEncoder`` in eval mode, in numpy (the same numbers to about 1e-6)."""

    def __init__(self, config: Any, state: Mapping[str, Any]) -> None:
        self.config = config
        self._state = dict(state)
        self.weights = SRUState.from_state(state, config.hidden, config.pooling)
        self.vectors = NumpyWordVectors()

    def eval(self) -> NumpySRUEncoder:
        return self

    def state_dict(self) -> dict[str, Any]:
        """The checkpoint's weights as torch tensors, like ``SRUTextEncoder.state_dict`` (what
        ``assistant.app.lifecycle.updates`` starts training from; serving loads them as numpy arrays)."""
        import torch

        return {k: v if isinstance(v, torch.Tensor) else torch.from_numpy(np.array(v)) for k, v in self._state.items()}

    def encode_ids(self, ids: Sequence[Sequence[int]], batch_size: int = 256, raw: bool = False) -> np.ndarray:
        """[N, D] float32 (``raw``: before normalisation)."""
        vectors = sru_raw(self.weights, word_piece_table(), ids)
        return vectors if raw else sru_finish(self.weights, vectors)

    def finish(self, raw: np.ndarray) -> np.ndarray:
        return sru_finish(self.weights, np.asarray(raw, dtype=np.float32))


def numpy_route_possible(config: Any) -> bool:
    """Whether ``NumpySRUEncoder`` computes this encoder: MiniLM word pieces (GloVe needs its package's table)."""
    return getattr(config, "vectors", None) == "minilm"


SERVING_FILE = "encoder-serving.npz"
SERVING_FORMAT = "numpy-serving-v1"


def serving_key(checkpoint: Path, data_hash: str) -> str:
    """What the stored vectors were computed from: this format, the checkpoint's bytes and the domain's data."""
    digest = hashlib.sha256(checkpoint.read_bytes()).hexdigest()
    return f"{SERVING_FORMAT}:{digest}:{data_hash}"


def load_or_store_vectors(folder: Path, key: str, compute: Callable[[], dict[str, np.ndarray]]) -> dict:
    """The label vectors and tag scores a conversation needs from the encoder, stored beside it (``SERVING_FILE``)
    the first time and read on every later start, as long as ``key`` (``serving_key``) is the same."""
    path = folder / SERVING_FILE
    try:
        with np.load(path, allow_pickle=False) as data:
            if str(data["key"]) == key:
                return {k: data[k] for k in data.files if k != "key"}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        pass  # missing, damaged or of another encoder: computed again
    arrays = compute()
    with contextlib.suppress(OSError):  # a read-only home still serves, it computes on each start
        write_npz_atomic(path, key=np.array(key), **arrays)
    return arrays
