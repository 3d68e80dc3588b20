"""One conversation with the clarifier: the belief after the query and every answer, the next question, the
stop, and the shortlist the comparisons start from (``Clarifier.start`` opens one).

Answers are ``AnswerKind``s and stop reasons ``StopReason``s (``assistant.clarification.records``). Besides the
domain's questions a conversation may ask the answer-list question ("Which of these is it? A / B / C / none of
these", ``assistant.clarification.answer_list``) where people know the labels' names: when its information
gain beats every tag question's, and when the stop rule would stop while several labels are still in
question (instead of leaving them to pairwise comparisons).

Besides answers, labels can be *dismissed* (the person rejected them, or called them not relevant): a dismissal
(``assistant.clarification.belief``: its likelihood, and a share held at most at ``DISMISS_ERROR`` after every
later answer) that never empties the belief, folded in once per label however often it is said again; an
*excluded* label also leaves the shortlist (the questions resume without it). An entry the person *picked* from
an answer list, and that the belief then holds likeliest, is proposed at once (``picked``). ``consistent_labels`` says which labels the
answers so far do not rule out (a person looking for them would very likely have answered otherwise).
"""

from __future__ import annotations

import math

import numpy as np

from assistant.clarification.answer_list import ANSWER_LIST, MAX_LISTS, AnswerList, best_answer_list
from assistant.clarification.belief import DISMISS_ERROR, Belief, Evidence
from assistant.clarification.facet_families import facet_families, family_asked
from assistant.clarification.out_of_scope import verdict_allowed
from assistant.clarification.parts import ClarifierParts
from assistant.clarification.questions import information_gain
from assistant.clarification.records import (
    AnswerKind,
    AnswerRecord,
    QueryChange,
    ShortlistItem,
    StopReason,
)
from assistant.clarification.stopping import MIN_INFORMATIVE_GAIN, considered_labels, shortlist_coverage
from assistant.errors import ConfigError, EmptyQueryError, SessionStateError
from assistant.store import Question

# A label is ruled out by an answer the answer model gives less than this chance for it (a "probably"
# answer, given with less certainty, by one below the lower bound).
RULED_OUT_BELOW = {AnswerKind.OPTION: 0.25, AnswerKind.PROBABLY: 0.1}
# The stop reasons after which a list of the labels still in question is asked instead of stopping.
LIST_INSTEAD_OF = (StopReason.CONFIDENT, StopReason.NO_INFORMATIVE_QUESTION, StopReason.NO_QUESTION)


