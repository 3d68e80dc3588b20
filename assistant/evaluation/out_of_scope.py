"""Out-of-scope evaluation (issue 17): in-scope accuracy, out-of-scope recall and precision.

Episodes are every query of a split: the labelled ones (in scope: the simulated user answers from its
target's held-out answers) and the domain's out-of-scope ones (the simulated person answers "something
else" / "no" with probability 1 - ``user_error``, any other option otherwise:
``assistant.simulation.out_of_scope_person``). A system ends each episode on a label or on "out of scope":

- ``in_scope_accuracy``: in-scope episodes that end on their label (not on "out of scope");
- ``oos_recall``: out-of-scope episodes that end on "out of scope"; ``oos_precision``: of the episodes that end
  on "out of scope", the share that are.

Systems: ``no_interaction_threshold`` (Rasa's FallbackClassifier: no question, "out of scope" when the prior's
top probability is below a threshold tuned on dev), ``no_interaction_oos_prior`` (the fitted out-of-scope prior
alone), ``ours`` (the learned STOP/ASK policy with the out-of-scope hypothesis, clarification.out_of_scope),
``fixed_turns_3`` (3 information-gain questions with the hypothesis) and ``ours_without_oos`` (IC as before:
always ends on a label). Everything is tuned on dev (the val split and its out-of-scope queries) only.

Tuning (``tune_out_of_scope``): the prior's logistic regression is fitted on the dev queries' priors; then
``other_prob``, ``threshold``, ``doubt`` and a shift of the prior's bias are chosen on one ``max_turns``
rollout per dev episode (the questions do not depend on when one stops, so every setting's stop is a prefix
of it), maximising in-scope accuracy + out-of-scope recall among settings that ask at most
``question_budget`` questions on average.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Generator, Sequence
from dataclasses import dataclass

import numpy as np

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.clarifier import Clarifier, ClarifierConfig
from assistant.clarification.out_of_scope import (
    ANSWERS_BEFORE_VERDICT,
    LABEL_KEEPS,
    OutOfScopeModel,
    fit_prior,
    other_option,
)
from assistant.clarification.questions import InformationGainQuestions
from assistant.clarification.stopping import MIN_INFORMATIVE_GAIN, FixedTurns, StopRule
from assistant.errors import ConfigError
from assistant.priors.base import Prior
from assistant.progress import Progress
from assistant.settings import MAX_QUESTIONS, SHORTLIST_SIZE
from assistant.simulation.episodes import EpisodeSpec
from assistant.simulation.out_of_scope_person import OUT_OF_SCOPE_USER_ERROR, with_out_of_scope_person
from assistant.simulation.queries import LABEL_FREE_KINDS, VagueQueries, VagueQueryMix, vague_episodes
from assistant.simulation.rollout import give_answer, user_answer
from assistant.simulation.user import SimulatedUser
from assistant.store import Domain

OTHER_PROB_GRID = (0.6, 0.7, 0.8, 0.9)
THRESHOLD_GRID = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
DOUBT_FRACTIONS = (0.25, 0.5, 0.75, 1.0)
BIAS_SHIFTS = (-2.0, -1.0, 0.0, 1.0, 2.0)
RASA_GRID = tuple(np.round(np.arange(0.05, 1.0, 0.025), 3))
QUESTION_BUDGET = 3.0


@dataclass
class OutOfScopeSetup:
    """What the systems need; ``user_answers`` [Q, R, Y] are the in-scope simulated user's answers."""

    domain: Domain
    prior: Prior
    answer_model: AnswerModel
    policy: StopRule
    user_answers: np.ndarray
    coverage: float = 0.0
    shortlist_size: int = SHORTLIST_SIZE
    max_turns: int = MAX_QUESTIONS
    user_error: float = OUT_OF_SCOPE_USER_ERROR
    answer_lists: bool = False  # ours also asks "Which of these is it?" (assistant.clarification.answer_list)

    def user(self) -> SimulatedUser:
        answers = with_out_of_scope_person(self.user_answers, self.domain.questions, self.user_error)
        mask = self.domain.option_mask
        return SimulatedUser(answers, mask)

    def clarifier(self, stop: StopRule, oos: OutOfScopeModel | None, max_turns: int | None = None) -> Clarifier:
        config = ClarifierConfig(
            max_turns=self.max_turns if max_turns is None else max_turns,
            shortlist_size=self.shortlist_size,
            coverage=self.coverage if stop is self.policy else 0.0,
            answer_lists=self.answer_lists and stop is self.policy,
        )
        strategy = InformationGainQuestions()
        return Clarifier(self.domain, self.prior, self.answer_model, stop, strategy, config=config, out_of_scope=oos)


