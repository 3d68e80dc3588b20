"""The research jobs the CLI, the Lab page and the benchmarks all run: training the text encoder and the
STOP/ASK policies of a domain, evaluating the clarifier against IC's baselines, and the ranking evaluation.

Each is a generator job (``assistant.progress``) over a ``ModelRegistry``; the registry then serves what
was trained. Nothing here is needed to hold a conversation.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from assistant.app.registry import (
    COVERAGE_GRID,
    PACE_TURN_BUDGET,
    PACE_TURN_REWARD,
    SMOOTHING,
    VARIANTS,
    ModelRegistry,
    candidate_labels,
    check_pace,
)
from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.policy_io import save_policy
from assistant.errors import ConfigError
from assistant.evaluation.clarifier import SYSTEMS, EvaluationSetup, evaluate, tune_coverage
from assistant.evaluation.cqa.data import DATASETS as RANKING_DATASETS
from assistant.evaluation.cqa.data import load_dataset
from assistant.evaluation.cqa.problems import build_problems, split_indices
from assistant.evaluation.cqa.protocol import MODELS as RANKING_MODELS
from assistant.evaluation.cqa.protocol import STRATEGIES as RANKING_STRATEGIES
from assistant.evaluation.cqa.protocol import evaluate as evaluate_ranking
from assistant.evaluation.cqa.protocol import final_table as ranking_table
from assistant.evaluation.plots import CURVE_NAMES, POINT_NAMES, plot_accuracy_vs_turns, plot_ranking_curves
from assistant.evaluation.report import EvaluationReport, noise_table
from assistant.priors.base import restrict
from assistant.priors.bm25 import BM25Prior
from assistant.progress import Progress
from assistant.ranking.ranking_session import Candidate, RankingSession
from assistant.simulation.episodes import EpisodeSpec, episodes_from_file, sample_episodes
from assistant.simulation.noise import UserNoise
from assistant.simulation.queries import TRAINING_SPLIT, VagueQueryMix, vague_episodes
from assistant.simulation.user import SimulatedUser
from assistant.store import Domain
from assistant.training.encoder import data_sizes
from assistant.training.policy import PolicyConfig, PolicyResult, fit_answer_scale, train_policy
from models.determinism import reproducible

__all__ = [  # what the GUI's Lab page uses
    "CURVE_NAMES",
    "POINT_NAMES",
    "RANKING_DATASETS",
    "RANKING_MODELS",
    "RANKING_STRATEGIES",
    "SYSTEMS",
    "PolicyConfig",
    "evaluate_job",
    "noise_sweep_job",
    "noise_table",
    "plot_accuracy_vs_turns",
    "plot_ranking_curves",
    "ranking_demo_job",
    "ranking_evaluation_job",
    "ranking_table",
    "train_encoder_job",
    "train_policy_job",
    "tune_coverage_job",
]

# The threshold baseline is tuned on dev episodes drawn with the test seed plus this offset.
DEV_SEED_OFFSET = 7919
POLICY_EPISODES = 4000
# The comparison phase's shortlist in a session (``SessionConfig.shortlist_size``): what the coverage rule covers.
SHORTLIST_SIZE = 5
# Dev vague episodes the coverage rule is tuned on.
COVERAGE_EPISODES = 1000
# What ``clarify evaluate --queries`` accepts besides a file.
QUERY_SETTINGS = ("crowd", "vague")


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


def pace_config(pace: str, config: PolicyConfig | None = None) -> PolicyConfig:
    """The training settings of a pace: its cost per question and its cap on the mean number of questions
    (other settings from ``config``)."""
    pace = check_pace(pace)
    base = config or PolicyConfig()
    return replace(base, turn_reward=PACE_TURN_REWARD[pace], turn_budget=PACE_TURN_BUDGET[pace])


def train_policy_job(
    registry: ModelRegistry | str,
    candidates: str = "all",
    variant: str = "learned",
    config: PolicyConfig | None = None,
    seed: int = 0,
    pace: str | None = None,
    mix: VagueQueryMix | None = None,
    fine_tune: bool = False,
) -> Generator[Progress, None, PolicyResult]:
    """Train (and save) the policy for a candidate setting, variant and pace on dev-split episodes whose
    first queries come from the vague query mix (``assistant.simulation.queries``). ``config`` None: the
    pace's settings (``pace_config``); given: used as it is. ``fine_tune``: start from the current policy
    (after new data) instead of afresh."""
    yield Progress(0, 0, "loading the models")
    registry = _registry(registry)
    pace = check_pace(pace or registry.default_pace)
    result = yield from fit_policy(registry, candidates, variant, config, seed, pace=pace, mix=mix, fine_tune=fine_tune)
    last = result.history[-50:]
    metrics = {k: float(np.mean([h[k] for h in last])) for k in ("reward", "accuracy", "turns")}
    path, data = registry.policy_checkpoint(candidates, variant, pace)
    summary = {**result.summary(), "pace": pace, "trained_on": data_sizes(registry.domain), "fine_tuned": fine_tune}
    save_policy(path, result.net, result.lam, result.w, result.b, summary, data, metrics)
    registry.forget_models(prior=False)
    return result


def fit_policy(
    registry: ModelRegistry,
    candidates: str = "all",
    variant: str = "learned",
    config: PolicyConfig | None = None,
    seed: int = 0,
    user_answers: np.ndarray | None = None,
    pace: str | None = None,
    mix: VagueQueryMix | None = None,
    fine_tune: bool = False,
) -> Generator[Progress, None, PolicyResult]:
    """Train a policy on dev-split episodes (first queries from the vague mix) without saving it
    (``train_policy_job`` saves; sweeps do not). ``user_answers`` [Q, R, Y]: the simulated user's answer
    distribution (default: the protocol's); ``config`` None: the pace's settings (``pace_config``)."""
    pace = check_pace(pace or registry.default_pace)
    if variant not in VARIANTS:
        raise ConfigError(f"unknown policy variant {variant!r}: use one of {', '.join(VARIANTS)}")
    config = config or pace_config(pace)
    with reproducible(config.threads):  # the prior's scores of the episodes too: same seed, same policy
        return (yield from _fit_policy(registry, candidates, variant, config, seed, user_answers, pace, mix, fine_tune))


def _fit_policy(
    registry: ModelRegistry,
    candidates: str,
    variant: str,
    config: PolicyConfig,
    seed: int,
    user_answers: np.ndarray | None,
    pace: str,
    mix: VagueQueryMix | None,
    fine_tune: bool,
) -> Generator[Progress, None, PolicyResult]:
    cands = candidate_labels(registry.domain, candidates)
    agent = registry.agent_domain
    if variant == "lambda_1":
        config = replace(config, initial_lambda=1.0, learn_answer_model=False)
    episodes = dev_mix_episodes(agent, POLICY_EPISODES, seed + 1, cands, mix)
    position = {int(c): i for i, c in enumerate(cands)}
    combined = registry.combined_prior()
    prior = restrict(combined.scores([e.query for e in episodes]), cands)
    known = np.zeros((len(episodes), registry.domain.num_questions), dtype=bool)
    for i, episode in enumerate(episodes):
        for question, _ in combined.mentioned(episode.query):
            known[i, question] = True
    base = base_answer_model(registry).restrict(cands)
    answers = registry.protocol.user_answers if user_answers is None else user_answers
    start_from = None
    if fine_tune:
        current = registry.load_policy(candidates, variant, pace)
        start_from = (current.policy.net, current.lam, current.w, current.b)
    return (
        yield from train_policy(
            base,
            answers[:, :, cands],
            episodes,
            prior,
            np.array([position[e.target] for e in episodes]),
            config,
            seed,
            known_questions=known,
            start_from=start_from,
        )
    )


def dev_mix_episodes(
    agent: Domain, count: int, seed: int, candidates: np.ndarray, mix: VagueQueryMix | None = None
) -> list[EpisodeSpec]:
    """Episodes for training and tuning: dev targets and queries (``TRAINING_SPLIT``), first queries from
    the vague mix. Never a test query."""
    crowd = sample_episodes(agent, count, seed, TRAINING_SPLIT, candidates)
    return vague_episodes(agent, crowd, mix or VagueQueryMix(), seed)


def evaluation_setup(
    registry: ModelRegistry,
    candidates: str = "all",
    turn_reward: float | None = None,
    pace: str | None = None,
    shortlist_size: int = SHORTLIST_SIZE,
    user_noise: float = 0.0,
) -> EvaluationSetup:
    """Everything ``assistant.evaluation.clarifier.evaluate`` needs for the registry's domain at a pace;
    ``user_noise``: the share of the simulated user's answers that are corrupted (assistant.simulation.noise)."""
    pace = check_pace(pace or registry.default_pace)
    ours = registry.load_policy(candidates, "learned", pace)
    lam1 = registry.load_policy(candidates, "lambda_1", pace)
    agent = registry.agent_domain
    return EvaluationSetup(
        domain=agent,
        candidates=candidate_labels(registry.domain, candidates),
        prior=registry.combined_prior(),
        answer_model=registry.answer_model(ours),
        policy=ours.policy,
        user=SimulatedUser(
            registry.protocol.user_answers,
            registry.domain.option_mask,
            UserNoise(user_noise, seed=registry.protocol_seed),
        ),
        answer_model_lambda_1=registry.answer_model(lam1).with_params(lam=1.0),
        policy_lambda_1=lam1.policy,
        bm25_prior=BM25Prior.fit(agent),
        turn_reward=PACE_TURN_REWARD[pace] if turn_reward is None else turn_reward,
        protocol=registry.protocol.description,
        coverage=registry.coverage(candidates, pace),
        shortlist_size=shortlist_size,
    )


def tune_coverage_job(
    registry: ModelRegistry | str,
    candidates: str = "all",
    pace: str | None = None,
    shortlist_size: int = SHORTLIST_SIZE,
    episodes: int = COVERAGE_EPISODES,
    seed: int = 0,
) -> Generator[Progress, None, dict]:
    """Tune (and save) the coverage of the compare-only-when-covered rule for a policy on dev vague
    episodes (``assistant.evaluation.clarifier.tune_coverage``); returns what was chosen and why."""
    yield Progress(0, 2, "loading the models")
    registry = _registry(registry)
    pace = check_pace(pace or registry.default_pace)
    ours = registry.load_policy(candidates, "learned", pace)
    cands = candidate_labels(registry.domain, candidates)
    agent = registry.agent_domain
    setup = EvaluationSetup(
        domain=agent,
        candidates=cands,
        prior=registry.combined_prior(),
        answer_model=registry.answer_model(ours),
        policy=ours.policy,
        user=SimulatedUser(registry.protocol.user_answers, registry.domain.option_mask),
        turn_reward=PACE_TURN_REWARD[pace],
        shortlist_size=shortlist_size,
    )
    dev = dev_mix_episodes(agent, episodes, seed + DEV_SEED_OFFSET, cands)
    yield Progress(1, 2, f"tuning the coverage rule on {len(dev)} dev episodes")
    with reproducible():
        coverage, details = tune_coverage(setup, dev, COVERAGE_GRID)
    registry.save_coverage(candidates, pace, coverage, details)
    yield Progress(2, 2, f"coverage {coverage}")
    return {"coverage": coverage, **details}


def evaluate_job(
    registry: ModelRegistry | str,
    candidates: str = "all",
    episodes: int = 2000,
    seed: int = 0,
    systems: Sequence[str] = SYSTEMS,
    max_turns: int = 10,
    dev_episodes: int = 500,
    queries: str = "crowd",
    pace: str | None = None,
    mix: VagueQueryMix | None = None,
    user_noise: float = 0.0,
) -> Generator[Progress, None, EvaluationReport]:
    """`clarify evaluate` (also the Lab page and the benchmark): every system on the same test episodes.

    ``queries``: "crowd" (the held-out crowd queries), "vague" (vague first queries made from them with
    ``mix``; same targets and answer seeds as "crowd") or a TSV file of the researcher's own (label<TAB>query).
    The threshold baseline is tuned on dev episodes from the vague mix whatever the test queries.
    ``user_noise``: the share of the simulated user's answers that are corrupted.
    """
    yield Progress(0, 0, "loading the models")
    registry = _registry(registry)
    pace = check_pace(pace or registry.default_pace)
    setup = evaluation_setup(registry, candidates, pace=pace, user_noise=user_noise)
    agent = registry.agent_domain
    if queries not in QUERY_SETTINGS:
        test = episodes_from_file(agent, queries, episodes, seed)
        allowed = set(setup.candidates.tolist())
        outside = [e for e in test if e.target not in allowed]
        if outside:
            raise ConfigError(
                f"{queries}: label {agent.labels[outside[0].target].name!r} is not among the "
                f"{candidates} candidates; use --candidates all"
            )
    else:
        test = sample_episodes(agent, episodes, seed, "test", setup.candidates)
        if queries == "vague":
            test = vague_episodes(agent, test, mix or VagueQueryMix(), seed)
    dev = dev_mix_episodes(agent, dev_episodes, seed + DEV_SEED_OFFSET, setup.candidates, mix)
    report = yield from evaluate(setup, test, dev, max_turns, tuple(systems))
    kinds = [e.kind for e in test]
    report.meta.update(
        {
            "seed": seed,
            "candidate_setting": candidates,
            "queries": queries,
            "query_kinds": {k: kinds.count(k) for k in sorted(set(kinds))},
            "query_mix": (mix or VagueQueryMix()).describe() if queries == "vague" else None,
            "pace": pace,
            "coverage": setup.coverage,
            "text_prior": registry.text_prior,
        }
    )
    return report


def noise_sweep_job(
    registry: ModelRegistry | str,
    levels: Sequence[float] = (0.0, 0.1, 0.2),
    **evaluate_args: Any,
) -> Generator[Progress, None, list[EvaluationReport]]:
    """`clarify evaluate --user-noise 0,0.1,0.2`: the same evaluation (same episodes, same seed) at each level
    of user noise; returns one report per level (``noise_table`` puts them side by side)."""
    if not levels:
        raise ConfigError("give at least one user-noise level, e.g. --user-noise 0,0.1,0.2")
    registry = _registry(registry)
    reports = []
    for i, level in enumerate(levels):
        yield Progress(i, len(levels), f"user noise {level:.0%}")
        report = yield from evaluate_job(registry, user_noise=level, **evaluate_args)
        reports.append(report)
    yield Progress(len(levels), len(levels), "done")
    return reports


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
