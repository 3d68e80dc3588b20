"""After a "no" (issue 40): an entry's answers are the two levels of one belief, P(entry) x P(answer | entry),
so rejecting one answer of an entry with several is evidence about that answer, never a verdict on the entry;
and the note said with a rejection is read as words ("not on facebook" lowers the Facebook entries)."""

from __future__ import annotations

import pytest

from assistant.app.session.session import Session, SessionConfig
from assistant.app.session.view import session_view
from assistant.clarification.notes import read_note
from assistant.store import Label
from tests.support.tiny import TinyAgents

CONFIG = SessionConfig(shortlist_size=3, ranking_budget=2, ranking_threshold=0.999)
ROBIN_ANSWERS = (
    "Robins cannot be told apart from here, sorry.",
    "A robin has an orange red breast and sings at dawn in gardens.",
    "Look for the red breast and the brown back of a small bird.",
)


class FaqLikeAgents(TinyAgents):
    """The tiny birds as a FAQ: the robin's entry has three answers, and the entries have descriptions."""

    def __init__(self) -> None:
        super().__init__()
        texts = ("a small garden bird", "a black bird seen on facebook groups", "a bright red bird", "a seabird")
        self.domain.labels = [
            Label(label.key, label.name, text, ROBIN_ANSWERS if label.name == "Robin" else (f"About the {text}.",))
            for label, text in zip(self.domain.labels, texts)
        ]


def robin_proposed() -> tuple[FaqLikeAgents, Session]:
    agents = FaqLikeAgents()
    session = Session.start(agents, "red breast small bird orange breast", CONFIG)
    while session.phase == "clarifying":
        session.answer(kind="not_sure")  # the query alone makes the robin likeliest
    if session.phase == "comparing":
        session.done()
    assert session.phase == "decided" and session.proposed.label_name == "Robin"
    assert session.ranking is not None and len(session.ranking.candidates) == 3  # its three answers
    return agents, session


def entry_share(session: Session, key: str) -> float:
    position = int(session.conversation.positions([session.domain.label_index(key)])[0])
    return float(session.conversation.probs[position])


def test_rejecting_one_of_several_answers_is_no_verdict_on_the_entry():
    _agents, session = robin_proposed()
    rejected = session.proposed
    others = sorted(entry_share(session, label.key) for label in session.domain.labels if label.name != "Robin")
    before = entry_share(session, rejected.label_key)
    session.reject()
    after = entry_share(session, rejected.label_key)
    # the belief: the entry loses a little (its odds at most halved), and stays above every other entry
    assert before / 2 - 1e-9 <= after < before and after > max(others) * 1.5
    view = session_view(session)
    rows = {a.id: a for a in view.answers}
    rejected_row = rows[rejected.candidate_id]
    kept = [a for a in view.answers if a.id != rejected.candidate_id]
    assert all(a.chance > 5 * rejected_row.chance for a in kept)  # the rejected answer is down ...
    assert view.answers[0].id != rejected.candidate_id and view.answers[-1].id == rejected.candidate_id  # ... last
    assert [a.chance for a in view.answers] == sorted((a.chance for a in view.answers), reverse=True)
    assert sum(a.chance for a in view.answers) == pytest.approx(view.in_scope * after)
    # the next likeliest answer is offered first and, taken, shows its real share (not "<1%")
    assert session.alternatives[0].id == view.answers[0].id
    final = session.choose(session.alternatives[0].id)
    shown = session_view(session).proposal
    assert shown.candidate_id == final.candidate_id and shown.chance == pytest.approx(view.answers[0].chance)
    assert shown.chance > 0.2


def test_rejecting_an_entrys_only_answer_still_dismisses_it():
    session = Session.start(TinyAgents(), "bird", CONFIG)
    session.answer(kind="not_sure")
    session.answer(kind="not_sure")
    rejected = session.done()
    session.reject()
    assert entry_share(session, rejected.label_key) <= 0.05 + 1e-9


def test_a_note_reads_what_is_wanted_and_what_is_not():
    words = read_note("my photos are not on facebook, they are in google drive")
    assert words.unwanted == ("facebook",) and "google drive" in words.wanted and "facebook" not in words.wanted
    assert read_note("I don't use twitter").unwanted == ("twitter",)
    assert read_note("not this one") == read_note("")  # nothing to read


def test_a_note_with_not_x_lowers_xs_entries():
    """ "not on facebook": the entry about Facebook falls, the rest rise (added as words, it rose)."""
    agents, session = robin_proposed()
    crow = next(label.key for label in agents.domain.labels if label.name == "Crow")
    _agents, plain = robin_proposed()
    session.reject("it is not on facebook")
    plain.reject()
    assert entry_share(session, crow) < 0.2 * entry_share(plain, crow)
    # read into the belief once, and replayed the same on resume
    resumed = Session.resume(agents, session.id)
    assert entry_share(resumed, crow) == pytest.approx(entry_share(session, crow))
