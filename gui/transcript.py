"""The chat-style transcript: the session's log (``Session.transcript()``) as HTML bubbles.

The log is append-only (an undo is an entry too), so the transcript shows what really happened.
"""

from __future__ import annotations

from html import escape
from typing import Any

from gui.snapshot import SessionSnapshot

USER = "#dcebff"
ASSISTANT = "#f1f1f1"
NOTE = "#777777"
STOP_REASONS = {
    "policy": "I think I know enough",
    "confident": "I think I know enough",
    "no_informative_question": "no question I have would tell these apart",
    "no_question": "I have no questions left",
    "user": "you asked for the shortlist",
    "max_turns": "that was my last question",
}


def _bubble(text: str, user: bool) -> str:
    """One table row: the user's bubbles on the right, Clarify's on the left (a single table keeps the
    rows close together; QTextDocument puts a blank block after every separate table)."""
    who = "You" if user else "Clarify"
    cell = (
        f"<td colspan='2' bgcolor='{USER if user else ASSISTANT}'>"
        f"<span style='color:#555; font-size:small'>{who}</span><br>{text}</td>"
    )
    return f"<tr><td></td>{cell}</tr>" if user else f"<tr>{cell}<td></td></tr>"


def _note(text: str) -> str:
    return f"<tr><td colspan='3' align='center' style='color:{NOTE}; font-style:italic'>{text}</td></tr>"


def _table(rows: list[str]) -> str:
    return (
        "<table width='100%' cellspacing='6' cellpadding='7'>"
        "<tr><td width='18%'></td><td width='64%'></td><td width='18%'></td></tr>" + "".join(rows) + "</table>"
    )


def _answer_text(event: dict[str, Any]) -> str:
    kind = event.get("answer", "option")
    option = escape(str(event.get("option_text", "")))
    if kind == "probably":
        return f"Probably <b>{option}</b>"
    if kind == "not_sure":
        return "<i>Not sure</i>"
    if kind == "not_visible":
        return "<i>Not visible</i>"
    return f"<b>{option}</b>"


def event_html(event: dict[str, Any], titles: dict[str, str]) -> str:
    """One log entry as one or two bubbles (or a note)."""
    kind = event.get("kind")

    def title(cid: str) -> str:
        return escape(titles.get(cid) or titles.get(cid.split("#", 1)[0]) or cid)

    if kind == "query":
        return _bubble(escape(event.get("text", "")), user=True)
    if kind == "answer":
        return _bubble(escape(event.get("text", "")), user=False) + _bubble(_answer_text(event), user=True)
    if kind == "skip":
        return _bubble("Skip to the shortlist, please.", user=True)
    if kind == "words":
        return _bubble(f"More about it: {escape(event.get('text', ''))}", user=True)
    if kind == "stop":
        reason = STOP_REASONS.get(event.get("reason", ""), event.get("reason", ""))
        if "coverage" in event and event.get("reason") == "confident":
            reason += f": {float(event['coverage']):.0%} sure the answer is shortlisted"
        return _bubble(f"Here is my shortlist ({escape(reason)}). Which of these is better?", user=False)
    if kind == "more":
        without = event.get("exclude") or []
        extra = f" (not “{title(without[0])}”)" if without else ""
        return _bubble(f"Ask me more questions{extra}.", user=True)
    if kind == "back":
        return _bubble("None of those answers fits: I will ask a few more questions without them.", user=False)
    if kind == "compare":
        left, right, preferred = event.get("left", ""), event.get("right", ""), event.get("preferred")
        if preferred == "tie":
            return _bubble(f"“{title(left)}” and “{title(right)}” are equally good.", user=True)
        if preferred == "neither":
            return _bubble(f"Neither “{title(left)}” nor “{title(right)}” is relevant.", user=True)
        better, worse = (left, right) if preferred == "left" else (right, left)
        return _bubble(f"“{title(better)}” is better than “{title(worse)}”.", user=True)
    if kind == "decided":
        return _note("an answer is proposed")
    if kind == "done":
        return _bubble("That is enough comparing: show me your best answer.", user=True)
    if kind == "accept":
        return _bubble("That answers it, thanks.", user=True)
    if kind == "reject":
        reason = event.get("reason") or ""
        return _bubble("Not this one." + (f" ({escape(reason)})" if reason else ""), user=True)
    if kind == "choose":
        return _bubble(f"I will take “{title(event.get('candidate', ''))}” instead.", user=True)
    if kind == "give_up":
        return _bubble("I give up on this one.", user=True)
    if kind == "exhausted":
        return _note("every answer was ruled out")
    if kind == "undo":
        return _note("↶ undo: the last step was taken back")
    if kind == "out_of_scope":
        sure = float(event.get("probability", 0.0))
        return _bubble(f"I don't have an answer for that: nothing here seems to fit ({sure:.0%} sure).", user=False)
    if kind == "anyway":
        return _bubble("Show me the closest answers anyway.", user=True)
    if kind == "handoff":
        note = event.get("note") or ""
        return _bubble("Please hand it on to a person." + (f" ({escape(note)})" if note else ""), user=True)
    return _note(escape(str(kind)))


def transcript_html(snapshot: SessionSnapshot | None) -> str:
    if snapshot is None:
        return _table([_note("Your conversation will appear here.")])
    titles = snapshot.candidate_titles
    parts = [event_html(event, titles) for event in snapshot.transcript]
    if snapshot.final is not None and snapshot.phase == "finished":
        parts.append(_note(f"Answer accepted: {escape(snapshot.final.label_name)}"))
    elif snapshot.phase == "failed":
        parts.append(_note("Ended without an answer"))
    return _table(parts)


def status_line(snapshot: SessionSnapshot) -> str:
    """The status bar's line about a session."""
    if snapshot.phase == "clarifying" and snapshot.question is not None:
        top = snapshot.posterior[0] if snapshot.posterior else None
        best = f"; most likely: {top.name} ({100 * top.probability:.0f}%)" if top else ""
        message = f"Session {snapshot.session_id} · question {snapshot.question.turn}{best}"
    elif snapshot.phase == "comparing":
        message = (
            f"Session {snapshot.session_id} · comparison {snapshot.comparisons + 1} · Clarify is "
            f"{100 * (snapshot.confidence or 0):.0f}% sure of its best answer"
        )
    elif snapshot.phase == "decided":
        message = f"Session {snapshot.session_id} · answer proposed: accept or reject it"
    elif snapshot.phase == "rejected":
        message = f"Session {snapshot.session_id} · take another answer, ask more questions or give up"
    elif snapshot.phase == "out_of_scope":
        message = f"Session {snapshot.session_id} saved as out of scope: nothing here fits"
    elif snapshot.phase == "finished":
        message = (
            f"Session {snapshot.session_id} saved: answered with {snapshot.final.label_name if snapshot.final else '?'}"
        )
    else:
        message = f"Session {snapshot.session_id} saved without an answer"
    return message
