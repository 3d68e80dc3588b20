"""The sweep functions researchers run with `clarify bench sweep CONFIG.toml` (see assistant.evaluation.sweeps).

* ``ranking``: BO's community-QA protocol for one (data set, model, strategy, seed, noise t, ranker settings);
  shards are ranges of questions, each carrying its questions' candidates (features, prior, gold), so that a
  shard needs nothing from disk. Metrics per interaction k: accuracy (top-1), ndcg5.
* ``clarifier``: IC's evaluation for one (domain, candidates, seed, user noise, turn cost) over the chosen
  systems; shards are ranges of test episodes. Metrics: acc1, acc3, turns per system (fixed_turns as
  fixed_1 .. fixed_10).
* ``policy``: trains a STOP/ASK policy for one (domain, seed, turn cost r_a, user noise, turn budget) and
  evaluates it on test episodes; one shard per point (training does not split). Metrics: acc1, acc3, turns,
  reward.

The clarifier and policy shards read the trained domain from $CLARIFY_HOME (prepared once, here, before the
shards run; on a cluster it must be a shared folder). User noise e mixes the simulated user's answer
distribution with the uniform one over the question's options: p' = (1 - e) p + e / |R(q)|.
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

import numpy as np

from assistant.errors import ConfigError
from assistant.evaluation.sweeps import SweepFunction
from assistant.progress import Job, Progress, run_job

RANKING_DEFAULTS = {
    "dataset": "beer",
    "model": "gppl",
    "strategy": "imp",
    "seed": 0,
    "t": 0.3,
    "interactions": 10,
    "split": "dev",
    "candidates": 100,
    "max_questions": 0,
    "questions_per_shard": 10,
    "data_dir": "",
}
CLARIFIER_DEFAULTS = {
    "domain": "faq",
    "candidates": "all",
    "seed": 0,
    "episodes": 1000,
    "episodes_per_shard": 250,
    "systems": ["ours", "threshold", "fixed_turns", "no_interaction_neural"],
    "user_noise": 0.0,
    "turn_reward": -1.0,
    "max_turns": 10,
}
POLICY_DEFAULTS = {
    "domain": "faq",
    "candidates": "all",
    "seed": 0,
    "turn_reward": -1.0,
    "user_noise": 0.0,
    "turn_budget": 0.0,
    "iterations": 300,
    "episodes": 1000,
}


def _settings(point: dict[str, Any], defaults: dict[str, Any], function: str) -> dict[str, Any]:
    extra = sorted(set(point) - set(defaults) - _ranker_fields())
    if extra:
        raise ConfigError(
            f"sweep function {function!r} has no setting {', '.join(extra)}; it takes {', '.join(defaults)}"
        )
    return {**defaults, **point}


def _ranker_fields() -> set[str]:
    from assistant.evaluation.cqa.protocol import RankerSettings

    return {f.name for f in fields(RankerSettings)}


# ---- ranking -----------------------------------------------------------------------------------------------
def ranking_shards(point: dict[str, Any]) -> Job[list[dict[str, Any]]]:
    from assistant.evaluation.cqa.data import load_dataset
    from assistant.evaluation.cqa.problems import build_problems, split_indices
    from assistant.evaluation.cqa.protocol import compatible

    s = _settings(point, RANKING_DEFAULTS, "ranking")
    if s["model"] not in ("gppl", "bt", "pairwisegp"):
        raise ConfigError("ranking sweeps take model gppl, bt or pairwisegp (the deep rankers need pretraining)")
    if not compatible(s["model"], s["strategy"]):
        raise ConfigError(f"model {s['model']} does not take strategy {s['strategy']}")
    data = load_dataset(s["dataset"], s["data_dir"] or None)
    problems = yield from build_problems(data, n_candidates=int(s["candidates"]))
    if s["split"] not in ("train", "dev", "test", "all"):
        raise ConfigError(f"unknown split {s['split']!r}: use dev, test, train or all")
    chosen = np.arange(len(problems)) if s["split"] == "all" else split_indices(len(problems))[s["split"]]
    if s["max_questions"]:
        chosen = chosen[: int(s["max_questions"])]
    size = max(1, int(s["questions_per_shard"]))
    shards = []
    for start in range(0, len(chosen), size):
        questions = [
            {
                "index": int(qi),
                "features": problems[qi].embeddings,
                "prior": problems[qi].prior,
                "utilities": problems[qi].utilities,
            }
            for qi in chosen[start : start + size]
        ]
        shards.append({**s, "questions": questions})
    return shards


def ranking_shard(shard: dict[str, Any]) -> list[dict[str, Any]]:
    """Accuracy and NDCG@5 sums after k = 0..interactions comparisons over the shard's questions."""
    from assistant.evaluation.cqa.protocol import RankerSettings, make_model, run_interactions

    names = _ranker_fields()
    settings = RankerSettings(**{k: v for k, v in shard.items() if k in names})
    n, seed = int(shard["interactions"]), int(shard["seed"])
    acc_sum = np.zeros(n + 1)
    ndcg_sum = np.zeros(n + 1)
    for q in shard["questions"]:
        draws = np.random.default_rng([seed, q["index"]]).random(max(n, 1))[:n]
        model = make_model(shard["model"], settings, None, seed)
        acc, ndcg, _ = run_interactions(
            model,
            shard["strategy"],
            q["features"],
            q["prior"],
            q["features"],
            q["utilities"],
            draws,
            float(shard["t"]),
            np.random.default_rng([seed, q["index"], 1]),
        )
        acc_sum += acc
        ndcg_sum += ndcg
    count = len(shard["questions"])
    return [
        {"metric": metric, "step": k, "sum": float(values[k]), "count": count}
        for metric, values in (("accuracy", acc_sum), ("ndcg5", ndcg_sum))
        for k in range(n + 1)
    ]


