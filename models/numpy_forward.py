"""Serving without the training stack (issue 33): the forward passes a conversation needs, in numpy.

A first question needs one short query through the trained SRU encoder and, where the prior blends it in,
through pooled MiniLM. Importing torch, transformers and sru (whose compiled op is built and locked per
machine) took longer than everything else together, so both forward passes are written here in numpy, from
the same weights: MiniLM's from its package's ``model.safetensors`` and its ``tokenizer.json`` (the
``tokenizers`` library, the fast tokenizer transformers itself wraps), the encoder's from its checkpoint's
state (``SRUState``). They compute the functions of ``models.sru_encoder.SRUTextEncoder`` (eval mode) and
``models.pretrained.SentenceEncoder`` in float32; tests hold them to 1e-5 of the torch modules.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

PAD_ID = 0  # as models.sru_encoder.PAD_ID: [PAD] in the MiniLM vocabulary


def _one_blas_thread() -> Any:
    """A context in which numpy's BLAS runs on one thread. The serving passes multiply a few rows at a time:
    waking BLAS threads costs more than it saves there (one query through MiniLM: 0.015 s on one thread, 0.08-0.36 s
    on two on a shared two-core machine), and each product's sums run in the same order either way."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def _minilm_path() -> Path:
    from models.pretrained import minilm_path

    return minilm_path()


@lru_cache(maxsize=1)
def minilm_weights() -> dict[str, np.ndarray]:
    """MiniLM's tensors by name, float32 (``embeddings.word_embeddings.weight`` [V, 384], ...)."""
    from safetensors.numpy import load_file

    return load_file(str(_minilm_path() / "model.safetensors"))


@lru_cache(maxsize=1)
def _minilm_shape() -> tuple[int, int]:
    """(attention heads, layers) of MiniLM, read from its config once (not once per text)."""
    config = json.loads((_minilm_path() / "config.json").read_text(encoding="utf-8"))
    return int(config["num_attention_heads"]), int(config["num_hidden_layers"])


@lru_cache(maxsize=1)
def _tokenizer() -> Any:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(_minilm_path() / "tokenizer.json"))
    tokenizer.no_truncation()  # the file's own 128-token settings are not transformers' defaults
    tokenizer.no_padding()
    return tokenizer


def word_piece_ids(texts: Sequence[str]) -> list[list[int]]:
    """MiniLM word-piece ids of each text, without [CLS]/[SEP] (``tokenizer(texts, add_special_tokens=False)``)."""
    if not texts:
        return []
    return [e.ids for e in _tokenizer().encode_batch(list(texts), add_special_tokens=False)]


@lru_cache(maxsize=1)
def word_piece_table() -> np.ndarray:
    """[V, 384] float32 MiniLM input embeddings with the [PAD] row zeroed (``sru_encoder._minilm_vectors``)."""
    table = np.array(minilm_weights()["embeddings.word_embeddings.weight"], dtype=np.float32)
    table[PAD_ID] = 0.0
    return table


# ---- pooled MiniLM ------------------------------------------------------------------------------------


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def _gelu(x: np.ndarray) -> np.ndarray:
    from scipy.special import erf

    return 0.5 * x * (1.0 + erf(x / np.float32(np.sqrt(2.0)))).astype(np.float32)


def _minilm_hidden(ids: list[int]) -> np.ndarray:
    """[L, 384] last hidden states of one tokenised text ([CLS] ... [SEP])."""
    w = minilm_weights()
    heads, layers = _minilm_shape()
    index = np.asarray(ids, dtype=np.int64)
    x = (
        w["embeddings.word_embeddings.weight"][index]
        + w["embeddings.position_embeddings.weight"][: len(ids)]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    length, dim = x.shape
    size = dim // heads
    for i in range(layers):
        p = f"encoder.layer.{i}."

        def dense(v: np.ndarray, name: str, p: str = p) -> np.ndarray:
            return v @ w[p + name + ".weight"].T + w[p + name + ".bias"]

        q, k, v = (
            dense(x, f"attention.self.{n}").reshape(length, heads, size).transpose(1, 0, 2)
            for n in ("query", "key", "value")
        )
        scores = q @ k.transpose(0, 2, 1) / np.float32(np.sqrt(size))
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(1, 0, 2).reshape(length, dim)
        x = _layer_norm(dense(context, "attention.output.dense") + x, *_ln(w, p + "attention.output.LayerNorm"))
        inner = _gelu(dense(x, "intermediate.dense"))
        x = _layer_norm(dense(inner, "output.dense") + x, *_ln(w, p + "output.LayerNorm"))
    return x


def _ln(w: Mapping[str, np.ndarray], name: str) -> tuple[np.ndarray, np.ndarray]:
    return w[name + ".weight"], w[name + ".bias"]


def minilm_sentence_vectors(texts: Sequence[str], max_length: int = 256) -> np.ndarray:
    """[N, 384] float32 mean-pooled, L2-normalised MiniLM embeddings (``SentenceEncoder.encode``), one text at
    a time (no padding: a query or a few texts at serving time)."""
    out = np.zeros((len(texts), 384), dtype=np.float32)
    if not texts:
        return out
    with _one_blas_thread():
        for row, encoding in enumerate(_tokenizer().encode_batch(list(texts), add_special_tokens=True)):
            ids = encoding.ids
            if len(ids) > max_length:  # truncation=True, max_length: keep [CLS] ... and end with [SEP]
                ids = ids[: max_length - 1] + ids[-1:]
            pooled = _minilm_hidden(ids).mean(0)
            out[row] = pooled / max(float(np.linalg.norm(pooled)), 1e-12)
    return out


# ---- the SRU encoder ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SRUState:
    """The trained weights of an ``SRUTextEncoder`` as numpy arrays (one bidirectional SRU layer or more)."""

    proj_weight: np.ndarray | None  # [P, E] (None: no projection)
    proj_bias: np.ndarray | None
    cells: tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...]  # per layer: weight [In, 2*H*k], weight_c, bias
    out_weight: np.ndarray  # [D, pooled]
    out_bias: np.ndarray
    log_scale: float
    hidden: int
    pooling: str

    @classmethod
    def from_state(cls, state: Mapping[str, Any], hidden: int, pooling: str) -> SRUState:
        """From a state dict (torch tensors or numpy arrays) of ``SRUTextEncoder``."""
        arrays = {k: np.asarray(v.detach().numpy() if hasattr(v, "detach") else v) for k, v in state.items()}
        layers = sorted({int(k.split(".")[2]) for k in arrays if k.startswith("rnn.cells.")})
        cells = tuple(
            tuple(arrays[f"rnn.cells.{i}.{n}"].astype(np.float32) for n in ("weight", "weight_c", "bias"))
            for i in layers
        )
        return cls(
            arrays.get("proj.weight"),
            arrays.get("proj.bias"),
            cells,  # type: ignore[arg-type]
            arrays["out.weight"].astype(np.float32),
            arrays["out.bias"].astype(np.float32),
            float(arrays["log_scale"]),
            hidden,
            pooling,
        )


