"""The RL summarizer (BO 5.4, after Gao et al. 2018): a policy that adds sentences to a draft or stops,
trained with TD(lambda) on a reward for the finished summary.

Environment: a draft (sentence indices); actions: add a sentence that still fits the word limit; the
episode ends when nothing fits, with reward R(draft) (Gao et al. also let the policy stop; without it the
drafts fill the limit like BO's candidates). Value function (stable-baselines
style, policy/environment/loop apart): V(draft) = w . phi(draft), phi = the draft's bigram+ features and a
bias; the policy is a softmax over the values of the successor drafts, its
temperature falling over the episodes; TD(lambda) with accumulating traces learns w. The trained policy
writes greedily.

Rewards: ``LearnedReward`` is the ranker's posterior mean for *any* summary, i.e. GPPL's predictive mean
prior_scale * standardised prior(x) + k(x, compared items) alpha, computed with the public GPPL fit
(``fit_``) and the same median-heuristic length scales; ``GoldReward`` is the gold utility against a
reference (the upper bound).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from assistant.errors import ConfigError
from assistant.progress import Job, Progress, metrics_of
from assistant.ranking.gppl import GPPL, median_lengthscales
from assistant.summarization.candidates import CandidateSet
from assistant.summarization.features import bigram_plus, bigram_plus_from_counts
from assistant.summarization.priors import minilm_prior, reaper_prior
from assistant.summarization.rouge import CandidateRouge, gold_utility

Reward = Callable[[Sequence[tuple[int, ...]]], np.ndarray]


class LearnedReward:
    """The GPPL posterior mean as a function of a new summary (features and prior computed for it)."""

    def __init__(self, prepared, model: GPPL, prior: str = "reaper", features: str = "bigram") -> None:
        if features != "bigram":
            raise ConfigError("the learned reward of the RL summarizer needs bigram+ features")
        self.prepared, self.model, self.prior_name = prepared, model, prior
        x = prepared.features["bigram"]
        p = prepared.priors[prior]
        self.prior_mean, self.prior_sd = float(p.mean()), float(p.std()) or 1.0
        self.fit = getattr(model, "fit_", None)
        if model.lengthscale is None:
            self.lengthscales = median_lengthscales(x) * model.lengthscale_factor
        else:
            self.lengthscales = np.broadcast_to(np.asarray(model.lengthscale, dtype=np.float64), (x.shape[1],))
        if self.fit is not None:
            self.items_z = x[self.fit.items] / self.lengthscales

    def __call__(self, summaries: Sequence[tuple[int, ...]]) -> np.ndarray:
        prep = self.prepared
        cands = CandidateSet([tuple(s) for s in summaries], ["rl"] * len(summaries), len(prep.table))
        if self.prior_name == "reaper":
            p = reaper_prior(prep.table, prep.stats, cands)
        else:
            p = minilm_prior(prep.table, cands, prep.embeddings, prep.question_embedding)
        base = (p - self.prior_mean) / self.prior_sd if self.model.standardize_prior else p
        value = self.model.prior_scale * base
        if self.fit is not None:
            z = bigram_plus(prep.table, cands, prep.bigrams, prep.max_words) / self.lengthscales
            d2 = (z * z).sum(1)[:, None] + (self.items_z**2).sum(1)[None, :] - 2 * z @ self.items_z.T
            value = value + self.model.output_scale * np.exp(-0.5 * np.clip(d2, 0, None)) @ self.fit.alpha
        return value


class GoldReward:
    """BO's gold utility (unnormalised: R1/0.47 + R2/0.22 + RSU4/0.18, recall) against ``references``."""

    def __init__(self, table, references: Sequence[Sequence[str]]) -> None:
        self.rouge = CandidateRouge(table.tokens)
        self.references = [list(r) for r in references]

    def __call__(self, summaries: Sequence[tuple[int, ...]]) -> np.ndarray:
        total = np.zeros(len(summaries))
        for ref in self.references:
            s = self.rouge.scores(summaries, ref)
            total += gold_utility(s["rouge1"]["r"], s["rouge2"]["r"], s["rougesu4"]["r"])
        return total / max(len(self.references), 1)