# ---- clarifier ---------------------------------------------------------------------------------------------
def noisy_answers(answers: np.ndarray, option_mask: np.ndarray, noise: float) -> np.ndarray:
    """[Q, R, Y] (1 - noise) * answers + noise * uniform over each question's options."""
    if not 0.0 <= noise <= 1.0:
        raise ConfigError(f"user_noise must lie in [0, 1], got {noise}")
    mask = np.asarray(option_mask, dtype=np.float64)[:, :, None]
    uniform = mask / mask.sum(axis=1, keepdims=True)
    return (1.0 - noise) * np.asarray(answers, dtype=np.float64) + noise * uniform * np.ones_like(answers)


def _setup(s: dict[str, Any]):
    from assistant.app.lifecycle.registry import ModelRegistry
    from assistant.app.research.research import evaluation_setup
    from assistant.simulation.user import SimulatedUser

    registry = ModelRegistry(s["domain"])
    setup = evaluation_setup(registry, s["candidates"], float(s["turn_reward"]))
    answers = noisy_answers(registry.protocol.user_answers, registry.domain.option_mask, float(s["user_noise"]))
    return registry, replace(setup, user=SimulatedUser(answers, registry.domain.option_mask))


def _test_episodes(registry, setup, s: dict[str, Any]):
    from assistant.simulation.episodes import sample_episodes

    return sample_episodes(registry.agent_domain, int(s["episodes"]), int(s["seed"]), "test", setup.candidates)


def clarifier_shards(point: dict[str, Any]) -> Job[list[dict[str, Any]]]:
    from assistant.app.desk.domains import prepare
    from assistant.app.lifecycle.training_jobs import DEV_SEED_OFFSET
    from assistant.evaluation.clarifier import evaluate
    from assistant.simulation.episodes import sample_episodes

    s = _settings(point, CLARIFIER_DEFAULTS, "clarifier")
    yield from prepare(s["domain"])
    threshold = None
    if "threshold" in s["systems"]:  # tuned once here on dev episodes, the same for every shard
        registry, setup = _setup(s)
        dev = sample_episodes(registry.agent_domain, 500, int(s["seed"]) + DEV_SEED_OFFSET, "dev", setup.candidates)
        yield Progress(0, 0, "tuning the threshold on dev episodes")
        report = run_job(evaluate(setup, dev[:1], dev, int(s["max_turns"]), ("threshold",)))
        threshold = report.meta["threshold"]
    size = max(1, int(s["episodes_per_shard"]))
    total = int(s["episodes"])
    return [{**s, "start": a, "stop": min(a + size, total), "threshold": threshold} for a in range(0, total, size)]


