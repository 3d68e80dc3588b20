"""A "no" to one answer, read as the two levels of one belief (issue 40): P(entry) x P(answer | entry).

An entry with several answers ("How do I split conversations in Gmail?", six answers) is not wrong because
one of its answers is: answer 1 may say it cannot be done while answer 6 names the add-on that does it. So
rejecting one answer of an entry whose other answers are still on offer is evidence about that answer (its
share among the entry's answers falls to ``DISMISS_ERROR``, the stated error rate of a person's "no") and a
little about the entry (``ENTRY_AFTER_ONE_ANSWER``: its odds at most halved), never a dismissal of the entry;
the rejected answer is not proposed again in this session. An entry whose only answer is rejected is
dismissed as before (``Conversation.exclude``).

The note given with a rejection is read as words (``assistant.clarification.notes``): what it says the person
wants is added to the query, what it says they do not lowers the entries that are about it.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from assistant.clarification.belief import DISMISS_ERROR, Evidence
from assistant.clarification.clarifier import Conversation
from assistant.clarification.notes import entry_words, note_log_likelihood, read_note
from assistant.clarification.query_check import MAX_QUERY_CHARS
from assistant.ranking import RankingSession

# P(the person rejects one answer of the entry | the entry is right), against P(... | it is not) = 1: one of
# its other answers may be the right one, so the "no" halves the entry's odds at most
ENTRY_AFTER_ONE_ANSWER = 0.5


def other_answers(ranking: RankingSession, candidate_id: str, rejected: Collection[str]) -> list[int]:
    """Indices of the answers of ``candidate_id``'s entry still on offer: compared, not called not relevant,
    not rejected."""
    by_id = {str(c.id): c for c in ranking.candidates}
    key = by_id[candidate_id].label_key if candidate_id in by_id else None
    ruled_out = ranking.ruled_out
    return [
        i
        for i, c in enumerate(ranking.candidates)
        if c.label_key == key and str(c.id) != candidate_id and str(c.id) not in rejected and not ruled_out[i]
    ]


def reject_answer(
    conversation: Conversation, ranking: RankingSession, label_key: str, candidate_id: str, rejected: set[str]
) -> bool:
    """Fold the rejection of ``candidate_id`` (an answer of ``label_key``) into the belief (module docstring);
    ``rejected`` gains it. True when the whole entry was dismissed (it had no other answer on offer)."""
    others = other_answers(ranking, candidate_id, rejected)
    rejected.add(candidate_id)
    if not others:
        conversation.exclude_labels([label_key], leave_shortlist=False)
        return True
    position = int(conversation.positions([conversation.clarifier.domain.label_index(label_key)])[0])
    log_likelihood = np.zeros(len(conversation.excluded))
    log_likelihood[position] = np.log(ENTRY_AFTER_ONE_ANSWER)
    evidence = Evidence(-1, None, "answer rejected", log_likelihood, (position,))
    conversation.belief.update(evidence)
    conversation.query_free.update(evidence)
    return False


def answer_shares(ranking: RankingSession, rejected: Collection[str]) -> np.ndarray:
    """[candidates] each answer's share among its entry's compared answers: the ranker's chances within the
    entry, a rejected answer's weighed by ``DISMISS_ERROR`` (1 for an entry that brought one answer)."""
    chances = np.asarray(ranking.chances(), dtype=np.float64)
    weights = np.where([str(c.id) in rejected for c in ranking.candidates], DISMISS_ERROR, 1.0) * chances
    keys = [c.label_key for c in ranking.candidates]
    shares = np.empty(len(keys))
    for key in set(keys):
        mine = np.array([k == key for k in keys])
        total = weights[mine].sum()
        shares[mine] = weights[mine] / total if total > 0 else 1.0 / mine.sum()
    return shares


def read_rejection_note(conversation: Conversation, note: str) -> None:
    """The note's negated words lower the entries about them; its other words are added to the query (when the
    query has room for them and they say more than it does)."""
    words = read_note(note)
    if words.unwanted:
        domain, candidates = conversation.clarifier.domain, conversation.clarifier.candidates
        entries = [entry_words(domain.labels[int(i)].name, domain.labels[int(i)].text) for i in candidates]
        log_likelihood = note_log_likelihood(words.unwanted, entries)
        if log_likelihood is not None:
            listed = tuple(int(i) for i in np.flatnonzero(log_likelihood))
            evidence = Evidence(-1, None, "note", log_likelihood, listed)
            conversation.belief.update(evidence)
            conversation.query_free.update(evidence)
    said = set(conversation.query.lower().split())
    new = [w for w in words.wanted.lower().split() if w.strip(",.;") not in said]
    if new and len(conversation.query) + 1 + len(words.wanted) <= MAX_QUERY_CHARS:
        conversation.add_words(words.wanted)
