"""The user simulator (IC 4.4): a target label, an initial query, and answers the agent never saw.

Protocol (``simulation_protocol``): the agent and the simulated user must not share their answer model,
or the evaluation would flatter the agent. What each side gets depends on the data:

- Birds (CUB). CUB gives only class-level crowd percentages (every image was annotated by one worker),
  so, in the spirit of IC's code (agent: 2 sampled annotators, simulator: all), the *agent* gets p_hat
  estimated from re-sampled annotations of the species' *training* images only: for each species and
  attribute value, yes ~ Binomial(n_train_images, pct / 100). The *simulated user* answers from the full
  percentages: a binary question "yes" with probability pct / 100, a multiple-choice question value r
  with probability pct_r / sum(pct) over the group's values. The re-sampling seed is part of the
  protocol (default 0) and is stored with every trained model.
- Induced tags (FAQ, banking). The agent's p_hat was induced from each label's name and *training*
  queries; the simulated user answers from the same induction measured on *all* of the label's queries
  (train, dev and test), i.e. from how the label is really talked about.
- Imported crowd annotations (no held-out split available): both sides use all annotations; the report
  says so.

Answers use common random numbers: an episode carries a seed, and the answer to question q is the
inverse CDF of p'(r | q, target) at a uniform drawn for q from that seed, so every system in an
evaluation meets exactly the same user.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from assistant.domain import Domain, replace_counts
from assistant.errors import ConfigError, UnknownLabelError


@dataclass
class SimulationProtocol:
    """What the agent may know (``agent_domain``: its annotation counts) and what the user answers from
    (``user_answers`` [Q, R, Y], sums to 1 over valid options)."""

    agent_domain: Domain
    user_answers: np.ndarray
    description: str
    seed: int


def simulation_protocol(domain: Domain, seed: int = 0) -> SimulationProtocol:
    """Split answer knowledge between agent and simulated user (see the module docstring)."""
    if "images_per_label" in domain.meta:
        return _birds_protocol(domain, seed)
    if any(q.induced for q in domain.questions):
        return _induced_protocol(domain, seed)
    return SimulationProtocol(
        agent_domain=domain,
        user_answers=domain.p_hat(alpha=0.5),
        description="agent and simulated user share all crowd annotations (no held-out annotations exist)",
        seed=seed,
    )


def _birds_protocol(domain: Domain, seed: int) -> SimulationProtocol:
    images = json.loads(domain.meta["images_per_label"])
    try:
        n_all = np.array([images[lab.key][0] for lab in domain.labels], dtype=np.float64)
        n_train = np.array([images[lab.key][1] for lab in domain.labels], dtype=np.int64)
    except KeyError as exc:
        raise ConfigError(f"images_per_label lacks label {exc}: rebuild the domain") from exc
    pct = np.clip(domain.counts / np.maximum(n_all, 1.0)[None, None, :], 0.0, 1.0)  # [Q, R, Y]
    rng = np.random.default_rng(seed)
    agent_counts = np.zeros_like(domain.counts)
    user = np.zeros_like(domain.counts)
    for q, question in enumerate(domain.questions):
        if question.kind == "binary":
            yes = rng.binomial(n_train, pct[q, 0])
            agent_counts[q, 0] = yes
            agent_counts[q, 1] = n_train - yes
            user[q, 0], user[q, 1] = pct[q, 0], 1.0 - pct[q, 0]
        else:
            r = len(question.options)
            agent_counts[q, :r] = rng.binomial(n_train[None, :], pct[q, :r])
            total = pct[q, :r].sum(axis=0, keepdims=True)
            user[q, :r] = np.where(total > 0, pct[q, :r] / np.where(total > 0, total, 1.0), 1.0 / r)
    agent = replace_counts(domain, agent_counts)
    return SimulationProtocol(
        agent_domain=agent,
        user_answers=user.astype(np.float32),
        description=(
            f"birds: agent p_hat from Binomial(n_train_images, pct) re-sampled annotations (seed {seed}); "
            "simulated user answers from the full CUB percentages"
        ),
        seed=seed,
    )


def _induced_protocol(domain: Domain, seed: int) -> SimulationProtocol:
    from crowdsourcing.induction import phrase_key, phrase_relevance, yes_probability

    texts: list[list[str]] = [[] for _ in domain.labels]
    for text, label in zip(domain.query_texts, domain.query_labels):
        texts[label].append(text)
    induced = [q for q, question in enumerate(domain.questions) if question.induced]
    keys = [phrase_key(domain.questions[q].tag) for q in induced]
    relevance = phrase_relevance(keys, texts, [lab.name for lab in domain.labels])
    user = domain.p_hat(alpha=0.5)
    p_yes = yes_probability(relevance)
    user[induced, 0, :] = p_yes
    user[induced, 1, :] = 1.0 - p_yes
    return SimulationProtocol(
        agent_domain=domain,
        user_answers=user,
        description=(
            "induced tags: agent p_hat induced from label names + training queries; simulated user from the "
            "same induction over all of the label's queries (train, dev, test)"
        ),
        seed=seed,
    )


# ---- episodes ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EpisodeSpec:
    """One simulated conversation: the target label (domain index), the initial query, the answer seed."""

    target: int
    query: str
    seed: int


def sample_episodes(
    domain: Domain,
    count: int,
    seed: int,
    split: str = "test",
    targets: Sequence[int] | None = None,
) -> list[EpisodeSpec]:
    """``count`` episodes: target uniform over ``targets`` (default: labels with queries in ``split``),
    query uniform among the target's queries in ``split``."""
    if count < 1:
        raise ConfigError(f"the number of episodes must be at least 1, got {count}")
    texts, labels = domain.queries(split)
    by_label: dict[int, list[str]] = {}
    for text, label in zip(texts, labels):
        by_label.setdefault(int(label), []).append(text)
    pool = sorted(by_label) if targets is None else [int(t) for t in targets if int(t) in by_label]
    if not pool:
        raise ConfigError(
            f"domain {domain.name!r} has no {split} queries for the chosen targets: rebuild the domain or "
            "pass --queries FILE"
        )
    rng = np.random.default_rng(seed)
    chosen = rng.choice(pool, size=count)
    episodes = []
    for target in chosen:
        queries = by_label[int(target)]
        episodes.append(EpisodeSpec(int(target), queries[int(rng.integers(len(queries)))], int(rng.integers(2**31))))
    return episodes


