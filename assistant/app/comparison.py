"""What the comparison phase compares, and with which ranker settings.

A person can judge an answer to their question, not a label: for FAQs the candidates are the answers of
the FAQs the clarifier still considers, each headed by its FAQ question; for domains whose labels have no
answers (birds, banking) the labels themselves. Which labels:

1. the shortlist (the ``shortlist_size`` likeliest labels, never an excluded one);
2. without the labels the person's answers rule out (``Conversation.consistent_labels``), as long as one
   shortlisted label is consistent with them;
3. only those the clarifier still considers: at least ``CONSIDERED_SHARE`` of the likeliest one's belief;
4. and when one label holds ``DOMINANT_SHARE`` of what is left, that label alone (its answers compete);
5. at most ``budget + 1`` candidates, taken in turn from each label (likeliest label first, each label's
   answers in order of similarity to the query): then a candidate that wins every comparison it is in can
   be compared with every other one within the budget, and the ranker is sure of it by then.

The ranker's prior is the clarifier's posterior: log p(label) plus a small query-answer similarity to
order the answers of one label, used as it is (not standardised), so that the comparisons need only settle
what the clarifier left open. With utilities that vary by about a Gumbel's spread around it (variance
pi^2 / 6) and little correlation between different texts, each candidate's chance of being the best
starts near the clarifier's belief (the argmax of log p + Gumbel noise is distributed as p). A stated
preference is strong evidence (probit noise 0.3); see ``assistant.ranking.constraints`` for why it is
also a hard constraint.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from assistant.app.session_records import FinalAnswer
from assistant.clarification.clarifier import Conversation, ShortlistItem
from assistant.ranking import RankingSession, candidates_from_labels
from assistant.store import Domain

CONSIDERED_SHARE = 0.1
DOMINANT_SHARE = 0.8
# GPPL for a person (see the module docstring): kernel correlation exp(-0.5 / 0.5^2) = 0.14 between
# candidates a median distance apart.
RANKER_OPTIONS = {
    "standardize_prior": False,
    "prior_scale": 1.0,
    "output_scale": 1.6,
    "lengthscale_factor": 0.5,
    "noise": 0.3,
}


@dataclass(frozen=True)
class ComparisonPlan:
    """The labels to compare (best first) and why the others were left out."""

    items: tuple[ShortlistItem, ...]
    ruled_out: tuple[ShortlistItem, ...]  # shortlisted but contradicted by the answers
    dominant: bool


def plan_comparisons(conversation: Conversation, shortlist_size: int) -> ComparisonPlan:
    """Which shortlisted labels the comparison phase shows (see the module docstring)."""
    items = conversation.shortlist(shortlist_size)
    consistent = conversation.consistent_labels()
    position = {int(c): i for i, c in enumerate(conversation.clarifier.candidates)}
    fits = [it for it in items if consistent[position[it.label_index]]]
    ruled_out = tuple(it for it in items if it not in fits) if fits else ()
    kept = fits or items
    top = kept[0].probability if kept else 0.0
    kept = [it for it in kept if it.probability >= CONSIDERED_SHARE * top]
    total = sum(it.probability for it in kept)
    dominant = len(kept) > 1 and kept[0].probability >= DOMINANT_SHARE * total
    if dominant:
        kept = kept[:1]
    return ComparisonPlan(tuple(kept), ruled_out, dominant)


def comparison_session(
    items: Sequence[ShortlistItem],
    query: str,
    encoder,
    model: str = "gppl",
    acquisition: str = "imp",
    seed: int = 0,
    threshold: float = 0.9,
    budget: int = 8,
) -> RankingSession:
    """A ranking session over the answers (or the labels) of ``items``, with their belief as the prior."""
    candidates = candidates_from_labels([it.label for it in items], [it.probability for it in items], query, encoder)
    options = dict(RANKER_OPTIONS) if model == "gppl" else {}
    return RankingSession(
        _unique(candidates),
        model=model,
        acquisition=acquisition,
        seed=seed,
        threshold=threshold,
        budget=budget,
        model_options=options,
    )


def take_in_turn(candidates: list, limit: int) -> list:
    """At most ``limit`` candidates: each label's best (by prior) in turn, likeliest label first."""
    by_label: dict[str, list] = {}
    for c in candidates:
        by_label.setdefault(label_key(c.id), []).append(c)
    queues = sorted(
        (sorted(group, key=lambda c: -c.prior) for group in by_label.values()), key=lambda group: -group[0].prior
    )
    picked: list = []
    depth = 0
    while len(picked) < min(limit, len(candidates)):
        picked += [group[depth] for group in queues if depth < len(group)][: limit - len(picked)]
        depth += 1
    return picked


