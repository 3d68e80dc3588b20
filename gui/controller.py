"""The conversation's thread: a ``Session`` and its SQLite connection live in one worker thread.

``SessionController`` (GUI thread) sends each user action to ``_SessionRunner`` (session thread) as a
queued call; the runner applies it to the session and answers with a ``SessionSnapshot`` that the pages
render. While an action is in flight the controller is ``busy`` and ignores further actions, so a double
click never answers two questions. Errors come back as ``errorOccurred(title, message, details)``; they
never reach the event loop as exceptions.
"""

from __future__ import annotations

import itertools
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QObject, QThread, Signal, Slot

from assistant.errors import USER_ERRORS, SessionChangedError, SessionStateError
from gui.dialogs import error_text
from gui.snapshot import SessionSnapshot, take_snapshot

if TYPE_CHECKING:  # for the annotations only
    from assistant.app.session.domain_models import DomainModels
    from assistant.app.session.session import KnowledgeBase, Session, SessionConfig


@dataclass
class _State:
    """What the session thread owns: the model registry, its own KnowledgeBase connection, the session."""

    registry: DomainModels | None = None
    kb: KnowledgeBase | None = None
    session: Session | None = None
    config: SessionConfig | None = None
    notify: Callable[[str], None] | None = None  # hears "the knowledge base is busy ...; retrying"

    def close(self) -> None:
        self.session = None
        if self.kb is not None:
            self.kb.close()
            self.kb = None

    def attach(self, registry: DomainModels, config: SessionConfig | None) -> None:
        from assistant.app.session.session import open_knowledge_base

        self.close()
        self.registry = registry
        self.config = config
        self.kb = open_knowledge_base(registry.name)
        self.kb.on_busy = self.notify  # an import holds the write lock: the answer waits, and the window says so

    def need_registry(self) -> DomainModels:
        if self.registry is None:
            raise SessionStateError("no domain is open yet: pick one in the toolbar")
        return self.registry

    def need_session(self) -> Session:
        if self.session is None:
            raise SessionStateError("there is no conversation yet: type a question and press Ask")
        return self.session

    def snapshot(self) -> SessionSnapshot | None:
        if self.session is None or self.registry is None:  # a session always has its registry
            return None
        return take_snapshot(self.session, self.registry.name)


class _SessionRunner(QObject):
    """Runs requests in the session thread; results go back through queued signals."""

    done = Signal(int, object)
    failed = Signal(int, object, str)
    notice = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.state = _State(notify=self.notice.emit)

    @Slot(int, object)
    def execute(self, ticket: int, request: Callable[[_State], Any]) -> None:
        try:
            result = request(self.state)
        except BaseException as exc:  # every error goes back to the GUI thread as data
            self.failed.emit(ticket, exc, traceback.format_exc())
        else:
            self.done.emit(ticket, result)


