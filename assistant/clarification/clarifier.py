"""The agent: prior p(y|x0) + belief + question strategy + stop rule, over a set of candidate labels.

``Clarifier`` holds what does not change between conversations (domain, prior, answer model restricted
to the candidates, strategy, stop rule); ``Clarifier.start(query)`` opens a ``Conversation`` that asks,
takes answers, undoes them, and at STOP returns a ranked ``shortlist`` that the ranker consumes.

Answers a user can give to a question (``AnswerKind``):

- ``option``: one of the question's options (yes/no, or a value of a multiple-choice group);
- ``probably``: an option given with less confidence: its likelihood is mixed with the uniform one;
- ``not_sure``: no update (the question is still used up);
- ``not_visible`` (birds): no update, and no more questions from that attribute group.

Besides answers, labels can be *excluded* (the person rejected them after the comparisons): their belief
drops to practically zero and they leave the shortlist. ``consistent_labels`` says which labels the
answers so far do not rule out (a person looking for them would very likely have answered otherwise).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.belief import Belief, Evidence
from assistant.clarification.questions import InformationGainQuestions, Strategy, answer_distribution, information_gain
from assistant.clarification.stopping import StopRule
from assistant.errors import ConfigError, EmptyQueryError, SessionStateError
from assistant.priors.base import Prior, restrict
from assistant.store import Domain, Label, Question

AnswerKind = Literal["option", "probably", "not_sure", "not_visible"]
ANSWER_KINDS: tuple[str, ...] = ("option", "probably", "not_sure", "not_visible")
# An excluded label keeps e^-30 of its belief: out of every shortlist, yet the belief stays finite.
EXCLUDED_LOG_LIKELIHOOD = -30.0
# A label is ruled out by an answer the answer model gives less than this chance for it (a "probably"
# answer, given with less certainty, by one below the lower bound).
RULED_OUT_BELOW = {"option": 0.25, "probably": 0.1}


@dataclass(frozen=True)
class ClarifierConfig:
    """``max_turns``: questions at most; ``softness``: weight of a "probably" answer (1 = sure)."""

    max_turns: int = 10
    shortlist_size: int = 10
    softness: float = 0.5

    def __post_init__(self) -> None:
        if self.max_turns < 0:
            raise ConfigError(f"max_turns must be >= 0, got {self.max_turns}")
        if self.shortlist_size < 1:
            raise ConfigError(f"shortlist_size must be >= 1, got {self.shortlist_size}")
        if not 0.0 <= self.softness <= 1.0:
            raise ConfigError(f"softness must be in [0, 1], got {self.softness}")


@dataclass(frozen=True)
class ShortlistItem:
    """A candidate label at STOP: its index in the domain, the label, and its posterior probability."""

    label_index: int
    label: Label
    probability: float


@dataclass(frozen=True)
class AnswerRecord:
    question: int
    option: int | None
    kind: str


class Clarifier:
    """See the module docstring. ``candidates``: domain label indices to choose among (None = all)."""

    def __init__(
        self,
        domain: Domain,
        prior: Prior,
        answer_model: AnswerModel,
        stop_rule: StopRule,
        strategy: Strategy | None = None,
        candidates: np.ndarray | None = None,
        config: ClarifierConfig | None = None,
    ) -> None:
        self.domain = domain
        self.prior = prior
        self.stop_rule = stop_rule
        self.strategy = strategy or InformationGainQuestions()
        self.config = config or ClarifierConfig()
        if answer_model.shape[2] != domain.num_labels:
            raise ConfigError(
                f"answer model covers {answer_model.shape[2]} labels, domain {domain.name!r} has {domain.num_labels}"
            )
        if candidates is None:
            self.candidates = np.arange(domain.num_labels)
            self.model = answer_model
        else:
            self.candidates = np.unique(np.asarray(candidates, dtype=np.int64))
            if self.candidates.size == 0 or self.candidates[0] < 0 or self.candidates[-1] >= domain.num_labels:
                raise ConfigError("candidates must be a non-empty set of label indices of the domain")
            self.model = answer_model.restrict(self.candidates)
        self.group_index = domain.group_index

    def start(self, query: str, rng: np.random.Generator | None = None) -> Conversation:
        """Open a conversation for the user's initial ``query``."""
        if not query or not query.strip():
            raise EmptyQueryError("the question is empty: type a few words about what you are looking for")
        scores = self.prior.scores([query.strip()])[0]
        return self.start_from_scores(scores, query.strip(), rng)

    def start_from_scores(
        self, scores: np.ndarray, query: str = "", rng: np.random.Generator | None = None
    ) -> Conversation:
        """Open a conversation from precomputed prior scores [Y over the whole domain] (simulation)."""
        mentioned = getattr(self.prior, "mentioned", None)
        understood = mentioned(query) if (mentioned is not None and query) else []
        return Conversation(self, restrict(np.asarray(scores), self.candidates), query, rng, understood)


