"""The SRU encoder's architecture (``models.sru_encoder``), without torch: serving reads it from a checkpoint's
sidecar and runs the encoder in numpy (``assistant.priors.sru_numpy``), so it must not import the module."""

from __future__ import annotations

from dataclasses import dataclass

from models.errors import ModelConfigError


@dataclass(frozen=True)
class SRUEncoderConfig:
    """Architecture. ``vectors``: 'minilm' or 'glove'; ``proj_dim``: trainable projection of the frozen
    vectors before the SRU (0 = none); ``hidden``: SRU state size per direction; ``pooling``: 'mean',
    'max' or 'meanmax' over valid positions; ``word_dropout``: probability of dropping a whole token
    during training (robustness to missing words)."""

    vectors: str = "minilm"
    proj_dim: int = 128
    hidden: int = 128
    layers: int = 1
    dropout: float = 0.1
    word_dropout: float = 0.1
    pooling: str = "meanmax"
    out_dim: int = 128
    max_len: int = 160
    init_scale: float = 10.0

    def __post_init__(self) -> None:
        if self.vectors not in ("auto", "minilm", "glove"):
            raise ModelConfigError(f"word vectors must be 'auto', 'minilm' or 'glove', not {self.vectors!r}")
        if self.pooling not in ("mean", "max", "meanmax"):
            raise ModelConfigError(f"pooling must be 'mean', 'max' or 'meanmax', not {self.pooling!r}")
        if min(self.hidden, self.out_dim, self.layers, self.max_len) < 1:
            raise ModelConfigError("hidden, out_dim, layers and max_len must be positive")
