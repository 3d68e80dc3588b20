"""The research jobs the CLI, the Lab page and the benchmarks all run: training the text encoder and the
STOP/ASK policies of a domain, evaluating the clarifier against IC's baselines, and the ranking evaluation.

Each is a generator job (``assistant.progress``) over a ``ModelRegistry``; the registry then serves what
was trained. Nothing here is needed to hold a conversation.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from assistant.app.registry import SMOOTHING, VARIANTS, ModelRegistry, candidate_labels
from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.policy_io import save_policy
from assistant.errors import ConfigError
from assistant.evaluation.clarifier import SYSTEMS, EvaluationSetup, evaluate
from assistant.evaluation.cqa.data import DATASETS as RANKING_DATASETS
from assistant.evaluation.cqa.data import load_dataset
from assistant.evaluation.cqa.problems import build_problems, split_indices
from assistant.evaluation.cqa.protocol import MODELS as RANKING_MODELS
from assistant.evaluation.cqa.protocol import STRATEGIES as RANKING_STRATEGIES
from assistant.evaluation.cqa.protocol import evaluate as evaluate_ranking
from assistant.evaluation.cqa.protocol import final_table as ranking_table
from assistant.evaluation.plots import CURVE_NAMES, POINT_NAMES, plot_accuracy_vs_turns, plot_ranking_curves
from assistant.evaluation.report import EvaluationReport
from assistant.priors.base import restrict
from assistant.priors.bm25 import BM25Prior
from assistant.progress import Progress
from assistant.ranking.ranking_session import Candidate, RankingSession
from assistant.simulation.episodes import episodes_from_file, sample_episodes
from assistant.simulation.user import SimulatedUser
from assistant.store import Domain
from assistant.training.encoder import data_sizes
from assistant.training.policy import PolicyConfig, PolicyResult, fit_answer_scale, train_policy

__all__ = [  # what the GUI's Lab page uses
    "CURVE_NAMES",
    "POINT_NAMES",
    "RANKING_DATASETS",
    "RANKING_MODELS",
    "RANKING_STRATEGIES",
    "SYSTEMS",
    "PolicyConfig",
    "evaluate_job",
    "plot_accuracy_vs_turns",
    "plot_ranking_curves",
    "ranking_demo_job",
    "ranking_evaluation_job",
    "ranking_table",
    "train_encoder_job",
    "train_policy_job",
]

# The threshold baseline is tuned on dev episodes drawn with the test seed plus this offset.
DEV_SEED_OFFSET = 7919
POLICY_EPISODES = 4000


def _registry(registry: ModelRegistry | str) -> ModelRegistry:
    """A registry, or the name of a domain to open one for (a worker thread opens its own)."""
    return ModelRegistry(registry) if isinstance(registry, str) else registry


def train_encoder_job(registry: ModelRegistry | str, seed: int = 0) -> Generator[Progress, None, Any]:
    """Train the SRU encoder of the registry's domain and save it (the policies trained on the old one go
    stale); the registry serves the new encoder afterwards."""
    from assistant.training.encoder import train_encoder

    yield Progress(0, 0, "loading the domain")
    registry = _registry(registry)
    result = yield from train_encoder(registry.domain, seed=seed, save=True)
    registry.forget_models()
    return result


def base_answer_model(registry: ModelRegistry, domain: Domain | None = None) -> AnswerModel:
    """p_hat of ``domain`` (default: the agent's view) with the encoder's tag scores and w, b fitted to p_hat
    (policy training starts from it and fine-tunes lambda, w and b)."""
    domain = domain or registry.agent_domain
    base = AnswerModel(domain.p_hat(SMOOTHING), domain.option_mask, registry.encoder.tag_scores(), lam=1.0)
    w, b = fit_answer_scale(base)
    return base.with_params(w=w, b=b)


def train_policy_job(
    registry: ModelRegistry | str,
    candidates: str = "all",
    variant: str = "learned",
    config: PolicyConfig | None = None,
    seed: int = 0,
    fine_tune: bool = False,
) -> Generator[Progress, None, PolicyResult]:
    """Train (and save) the policy for a candidate setting and variant on dev-split episodes; ``fine_tune``:
    start from the current policy (after new data) instead of afresh."""
    yield Progress(0, 0, "loading the models")
    registry = _registry(registry)
    if variant not in VARIANTS:
        raise ConfigError(f"unknown policy variant {variant!r}: use one of {', '.join(VARIANTS)}")
    cands = candidate_labels(registry.domain, candidates)
    agent = registry.agent_domain
    config = config or PolicyConfig()
    if variant == "lambda_1":
        config = PolicyConfig(**{**config.__dict__, "initial_lambda": 1.0, "learn_answer_model": False})
    episodes = sample_episodes(agent, POLICY_EPISODES, seed + 1, "dev", cands)
    position = {int(c): i for i, c in enumerate(cands)}
    combined = registry.combined_prior()
    prior = restrict(combined.scores([e.query for e in episodes]), cands)
    known = np.zeros((len(episodes), registry.domain.num_questions), dtype=bool)
    for i, episode in enumerate(episodes):
        for question, _ in combined.mentioned(episode.query):
            known[i, question] = True
    base = base_answer_model(registry).restrict(cands)
    start_from = None
    if fine_tune:
        current = registry.load_policy(candidates, variant)
        start_from = (current.policy.net, current.lam, current.w, current.b)
    result = yield from train_policy(
        base,
        registry.protocol.user_answers[:, :, cands],
        episodes,
        prior,
        np.array([position[e.target] for e in episodes]),
        config,
        seed,
        known_questions=known,
        start_from=start_from,
    )
    last = result.history[-50:]
    metrics = {k: float(np.mean([h[k] for h in last])) for k in ("reward", "accuracy", "turns")}
    path, data = registry.policy_checkpoint(candidates, variant)
    summary = {**result.summary(), "trained_on": data_sizes(registry.domain), "fine_tuned": fine_tune}
    save_policy(path, result.net, result.lam, result.w, result.b, summary, data, metrics)
    registry.forget_models(prior=False)
    return result


def evaluation_setup(
    registry: ModelRegistry, candidates: str = "all", turn_reward: float | None = None
) -> EvaluationSetup:
    """Everything ``assistant.evaluation.clarifier.evaluate`` needs for the registry's domain."""
    ours = registry.load_policy(candidates, "learned")
    lam1 = registry.load_policy(candidates, "lambda_1")
    agent = registry.agent_domain
    return EvaluationSetup(
        domain=agent,
        candidates=candidate_labels(registry.domain, candidates),
        prior=registry.combined_prior(),
        answer_model=registry.answer_model(ours),
        policy=ours.policy,
        user=SimulatedUser(registry.protocol.user_answers, registry.domain.option_mask),
        answer_model_lambda_1=registry.answer_model(lam1).with_params(lam=1.0),
        policy_lambda_1=lam1.policy,
        bm25_prior=BM25Prior.fit(agent),
        turn_reward=PolicyConfig().turn_reward if turn_reward is None else turn_reward,
        protocol=registry.protocol.description,
    )


def evaluate_job(
    registry: ModelRegistry | str,
    candidates: str = "all",
    episodes: int = 2000,
    seed: int = 0,
    systems: Sequence[str] = SYSTEMS,
    max_turns: int = 10,
    dev_episodes: int = 500,
    queries_file: str | None = None,
) -> Generator[Progress, None, EvaluationReport]:
    """`clarify evaluate` (also the Lab page and the benchmark): every system on the same test episodes,
    sampled from the held-out queries or started from ``queries_file`` (label<TAB>query)."""
    yield Progress(0, 0, "loading the models")
    registry = _registry(registry)
    setup = evaluation_setup(registry, candidates)
    agent = registry.agent_domain
    if queries_file:
        test = episodes_from_file(agent, queries_file, episodes, seed)
        allowed = set(setup.candidates.tolist())
        outside = [e for e in test if e.target not in allowed]
        if outside:
            raise ConfigError(
                f"{queries_file}: label {agent.labels[outside[0].target].name!r} is not among the "
                f"{candidates} candidates; use --candidates all"
            )
    else:
        test = sample_episodes(agent, episodes, seed, "test", setup.candidates)
    dev = sample_episodes(agent, dev_episodes, seed + DEV_SEED_OFFSET, "dev", setup.candidates)
    report = yield from evaluate(setup, test, dev, max_turns, tuple(systems))
    report.meta.update(
        {"seed": seed, "candidate_setting": candidates, "queries_file": queries_file, "text_prior": registry.text_prior}
    )
    return report


def ranking_evaluation_job(
    dataset: str,
    interactions: int = 10,
    strategies: str | Sequence[str] = ("imp", "random"),
    models: str | Sequence[str] = ("gppl",),
    seed: int = 0,
    t: float = 0.3,
    split: str = "test",
    max_questions: int | None = 20,
    candidates: int = 100,
    encoder: Any = None,
    data_dir: str | None = None,
) -> Generator[Progress, None, dict]:
    """`clarify rank evaluate DATASET`: simulated users rank the answers of community-QA questions.

    ``encoder`` (default MiniLM) embeds the questions and answers; embeddings are cached under CLARIFY_HOME."""
    return (
        yield from evaluate_ranking(
            dataset,
            interactions=interactions,
            strategies=strategies if isinstance(strategies, str) else list(strategies),
            models=models if isinstance(models, str) else list(models),
            seed=seed,
            t=t,
            split=split,
            data_dir=data_dir,
            n_candidates=candidates,
            max_questions=max_questions,
            encoder=encoder,
        )
    )


@dataclass
class RankingDemo:
    """One community-QA question to rank by hand: its text, candidate answers, their ROUGE-L utilities
    against the accepted answer (``best`` is its index) and the ranking session over them."""

    question: str
    candidates: list[Candidate]
    utilities: np.ndarray
    best: int
    session: RankingSession


def ranking_demo_job(
    dataset: str,
    question: int | None = None,
    candidates: int = 100,
    model: str = "gppl",
    acquisition: str = "imp",
    budget: int = 10,
    threshold: float = 0.9,
    seed: int = 0,
    data_dir: str | None = None,
) -> Generator[Progress, None, RankingDemo]:
    """`clarify rank demo`: a test question of ``dataset`` (``question``: its index among the test questions,
    None = a random one) with its candidates, ready for comparisons by a person."""
    problems = yield from build_problems(load_dataset(dataset, data_dir), n_candidates=candidates)
    test = split_indices(len(problems))["test"]
    if question is None:
        question = int(np.random.default_rng(seed).integers(len(test)))
    if not 0 <= question < len(test):
        raise ConfigError(f"--question must lie in [0, {len(test) - 1}] (the test questions of {dataset})")
    problem = problems[test[question]]
    cands = [
        Candidate(str(i), f"answer {i + 1}", text, problem.embeddings[i], problem.prior[i])
        for i, text in enumerate(problem.texts)
    ]
    session = RankingSession(cands, model=model, acquisition=acquisition, seed=seed, threshold=threshold, budget=budget)
    return RankingDemo(problem.question, cands, np.asarray(problem.utilities), int(problem.best), session)
