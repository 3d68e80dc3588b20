"""Evaluation against the baselines of IC Table 1, on the same simulated episodes.

Systems (names as in the JSON output):

- ``ours``: information-gain questions, learned STOP/ASK policy, answer model with learned lambda;
- ``threshold``: the same questions, stop when the top probability reaches a threshold, tuned on dev
  episodes for the reward the policy maximises among thresholds that ask no more questions on average
  than the policy does on those episodes (so the two compare at equal cost);
- ``fixed_turns``: the same questions, always k of them (one row per k = 1..max_turns);
- ``lambda_1``: like ours but the answer model is the crowd's p_hat only (lambda = 1) with its own policy;
- ``static_ig``: questions chosen by IG of the query-free belief, the learned policy stops;
- ``random``: random questions, the learned policy stops;
- ``no_interaction_neural`` / ``no_interaction_bm25``: the top label of the prior, no question.

With ``ours`` and ``fixed_turns`` together the report adds ``threshold_matched``: the threshold chosen on the
*test* episodes themselves as the most accurate one that asks no more questions on average than ours, an
upper bound for any threshold rule at ours' effort (not a system one could deploy), and ``meta
["threshold_sweep"]``: every threshold's Acc@1 and mean questions, the threshold rule's whole frontier.

Every system meets the same targets, queries and simulated answers (common random numbers), so
differences between rows are paired: each row carries McNemar's exact test against ours (``vs_ours``), and
the paired bootstrap intervals of its Acc@1 and mean-questions differences with their verdicts ("tie" where
the interval holds 0). Acc@1/Acc@3 are over episodes; their standard errors and 95% bootstrap intervals are
reported.
"""

from __future__ import annotations

import math
import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass, replace

import numpy as np

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.clarifier import Clarifier, ClarifierConfig
from assistant.clarification.questions import InformationGainQuestions, RandomQuestions, StaticInformationGainQuestions
from assistant.clarification.stopping import MIN_INFORMATIVE_GAIN, FixedTurns, StopRule, ThresholdStop
from assistant.errors import ConfigError
from assistant.evaluation.intervals import paired_difference
from assistant.evaluation.report import (
    EvaluationReport,
    accuracy_curve,
    paired_test,
    questions_to_reach,
    report_row,
    threshold_curve,
    threshold_stop,
    truncate_episode,
)
from assistant.priors.base import Prior
from assistant.progress import Progress
from assistant.settings import MAX_QUESTIONS, SHORTLIST_SIZE, SYSTEMS
from assistant.simulation.episodes import EpisodeSpec
from assistant.simulation.protocol import answer_correlation
from assistant.simulation.rollout import Episode, give_answer, run_episode
from assistant.simulation.user import SimulatedUser, check_simulator
from assistant.store import Domain

THRESHOLD_GRID = tuple(np.round(np.arange(0.05, 0.996, 0.025), 3))
# The coverage rule overrides the learned policy only where it earns more than this many questions' worth of
# dev reward over the policy alone (see ``tune_coverage``).
COVERAGE_SLACK = 0.25


@dataclass
class EvaluationSetup:
    """Everything the systems need. Answer models and the user cover all labels of ``domain``."""

    domain: Domain
    candidates: np.ndarray
    prior: Prior
    answer_model: AnswerModel
    policy: StopRule
    user: SimulatedUser
    answer_model_lambda_1: AnswerModel | None = None
    policy_lambda_1: StopRule | None = None
    bm25_prior: Prior | None = None
    reward_correct: float = 20.0
    reward_wrong: float = -10.0
    turn_reward: float = -1.0
    protocol: str = ""
    coverage: float = 0.0  # the compare-only-when-covered rule of the systems the learned policy stops
    shortlist_size: int = SHORTLIST_SIZE
    answer_lists: bool = False  # ours also asks "Which of these is it?" (assistant.clarification.answer_list)


def _rewards(episodes: Sequence[Episode], setup: EvaluationSetup) -> float:
    return float(
        np.mean(
            [
                (setup.reward_correct if e.correct_at_1 else setup.reward_wrong) + setup.turn_reward * e.turns
                for e in episodes
            ]
        )
    )


