"""What the assistant may learn from in a domain: its *agent view*.

Most domains give the assistant all of their annotations. CUB gives only class-level crowd percentages
(every image was annotated by one worker), so, in the spirit of IC's code (agent: a few sampled annotators,
simulated user: all of them), the assistant's answer counts are re-sampled from the species' *training*
images only: for each species and attribute value, yes ~ Binomial(n_train_images, pct / 100). The seed of
that re-sampling (the protocol seed) is stored with every trained model.

Live conversations, training and evaluation all use this view; what the *simulated user* answers from is
the simulator's part (``assistant.simulation.protocol``).
"""

from __future__ import annotations

import json

import numpy as np

from assistant.errors import ConfigError
from assistant.store.domain import Domain, replace_counts

# The meta entry of domains whose counts are crowd percentages x images (CUB): {label key: [all, train]}.
IMAGES_PER_LABEL = "images_per_label"


def has_image_split(domain: Domain) -> bool:
    """Whether ``domain``'s counts are percentages over images with a training split (CUB)."""
    return IMAGES_PER_LABEL in domain.meta


def image_counts(domain: Domain) -> tuple[np.ndarray, np.ndarray]:
    """([Y] images per label, [Y] training images per label) of a domain with an image split."""
    images = json.loads(domain.meta[IMAGES_PER_LABEL])
    try:
        n_all = np.array([images[lab.key][0] for lab in domain.labels], dtype=np.float64)
        n_train = np.array([images[lab.key][1] for lab in domain.labels], dtype=np.int64)
    except KeyError as exc:
        raise ConfigError(f"images_per_label lacks label {exc}: rebuild the domain") from exc
    return n_all, n_train


def crowd_percentages(domain: Domain) -> np.ndarray:
    """[Q, R, Y] the share of a label's images annotated with each option (domains with an image split)."""
    n_all, _ = image_counts(domain)
    return np.clip(domain.counts / np.maximum(n_all, 1.0)[None, None, :], 0.0, 1.0)


def agent_view(domain: Domain, seed: int = 0) -> Domain:
    """The part of ``domain`` the assistant may learn from (module docstring): with an image split, counts
    re-sampled from the training images with ``seed``; otherwise ``domain`` itself."""
    if not has_image_split(domain):
        return domain
    _, n_train = image_counts(domain)
    pct = crowd_percentages(domain)
    rng = np.random.default_rng(seed)
    counts = np.zeros_like(domain.counts)
    for q, question in enumerate(domain.questions):
        if question.kind == "binary":
            yes = rng.binomial(n_train, pct[q, 0])
            counts[q, 0] = yes
            counts[q, 1] = n_train - yes
        else:
            r = len(question.options)
            counts[q, :r] = rng.binomial(n_train[None, :], pct[q, :r])
    return replace_counts(domain, counts)
