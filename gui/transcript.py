"""The chat-style transcript: the session's log (``Session.transcript()``) as HTML bubbles.

The log is append-only (an undo is an entry too), so the transcript shows what really happened.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from assistant.app.session.events import (
    Accept,
    Answer,
    Back,
    Choose,
    Compare,
    Decided,
    Done,
    GiveUp,
    HandOff,
    More,
    NothingLeft,
    OutOfScope,
    Query,
    Reject,
    SessionEvent,
    ShowClosest,
    Skip,
    Stop,
    Undo,
    Unreadable,
    Words,
)
from assistant.app.session.numbers import percent
from assistant.app.session.phases import AnswerKind, Phase, StopReason
from gui.snapshot import SessionSnapshot
from gui.words import STOP_REASONS, stop_words

USER = "#dcebff"
ASSISTANT = "#f1f1f1"
NOTE = "#777777"


def _bubble(text: str, user: bool) -> str:
    """One table row: the user's bubbles on the right, Clarify's on the left (a single table keeps the
    rows close together; QTextDocument puts a blank block after every separate table)."""
    who = "You" if user else "Clarify"
    cell = (
        f"<td colspan='2' bgcolor='{USER if user else ASSISTANT}'>"
        f"<span style='color:#555; font-size:small'>{who}</span><br>{text}</td>"
    )
    return f"<tr><td></td>{cell}</tr>" if user else f"<tr>{cell}<td></td></tr>"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _note(text: str) -> str:
    return f"<tr><td colspan='3' align='center' style='color:{NOTE}; font-style:italic'>{text}</td></tr>"


def _table(rows: list[str]) -> str:
    return (
        "<table width='100%' cellspacing='6' cellpadding='7'>"
        "<tr><td width='18%'></td><td width='64%'></td><td width='18%'></td></tr>" + "".join(rows) + "</table>"
    )


def _answer_text(event: Answer) -> str:
    option = escape(event.option_text or "")
    if event.answer == AnswerKind.PROBABLY:
        return f"Probably <b>{option}</b>"
    if event.answer == AnswerKind.NOT_SURE:
        return "<i>Not sure</i>"
    if event.answer == AnswerKind.NOT_VISIBLE:
        return "<i>Not visible</i>"
    return f"<b>{option}</b>"


# Log entries that read the same whatever else they hold: (text, said by the person) as a bubble, or a note.
FIXED_BUBBLES: dict[type[SessionEvent], tuple[str, bool]] = {
    Skip: ("Skip to the shortlist, please.", True),
    Back: ("None of those answers fits: I will ask a few more questions without them.", False),
    Done: ("That is enough comparing: show me your best answer.", True),
    Accept: ("That answers it, thanks.", True),
    GiveUp: ("I give up on this one.", True),
    ShowClosest: ("Show me the closest answers anyway.", True),
}
FIXED_NOTES: dict[type[SessionEvent], str] = {
    Decided: "an answer is proposed",
    NothingLeft: "every answer was ruled out",
    Undo: "↶ undo: the last step was taken back",
}


class _Names:
    """How a transcript names what the log names by id (an id is never shown: a person does not know it)."""

    def __init__(self, titles: dict[str, str]) -> None:
        self.titles = titles

    def title(self, cid: str | None) -> str:
        """A candidate's or label's name."""
        return escape(self.titles.get(cid or "") or "an answer no longer in this domain")

    def answer(self, cid: str) -> str:
        """A compared candidate: "answer 2 of “How do I …”" when its FAQ has several answers (two answers of
        one FAQ read the same by title alone), else "“How do I …”"."""
        number = cid.split("#", 1)[1] if "#" in cid else ""
        return f"answer {escape(number)} of “{self.title(cid)}”" if number else f"“{self.title(cid)}”"


def event_html(event: SessionEvent | Unreadable, titles: dict[str, str]) -> str:
    """One log entry as one or two bubbles (or a note)."""
    if isinstance(event, SessionEvent) and type(event) in FIXED_BUBBLES:
        text, user = FIXED_BUBBLES[type(event)]
        return _bubble(text, user=user)
    if isinstance(event, SessionEvent) and type(event) in FIXED_NOTES:
        return _note(FIXED_NOTES[type(event)])
    names = _Names(titles)
    match event:
        case Query(text=text):
            return _bubble(escape(text), user=True)
        case Answer():
            return _bubble(escape(event.text or ""), user=False) + _bubble(_answer_text(event), user=True)
        case Words(text=text):
            return _bubble(f"More about it: {escape(text)}", user=True)
        case Stop():
            return _stop_html(event)
        case More(exclude=without):
            extra = f" (not “{names.title(without[0])}”)" if without else ""
            return _bubble(f"Ask me more questions{extra}.", user=True)
        case Compare():
            return _compare_html(event, names.answer)
        case Reject(reason=reason):
            return _bubble("Not this one." + (f" ({escape(reason)})" if reason else ""), user=True)
        case Choose(candidate=candidate):
            return _bubble(f"I will take “{names.title(candidate)}” instead.", user=True)
        case OutOfScope(probability=sure):
            return _bubble(
                f"I don't have an answer for that: nothing here seems to fit ({percent(sure)} sure).", user=False
            )
        case HandOff(note=note):
            return _bubble("Please hand it on to a person." + (f" ({escape(note)})" if note else ""), user=True)
    return _note("a step this version of Clarify does not show")


def _stop_html(event: Stop) -> str:
    reason = stop_words(event.reason)
    if event.coverage is not None and reason == STOP_REASONS[StopReason.CONFIDENT]:
        reason += f": {percent(float(event.coverage))} sure the answer is among the likeliest"
    # no "Which of these is better?": a comparison may never follow (one answer left, or more questions);
    # nor "Here is my shortlist": the screen may show one proposal, not a list
    return _bubble(f"No more questions for now ({escape(reason)}).", user=False)


def _compare_html(event: Compare, answer: Callable[[str], str]) -> str:
    """A comparison as the person said it: better, equally good, or neither relevant."""
    left, right, preferred = event.left, event.right, event.preferred
    if preferred == "tie":
        return _bubble(_capital(f"{answer(left)} and {answer(right)} are equally good."), user=True)
    if preferred == "neither":
        return _bubble(f"Neither {answer(left)} nor {answer(right)} is relevant.", user=True)
    better, worse = (left, right) if preferred == "left" else (right, left)
    return _bubble(_capital(f"{answer(better)} is better than {answer(worse)}."), user=True)


def transcript_html(snapshot: SessionSnapshot | None) -> str:
    if snapshot is None:
        return _table([_note("Your conversation will appear here.")])
    titles = snapshot.candidate_titles
    parts = [event_html(event, titles) for event in snapshot.transcript]
    if snapshot.final is not None and snapshot.phase == Phase.FINISHED:
        parts.append(_note(f"Answer accepted: {escape(snapshot.final.label_name)}"))
    elif snapshot.phase == Phase.FAILED:
        parts.append(_note("Ended without an answer"))
    return _table(parts)


def status_line(snapshot: SessionSnapshot) -> str:
    """The status bar's line about a session."""
    if snapshot.phase == Phase.CLARIFYING and snapshot.question is not None:
        top = snapshot.view.entries[0] if snapshot.view.entries else None
        best = f"; most likely: {top.name} ({percent(top.probability)})" if top else ""
        message = f"Session {snapshot.session_id} · question {snapshot.question.number}{best}"
    elif snapshot.phase == Phase.COMPARING:
        proposal = snapshot.view.proposal
        sure = f" · Clarify is {proposal.sure}" if proposal is not None else ""
        message = f"Session {snapshot.session_id} · comparison {snapshot.comparisons + 1}{sure}"
    elif snapshot.phase == Phase.DECIDED:
        message = f"Session {snapshot.session_id} · answer proposed: accept or reject it"
    elif snapshot.phase == Phase.REJECTED:
        message = f"Session {snapshot.session_id} · take another answer, ask more questions, hand it on or give up"
    elif snapshot.phase == Phase.OUT_OF_SCOPE:
        message = (
            f"Session {snapshot.session_id} handed on to a person: it waits in the desk's inbox"
            if snapshot.handed_off
            else f"Session {snapshot.session_id} saved: nothing here fits"
        )
    elif snapshot.phase == Phase.FINISHED:
        message = (
            f"Session {snapshot.session_id} saved: answered with {snapshot.final.label_name if snapshot.final else '?'}"
        )
    else:
        message = f"Session {snapshot.session_id} saved without an answer"
    return message