def tune_threshold(
    setup: EvaluationSetup,
    scores: np.ndarray,
    episodes: Sequence[EpisodeSpec],
    max_turns: int,
    turn_limit: float | None = None,
) -> tuple[float, float]:
    """The probability threshold for ``episodes`` (dev), and its mean reward there.

    With ``turn_limit``: the most accurate threshold among those that ask at most ``turn_limit``
    questions on average (a comparison at equal cost); without: the one with the best mean reward.

    One 10-question rollout per episode suffices: stopping at threshold t is a prefix of it.
    """
    clarifier = Clarifier(
        setup.domain,
        setup.prior,
        setup.answer_model,
        FixedTurns(max_turns),
        InformationGainQuestions(),
        setup.candidates,
        ClarifierConfig(max_turns=max_turns),
    )
    top_probs, hits = [], []
    for spec, s in zip(episodes, scores):
        setup.user.start(spec)
        conv = clarifier.start_from_scores(s, spec.query)
        maxes, hit = [float(conv.probs.max())], [bool(conv.ranking(1)[0] == spec.target)]
        while (q := conv.next_question()) is not None:
            give_answer(conv, q, setup.user.answer(q))
            maxes.append(float(conv.probs.max()))
            hit.append(bool(conv.ranking(1)[0] == spec.target))
        top_probs.append(maxes)
        hits.append(hit)
    best, best_key = (THRESHOLD_GRID[0], -math.inf), -math.inf  # lowest threshold: fewest questions
    for t in THRESHOLD_GRID:
        total, turns, correct = 0.0, 0, 0
        for maxes, hit in zip(top_probs, hits):
            stop = next((k for k, m in enumerate(maxes) if m >= t), len(maxes) - 1)
            total += (setup.reward_correct if hit[stop] else setup.reward_wrong) + setup.turn_reward * stop
            turns += stop
            correct += hit[stop]
        n = len(top_probs)
        if turn_limit is not None and turns / n > turn_limit:
            continue
        key = correct / n if turn_limit is not None else total / n
        if key > best_key:
            best, best_key = (float(t), total / n), key
    return best


def tune_coverage(
    setup: EvaluationSetup, episodes: Sequence[EpisodeSpec], grid: Sequence[float], max_turns: int = MAX_QUESTIONS
) -> tuple[float, dict]:
    """The coverage for the compare-only-when-covered rule (``ClarifierConfig.coverage``) on ``episodes``
    (dev, vague first queries) with the learned policy, and what it was chosen from.

    The policy decides alone (coverage 0) unless a coverage in ``grid`` earns a dev mean reward (at the pace's
    cost per question) more than ``COVERAGE_SLACK`` questions' worth above the policy alone; then the best
    one. A hard rule over a learned one has to show on dev that it is worth it: the policy sees the
    shortlist's mass itself (``policy_features``) and is trained to trade accuracy against questions. One
    ``max_turns`` rollout per episode suffices: the questions do not depend on when one stops, so every
    coverage's stop is a prefix of it.
    """
    clarifier = Clarifier(
        setup.domain,
        setup.prior,
        setup.answer_model,
        FixedTurns(max_turns),
        InformationGainQuestions(),
        setup.candidates,
        ClarifierConfig(max_turns=max_turns, shortlist_size=setup.shortlist_size),
    )
    scores = setup.prior.scores([e.query for e in episodes])
    traces = []  # per episode, per turn: (policy says stop, coverage, informative, hit@1)
    for spec, s in zip(episodes, scores):
        setup.user.start(spec)
        conv = clarifier.start_from_scores(s, spec.query)
        trace = []
        while True:
            gain = conv.best_gain()
            says_stop = setup.policy.should_stop(conv.probs, conv.turn, max_turns, gain)
            hit = bool(conv.ranking(1)[0] == spec.target)
            trace.append((says_stop, conv.coverage(), gain > MIN_INFORMATIVE_GAIN, hit))
            q = conv.next_question()
            if q is None:
                break
            conv.answer(q, setup.user.answer(q))
        traces.append(trace)
    results = {}
    for c in grid:
        reward, turns, correct = 0.0, 0, 0
        for trace in traces:
            stop = next(
                (t for t, (says, cov, informative, _) in enumerate(trace) if says and (cov >= c or not informative)),
                len(trace) - 1,
            )
            hit = trace[stop][3]
            reward += (setup.reward_correct if hit else setup.reward_wrong) + setup.turn_reward * stop
            turns += stop
            correct += hit
        n = len(traces)
        results[float(c)] = {"reward": reward / n, "acc1": correct / n, "mean_turns": turns / n}
    alone = results[0.0]["reward"] if 0.0 in results else -math.inf
    best = max(results, key=lambda c: (results[c]["reward"], -c))
    margin = COVERAGE_SLACK * abs(setup.turn_reward)
    chosen = best if results[best]["reward"] > alone + margin else 0.0
    return chosen, {"dev_episodes": len(traces), "grid": {str(c): r for c, r in results.items()}}