class DraftFeatures:
    """phi(draft + each sentence) for all sentences at once: [S, B + 6] (bigram+ and a bias)."""

    def __init__(self, prepared) -> None:
        self.counts = prepared.bigrams.counts.toarray()  # [S, B]
        self.words = prepared.table.words.astype(np.float64)
        self.inv_position = 1.0 / prepared.table.position
        self.max_words = prepared.max_words
        self.dim = self.counts.shape[1] + 6

    def of(self, counts: np.ndarray, words: np.ndarray, position: np.ndarray) -> np.ndarray:
        phi = bigram_plus_from_counts(counts, words, position, self.max_words)
        return np.hstack([phi, np.ones((len(phi), 1))])


@dataclass
class RLSettings:
    episodes: int = 3000
    learning_rate: float = 0.1
    trace_decay: float = 0.9  # lambda
    start_temperature: float = 1.0
    end_temperature: float = 0.05


class RLSummarizer:
    """TD(lambda) value learning + softmax policy over drafts; ``train`` is a job, ``write`` greedy."""

    def __init__(self, prepared, reward: Reward, settings: RLSettings | None = None, seed: int = 0) -> None:
        self.prepared, self.reward = prepared, reward
        self.settings = settings or RLSettings()
        if self.settings.episodes < 1:
            raise ConfigError(f"episodes must be >= 1, got {self.settings.episodes}")
        self.rng = np.random.default_rng(seed)
        self.phi = DraftFeatures(prepared)
        self.w = np.zeros(self.phi.dim)
        # Rewards are standardised with their spread over the candidate set, so that one temperature fits all.
        sample = reward(prepared.candidates.summaries[: min(500, len(prepared.candidates))])
        self.r_mean, self.r_sd = float(sample.mean()), float(sample.std()) or 1.0

    def _successors(self, used: np.ndarray, counts: np.ndarray, words: float, position: float):
        fits = np.flatnonzero(~used & (self.phi.words <= self.phi.max_words - words))
        succ = self.phi.of(
            counts[None] + self.phi.counts[fits], words + self.phi.words[fits], position + self.phi.inv_position[fits]
        )
        return fits, succ

    def episode(self, temperature: float | None) -> tuple[tuple[int, ...], float]:
        """One episode (temperature None = greedy, no learning); returns the summary and its reward."""
        s = self.settings
        used = np.zeros(len(self.phi.words), dtype=bool)
        counts = np.zeros(self.phi.counts.shape[1])
        words = position = 0.0
        trace = np.zeros_like(self.w)
        current = self.phi.of(counts[None], np.array([0.0]), np.array([0.0]))[0]
        while True:
            fits, succ = self._successors(used, counts, words, position)
            # No stop action: like BO's candidates, a draft is filled until nothing fits (stopping early
            # only ever produced short, poor summaries in a few thousand episodes).
            options = succ @ self.w
            if len(options) == 0:
                break
            if temperature is None:
                choice = int(np.argmax(options))
            else:
                z = (options - options.max()) / temperature
                prob = np.exp(z) / np.exp(z).sum()
                choice = int(self.rng.choice(len(options), p=prob))
            nxt = succ[choice]
            if temperature is not None:  # TD(0 -> lambda) step towards V(next), no reward until the end
                trace = s.trace_decay * trace + current
                self.w += s.learning_rate * (nxt @ self.w - current @ self.w) * trace / (current @ current)
            j = int(fits[choice])
            used[j] = True
            counts = counts + self.phi.counts[j]
            words += self.phi.words[j]
            position += self.phi.inv_position[j]
            current = nxt
        summary = tuple(int(i) for i in np.flatnonzero(used))
        reward = float(self.reward([summary])[0]) if summary else self.r_mean
        if temperature is not None:
            trace = s.trace_decay * trace + current
            # Normalised step (step / |phi|^2): plain TD diverged with ~200 binary features.
            self.w += (
                s.learning_rate * ((reward - self.r_mean) / self.r_sd - current @ self.w) * trace / (current @ current)
            )
        return summary, reward

    def train(self) -> Job[tuple[int, ...]]:
        s = self.settings
        rewards = []
        for e in range(s.episodes):
            frac = e / max(s.episodes - 1, 1)
            temperature = s.start_temperature * (s.end_temperature / s.start_temperature) ** frac
            _, r = self.episode(temperature)
            rewards.append(r)
            if (e + 1) % 100 == 0 or e + 1 == s.episodes:
                yield Progress(
                    e + 1, s.episodes, "training the summarizer", metrics_of(reward=float(np.mean(rewards[-100:])))
                )
        return self.write()

    def write(self) -> tuple[int, ...]:
        summary, _ = self.episode(None)
        return summary