def episodes_from_file(domain: Domain, path: str | Path, count: int | None, seed: int) -> list[EpisodeSpec]:
    """Episodes from a TSV with columns ``label`` and ``query`` (labels matched leniently, see
    ``normalize_label_name``); rows are used in order and repeated to reach ``count``."""
    path = Path(path)
    try:
        handle = path.open(encoding="utf-8", newline="")
    except FileNotFoundError as exc:
        raise ConfigError(f"queries file {path} does not exist: give a TSV with columns 'label' and 'query'") from exc
    rows = []
    with handle:
        reader = csv.DictReader(handle, delimiter="\t")
        if not reader.fieldnames or not {"label", "query"} <= {f.strip().lower() for f in reader.fieldnames}:
            raise ConfigError(f"{path}: expected a tab-separated header with columns 'label' and 'query'")
        fields = {f.strip().lower(): f for f in reader.fieldnames}
        for line, row in enumerate(reader, start=2):
            label, query = (row.get(fields["label"]) or "").strip(), (row.get(fields["query"]) or "").strip()
            if not query:
                raise ConfigError(f"{path}:{line}: the query is empty; write the user's query in the 'query' column")
            try:
                rows.append((domain.label_index(label), query))
            except UnknownLabelError as exc:
                raise ConfigError(f"{path}:{line}: {exc}") from exc
    if not rows:
        raise ConfigError(f"{path} has no rows: add lines '<label>\\t<query>' below the header")
    count = count or len(rows)
    rng = np.random.default_rng(seed)
    return [EpisodeSpec(rows[i % len(rows)][0], rows[i % len(rows)][1], int(rng.integers(2**31))) for i in range(count)]


# ---- the simulated user --------------------------------------------------------------------------------


class SimulatedUser:
    """Answers questions about its target by sampling ``answers`` [Q, R, Y] with common random numbers."""

    def __init__(self, answers: np.ndarray, option_mask: np.ndarray) -> None:
        self.answers = np.asarray(answers, dtype=np.float64)
        self.option_mask = np.asarray(option_mask, dtype=bool)
        self._cdf = np.cumsum(np.where(self.option_mask[:, :, None], self.answers, 0.0), axis=1)
        self.target: int | None = None
        self._uniforms: np.ndarray | None = None

    def start(self, episode: EpisodeSpec) -> str:
        """Begin an episode; returns the initial query."""
        if not 0 <= episode.target < self.answers.shape[2]:
            raise ConfigError(f"episode target {episode.target} is not a label index")
        self.target = episode.target
        self._uniforms = np.random.default_rng(episode.seed).random(self.answers.shape[0])
        return episode.query

    def answer(self, question: int) -> int:
        """The option index the user picks for ``question``."""
        if self.target is None or self._uniforms is None:
            raise ConfigError("call start(episode) before asking the simulated user")
        cdf = self._cdf[question, :, self.target]
        n = int(self.option_mask[question].sum())
        u = self._uniforms[question] * cdf[n - 1]
        return int(min(np.searchsorted(cdf[:n], u, side="right"), n - 1))


def check_simulator(user: SimulatedUser, episodes: Sequence[EpisodeSpec], num_labels: int) -> None:
    """Validate a simulator before spending time on it (like stable-baselines3's check_env).

    Checks: answer distributions are finite, non-negative and sum to 1 over each question's options;
    padded options have no mass; targets are label indices; queries are non-empty; every answer is a
    valid option; the same episode gives the same answers twice (determinism).
    """
    a = user.answers
    if a.ndim != 3 or a.shape[2] != num_labels:
        raise ConfigError(f"simulator answers have shape {a.shape}, expected [Q, R, {num_labels}]")
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise ConfigError("simulator answer probabilities must be finite and non-negative")
    if np.any(a[~user.option_mask] > 0):
        raise ConfigError("simulator puts probability on options that do not exist")
    sums = a.sum(axis=1)
    if not np.allclose(sums, 1.0, atol=1e-4):
        worst = np.unravel_index(np.argmax(np.abs(sums - 1.0)), sums.shape)
        raise ConfigError(
            f"simulator answers for question {worst[0]}, label {worst[1]} sum to {sums[worst]:.4f}, not 1"
        )
    if not episodes:
        raise ConfigError("no episodes to simulate")
    n_questions = a.shape[0]
    for i, episode in enumerate(episodes[:50]):
        if not 0 <= episode.target < num_labels:
            raise ConfigError(f"episode {i}: target {episode.target} is not a label index")
        if not episode.query.strip():
            raise ConfigError(f"episode {i}: the initial query is empty")
        user.start(episode)
        first = [user.answer(q) for q in range(n_questions)]
        user.start(episode)
        second = [user.answer(q) for q in range(n_questions)]
        if first != second:
            raise ConfigError(f"episode {i}: the simulator is not deterministic for a fixed episode seed")
        counts = user.option_mask.sum(axis=1)
        if any(not 0 <= r < counts[q] for q, r in enumerate(first)):
            raise ConfigError(f"episode {i}: the simulator gave an option that does not exist")