class Conversation:
    """One clarification dialogue. Positions in ``probs`` refer to ``clarifier.candidates``."""

    def __init__(
        self,
        clarifier: ClarifierParts,
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
        self._facet_family = facet_families(clarifier)
        self.answers: list[AnswerRecord] = []
        self.query_changes: list[QueryChange] = []
        self._steps: list[str] = []  # "answer" or "query", in order, so that undo takes back the last one
        self._evidence: list[Evidence] = []  # one per answer, to take exactly that one back
        self._settled: list[tuple[int, ...]] = []  # per answer, the questions it settled (implied.py)
        self.excluded = np.zeros(len(log_prior), dtype=bool)  # dismissed and out of the shortlist
        self.dismissed = np.zeros(len(log_prior), dtype=bool)  # dismissed in the belief (once each)
        self.stopped = False
        self.stop_reason: StopReason | None = None  # why it stopped, once it has
        self.pending_list: AnswerList | None = None  # the answer-list question ``next_question`` chose
        self.listed_before: set[tuple[int, ...]] = set()  # the label sets answer lists listed (never again)

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
        """[Q] bool: questions not yet asked whose group was not declared invisible, one facet per family."""
        available = ~self.asked & ~family_asked(self._facet_family, self.asked)
        if self.retired_groups:
            available &= ~np.isin(self.clarifier.group_index, self.retired_groups)
        return available

    def question(self, index: int) -> Question:
        """Question ``index`` of the domain, or the pending answer-list question (``ANSWER_LIST``)."""
        if index == ANSWER_LIST:
            if self.pending_list is None:
                raise SessionStateError("no answer-list question is pending")
            labels, candidates = self.clarifier.domain.labels, self.clarifier.candidates
            return self.pending_list.question([labels[int(candidates[i])].name for i in self.pending_list.positions])
        return self.clarifier.domain.questions[index]

    # ---- decisions ---------------------------------------------------------------------------------
    def best_gain(self) -> float:
        """The expected information gain (nats) of the best question still available (0 if none)."""
        available = self.available
        if not available.any():
            return 0.0
        gains = information_gain(self.clarifier.model, self.probs)
        return max(0.0, float(np.max(gains, where=available, initial=-np.inf)))

    def out_of_scope_probability(self) -> float | None:
        """P(none of the labels fits | query, answers), or None without an out-of-scope model
        (``OutOfScopeModel.posterior_log_odds`` over the answers that picked an option)."""
        model = self.clarifier.out_of_scope
        if model is None:
            return None
        answers = [
            (evidence.log_likelihood, self.clarifier.out_of_scope_log_likelihood(evidence))
            for evidence in self.belief.evidence
            if evidence.log_likelihood is not None and evidence.option is not None
        ]
        log_odds = model.posterior_log_odds(self.belief.log_prior, answers)
        return 1.0 / (1.0 + math.exp(-min(max(log_odds, -700.0), 700.0)))

    @property
    def out_of_scope(self) -> bool:
        """Whether the conversation concluded that nothing fits."""
        return self.stopped and self.stop_reason == StopReason.OUT_OF_SCOPE

    def coverage(self) -> float:
        """P(the answer is in the shortlist) under the current belief."""
        return shortlist_coverage(self.probs, self.clarifier.config.shortlist_size)

    def should_stop(self) -> bool:
        """Whether to stop asking now; ``stop_reason`` says why."""
        cfg = self.clarifier.config
        oos = self.out_of_scope_probability()
        threshold = self.clarifier.out_of_scope.threshold if self.clarifier.out_of_scope else 1.0
        gain = self.best_gain()
        informative = gain > MIN_INFORMATIVE_GAIN
        # never turn a person away on their first words or one "something else" while a question can still
        # tell, nor while one label keeps most of the belief (assistant.clarification.out_of_scope)
        if (
            oos is not None
            and oos >= threshold
            and verdict_allowed(self._domain_answers(), informative, self.probs.max())
        ):
            self.stop_reason = StopReason.OUT_OF_SCOPE
            return True
        if self.turn >= cfg.max_turns or self.picked() is not None:
            self.stop_reason = StopReason.MAX_TURNS if self.picked() is None else StopReason.CONFIDENT
            return True
        if not self.available.any():
            self.stop_reason = StopReason.NO_QUESTION
            return True
        if not self.clarifier.stop_rule.should_stop(self.probs, self.turn, cfg.max_turns, gain):
            return False
        model = self.clarifier.out_of_scope  # there is one whenever ``oos`` is not None
        if oos is not None and model is not None and informative and oos >= model.doubt:
            return False  # in doubt whether anything fits, and a question can still tell
        if cfg.coverage > 0 and informative and self.coverage() < cfg.coverage:
            return False  # the shortlist is unlikely to hold the answer and a question can still help
        self.stop_reason = StopReason.CONFIDENT if informative else StopReason.NO_INFORMATIVE_QUESTION
        return True

    def picked(self) -> int | None:
        """The position of the entry the person picked from an answer list with the last answer, when the
        belief holds it likeliest (the evidence does not contradict the pick); else None."""
        if not self.answers or self._steps[-1] != "answer":
            return None
        last = self.answers[-1]
        if last.question != ANSWER_LIST or last.kind != AnswerKind.OPTION or last.option is None:
            return None
        if last.option >= len(last.listed):  # "none of these"
            return None
        position = int(last.listed[last.option])
        return position if int(np.argmax(self.probs)) == position else None

    def _domain_answers(self) -> int:
        """Answers to the domain's questions (an answer list's "none of these" says nothing of the scope)."""
        return sum(record.question != ANSWER_LIST for record in self.answers)

    def next_question(self, override_stop: bool = False) -> int | None:
        """The question to ask now, or None when the agent stops (then call ``shortlist``).

        ``override_stop``: the user wants more questions although the stop rule says stop (still at most
        ``max_turns`` and only while questions are left).
        """
        if override_stop:
            self.stopped, self.stop_reason = False, None
            if self.turn >= self.clarifier.config.max_turns or not self.available.any():
                self.stopped = True
                self.stop_reason = StopReason.MAX_TURNS if self.available.any() else StopReason.NO_QUESTION
                return None
        elif self.stopped:
            return None
        elif self.should_stop():
            final_list = self.stop_reason in LIST_INSTEAD_OF and self.picked() is None
            listed = self._final_list() if final_list else None
            if listed is None:
                self.stopped = True
                return None
            self.stop_reason, self.pending_list = None, listed
            return ANSWER_LIST
        question = self.clarifier.strategy.select(self.clarifier.model, self, self.rng)
        if self.clarifier.config.answer_lists and len(self.listed_before) < MAX_LISTS:
            listed, gain = best_answer_list(self.probs, self._eligible(), self.listed_before)
            if listed is not None and gain > information_gain(self.clarifier.model, self.probs)[question]:
                self.pending_list = listed
                return ANSWER_LIST
        return question

    def _eligible(self) -> np.ndarray:
        """[Y] bool: labels an answer list may name (not excluded, not ruled out by the answers)."""
        return self.consistent_labels()

    def _final_list(self) -> AnswerList | None:
        """Where people know the labels' names and the stop rule would stop with several labels still in
        question (``considered_labels``: none dominant): the list of them to ask instead; else None."""
        config = self.clarifier.config
        if not config.answer_lists or self.turn >= config.max_turns or len(self.listed_before) >= MAX_LISTS:
            return None
        eligible = self._eligible()
        if not eligible.any():
            eligible = ~self.excluded
        kept, dominant = considered_labels(self.probs, eligible, config.shortlist_size)
        if dominant or len(kept) < 2:
            return None
        in_question = np.zeros_like(eligible)
        in_question[kept] = True
        listed, _ = best_answer_list(self.probs, in_question, self.listed_before)
        return listed

    def force_stop(self) -> None:
        """The user skips to the shortlist."""
        self.stopped = True
        self.stop_reason = StopReason.USER

    def answer(self, question: int, option: int | None = None, kind: AnswerKind | str = AnswerKind.OPTION) -> None:
        """Record the user's answer to ``question`` and update the belief."""
        try:
            kind = AnswerKind(kind)
        except ValueError:
            known = ", ".join(AnswerKind)
            raise ConfigError(f"unknown answer kind {kind!r}: use one of {known}") from None
        if question == ANSWER_LIST:
            self._answer_list(option, kind)
            return
        if not 0 <= question < len(self.asked):
            raise ConfigError(f"question {question} does not exist")
        if self.asked[question]:
            raise SessionStateError(f"question {question} was already answered; undo it first to change the answer")
        model = self.clarifier.model
        log_likelihood = None
        if kind.picks_an_option:
            if option is None:
                raise ConfigError(f"a {kind!r} answer needs an option")
            softness = 1.0 if kind == AnswerKind.OPTION else self.clarifier.config.softness
            log_likelihood = np.log(model.likelihood(question, option, softness)).astype(np.float64)
        elif kind == AnswerKind.NOT_VISIBLE:
            if not self.clarifier.domain.allows_not_visible(question):
                raise ConfigError(
                    f"'not visible' is not an answer to {self.question(question).text!r}: answer it, or say 'not sure'"
                )
            self.retired_groups.append(int(self.clarifier.group_index[question]))
        evidence = Evidence(question, option, kind, log_likelihood)
        self.belief.update(evidence)
        self.query_free.update(evidence)
        self.asked[question] = True
        settled: tuple[int, ...] = ()
        if kind.picks_an_option:
            settled = tuple(q for q in self.clarifier.implied[question][option] if not self.asked[q])
            self.asked[list(settled)] = True
        self.answers.append(AnswerRecord(question, option, kind))
        self._settled.append(settled)
        self._evidence.append(evidence)
        self._steps.append("answer")
        self.stopped, self.stop_reason = False, None

    def _answer_list(self, option: int | None, kind: AnswerKind) -> None:
        """Record the answer to the pending answer-list question (``ANSWER_LIST``)."""
        listed = self.pending_list
        if listed is None:
            raise SessionStateError("no answer-list question is pending")
        if kind == AnswerKind.NOT_VISIBLE:
            raise ConfigError("'not visible' is not an answer to 'Which of these is it?': answer it, or 'not sure'")
        log_likelihood = None
        if kind.picks_an_option:
            if option is None or not 0 <= option < listed.num_options:
                raise ConfigError(f"choose one of the {listed.num_options} options of 'Which of these is it?'")
            softness = 1.0 if kind == AnswerKind.OPTION else self.clarifier.config.softness
            likelihood = (
                softness * listed.likelihood(option, len(self.excluded)) + (1.0 - softness) / listed.num_options
            )
            log_likelihood = np.log(likelihood)
        dismissed = kind == AnswerKind.OPTION and option == listed.none_option  # lasts (belief.py)
        cap = DISMISS_ERROR if dismissed else None
        evidence = Evidence(ANSWER_LIST, option, kind, log_likelihood, listed.positions, cap)
        self.belief.update(evidence)
        self.query_free.update(evidence)
        self.listed_before.add(tuple(sorted(listed.positions)))
        self.answers.append(AnswerRecord(ANSWER_LIST, option, kind, listed.positions))
        self._settled.append(())
        self._evidence.append(evidence)
        self._steps.append("answer")
        self.pending_list = None
        self.stopped, self.stop_reason = False, None

    def answer_listed(self, label_indices, option: int | None, kind: AnswerKind | str = AnswerKind.OPTION) -> None:
        """Answer an answer-list question over the domain labels ``label_indices`` (in list order): how a
        logged answer is replayed."""
        self.pending_list = AnswerList(tuple(int(i) for i in self.positions(label_indices)))
        self.answer(ANSWER_LIST, option, kind)

    def add_words(self, words: str) -> QueryChange:
        """The person says more ("it was in gmail"): the prior is recomputed on the longer query, the answers
        so far stay, and questions the new words answer are no longer asked."""
        words = " ".join(words.split())
        if not words:
            raise EmptyQueryError("there are no words to add: type what else you can say about it")
        query = f"{self.query} {words}".strip()
        understood = self.clarifier.understood(query)
        newly = tuple(sorted({q for q, _ in understood if not self.asked[q]}))
        change = QueryChange(
            words, self.query, self.belief.replace_prior(self.clarifier.log_prior(query)), tuple(self.understood), newly
        )
        self.query, self.understood = query, list(understood)
        self.asked[list(newly)] = True
        self.query_changes.append(change)
        self._steps.append("query")
        self.stopped, self.stop_reason = False, None
        return change

    def exclude(self, positions: np.ndarray | list[int], leave_shortlist: bool = True) -> None:
        """Dismiss the candidates at ``positions`` (the person rejected them, module docstring): labels not
        dismissed before are folded into the belief (once: a rejection followed by "ask more questions without
        it" is one dismissal); they leave the shortlist unless ``leave_shortlist`` is False (a rejected proposal
        before the way on is chosen, "not relevant" while comparing)."""
        positions = np.asarray(positions, dtype=np.int64)
        fresh = np.unique(positions[~self.dismissed[positions]])
        leaving = positions[~self.excluded[positions]] if leave_shortlist else positions[:0]
        if fresh.size == 0 and leaving.size == 0:
            return
        if fresh.size:
            log_likelihood = np.zeros(len(self.excluded))
            log_likelihood[fresh] = np.log(DISMISS_ERROR)
            evidence = Evidence(-1, None, "exclude", log_likelihood, tuple(int(i) for i in fresh), DISMISS_ERROR)
            self.belief.update(evidence)
            self.query_free.update(evidence)
            self.dismissed[fresh] = True
        self.excluded[leaving] = True
        self.stopped, self.stop_reason = False, None

    def positions(self, label_indices) -> np.ndarray:
        """Positions in the belief of domain label indices (that are candidates)."""
        return np.searchsorted(self.clarifier.candidates, np.asarray(label_indices, dtype=np.int64))

    def exclude_labels(self, keys, leave_shortlist: bool = True) -> None:
        """Rule the labels with these keys out (keys it does not know, or not among the candidates, are ignored)."""
        domain = self.clarifier.domain
        known = {label.key: i for i, label in enumerate(domain.labels)}
        candidates = set(self.clarifier.candidates.tolist())
        indices = [known[k] for k in keys if k in known and known[k] in candidates]
        if indices:
            self.exclude(self.positions(indices), leave_shortlist)

    def consistent_labels(self) -> np.ndarray:
        """[Y] bool: candidates that no answer so far rules out (see ``RULED_OUT_BELOW``), and not excluded."""
        ok = ~self.excluded
        model = self.clarifier.model
        for record in self.answers:
            if record.kind not in RULED_OUT_BELOW or record.option is None:
                continue
            if record.question == ANSWER_LIST:
                likelihood = AnswerList(record.listed).likelihood(record.option, len(ok))
            else:
                likelihood = model.likelihood(record.question, record.option, 1.0)
            ok &= likelihood >= RULED_OUT_BELOW[record.kind]
        return ok

    @property
    def can_undo(self) -> bool:
        return bool(self._steps)

    def undo(self) -> AnswerRecord | QueryChange:
        """Take back the last answer or added words (exclusions stay); the posterior is recomputed exactly."""
        if not self._steps:
            raise SessionStateError("there is no answer to undo")
        if self._steps.pop() == "query":
            change = self.query_changes.pop()
            self.belief.replace_prior(change.previous_prior)
            self.query, self.understood = change.previous_query, list(change.previous_understood)
            self.asked[list(change.newly_known)] = False
            self.stopped, self.stop_reason = False, None
            return change
        last = self.answers.pop()
        evidence = self._evidence.pop()
        self.belief.remove(evidence)
        self.query_free.remove(evidence)
        settled = list(self._settled.pop())
        if last.question == ANSWER_LIST:
            self.listed_before.discard(tuple(sorted(last.listed)))
        else:
            self.asked[last.question] = False
            self.asked[settled] = False
        if last.kind == AnswerKind.NOT_VISIBLE:
            self.retired_groups.remove(int(self.clarifier.group_index[last.question]))
        self.stopped, self.stop_reason = False, None
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
