"""The comparison phase of a conversation: what is compared, with which ranker settings, and the answer it
arrives at.

A person can judge an answer to their question, not a label: for FAQs the candidates are the answer texts
of the labels the clarifier still considers (``assistant.clarification.comparison_plan``), each headed by its
FAQ question; for domains whose labels have no answer texts (birds, banking) the labels themselves. When
several labels are in question each brings only its best answer (the comparisons decide between labels);
when one label is left its answers compete, and the session proposes the best of them at once ("Did this
answer it?") and compares them only if the person says no.

Which answer of a label is best before any comparison (``answer_prior``): its relevance to the person's
query and to the label's own question (cosine of MiniLM embeddings), and the source's order (StackExchange
lists its answers by votes), with a small penalty for answers of a few words.

The ranker's prior is the clarifier's posterior: log p(label) plus a small query-answer similarity to
order the answers of one label, used as it is (not standardised), so that the comparisons need only settle
what the clarifier left open. With utilities that vary by about a Gumbel's spread around it (variance
pi^2 / 6) and little correlation between different texts, each candidate's chance of being the best
starts near the clarifier's belief (the argmax of log p + Gumbel noise is distributed as p). A stated
preference is strong evidence (probit noise 0.3); see ``assistant.ranking.constraints`` for why it is
also a hard constraint.

The session log records the compared labels and their probabilities (``comparison_entry``), not the
candidates: ``rebuild_comparisons`` makes the same candidates again from the domain when a session is
replayed (features come from the cached text embeddings).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from assistant.app.session.events import Stop
from assistant.app.session.session_records import FinalAnswer, SessionConfig
from assistant.clarification.clarifier import Conversation
from assistant.clarification.comparison_plan import ComparisonPlan
from assistant.clarification.records import ShortlistItem
from assistant.errors import UnknownLabelError
from assistant.ranking import Candidate, RankingSession, RankingStopReason, candidates_from_labels
from assistant.ranking.ranking_session import candidate_texts
from assistant.store import Domain
from assistant.text.encoder import TextEncoder

# GPPL for a person (see the module docstring): kernel correlation exp(-0.5 / 0.5^2) = 0.14 between
# candidates a median distance apart.
RANKER_OPTIONS = {
    "standardize_prior": False,
    "prior_scale": 1.0,
    "output_scale": 1.6,
    "lengthscale_factor": 0.5,
    "noise": 0.3,
}


# The answer prior's weights (module docstring): relevance to the label's question, per place in the source's
# order, and for an answer of fewer than ``SHORT_ANSWER_WORDS`` words.
TITLE_RELEVANCE = 1.0
SOURCE_ORDER = 0.1
SHORT_ANSWER = 0.2
SHORT_ANSWER_WORDS = 8


def comparison_session(
    items: Sequence[ShortlistItem], query: str, encoder: TextEncoder, config: SessionConfig
) -> RankingSession:
    """A ranking session over the answers (or the labels) of ``items``, with their belief as the prior: every
    answer of a single label, or each label's best answer when several are in question."""
    candidates = candidates_from_labels([it.label for it in items], [it.probability for it in items], query, encoder)
    candidates = answer_prior(candidates, encoder)
    if len(items) > 1:
        candidates = [max(group, key=lambda c: c.prior) for group in _by_label(candidates).values()]
    options = dict(RANKER_OPTIONS) if config.ranking_model == "gppl" else {}
    return RankingSession(
        _unique(candidates),
        model=config.ranking_model,
        acquisition=config.acquisition,
        seed=config.seed,
        threshold=config.ranking_threshold,
        budget=config.ranking_budget,
        model_options=options,
    )


def comparison_entry(plan: ComparisonPlan, ranking: RankingSession, reason: str, coverage: float, top: float) -> Stop:
    """What the session log keeps of a comparison phase (the questions stopped for ``reason``): the compared
    labels with their probabilities (exact floats, so that a replay builds the same priors), the shortlisted
    labels the answers ruled out, and the candidates' ids with their labels (for the transcript); ``ranking``
    goes with the live entry, not into the log."""
    return Stop(
        reason,
        coverage,
        top,
        labels=tuple((it.label.key, it.probability) for it in plan.items),
        ruled_out=tuple(it.label.key for it in plan.ruled_out),
        candidates=tuple((c.id, c.label_key, display_title(c, plan.items)) for c in ranking.candidates),
        fitted=ranking,
    )


def display_title(candidate: Candidate, items: Sequence[ShortlistItem]) -> str:
    """What a person reads above a compared candidate: its label's name, or "answer 2 of “name”" where the
    label has several answer texts (two answers of one FAQ never read as "X is better than X")."""
    for item in items:
        if item.label.key == candidate.label_key:
            texts = candidate_texts(item.label)
            if len(texts) > 1 and candidate.text in texts:
                return f"answer {texts.index(candidate.text) + 1} of “{item.label.name}”"
            return item.label.name
    return candidate.title