class SessionController(QObject):
    """The pages' handle on the conversation (see the module docstring)."""

    snapshotChanged = Signal(object)  # SessionSnapshot | None
    busyChanged = Signal(bool)
    errorOccurred = Signal(str, str, str)  # title, message (what went wrong and what to do), details
    busyNotice = Signal(str)  # the knowledge base is busy (another program writes); the action waits and retries
    sessionsListed = Signal(list)  # list[assistant.app.session.session.SessionSummary]
    _request = Signal(int, object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread = QThread()
        self._thread.setObjectName("clarify-session")
        self._runner = _SessionRunner()
        self._runner.moveToThread(self._thread)
        self._request.connect(self._runner.execute)
        self._runner.done.connect(self._on_done)
        self._runner.failed.connect(self._on_failed)
        self._runner.notice.connect(self.busyNotice)
        self._thread.start()
        app = QCoreApplication.instance()
        if app is not None:  # also when the app quits without closing the window
            app.aboutToQuit.connect(self.shutdown)
        self._tickets = itertools.count(1)
        self._pending: dict[int, tuple[str, Callable[[Any], None] | None, bool]] = {}
        self.snapshot: SessionSnapshot | None = None
        self.domain: str | None = None
        self.config: SessionConfig | None = None

    # ---- state ---------------------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        """A user action is in flight (background requests such as listing sessions do not count)."""
        return any(action for _, _, action in self._pending.values())

    @property
    def idle(self) -> bool:
        """Nothing at all is in flight."""
        return not self._pending

    @property
    def attached(self) -> bool:
        return self.domain is not None

    # ---- plumbing ------------------------------------------------------------------------------------
    def _send(
        self, title: str, request: Callable[[_State], Any], on_done: Callable[[Any], None] | None, action: bool = False
    ) -> int:
        ticket = next(self._tickets)
        was_busy = self.busy
        self._pending[ticket] = (title, on_done, action)
        if action and not was_busy:
            self.busyChanged.emit(True)
        self._request.emit(ticket, request)
        return ticket

    def _finished(self, was_busy: bool) -> None:
        if was_busy and not self.busy:
            self.busyChanged.emit(False)

    def _action(self, title: str, request: Callable[[_State], Any]) -> bool:
        """A user action: refused while another one is in flight; answers with a snapshot."""
        if self.busy:
            return False
        if not self.attached:
            self.errorOccurred.emit(title, "No domain is open yet: pick one in the domain list first.", "")
            return False
        self._send(title, request, self._publish, action=True)
        return True

    def _publish(self, snapshot: SessionSnapshot | None) -> None:
        self.snapshot = snapshot
        self.snapshotChanged.emit(snapshot)

    @Slot(int, object)
    def _on_done(self, ticket: int, result: Any) -> None:
        was_busy = self.busy
        _title, on_done, _ = self._pending.pop(ticket, ("", None, False))
        if on_done is not None:
            on_done(result)
        self._finished(was_busy)

    @Slot(int, object, str)
    def _on_failed(self, ticket: int, exc: BaseException, details: str) -> None:
        was_busy = self.busy
        title, _, _ = self._pending.pop(ticket, ("", None, False))
        message, extra = error_text(exc)
        if not isinstance(exc, USER_ERRORS):
            message += "\n\nYour conversation so far is saved: you can resume it from the History page."
            extra = details  # the traceback as the session thread saw it
        self.errorOccurred.emit(title, message, extra)
        self._finished(was_busy)

    # ---- domain --------------------------------------------------------------------------------------
    def attach(self, registry: DomainModels, config: SessionConfig | None) -> None:
        """Use ``registry`` (an ModelRegistry, already prepared) for new sessions; drops the current one."""

        def request(state: _State) -> None:
            state.attach(registry, config)

        self.domain = registry.name
        self.config = config
        self._send("Open domain", request, lambda _: self._publish(None))

    def swap_registry(self, registry: DomainModels) -> None:
        """Use ``registry`` (fresh models of the same domain) from the next new session on; the conversation in
        progress keeps the models it started with."""

        def request(state: _State) -> None:
            state.registry = registry

        self._send("Fresh models", request, None)

    def set_config(self, config: SessionConfig | None) -> None:
        """Session settings for the next new session."""
        self.config = config

        def request(state: _State) -> None:
            state.config = config

        self._send("Settings", request, None)

    # ---- the user's actions ----------------------------------------------------------------------------
    def start(self, query: str) -> bool:
        def request(state: _State) -> SessionSnapshot | None:
            from assistant.app.session.session import Session

            state.session = Session.start(state.need_registry(), query, state.config, state.kb)
            return state.snapshot()

        return self._action("New question", request)

    def resume(self, session_id: int) -> bool:
        def request(state: _State) -> SessionSnapshot | None:
            from assistant.app.session.session import Session

            state.session = session = Session.resume(state.need_registry(), session_id, state.kb)
            if session.repaired and state.notify is not None:
                state.notify(f"Resumed without {len(session.repaired)} step(s) two programs wrote at once")
            return state.snapshot()

        return self._action("Resume session", request)

    def _do(self, title: str, act: Callable[[Any], Any]) -> bool:
        def request(state: _State) -> SessionSnapshot | None:
            try:
                act(state.need_session())
            except SessionChangedError as exc:  # another window or terminal wrote first: show what it wrote
                if state.notify is not None:
                    state.notify(f"{exc}; the conversation is shown as it now stands: give your answer again")
            return state.snapshot()

        return self._action(title, request)

    def answer(self, option: int | None, kind: str = "option") -> bool:
        return self._do("Answer", lambda s: s.answer(option, kind))

    def skip_to_shortlist(self) -> bool:
        return self._do("Skip to the shortlist", lambda s: s.skip_to_shortlist())

    def add_words(self, words: str) -> bool:
        return self._do("Add words", lambda s: s.add_words(words))

    def ask_more(self) -> bool:
        return self._do("Ask more questions", lambda s: s.ask_more())

    def prefer(self, choice: str) -> bool:
        return self._do("Compare", lambda s: s.prefer(choice))

    def done(self) -> bool:
        """End the comparisons: the current best is proposed (the person then accepts or rejects it)."""
        return self._do("Done comparing", lambda s: s.done())

    def accept(self) -> bool:
        return self._do("Accept the answer", lambda s: s.accept())

    def reject(self, reason: str = "") -> bool:
        return self._do("Reject the answer", lambda s: s.reject(reason))

    def choose(self, candidate_id: str) -> bool:
        return self._do("Take another answer", lambda s: s.choose(candidate_id))

    def give_up(self) -> bool:
        return self._do("Give up", lambda s: s.give_up())

    def show_closest(self) -> bool:
        return self._do("Show the closest answers", lambda s: s.show_closest())

    def hand_off(self, note: str = "") -> bool:
        return self._do("Hand the question on", lambda s: s.hand_off(note))

    def undo(self) -> bool:
        return self._do("Undo", lambda s: s.undo())

    def clear(self) -> None:
        """Forget the current conversation (it stays saved) and show an empty Ask page."""

        def request(state: _State) -> None:
            state.session = None

        self._send("New question", request, self._publish)

    def list_sessions(self) -> bool:
        """Past sessions of the open domain, newest first (answered with ``sessionsListed``)."""
        if not self.attached:
            return False

        def request(state: _State) -> list:
            from assistant.app.session.session import Session

            return Session.saved(state.kb) if state.kb is not None else []

        self._send("Session history", request, self.sessionsListed.emit)
        return True

    # ---- shutting down -------------------------------------------------------------------------------
    def shutdown(self, timeout_ms: int = 5000) -> None:
        """Close the session thread's connection and stop the thread (call once, on quit)."""
        if not self._thread.isRunning():
            return
        self._request.emit(0, lambda state: state.close())
        self._thread.quit()
        self._thread.wait(timeout_ms)