def split_episodes(domain: Domain, split: str, seed: int) -> list[EpisodeSpec]:
    """Every labelled query of ``split`` and every out-of-scope one (target = the number of labels)."""
    texts, labels = domain.queries(split)
    oos = [t for t, s in zip(domain.out_of_scope_texts, domain.out_of_scope_splits) if s == split]
    if not oos:
        raise ConfigError(
            f"domain {domain.name!r} has no out-of-scope {split} queries: out-of-scope evaluation needs them "
            "(the clinc domain has them; rebuild it with `clarify domain build clinc`)"
        )
    seeds = np.random.default_rng(seed).integers(2**31, size=len(texts) + len(oos))
    specs = [EpisodeSpec(int(y), t, int(s), "in_scope") for t, y, s in zip(texts, labels, seeds)]
    specs += [EpisodeSpec(domain.num_labels, t, int(s), "out_of_scope") for t, s in zip(oos, seeds[len(texts) :])]
    return specs


def vague_split_episodes(domain: Domain, split: str, seed: int, mix: VagueQueryMix | None = None) -> list[EpisodeSpec]:
    """``split_episodes`` with the first queries people type: the in-scope ones drawn from ``mix`` (the mix the
    stop policy was trained on), the out-of-scope ones from its label-free kinds (crowd, window, keywords) in
    the same proportions. Tuning on crowd queries alone taught the hypothesis that an uncertain prior means
    out of scope, and vague in-scope questions were turned away."""
    mix = mix or VagueQueryMix()
    episodes = split_episodes(domain, split, seed)
    in_scope = [e for e in episodes if e.kind == "in_scope"]
    made = vague_episodes(domain, in_scope, mix, seed)
    free = {k: w for k, w in zip(mix.kinds, mix.weights) if k in LABEL_FREE_KINDS}
    if not free:
        raise ConfigError(f"the query mix ({mix.describe()}) has no kind that an out-of-scope query can take")
    kinds, weights = list(free), np.array(list(free.values())) / sum(free.values())
    maker, rng = VagueQueries(domain), np.random.default_rng(seed + 1)
    out = [EpisodeSpec(e.target, e.query, e.seed, "in_scope") for e in made]
    for e in episodes[len(in_scope) :]:
        text, _kind = maker.make(e.query, None, kinds[int(rng.choice(len(kinds), p=weights))], rng)
        out.append(EpisodeSpec(e.target, text, e.seed, "out_of_scope"))
    return out


def scores_of(setup: OutOfScopeSetup, episodes: Sequence[EpisodeSpec]) -> np.ndarray:
    return np.asarray(setup.prior.scores([e.query for e in episodes]))


def metrics(episodes: Sequence[EpisodeSpec], predicted: Sequence[int], turns: Sequence[int], num_labels: int) -> dict:
    """``predicted[i]``: a label index, or ``num_labels`` for "out of scope"."""
    truth = np.array([e.target for e in episodes])
    pred = np.asarray(predicted)
    is_oos, said_oos = truth == num_labels, pred == num_labels
    in_scope = ~is_oos
    # None where a file of queries has no episodes of a kind (desk queries: all in scope, or all out)
    return {
        "in_scope_accuracy": float((pred[in_scope] == truth[in_scope]).mean()) if in_scope.any() else None,
        "oos_recall": float(said_oos[is_oos].mean()) if is_oos.any() else None,
        "oos_precision": float((is_oos & said_oos).sum() / said_oos.sum()) if said_oos.any() else 0.0,
        "mean_turns": float(np.mean(turns)),
        "mean_turns_in_scope": float(np.mean(np.asarray(turns)[in_scope])) if in_scope.any() else None,
        "episodes_in_scope": int(in_scope.sum()),
        "episodes_out_of_scope": int(is_oos.sum()),
    }


def rollout(clarifier: Clarifier, user: SimulatedUser, spec: EpisodeSpec, scores: np.ndarray) -> tuple[int, int]:
    """(predicted label or num_labels for "out of scope", questions asked) of one conversation."""
    user.start(spec)
    conv = clarifier.start_from_scores(scores, spec.query, np.random.default_rng(spec.seed))
    while (q := conv.next_question()) is not None:
        give_answer(conv, q, user_answer(user, conv, q))
    predicted = clarifier.domain.num_labels if conv.out_of_scope else int(conv.ranking(1)[0])
    return predicted, conv.turn


