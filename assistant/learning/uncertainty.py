"""MC-dropout uncertainty of an answer ranking: DASL's expected ranking loss, and BALD for comparison.

For one question with N candidates, T stochastic forward passes (dropout on) give score samples
S [T, N]. DASL (eq. 8-11, as implemented here):

    (8)  DCG(pi, rel)  = sum_i (2^rel(pi_i) - 1) / log2(i + 1)          pi_i: the candidate at rank i (1-based)
    (9)  loss(pi, rel) = 1 - DCG(pi, rel) / DCG(pi*, rel)               pi*: the ideal order for rel
    (10) E[loss]       = E_{rel ~ p(rel | q, D)} loss(pi_hat, rel)      pi_hat: the order of the mean scores
    (11) E[loss]      ~= 1/T sum_t loss(pi_hat, rel_t)                  rel_t: one-hot of argmax_n S[t, n]

i.e. each MC sample says which answer it believes correct (one correct answer per question, as MRR
counts it), and the loss is how far down the model's own ranking that answer sits. With a single relevant
answer at rank r, DCG / ideal DCG = 1 / log2(1 + r), so E[loss] = mean_t (1 - 1 / log2(1 + r_t)): 0 when
every sample agrees with the mean ranking's top answer, and at most 1 - 1 / log2(1 + N).

BALD (Houlsby et al. 2011) on the same samples treats "which answer is correct" as a categorical,
p_t = softmax(S[t] / temperature): I = H[mean_t p_t] - mean_t H[p_t] (in nats).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assistant.errors import ConfigError


def _check(samples: np.ndarray) -> np.ndarray:
    s = np.asarray(samples, dtype=np.float64)
    if s.ndim != 2 or s.shape[0] < 1 or s.shape[1] < 1:
        raise ConfigError(f"MC samples must have shape [T, N] with T, N >= 1, got {s.shape}")
    return s


def mean_ranks(samples: np.ndarray) -> np.ndarray:
    """[N] 1-based rank of each candidate under the mean scores (ties broken by candidate order)."""
    s = _check(samples)
    order = np.argsort(-s.mean(axis=0), kind="stable")
    ranks = np.empty(s.shape[1], dtype=np.int64)
    ranks[order] = np.arange(1, s.shape[1] + 1)
    return ranks


def expected_ranking_loss(samples: np.ndarray) -> float:
    """DASL's expected DCG ranking loss (eq. 8-11 above) of one question's samples [T, N]."""
    s = _check(samples)
    ranks = mean_ranks(s)
    believed = np.argmax(s, axis=1)  # [T]: the answer each sample puts first
    return float(np.mean(1.0 - 1.0 / np.log2(1.0 + ranks[believed])))


def expected_ranking_losses(samples: Sequence[np.ndarray]) -> np.ndarray:
    """[Q] expected ranking loss of each question (samples [T, N_q] each)."""
    return np.array([expected_ranking_loss(s) for s in samples], dtype=np.float64)


def bald_score(samples: np.ndarray, temperature: float = 1.0) -> float:
    """Mutual information between "which answer is correct" and the model weights, from samples [T, N]."""
    if temperature <= 0:
        raise ConfigError(f"the BALD temperature must be positive, got {temperature}")
    s = _check(samples) / temperature
    logp = s - s.max(axis=1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(axis=1, keepdims=True))
    p = np.exp(logp)  # [T, N]
    mean = p.mean(axis=0)
    entropy_of_mean = -float(np.sum(mean * np.log(np.clip(mean, 1e-300, None))))
    mean_entropy = -float(np.mean(np.sum(p * logp, axis=1)))
    return max(0.0, entropy_of_mean - mean_entropy)


def bald_scores(samples: Sequence[np.ndarray], temperature: float = 1.0) -> np.ndarray:
    """[Q] BALD score of each question."""
    return np.array([bald_score(s, temperature) for s in samples], dtype=np.float64)


def pseudo_grades(samples: np.ndarray) -> np.ndarray:
    """[N] the model's own label for a question: grade 1 for the top answer of the mean scores, 0 elsewhere."""
    grades = np.zeros(_check(samples).shape[1], dtype=np.int64)
    grades[int(np.argmin(mean_ranks(samples)))] = 1
    return grades