def _sru_layer(x: np.ndarray, weight: np.ndarray, weight_c: np.ndarray, bias: np.ndarray, hidden: int):
    """One bidirectional SRU layer over texts of one length: x [B, L, In] -> h [B, L, 2H] (sru's recurrence,
    eval mode: no dropout, identity activation, projected skip term when the input size differs)."""
    batch, length = x.shape[:2]
    u = (x @ weight).reshape(batch, length, 2, hidden, -1)
    skip = x.reshape(batch, length, 2, hidden) if u.shape[-1] == 3 else u[..., 3]
    forget_w, reset_w = weight_c.reshape(2, 2, hidden)
    forget_b, reset_b = bias.reshape(2, 2, hidden)
    u0, u1, u2 = u[..., 0], u[..., 1] + forget_b, u[..., 2] + reset_b
    h = np.empty((batch, length, 2, hidden), dtype=np.float32)
    for d, steps in ((0, range(length)), (1, range(length - 1, -1, -1))):
        c = np.zeros((batch, hidden), dtype=np.float32)
        for t in steps:
            forget = 1.0 / (1.0 + np.exp(-(u1[:, t, d] + c * forget_w[d])))
            reset = 1.0 / (1.0 + np.exp(-(u2[:, t, d] + c * reset_w[d])))
            c = u0[:, t, d] + (c - u0[:, t, d]) * forget
            h[:, t, d] = skip[:, t, d] + (c - skip[:, t, d]) * reset
    return h.reshape(batch, length, 2 * hidden)


def sru_raw(state: SRUState, table: np.ndarray, ids: Sequence[Sequence[int]]) -> np.ndarray:
    """[N, D] float32 raw encoder vectors (``SRUTextEncoder.raw`` in eval mode) of tokenised texts, computed
    for the texts of each length together (no padding, so nothing to mask)."""
    out = np.zeros((len(ids), state.out_weight.shape[0]), dtype=np.float32)
    rows = [list(text) or [PAD_ID] for text in ids]
    by_length: dict[int, list[int]] = {}
    for row, text in enumerate(rows):
        by_length.setdefault(len(text), []).append(row)
    with _one_blas_thread():
        for members in by_length.values():
            x = table[np.asarray([rows[r] for r in members], dtype=np.int64)]  # [B, L, E]
            if state.proj_weight is not None and state.proj_bias is not None:
                x = x @ state.proj_weight.T + state.proj_bias
            for weight, weight_c, bias in state.cells:
                x = _sru_layer(x, weight, weight_c, bias, state.hidden)
            pooled = []
            if state.pooling in ("mean", "meanmax"):
                pooled.append(x.mean(1))
            if state.pooling in ("max", "meanmax"):
                pooled.append(x.max(1))
            out[members] = np.concatenate(pooled, axis=-1) @ state.out_weight.T + state.out_bias
    return out


def sru_finish(state: SRUState, raw: np.ndarray) -> np.ndarray:
    """[N, D] raw vectors -> unit length * sqrt(scale) (``SRUTextEncoder.finish``)."""
    norms = np.maximum(np.linalg.norm(raw, axis=-1, keepdims=True), 1e-12)
    return (raw / norms * np.float32(np.sqrt(np.exp(state.log_scale)))).astype(np.float32)