def _traces(setup: OutOfScopeSetup, episodes: Sequence[EpisodeSpec], scores: np.ndarray) -> dict[str, np.ndarray]:
    """One ``max_turns`` rollout per episode; per episode and turn [N, T] what every stop setting needs: the
    policy's verdict, informative / covered, the top label, the log marginal likelihood of the answers in scope,
    and the answers' counts for the out-of-scope likelihood (``other`` answers, other options, and a constant)."""
    clarifier = setup.clarifier(FixedTurns(setup.max_turns), None)
    user = setup.user()
    others = [other_option(q) for q in setup.domain.questions]
    n, t_max = len(episodes), setup.max_turns + 1
    keys = ("says_stop", "informative", "covered", "top", "top_prob", "marginal", "k_other", "k_non", "const", "valid")
    out = {k: np.zeros((n, t_max), dtype=np.float64) for k in keys}
    log_priors = []
    for i, (spec, s) in enumerate(zip(episodes, scores)):
        user.start(spec)
        conv = clarifier.start_from_scores(s, spec.query, np.random.default_rng(spec.seed))
        k_other = k_non = const = 0.0
        in_scope = conv.belief.log_prior.copy()
        t = 0
        while True:
            gain = conv.best_gain()
            top = in_scope.max()
            row = {
                "says_stop": setup.policy.should_stop(conv.probs, conv.turn, setup.max_turns, gain),
                "informative": gain > MIN_INFORMATIVE_GAIN,
                "covered": conv.coverage() >= setup.coverage,
                "top": int(conv.ranking(1)[0]),
                "top_prob": float(conv.probs.max()),
                "marginal": float(top + math.log(np.exp(in_scope - top).sum())),
                "k_other": k_other,
                "k_non": k_non,
                "const": const,
                "valid": 1.0,
            }
            for key, value in row.items():
                out[key][i, t] = value
            q = conv.next_question()
            if q is None:
                break
            option = user.answer(q)
            give_answer(conv, q, option)
            t += 1
            if option >= 0:
                in_scope += conv.belief.evidence[-1].log_likelihood
                n_options = len(setup.domain.questions[q].options)
                if others[q] is None:
                    const -= math.log(n_options)
                elif option == others[q]:
                    k_other += 1
                else:
                    k_non += 1
                    const -= math.log(n_options - 1)
        log_priors.append(conv.belief.log_prior)
    out["log_prior"] = np.array(log_priors)
    return out


def _replay(traces: dict[str, np.ndarray], model: OutOfScopeModel, num_labels: int) -> tuple[list, list]:
    """(predicted, turns) of the policy with ``model``, following Conversation.should_stop turn by turn (for
    all episodes at once: the first turn where it says out of scope, or stops on a label, or the last)."""
    prior_odds = np.asarray(model.prior_log_odds(traces["log_prior"]), dtype=np.float64).reshape(-1, 1)
    log_odds = (
        prior_odds
        + traces["k_other"] * math.log(model.other_prob)
        + traces["k_non"] * math.log(1.0 - model.other_prob)
        + traces["const"]
        - traces["marginal"]
    )
    p = 1.0 / (1.0 + np.exp(-np.clip(log_odds, -700, 700)))
    valid = traces["valid"] > 0
    informative, covered = traces["informative"] > 0, traces["covered"] > 0
    last = np.zeros_like(valid)
    last[np.arange(len(valid)), valid.sum(axis=1) - 1] = True
    says_oos = p >= model.threshold
    # Conversation.should_stop: no verdict on the first answers while a question can tell, nor while a label
    # keeps most of the belief (assistant.clarification.out_of_scope.verdict_allowed)
    says_oos[:, :ANSWERS_BEFORE_VERDICT] &= ~informative[:, :ANSWERS_BEFORE_VERDICT]
    says_oos &= traces["top_prob"] < LABEL_KEEPS
    on_label = (traces["says_stop"] > 0) & ~(informative & (p >= model.doubt)) & (covered | ~informative)
    stop = valid & (says_oos | on_label | last)
    turns = stop.argmax(axis=1)
    rows = np.arange(len(turns))
    predicted = np.where(says_oos[rows, turns], num_labels, traces["top"][rows, turns].astype(np.int64))
    return predicted.tolist(), turns.tolist()


