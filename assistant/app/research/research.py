"""The research jobs the CLI, the Lab page and the benchmarks all run: evaluating the clarifier against IC's
baselines (also under user noise), and the pairwise ranking evaluation and demo. Training jobs are in
``assistant.app.lifecycle.training_jobs``.

Each is a generator job (``assistant.progress``) over a ``ModelRegistry``. Nothing here is needed to hold a
conversation.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from assistant.app.lifecycle.registry import ModelRegistry, candidate_labels
from assistant.app.lifecycle.training_jobs import (
    DEV_SEED_OFFSET,
    SHORTLIST_SIZE,
    dev_mix_episodes,
    policy_prior,
    registry_of,
)
from assistant.clarification.stopping import PACE_TURN_REWARD, check_pace
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
from assistant.evaluation.report import EvaluationReport, noise_table
from assistant.priors.bm25 import BM25Prior
from assistant.progress import Progress
from assistant.ranking.ranking_session import Candidate, RankingSession
from assistant.settings import MAX_QUESTIONS
from assistant.simulation.episodes import episodes_from_file, sample_episodes
from assistant.simulation.noise import UserNoise
from assistant.simulation.queries import VagueQueryMix, vague_episodes
from assistant.simulation.user import SimulatedUser

__all__ = [  # what the GUI's Lab page uses
    "CURVE_NAMES",
    "POINT_NAMES",
    "RANKING_DATASETS",
    "RANKING_MODELS",
    "RANKING_STRATEGIES",
    "SYSTEMS",
    "evaluate_job",
    "noise_sweep_job",
    "noise_table",
    "plot_accuracy_vs_turns",
    "plot_ranking_curves",
    "ranking_demo_job",
    "ranking_evaluation_job",
    "ranking_table",
]

# What ``clarify evaluate --queries`` accepts besides a file.
QUERY_SETTINGS = ("crowd", "vague")


def evaluation_setup(
    registry: ModelRegistry,
    candidates: str = "all",
    turn_reward: float | None = None,
    pace: str | None = None,
    shortlist_size: int = SHORTLIST_SIZE,
    user_noise: float = 0.0,
    answer_lists: bool | None = None,
) -> EvaluationSetup:
    """Everything ``assistant.evaluation.clarifier.evaluate`` needs for the registry's domain at a pace;
    ``user_noise``: the share of the simulated user's answers that are corrupted (assistant.simulation.noise);
    ``answer_lists``: whether ours asks "Which of these is it?" (None: as live conversations of the domain do)."""
    pace = check_pace(pace or registry.default_pace)
    ours = registry.load_policy(candidates, "learned", pace)
    lam1 = registry.load_policy(candidates, "lambda_1", pace)
    agent = registry.agent_domain
    return EvaluationSetup(
        domain=agent,
        candidates=candidate_labels(registry.domain, candidates),
        prior=policy_prior(registry),  # what its policies learned on: an own FAQ's calibrated prior (issue 32)
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
        answer_lists=registry.answer_lists if answer_lists is None else answer_lists,
    )


def evaluate_job(
    registry: ModelRegistry | str,
    candidates: str = "all",
    episodes: int = 2000,
    seed: int = 0,
    systems: Sequence[str] = SYSTEMS,
    max_turns: int = MAX_QUESTIONS,
    dev_episodes: int = 500,
    queries: str = "crowd",
    pace: str | None = None,
    mix: VagueQueryMix | None = None,
    user_noise: float = 0.0,
    answer_lists: bool | None = None,
) -> Generator[Progress, None, EvaluationReport]:
    """`clarify evaluate` (also the Lab page and the benchmark): every system on the same test episodes.

    ``queries``: "crowd" (the held-out crowd queries), "vague" (vague first queries made from them with
    ``mix``; same targets and answer seeds as "crowd") or a TSV file of the researcher's own (label<TAB>query).
    The threshold baseline is tuned on dev episodes from the vague mix whatever the test queries.
    ``user_noise``: the share of the simulated user's answers that are corrupted.
    """
    yield Progress(0, 0, "loading the models")
    registry = registry_of(registry)
    pace = check_pace(pace or registry.default_pace)
    setup = evaluation_setup(registry, candidates, pace=pace, user_noise=user_noise, answer_lists=answer_lists)
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
    registry = registry_of(registry)
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