def rebuild_comparisons(
    stop: Stop, domain: Domain, query: str, encoder: TextEncoder, config: SessionConfig
) -> RankingSession | None:
    """The ranking session a logged 'stop' entry started (``comparison_entry``; logs written before it kept the
    whole ranking session, features included: those are read as they are). None: none of its labels is left."""
    if stop.ranking is not None:  # a log from before the entries kept labels
        return _legacy_ranking(stop.ranking)
    items = []
    for key, probability in stop.labels:
        try:
            index = domain.label_index(key)
        except UnknownLabelError:  # a label deleted since (an import): it is no longer an answer
            continue
        items.append(ShortlistItem(index, domain.labels[index], float(probability)))
    return comparison_session(items, query, encoder, config) if items else None


def answer_prior(candidates: list[Candidate], encoder: TextEncoder) -> list[Candidate]:
    """``candidates`` with the answer prior added to their prior score (module docstring): the same order of
    labels (each label's answers move together), a new order of one label's answers."""
    groups = _by_label(candidates)
    if all(len(group) == 1 for group in groups.values()):
        return candidates
    titles = np.asarray(encoder.encode(list(dict.fromkeys(c.title for c in candidates))), dtype=np.float64)
    title_vector = dict(zip(dict.fromkeys(c.title for c in candidates), titles))
    out = {}
    for group in groups.values():
        for rank, c in enumerate(group):
            t = title_vector[c.title]
            relevance = float(c.features @ t / max(np.linalg.norm(c.features) * np.linalg.norm(t), 1e-12))
            short = SHORT_ANSWER if len(c.text.split()) < SHORT_ANSWER_WORDS else 0.0
            bonus = TITLE_RELEVANCE * relevance - SOURCE_ORDER * rank - short
            out[c.id] = replace(c, prior=c.prior + bonus)
    return [out[c.id] for c in candidates]


def _by_label(candidates: list[Candidate]) -> dict[str, list[Candidate]]:
    """Candidates by the label they answer, each label's in the source's order."""
    groups: dict[str, list[Candidate]] = {}
    for c in candidates:
        groups.setdefault(c.label_key, []).append(c)
    return groups


def _legacy_ranking(saved: dict) -> RankingSession:
    """A ranking session saved whole by an older Clarify: its candidates' label keys were their ids up to '#'."""
    saved = copy.deepcopy(saved)  # the entry's own record stays as stored
    for candidate in saved.get("candidates", []):
        candidate.setdefault("label_key", str(candidate.get("id", "")).split("#", 1)[0])
    return RankingSession.from_dict(saved)


def _unique(candidates: list[Candidate]) -> list[Candidate]:
    """Candidates without repeated texts (a person would see the same pair twice)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for c in candidates:
        key = (c.title, " ".join(c.text.split()))
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def answer_from_ranking(
    ranking: RankingSession, conversation: Conversation, domain: Domain, candidate_id: str | None = None
) -> FinalAnswer:
    """The ranker's current best (or the candidate ``candidate_id``) as a session's answer."""
    chances = ranking.chances()
    index = ranking.best_index
    if candidate_id is not None:  # a candidate a log names; one gone since (an import) leaves the best
        index = next((i for i, c in enumerate(ranking.candidates) if c.id == candidate_id), index)
    best = ranking.candidates[index]
    label = domain.label_index(best.label_key)
    position = int(conversation.positions([label])[0])
    texts = candidate_texts(domain.labels[label])
    number = texts.index(best.text) + 1 if len(texts) > 1 and best.text in texts else None
    # sure of being the best only of what was compared: none of it when nothing was, or when the others were
    # all called not relevant (the one left was never shown)
    compared = ranking.history and ranking.stop_reason not in (
        RankingStopReason.SINGLE_CANDIDATE,
        RankingStopReason.ONE_LEFT,
    )
    return FinalAnswer(
        best.label_key,
        domain.labels[label].name,
        best.text,
        float(conversation.probs[position]),
        len(ranking.history),
        best.id,
        float(chances[index]) if compared else None,
        number,
        len(texts),
    )


def best_first(ranking: RankingSession, chance: list[float]) -> list[int]:
    """The compared answers "best first" by the chance the table shows (issue 40: a rejected answer stayed in
    row 1, 1% above 2%), except where the person said otherwise: an answer preferred stays above the one it
    beat (each row is the likeliest of those no unplaced answer was preferred to); those called not relevant
    go last, and the ranker's order breaks ties."""
    ruled_out = ranking.ruled_out
    beaten_by: dict[int, set[int]] = {}
    for winner, loser in ranking.preferences:
        beaten_by.setdefault(loser, set()).add(winner)
    left = list(ranking.ranking())  # the ranker's order: the tie-break
    order: list[int] = []
    while left:
        free = [i for i in left if not beaten_by.get(i, set()) & set(left)] or left  # a cycle: the ranker's
        pick = min(free, key=lambda i: (bool(ruled_out[i]), -round(chance[i], 9)))
        order.append(pick)
        left.remove(pick)
    return order