def evaluate(
    setup: EvaluationSetup,
    episodes: Sequence[EpisodeSpec],
    dev_episodes: Sequence[EpisodeSpec] = (),
    max_turns: int = MAX_QUESTIONS,
    systems: Sequence[str] = SYSTEMS,
    threshold: float | None = None,
) -> Generator[Progress, None, EvaluationReport]:
    """Run every requested system on ``episodes``; returns an EvaluationReport.

    ``threshold`` None: tuned on ``dev_episodes`` (required then, for the threshold system).
    """
    _check_request(setup, episodes, systems)
    start = time.perf_counter()
    yield Progress(0, len(systems) + 1, "scoring the queries with the prior")
    run = _Run(setup, episodes, max_turns, setup.prior.scores([e.query for e in episodes]))
    for step, system in enumerate(systems, start=1):
        yield Progress(step, len(systems) + 1, f"evaluating {system}")
        run.system(system, dev_episodes, threshold)
    run.compare_with_ours()
    run.meta["seconds"] = round(time.perf_counter() - start, 2)
    yield Progress(len(systems) + 1, len(systems) + 1, "done")
    return EvaluationReport(rows=run.rows, curves=run.curves, meta=run.meta)


def _check_request(setup: EvaluationSetup, episodes: Sequence[EpisodeSpec], systems: Sequence[str]) -> None:
    if not systems:
        raise ConfigError(f"no systems to evaluate: choose from {', '.join(SYSTEMS)}")
    unknown = sorted(set(systems) - set(SYSTEMS))
    if unknown:
        raise ConfigError(f"unknown system(s) {', '.join(unknown)}: choose from {', '.join(SYSTEMS)}")
    if not episodes:
        raise ConfigError("no episodes to evaluate")
    check_simulator(setup.user, episodes, setup.domain.num_labels)
    candidate_set = set(setup.candidates.tolist())
    if any(e.target not in candidate_set for e in episodes):
        raise ConfigError("some episode targets are not among the candidates")


def _meta(setup: EvaluationSetup, episodes: Sequence[EpisodeSpec], max_turns: int) -> dict:
    return {
        "domain": setup.domain.name,
        "candidates": len(setup.candidates),
        "episodes": len(episodes),
        "max_turns": max_turns,
        "protocol": setup.protocol,
        "reward": {"correct": setup.reward_correct, "wrong": setup.reward_wrong, "turn": setup.turn_reward},
        "lambda": setup.answer_model.lam,
        "user_noise": setup.user.noise.describe(),
        "agent_user_correlation": answer_correlation(
            setup.answer_model.matrix[:, :, setup.candidates],
            setup.user.noise.effective_answers(setup.user.answers, setup.user.option_mask)[:, :, setup.candidates],
            setup.user.option_mask,
        ),
        "coverage": setup.coverage,
        "shortlist_size": setup.shortlist_size,
        "answer_lists": setup.answer_lists,
    }


