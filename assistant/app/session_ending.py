"""The out-of-scope ending of a conversation ``Session`` (issue 17): the clarifier concluded that nothing fits
(assistant.clarification.out_of_scope). The person can say it differently (``Session.add_words``), see the
closest answers anyway (``show_closest``) or hand the question on (``hand_off``: logged for the export of
unanswered questions, assistant.app.crowd). The log records such a session as out of scope, not as a failure.

``Session`` mixes this in; its view is ``assistant.app.session_records.OutOfScopeView``.
"""

from __future__ import annotations

from assistant.app.session_records import OutOfScopeView, out_of_scope_view
from assistant.errors import SessionStateError


class OutOfScopeEnding:
    """The out-of-scope phase of a ``Session``: its view, its two actions and its log entries."""

    handed_off: bool = False

    @property
    def nothing_fits(self) -> OutOfScopeView | None:
        """The out-of-scope ending's view (None unless the session concluded that nothing fits)."""
        if self.phase != "out_of_scope":
            return None
        return out_of_scope_view(self.conversation, self.domain.title, self.config.shortlist_size)

    def show_closest(self) -> None:
        """Out of scope, but the person wants to see the closest answers anyway: compare the shortlist."""
        self._need("out_of_scope")
        self._act("anyway", {})

    def hand_off(self, note: str = "") -> None:
        """Out of scope: pass the question on to a person (it goes to the export of unanswered questions)."""
        self._need("out_of_scope")
        if self.handed_off:
            raise SessionStateError("this question was already handed on")
        closest = [item.label.key for item in self.conversation.shortlist(self.config.shortlist_size)]
        self._act("handoff", {"query": self.query, "note": " ".join(note.split()), "closest": closest})

    def _out_of_scope_decision(self) -> bool:
        """After the clarifier stopped: if it stopped because nothing fits, decide (and log) the ending."""
        if self.conversation.stop_reason != "out_of_scope":
            return False
        probability = self.conversation.out_of_scope_probability() or 0.0
        self._decide("out_of_scope", {"reason": "out_of_scope", "probability": round(probability, 4)})
        return True

    def _apply_ending(self, kind: str, payload: dict) -> bool:
        """Apply an out-of-scope log entry (live or replayed); False if ``kind`` is not one."""
        if kind == "out_of_scope":
            self.phase, self.stop_reason, self._pending_question = "out_of_scope", "out_of_scope", None
            self.handed_off = False
        elif kind == "anyway":
            self._leave_comparing()
            self.conversation.force_stop()
            self.stop_reason = "user"
        elif kind == "handoff":
            self.handed_off = True
        else:
            return False
        return True
