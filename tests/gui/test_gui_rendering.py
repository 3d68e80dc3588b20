"""The HTML the pages render: transcript bubbles, "why this question", candidates, import reports."""

from __future__ import annotations

import dataclasses
import math

from assistant.app.desk.crowd import ImportReport
from assistant.app.session.events import SessionEvent, Unreadable, read_event
from assistant.app.session.session import EntryKind, FinalAnswer, Session, SessionConfig
from assistant.app.session.view import session_view
from gui.import_wizard import guess_format, report_html
from gui.rich_text import candidate_html, explanation_html
from gui.snapshot import SessionSnapshot
from gui.transcript import event_html, transcript_html
from tests.support.tiny import TinyAgents

# a payload with every field an entry of any kind requires (each event reads its own)
EVERY_FIELD = {"left": "a", "right": "b", "preferred": "left", "candidate": "a", "text": "t", "question": 0}
EVERY_FIELD |= {"option": None, "exclude": []}


def event(entry: dict) -> SessionEvent | Unreadable:
    """A transcript entry as the log's row {kind, payload...} reads."""
    return read_event(entry["kind"], {k: v for k, v in entry.items() if k != "kind"})


def snapshot(**changes) -> SessionSnapshot:
    agents = TinyAgents()
    session = Session.start(agents, "cross out text", SessionConfig(shortlist_size=3))
    base = dict(
        session_id=3,
        domain="faq",
        query="cross out text",
        phase="finished",
        status="finished",
        questions_answered=1,
        question=None,
        explanation=None,
        confidence=0.95,
        threshold=0.9,
        comparisons=1,
        budget=8,
        proposed=None,
        final=FinalAnswer("faq-004", "Strikethrough in Gmail", "Use the toolbar.", 0.8, 1),
        stop_reason="policy",
        stop_explanation=None,
        can_undo=False,
        can_ask_more=False,
        can_add_words=False,
        view=session_view(session),
        transcript=tuple(
            event(e)
            for e in (
                {"kind": "query", "text": "cross out <text>"},
                {"kind": "answer", "question": 0, "text": "Is it about gmail?", "option": 0, "option_text": "yes"},
                {"kind": "answer", "question": 1, "text": "Is it about dropbox?", "option": None, "answer": "not_sure"},
                {"kind": "undo", "phase": "clarifying"},
                {
                    "kind": "answer",
                    "question": 2,
                    "text": "Is it about fonts?",
                    "option": 1,
                    "answer": "probably",
                    "option_text": "no",
                },
                {"kind": "stop", "reason": "policy"},
                {"kind": "compare", "left": "faq-004#1", "right": "faq-009", "preferred": "right"},
                {"kind": "compare", "left": "faq-004#1", "right": "faq-009", "preferred": "tie"},
                {"kind": "decided", "reason": "confident"},
                {"kind": "accept", "label": "faq-004"},
            )
        ),
        candidate_titles={"faq-004#1": "Strikethrough in Gmail", "faq-009": "Fonts in Gmail"},
    )
    base.update(changes)
    return SessionSnapshot(**base)


def test_the_transcript_shows_every_step_as_a_chat():
    html = transcript_html(snapshot())
    assert "cross out &lt;text&gt;" in html  # escaped
    assert "Is it about gmail?" in html and "<b>yes</b>" in html
    assert "Not sure" in html and "undo" in html and "Probably <b>no</b>" in html
    assert "“Fonts in Gmail” is better than answer 1 of “Strikethrough in Gmail”" in html
    # two answers of one FAQ are told apart by their number (it read "X is better than X")
    same = event_html(
        event({"kind": "compare", "left": "f#2", "right": "f#5", "preferred": "left"}), {"f#2": "X", "f#5": "X"}
    )
    assert "Answer 2 of “X” is better than answer 5 of “X”." in same
    assert "are equally good" in html and "Answer accepted: Strikethrough in Gmail" in html
    assert "conversation will appear here" in transcript_html(None)
    assert "Not this one. (wrong)" in event_html(event({"kind": "reject", "reason": "wrong"}), {})
    # an id is never shown: a candidate (or label) the titles do not know reads as gone
    gone = event_html(event({"kind": "compare", "left": "a", "right": "x", "preferred": "neither"}), {"a": "A"})
    assert "Neither “A” nor “an answer no longer in this domain” is relevant" in gone
    # "ask me more" names the rejected label by its name (it once read: not "faq-042")
    more = event_html(event({"kind": "more", "exclude": ["faq-042"]}), {"faq-042": "How can I measure distance?"})
    assert "Ask me more questions (not “How can I measure distance?”)" in more and "faq-042" not in more
    # every entry a session logs reads as words (also under the names older logs used)
    for kind in ("done", "choose", "give_up", "back", "nothing_left", "exhausted", "show_closest", "hand_off"):
        assert kind not in event_html(event({"kind": kind, **EVERY_FIELD}), {"a": "A"}).replace("give up", "")
    assert "faq-1" not in event_html(
        event({"kind": "compare", "left": "faq-1#2", "right": "x", "preferred": "left"}), {}
    )
    # every kind of entry has its words: none shows its internal name, nor the fallback note
    for kind in EntryKind:
        shown = event_html(event({"kind": kind, **EVERY_FIELD}), {"a": "A"})
        assert "does not show" not in shown, kind
        if "_" in kind:
            assert kind not in shown, kind


