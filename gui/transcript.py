"""The chat-style transcript: the session's log (``Session.transcript()``) as HTML bubbles.

The log is append-only (an undo is an entry too), so the transcript shows what really happened.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from html import escape
from typing import Any

from assistant.app.session.numbers import percent
from assistant.app.session.phases import AnswerKind, EntryKind, Phase, StopReason
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


def _answer_text(event: dict[str, Any]) -> str:
    kind = event.get("answer", AnswerKind.OPTION)
    option = escape(str(event.get("option_text", "")))
    if kind == AnswerKind.PROBABLY:
        return f"Probably <b>{option}</b>"
    if kind == AnswerKind.NOT_SURE:
        return "<i>Not sure</i>"
    if kind == AnswerKind.NOT_VISIBLE:
        return "<i>Not visible</i>"
    return f"<b>{option}</b>"


# Log entries that read the same whatever else they hold: (text, said by the person) as a bubble, or a note.
FIXED_BUBBLES: dict[str, tuple[str, bool]] = {
    EntryKind.SKIP: ("Skip to the shortlist, please.", True),
    EntryKind.BACK: ("None of those answers fits: I will ask a few more questions without them.", False),
    EntryKind.DONE: ("That is enough comparing: show me your best answer.", True),
    EntryKind.ACCEPT: ("That answers it, thanks.", True),
    EntryKind.GIVE_UP: ("I give up on this one.", True),
    EntryKind.SHOW_CLOSEST: ("Show me the closest answers anyway.", True),
}
FIXED_NOTES: dict[str, str] = {
    EntryKind.DECIDED: "an answer is proposed",
    EntryKind.NOTHING_LEFT: "every answer was ruled out",
    EntryKind.UNDO: "↶ undo: the last step was taken back",
}


def event_html(event: dict[str, Any], titles: dict[str, str]) -> str:
    """One log entry as one or two bubbles (or a note)."""
    kind = event.get("kind")
    with contextlib.suppress(ValueError):
        kind = EntryKind(kind or "")  # older logs' names read as today's

    def title(cid: str) -> str:
        """A candidate's or label's name (an id is never shown: a person does not know it)."""
        return escape(titles.get(cid) or "an answer no longer in this domain")

    def answer(cid: str) -> str:
        """A compared candidate: "answer 2 of “How do I …”" when its FAQ has several answers (two answers of
        one FAQ read the same by title alone), else "“How do I …”"."""
        number = cid.split("#", 1)[1] if "#" in cid else ""
        return f"answer {escape(number)} of “{title(cid)}”" if number else f"“{title(cid)}”"

    if isinstance(kind, str) and kind in FIXED_BUBBLES:
        text, user = FIXED_BUBBLES[kind]
        return _bubble(text, user=user)
    if isinstance(kind, str) and kind in FIXED_NOTES:
        return _note(FIXED_NOTES[kind])
    if kind == EntryKind.QUERY:
        return _bubble(escape(event.get("text", "")), user=True)
    if kind == EntryKind.ANSWER:
        return _bubble(escape(event.get("text", "")), user=False) + _bubble(_answer_text(event), user=True)
    if kind == EntryKind.WORDS:
        return _bubble(f"More about it: {escape(event.get('text', ''))}", user=True)
    if kind == EntryKind.STOP:
        reason = stop_words(event.get("reason", ""))
        if "coverage" in event and reason == STOP_REASONS[StopReason.CONFIDENT]:
            reason += f": {percent(float(event['coverage']))} sure the answer is among the likeliest"
        # no "Which of these is better?": a comparison may never follow (one answer left, or more questions)
        # nor "Here is my shortlist": the screen may show one proposal, not a list
        return _bubble(f"No more questions for now ({escape(reason)}).", user=False)
    if kind == EntryKind.MORE:
        without = event.get("exclude") or []
        extra = f" (not “{title(without[0])}”)" if without else ""
        return _bubble(f"Ask me more questions{extra}.", user=True)
    if kind == EntryKind.COMPARE:
        return _compare_html(event, answer)
    if kind == EntryKind.REJECT:
        reason = event.get("reason") or ""
        return _bubble("Not this one." + (f" ({escape(reason)})" if reason else ""), user=True)
    if kind == EntryKind.CHOOSE:
        return _bubble(f"I will take “{title(event.get('candidate', ''))}” instead.", user=True)
    if kind == EntryKind.OUT_OF_SCOPE:
        sure = float(event.get("probability", 0.0))
        return _bubble(
            f"I don't have an answer for that: nothing here seems to fit ({percent(sure)} sure).", user=False
        )
    if kind == EntryKind.HAND_OFF:
        note = event.get("note") or ""
        return _bubble("Please hand it on to a person." + (f" ({escape(note)})" if note else ""), user=True)
    return _note("a step this version of Clarify does not show")


def _compare_html(event: dict[str, Any], answer: Callable[[str], str]) -> str:
    """A comparison as the person said it: better, equally good, or neither relevant."""
    left, right, preferred = event.get("left", ""), event.get("right", ""), event.get("preferred")
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
        top = snapshot.posterior[0] if snapshot.posterior else None
        best = f"; most likely: {top.name} ({percent(top.probability)})" if top else ""
        message = f"Session {snapshot.session_id} · question {snapshot.question.number}{best}"
    elif snapshot.phase == Phase.COMPARING:
        proposal = snapshot.view.proposal if snapshot.view is not None else None
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