def _unique(candidates: list) -> list:
    """Candidates without repeated texts (a person would see the same pair twice)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for c in candidates:
        key = (c.title, " ".join(c.text.split()))
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def label_key(candidate_id: str) -> str:
    """The label a candidate belongs to (candidate ids are the label key, with '#k' for the k-th answer)."""
    return candidate_id.split("#", 1)[0]


def positions(conversation: Conversation, label_indices: Sequence[int]) -> np.ndarray:
    """Positions in the conversation's belief of domain label indices."""
    return np.searchsorted(conversation.clarifier.candidates, np.asarray(label_indices, dtype=np.int64))


def exclude_labels(conversation: Conversation, keys: Sequence[str]) -> None:
    """Rule the labels with these keys out of the conversation (those it does not know are ignored)."""
    domain = conversation.clarifier.domain
    known = {lab.key: i for i, lab in enumerate(domain.labels)}
    candidates = set(conversation.clarifier.candidates.tolist())
    indices = [known[k] for k in keys if k in known and known[k] in candidates]
    if indices:
        conversation.exclude(positions(conversation, indices))


def question_index(domain, payload: dict) -> int | None:
    """The question a logged answer refers to: by its tag (logged since issue 26), else by its index, or by
    its text when the domain's questions changed since (an import); None when it no longer exists (hidden)."""
    index, text = int(payload["question"]), payload.get("text")
    questions = domain.questions
    if "tag" in payload:
        return next((i for i, q in enumerate(questions) if q.tag == payload["tag"]), None)
    if text is None or (0 <= index < len(questions) and questions[index].text == text):
        return index
    return next((i for i, q in enumerate(questions) if q.text == text), None)


def answer_from_ranking(
    ranking, conversation: Conversation, domain: Domain, candidate_id: str | None = None
) -> FinalAnswer:
    """The ranker's current best (or the candidate ``candidate_id``) as a session's answer."""
    chances = ranking.chances()
    index = ranking.best_index
    if candidate_id is not None:
        index = next((i for i, c in enumerate(ranking.candidates) if c.id == candidate_id), index)
    best = ranking.candidates[index]
    key = label_key(best.id)
    label = domain.label_index(key)
    position = int(positions(conversation, [label])[0])
    return FinalAnswer(
        key,
        domain.labels[label].name,
        best.text,
        float(conversation.probs[position]),
        len(ranking.history),
        best.id,
        float(chances[index]),
    )


def comparison_phase(
    conversation: Conversation, query: str, text_encoder, config
) -> tuple[RankingSession | None, tuple[str, ...]]:
    """The ranking session over what ``plan_comparisons`` picks for a session with ``config``
    (``SessionConfig``), and the keys of the shortlisted labels the answers ruled out; None when nothing is
    left to compare."""
    plan = plan_comparisons(conversation, config.shortlist_size)
    ruled_out = tuple(it.label.key for it in plan.ruled_out)
    if not plan.items:
        return None, ruled_out
    ranking = comparison_session(
        plan.items,
        query,
        text_encoder,
        model=config.ranking_model,
        acquisition=config.acquisition,
        seed=config.seed,
        threshold=config.ranking_threshold,
        budget=config.ranking_budget,
    )
    return ranking, ruled_out