def test_why_this_question_in_bits():
    html = explanation_html(
        {
            "question": "Is it red?",
            "information_gain": math.log(2),
            "rank": 1,
            "entropy": 2 * math.log(2),
            "outcomes": [
                {"option": "yes", "probability": 0.25, "top": [("Cardinal", 0.9), ("Robin", 0.05)]},
                {"option": "no", "probability": 0.75, "top": [("Crow", 0.5)]},
            ],
        }
    )
    assert "1.00 bits" in html and "most informative" in html and "2.00 bits" in html
    assert "Cardinal 90%" in html and "25%" in html and "Crow 50%" in html
    assert "pending" in explanation_html(None)


def test_candidates_render_attributes_or_prose():
    birds = candidate_html("size: small (5 - 9 in); shape: perching-like; crown color: red")
    assert birds.count("<tr>") == 3 and "<b>perching-like</b>" in birds
    prose = candidate_html("First paragraph <b>.\n\nSecond line\nthird")
    assert prose.count("<p>") == 2 and "&lt;b&gt;" in prose and "Second line<br>third" in prose
    assert "no text" in candidate_html("")


def test_import_reports_and_format_guessing(tmp_path):
    report = ImportReport(
        status="imported",
        file="batch.csv",
        format="mturk",
        kind="tags",
        domain="bank",
        sha256="0" * 64,
        rows=10,
        records=9,
        added={"annotations": 7, "questions": 1, "labels": 0, "queries": 0},
        updated={"labels": 0},
        skipped={"existing": 0, "duplicates": 2, "not_applicable": 0},
        rejected_assignments=[{"assignment": "A1"}],
        merged_tags=[
            {"merged": ["Lost cards", "lost card"], "tag": "lost card", "reason": "plural", "existing_question": True}
        ],
        new_questions=[{"text": "Is it about freezing the card?"}],
        agreement={
            "overall": {
                "binary": {"method": "fleiss", "kappa": 0.65, "observed_agreement": 0.83, "items": 14, "raters": 3}
            }
        },
    )
    html = report_html(report)
    assert "7 annotations" in html and "2 duplicates" in html and "1 assignments left out" in html
    assert "&#x27;Lost cards&#x27;, &#x27;lost card&#x27; -&gt; &#x27;lost card&#x27;" in html and "kappa 0.650" in html
    assert "freezing" in html
    again = report_html(
        dataclasses.replace(report, status="already imported", previous_import={"id": 4, "imported_at": "today"})
    )
    assert "import #4" in again and "nothing changed" in again
    mturk = tmp_path / "b.csv"
    mturk.write_text('"HITId","WorkerId","Input.label","Answer.selected"\n')
    plain = tmp_path / "p.csv"
    plain.write_text("label,tag,answer\n")
    assert guess_format(str(mturk)) == "mturk" and guess_format(str(plain)) == "csv"
    assert guess_format(str(tmp_path / "x.json")) == "labelstudio" and guess_format("x.jsonl") == "csv"


def test_the_hand_off_says_what_happens_in_the_app():
    """Handed on, the person reads what happens to the question, not a terminal command."""
    from assistant.app.session.session import OutOfScopeView
    from gui.pages.ask import nothing_fits_text

    view = OutOfScopeView(0.8, "Nothing here fits.", ("Gmail",), (("How do I archive mail?", 0.1),))
    text = nothing_fits_text(view, handed_off=True)
    assert "list of unanswered questions" in text and "people who look after" in text
    assert "clarify " not in text and "export" not in text
    assert "Handed on" not in nothing_fits_text(view, handed_off=False)