class Conversation:
    """One clarification dialogue. Positions in ``probs`` refer to ``clarifier.candidates``."""

    def __init__(
        self,
        clarifier: Clarifier,
        log_prior: np.ndarray,
        query: str,
        rng: np.random.Generator | None,
        understood: list[tuple[int, int]] | None = None,
    ) -> None:
        self.clarifier = clarifier
        self.query = query
        self.rng = rng or np.random.default_rng(0)
        self.belief = Belief(log_prior)
        # The query-free belief (uniform prior, same answers) serves the static-IG baseline and explanations.
        self.query_free = Belief(np.zeros_like(log_prior))
        num_q = clarifier.model.shape[0]
        self.asked = np.zeros(num_q, dtype=bool)
        # what the query already said (its evidence is in the prior): never asked again, not a turn
        self.understood = list(understood or [])
        for question, _ in self.understood:
            self.asked[question] = True
        self.retired_groups: list[int] = []
        self.answers: list[AnswerRecord] = []
        self._evidence: list[Evidence] = []  # one per answer, to take exactly that one back
        self.excluded = np.zeros(len(log_prior), dtype=bool)
        self.stopped = False

    # ---- state -------------------------------------------------------------------------------------
    @property
    def probs(self) -> np.ndarray:
        return self.belief.probs

    @property
    def query_free_probs(self) -> np.ndarray:
        return self.query_free.probs

    @property
    def turn(self) -> int:
        """Questions answered so far (any kind of answer)."""
        return len(self.answers)

    @property
    def available(self) -> np.ndarray:
        """[Q] bool: questions not yet asked whose group was not declared invisible."""
        retired = np.isin(self.clarifier.group_index, self.retired_groups)
        return ~self.asked & ~retired

    def question(self, index: int) -> Question:
        return self.clarifier.domain.questions[index]

    # ---- decisions ---------------------------------------------------------------------------------
    def should_stop(self) -> bool:
        cfg = self.clarifier.config
        if self.turn >= cfg.max_turns or not self.available.any():
            return True
        return self.clarifier.stop_rule.should_stop(self.probs, self.turn, cfg.max_turns)

    def next_question(self, override_stop: bool = False) -> int | None:
        """The question to ask now, or None when the agent stops (then call ``shortlist``).

        ``override_stop``: the user wants more questions although the stop rule says stop (still at most
        ``max_turns`` and only while questions are left).
        """
        if override_stop:
            self.stopped = False
            if self.turn >= self.clarifier.config.max_turns or not self.available.any():
                self.stopped = True
                return None
        elif self.stopped or self.should_stop():
            self.stopped = True
            return None
        return self.clarifier.strategy.select(self.clarifier.model, self, self.rng)

    def force_stop(self) -> None:
        """The user skips to the shortlist."""
        self.stopped = True

    def answer(self, question: int, option: int | None = None, kind: AnswerKind = "option") -> None:
        """Record the user's answer to ``question`` and update the belief."""
        if kind not in ANSWER_KINDS:
            raise ConfigError(f"unknown answer kind {kind!r}: use one of {', '.join(ANSWER_KINDS)}")
        if not 0 <= question < len(self.asked):
            raise ConfigError(f"question {question} does not exist")
        if self.asked[question]:
            raise SessionStateError(f"question {question} was already answered; undo it first to change the answer")
        model = self.clarifier.model
        log_likelihood = None
        if kind in ("option", "probably"):
            if option is None:
                raise ConfigError(f"a {kind!r} answer needs an option")
            softness = 1.0 if kind == "option" else self.clarifier.config.softness
            log_likelihood = np.log(model.likelihood(question, option, softness)).astype(np.float64)
        elif kind == "not_visible":
            if not self.clarifier.domain.supports_not_visible:
                raise ConfigError(f"'not visible' is not an answer in domain {self.clarifier.domain.name!r}")
            self.retired_groups.append(int(self.clarifier.group_index[question]))
        evidence = Evidence(question, option, kind, log_likelihood)
        self.belief.update(evidence)
        self.query_free.update(evidence)
        self.asked[question] = True
        self.answers.append(AnswerRecord(question, option, kind))
        self._evidence.append(evidence)
        self.stopped = False

    def exclude(self, positions: np.ndarray | list[int]) -> None:
        """Rule out the candidates at ``positions`` (the person rejected them): they leave the shortlist."""
        positions = np.asarray(positions, dtype=np.int64)
        fresh = positions[~self.excluded[positions]]
        if fresh.size == 0:
            return
        log_likelihood = np.zeros(len(self.excluded))
        log_likelihood[fresh] = EXCLUDED_LOG_LIKELIHOOD
        evidence = Evidence(-1, None, "exclude", log_likelihood)
        self.belief.update(evidence)
        self.query_free.update(evidence)
        self.excluded[fresh] = True
        self.stopped = False

    def consistent_labels(self) -> np.ndarray:
        """[Y] bool: candidates that no answer so far rules out (see ``RULED_OUT_BELOW``), and not excluded."""
        ok = ~self.excluded
        model = self.clarifier.model
        for record in self.answers:
            if record.kind in RULED_OUT_BELOW and record.option is not None:
                ok &= model.likelihood(record.question, record.option, 1.0) >= RULED_OUT_BELOW[record.kind]
        return ok

    def undo(self) -> AnswerRecord:
        """Take back the last answer (exclusions stay); the posterior is recomputed exactly."""
        if not self.answers:
            raise SessionStateError("there is no answer to undo")
        last = self.answers.pop()
        evidence = self._evidence.pop()
        self.belief.remove(evidence)
        self.query_free.remove(evidence)
        self.asked[last.question] = False
        if last.kind == "not_visible":
            self.retired_groups.remove(int(self.clarifier.group_index[last.question]))
        self.stopped = False
        return last

    # ---- results -----------------------------------------------------------------------------------
    def shortlist(self, k: int | None = None) -> list[ShortlistItem]:
        """The k most likely candidates, most likely first."""
        k = k or self.clarifier.config.shortlist_size
        idx, probs = self.belief.top_k(k + int(self.excluded.sum()))
        labels = self.clarifier.domain.labels
        cands = self.clarifier.candidates
        kept = [(i, p) for i, p in zip(idx, probs) if not self.excluded[i]][:k]
        return [ShortlistItem(int(cands[i]), labels[int(cands[i])], float(p)) for i, p in kept]

    def ranking(self, k: int) -> np.ndarray:
        """Domain label indices of the k most likely candidates (for evaluation)."""
        idx, _ = self.belief.top_k(k)
        return self.clarifier.candidates[idx]

    def explain(self, question: int, top: int = 5) -> dict:
        """Why this question: its information gain and what each answer would do to the top labels."""
        model = self.clarifier.model
        ig = information_gain(model, self.probs)
        p_answer = answer_distribution(model, self.probs, question)
        labels, cands = self.clarifier.domain.labels, self.clarifier.candidates
        outcomes = []
        for r, option in enumerate(self.question(question).options):
            post = self.belief.log_probs + np.log(model.likelihood(question, r))
            post = np.exp(post - post.max())
            post /= post.sum()
            order = np.argsort(-post, kind="stable")[:top]
            outcomes.append(
                {
                    "option": option,
                    "probability": float(p_answer[r]),
                    "top": [(labels[int(cands[i])].name, float(post[i])) for i in order],
                }
            )
        available = self.available
        rank = int((ig[available] > ig[question]).sum()) + 1 if available[question] else None
        return {
            "question": self.question(question).text,
            "information_gain": float(ig[question]),
            "rank": rank,
            "entropy": self.belief.entropy(),
            "outcomes": outcomes,
        }