def tune_out_of_scope(
    setup: OutOfScopeSetup,
    dev: Sequence[EpisodeSpec],
    question_budget: float = QUESTION_BUDGET,
    prior_fit: tuple[tuple[float, float, float], float] | None = None,
) -> Generator[Progress, None, tuple[OutOfScopeModel, dict]]:
    """The out-of-scope model for ``setup``'s policy, tuned on ``dev`` episodes (see the module docstring).
    ``prior_fit``: the prior's (weights, bias) fitted elsewhere (a desk's, on other desks' people: issue 39),
    kept as they are; only the answers' likelihood, the threshold and the doubt are tuned on ``dev``."""
    yield Progress(0, 3, f"scoring {len(dev)} dev queries")
    scores = scores_of(setup, dev)
    num_labels = setup.domain.num_labels
    log_probs = scores - scores.max(axis=1, keepdims=True)
    log_probs -= np.log(np.exp(log_probs).sum(axis=1, keepdims=True))
    is_oos = np.array([e.target == num_labels for e in dev])
    weights, bias = prior_fit if prior_fit is not None else fit_prior(log_probs[~is_oos], log_probs[is_oos])
    shifts = (0.0,) if prior_fit is not None else BIAS_SHIFTS
    yield Progress(1, 3, "rolling out the dev episodes")
    traces = _traces(setup, dev, scores)
    yield Progress(2, 3, "choosing the settings")
    best, best_key, best_row, tried = None, -math.inf, {}, 0
    fewest: tuple = (math.inf, None, {})
    for other, shift, threshold, fraction in itertools.product(
        OTHER_PROB_GRID, shifts, THRESHOLD_GRID, DOUBT_FRACTIONS
    ):
        model = OutOfScopeModel(weights, bias + shift, other, threshold, round(threshold * fraction, 4))
        predicted, turns = _replay(traces, model, num_labels)
        found = metrics(dev, predicted, turns, num_labels)
        tried += 1
        key = found["in_scope_accuracy"] + found["oos_recall"]
        if found["mean_turns"] <= question_budget and key > best_key:
            best, best_key, best_row = model, key, found
        if found["mean_turns"] < fewest[0]:
            fewest = (found["mean_turns"], model, found)
    if best is None:  # nothing fits the budget: the setting that asks least (said in the details)
        _, best, best_row = fewest
        best_row = {**best_row, "over_question_budget": question_budget}
    yield Progress(3, 3, f"threshold {best.threshold}, other {best.other_prob}")
    details = {
        "dev_episodes": len(dev),
        "dev_out_of_scope": int(is_oos.sum()),
        "settings_tried": tried,
        "dev": best_row,
    }
    return best, details


def tune_rasa_threshold(setup: OutOfScopeSetup, dev: Sequence[EpisodeSpec]) -> float:
    """The top-probability threshold of the no-interaction fallback with the best dev in-scope accuracy +
    out-of-scope recall."""
    scores = scores_of(setup, dev)
    num_labels = setup.domain.num_labels
    return max(RASA_GRID, key=lambda t: _score(dev, _threshold_predictions(scores, t, num_labels), num_labels))


def _threshold_predictions(scores: np.ndarray, threshold: float, num_labels: int) -> list[int]:
    probs = np.exp(scores - scores.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    return [num_labels if p.max() < threshold else int(p.argmax()) for p in probs]


def _score(episodes: Sequence[EpisodeSpec], predicted: Sequence[int], num_labels: int) -> float:
    found = metrics(episodes, predicted, [0] * len(predicted), num_labels)
    return found["in_scope_accuracy"] + found["oos_recall"]


def evaluate_out_of_scope(
    setup: OutOfScopeSetup,
    model: OutOfScopeModel,
    test: Sequence[EpisodeSpec],
    dev: Sequence[EpisodeSpec],
) -> Generator[Progress, None, list[dict]]:
    """One row per system on ``test`` (see the module docstring); the Rasa threshold is tuned on ``dev``."""
    num_labels = setup.domain.num_labels
    yield Progress(0, 5, f"scoring {len(test)} test queries")
    scores = scores_of(setup, test)
    rasa = tune_rasa_threshold(setup, dev)
    rows = [
        {
            "system": "no_interaction_threshold",
            "threshold": rasa,
            **metrics(test, _threshold_predictions(scores, rasa, num_labels), [0] * len(test), num_labels),
        }
    ]
    log_probs = scores - scores.max(axis=1, keepdims=True)
    odds = model.prior_log_odds(log_probs - np.log(np.exp(log_probs).sum(axis=1, keepdims=True)))
    prior_only = [
        num_labels if o >= math.log(model.threshold / (1 - model.threshold)) else int(s.argmax())
        for o, s in zip(np.asarray(odds), scores)
    ]
    rows.append({"system": "no_interaction_oos_prior", **metrics(test, prior_only, [0] * len(test), num_labels)})
    user = setup.user()
    plans = [
        ("ours", setup.policy, model, None),
        ("fixed_turns_3", FixedTurns(3), model, 3),
        ("ours_without_oos", setup.policy, None, None),
    ]
    for step, (name, stop, oos, max_turns) in enumerate(plans, start=1):
        yield Progress(step, 5, f"evaluating {name}")
        clarifier = setup.clarifier(stop, oos, max_turns)
        done = [rollout(clarifier, user, spec, s) for spec, s in zip(test, scores)]
        rows.append({"system": name, **metrics(test, [p for p, _ in done], [t for _, t in done], num_labels)})
    yield Progress(5, 5, "done")
    return rows