def _report_rows(report, n: int, extra: dict | None = None) -> list[dict[str, Any]]:
    rows = []
    for row in report.rows:
        system = f"fixed_{row['turns']}" if row["system"] == "fixed_turns" else row["system"]
        for metric, value in (("acc1", row["acc1"]), ("acc3", row["acc3"]), ("turns", row["mean_turns"])):
            # hits and questions are integers per episode: rounding the mean back to a count is exact
            rows.append({"metric": metric, "system": system, "step": None, "sum": float(round(value * n)), "count": n})
    return [{**r, **(extra or {})} for r in rows]


def clarifier_shard(shard: dict[str, Any]) -> list[dict[str, Any]]:
    from assistant.evaluation.clarifier import evaluate

    registry, setup = _setup(shard)
    episodes = _test_episodes(registry, setup, shard)[shard["start"] : shard["stop"]]
    systems = tuple(shard["systems"])
    report = run_job(evaluate(setup, episodes, (), int(shard["max_turns"]), systems, shard["threshold"]))
    return _report_rows(report, len(episodes))


# ---- policy training ---------------------------------------------------------------------------------------
def policy_shards(point: dict[str, Any]) -> Job[list[dict[str, Any]]]:
    from assistant.app.desk.domains import prepare

    s = _settings(point, POLICY_DEFAULTS, "policy")
    yield from prepare(s["domain"])
    return [s]


def policy_shard(shard: dict[str, Any]) -> list[dict[str, Any]]:
    """Train a policy with turn cost r_a against the (noisy) simulated user, then evaluate it on test episodes."""
    from assistant.app.lifecycle.training_jobs import fit_policy
    from assistant.clarification.stopping import LearnedPolicy
    from assistant.evaluation.clarifier import evaluate
    from assistant.training.policy import PolicyConfig

    registry, setup = _setup(shard)
    budget = float(shard["turn_budget"]) or None
    config = PolicyConfig(
        iterations=int(shard["iterations"]), turn_reward=float(shard["turn_reward"]), turn_budget=budget
    )
    result = run_job(
        fit_policy(registry, shard["candidates"], "learned", config, int(shard["seed"]), setup.user.answers)
    )
    setup = replace(setup, policy=LearnedPolicy(result.net), answer_model=result.answer_model(setup.answer_model))
    episodes = _test_episodes(registry, setup, shard)
    report = run_job(evaluate(setup, episodes, (), 10, ("ours",)))
    ours = report.rows[0]
    n = len(episodes)
    # per episode: +20 when right, -10 when wrong, r_a per question
    reward = 30.0 * round(ours["acc1"] * n) - 10.0 * n + float(shard["turn_reward"]) * round(ours["mean_turns"] * n)
    return [*_report_rows(report, n), {"metric": "reward", "system": "ours", "step": None, "sum": reward, "count": n}]


SWEEP_FUNCTIONS: dict[str, SweepFunction] = {
    f.name: f
    for f in (
        SweepFunction("ranking", ranking_shards, ranking_shard, "cQA ranking: accuracy, ndcg5 per interaction"),
        SweepFunction("clarifier", clarifier_shards, clarifier_shard, "IC evaluation: acc1, acc3, turns per system"),
        SweepFunction("policy", policy_shards, policy_shard, "train a STOP/ASK policy, then evaluate it"),
    )
}


def sweep_function(name: str) -> SweepFunction:
    if name not in SWEEP_FUNCTIONS:
        raise ConfigError(f"unknown sweep function {name!r}: use one of {', '.join(SWEEP_FUNCTIONS)}")
    return SWEEP_FUNCTIONS[name]