class _Run:
    """One evaluation's systems run on the same episodes: their rows, Acc@1 hits, curves and meta."""

    def __init__(self, setup: EvaluationSetup, episodes: Sequence[EpisodeSpec], max_turns: int, scores) -> None:
        self.setup, self.episodes, self.max_turns, self.scores = setup, episodes, max_turns, scores
        self.config = ClarifierConfig(max_turns=max_turns)
        lam1_model = setup.answer_model_lambda_1 or setup.answer_model.with_params(lam=1.0)
        lam1_policy = setup.policy_lambda_1 or setup.policy
        self.plans: dict[str, tuple] = {
            "ours": (setup.answer_model, setup.policy, InformationGainQuestions()),
            "lambda_1": (lam1_model, lam1_policy, InformationGainQuestions()),
            "static_ig": (setup.answer_model, setup.policy, StaticInformationGainQuestions()),
            "random": (setup.answer_model, setup.policy, RandomQuestions()),
        }
        self.curve_plans = {
            "ig": (setup.answer_model, InformationGainQuestions()),
            "lambda_1": (lam1_model, InformationGainQuestions()),
            "static_ig": (setup.answer_model, StaticInformationGainQuestions()),
            "random": (setup.answer_model, RandomQuestions()),
        }
        self.meta = _meta(setup, episodes, max_turns)
        # the systems the learned policy stops follow the compare-only-when-covered rule; the baselines do not
        self.covered = replace(self.config, shortlist_size=setup.shortlist_size, coverage=setup.coverage)
        self.learned = {setup.policy, lam1_policy}
        self.rows: list[dict] = []
        self.hits: list[np.ndarray] = []  # per row: Acc@1 hit of every episode, for paired tests
        self.turns: list[np.ndarray] = []  # per row: questions of every episode, likewise
        self.curves: dict[str, dict[str, list[float]]] = {}
        self.full: list[Episode] | None = None  # the fixed-turn rollouts (every prefix of them is a stop)

    def rollouts(self, model: AnswerModel, stop: StopRule, strategy, specs=None, prior_scores=None) -> list[Episode]:
        setup = self.setup
        specs = self.episodes if specs is None else specs
        prior_scores = self.scores if prior_scores is None else prior_scores
        cfg = self.covered if stop in self.learned else self.config
        if stop is setup.policy and model is setup.answer_model and isinstance(strategy, InformationGainQuestions):
            cfg = replace(cfg, answer_lists=setup.answer_lists)  # ours as it ships
        clarifier = Clarifier(setup.domain, setup.prior, model, stop, strategy, setup.candidates, cfg)
        return [
            run_episode(clarifier, setup.user, spec, s, np.random.default_rng(spec.seed))
            for spec, s in zip(specs, prior_scores)
        ]

    def add(self, system: str, done: Sequence[Episode], **extra) -> None:
        self.rows.append(report_row(system, done, **extra))
        self.hits.append(np.array([e.correct_at_1 for e in done], dtype=bool))
        self.turns.append(np.array([e.turns for e in done], dtype=float))

    def system(self, system: str, dev_episodes: Sequence[EpisodeSpec], threshold: float | None) -> None:
        setup, max_turns = self.setup, self.max_turns
        if system in self.plans:
            model, stop, strategy = self.plans[system]
            self.add(system, self.rollouts(model, stop, strategy))
            if system != "ours" and system in self.curve_plans:
                model_c, strategy_c = self.curve_plans[system]
                done = self.rollouts(model_c, FixedTurns(max_turns), strategy_c)
                self.curves[system] = accuracy_curve(done, max_turns)
        elif system == "threshold":
            threshold = self.tuned_threshold(dev_episodes) if threshold is None else threshold
            self.meta["threshold"] = threshold
            self.add(system, self.rollouts(setup.answer_model, ThresholdStop(threshold), InformationGainQuestions()))
        elif system == "fixed_turns":
            full = self.full = self.rollouts(setup.answer_model, FixedTurns(max_turns), InformationGainQuestions())
            self.curves["ig"] = accuracy_curve(full, max_turns)
            self.meta["threshold_sweep"] = threshold_curve(full, THRESHOLD_GRID)
            self.meta["questions_to_acc1_0.9"] = questions_to_reach(self.curves["ig"], 0.9)
            for k in range(1, max_turns + 1):
                self.add("fixed_turns", [truncate_episode(e, k) for e in full], turns=k)
        elif system == "no_interaction_neural":
            self.add(system, self.rollouts(setup.answer_model, FixedTurns(0), InformationGainQuestions()))
        elif system == "no_interaction_bm25" and setup.bm25_prior is not None:
            self.add(system, self.bm25_episodes(setup.bm25_prior))

    def tuned_threshold(self, dev_episodes: Sequence[EpisodeSpec]) -> float:
        if not dev_episodes:
            raise ConfigError("the threshold system needs dev episodes to tune its threshold (or pass one)")
        setup = self.setup
        dev_scores = setup.prior.scores([e.query for e in dev_episodes])
        # at no more questions than ours: the policy's mean on the same dev episodes is the limit
        ours_dev = self.rollouts(setup.answer_model, setup.policy, None, dev_episodes, dev_scores)
        limit = float(np.mean([e.turns for e in ours_dev]))
        threshold, _ = tune_threshold(setup, dev_scores, dev_episodes, self.max_turns, limit)
        self.meta["threshold_turn_limit"] = limit
        return threshold

    def bm25_episodes(self, bm25_prior: Prior) -> list[Episode]:
        bm25 = bm25_prior.scores([e.query for e in self.episodes])[:, self.setup.candidates]
        order = np.argsort(-bm25, axis=1, kind="stable")[:, :3]
        ranked = self.setup.candidates[order]
        return [
            Episode(e.target, e.query, hit1_by_turn=[bool(r[0] == e.target)], hit3_by_turn=[e.target in r])
            for e, r in zip(self.episodes, ranked)
        ]

    def compare_with_ours(self) -> None:
        """The threshold matched to ours' mean turns, and every row's paired test against ours."""
        rows, meta = self.rows, self.meta
        ours_at = next((i for i, row in enumerate(rows) if row["system"] == "ours"), None)
        if ours_at is not None and self.full is not None:
            sweep = meta["threshold_sweep"]
            limit = rows[ours_at]["mean_turns"] + 1e-9
            fits = [i for i, turns in enumerate(sweep["mean_turns"]) if turns <= limit]
            if fits:
                best = max(fits, key=lambda i: (sweep["acc1"][i], -sweep["mean_turns"][i]))
                matched = sweep["threshold"][best]
                self.add("threshold_matched", [truncate_episode(e, threshold_stop(e, matched)) for e in self.full])
                meta["threshold_matched"] = matched
        if ours_at is not None:
            for i, row in enumerate(rows):
                if i != ours_at:
                    row["vs_ours"] = paired_test(self.hits[ours_at], self.hits[i])
                    turns = paired_difference(self.turns[ours_at], self.turns[i])
                    row["vs_ours"].update(turns_diff=turns["difference"], turns_diff_ci=turns["interval"])
                    row["vs_ours"]["turns_verdict"] = turns["verdict"]
