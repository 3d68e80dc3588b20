"""The Summarize page: open documents (a folder of .txt files, a bundled cluster, pasted texts, or a FAQ's
answers from the Compare page), an optional question, then either compare two candidate summaries at a time
(left / right / equal / undo) with the best summary and its confidence and "write me a better one" (RL), or
build the summary sentence by sentence choosing among the top-5 (RLQA). Sessions are saved turn by turn in
the open domain's session log and can be resumed from the "Saved" list. Every long step runs in a JobWorker
with Cancel; the jobs are the engine's (assistant.app.research.summaries)."""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QStackedWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from assistant.app.research import summaries as jobs
from assistant.app.research.summaries import SummarySettings, bundled_clusters
from gui.widgets import Card, preference_keys, window_shortcuts
from gui.words import SUMMARY_SESSIONS, cluster_words, counted, status_words, summary_maker, summary_title
from gui.workers import JobWorker, ProgressPanel, WorkerPool, is_running

ErrorHandler = Callable[[str, BaseException, str], None]


def _html(text: str) -> str:
    return f"<p>{escape(text)}</p>"


class SummaryCard(Card):
    """One side of the comparison: a card whose ``text`` shows that side's summary."""

    def __init__(self, title: str, parent: QWidget | None, name: str) -> None:
        super().__init__(title, parent, name)
        self.text = QTextBrowser(self)


class SummarizePage(QWidget):
    """See the module docstring. ``encoder`` (tests) replaces MiniLM; ``candidates`` / ``episodes`` size the jobs."""

    def __init__(
        self,
        pool: WorkerPool,
        on_error: ErrorHandler,
        parent: QWidget | None = None,
        encoder: Any = None,
        candidates: int = 300,
        episodes: int = 2000,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("summarizePage")
        self.pool, self.on_error, self.encoder = pool, on_error, encoder
        self.candidates, self.episodes = candidates, episodes
        # a SummarySession (compare mode, kind "summary") or an RLQASession (sentence mode, kind "sentences")
        self.session: jobs.SummarySession | jobs.RLQASession | None = None
        self.log: jobs.SummaryLog | None = None  # its SummaryLog in the open domain
        self.domain: str | None = None
        self.worker: JobWorker | None = None
        self.folder: str | None = None
        self.pending_topic: jobs.Topic | None = None  # a FAQ's answers handed over by the Compare page
        # built in the order of the keyboard's Tab: what to summarize, the saved sessions, then the two modes
        top = self._documents_row()
        saved_row = self._saved_row()
        self.progress = ProgressPanel(self, "summaryProgress")
        compare = self._compare_mode()
        sentences = self._sentence_mode()
        self.empty = QLabel(
            "Choose documents (a bundled cluster, a folder or pasted texts), optionally a question, and press "
            "Summarize. From the Compare page, “Summarize these answers” brings a FAQ's answers here.",
            self,
        )
        self.empty.setObjectName("summaryEmpty")
        self.empty.setWordWrap(True)
        self.stack = QStackedWidget(self)
        for page in (self.empty, compare, sentences):
            self.stack.addWidget(page)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.paste)
        layout.addLayout(saved_row)
        layout.addWidget(self.progress)
        layout.addWidget(self.stack, 1)
        self._source_changed()
        self.render()

    def _documents_row(self) -> QHBoxLayout:
        """The documents (pasted, a folder, a bundled cluster), the question, the mode and Summarize."""
        self.source = QComboBox(self)
        self.source.setObjectName("summarySource")
        self.source.setAccessibleName("Documents")
        self.source.addItem("Pasted texts", "paste")
        self.source.addItem("A folder of .txt files…", "folder")
        self.clusters = bundled_clusters()
        for name in self.clusters:
            self.source.addItem(cluster_words(name), name)
        # as wide as a short entry, not the longest (the row must fit a 1366 px screen); the list shows all
        self.source.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.source.setMinimumContentsLength(24)
        self.source.currentIndexChanged.connect(self._source_changed)
        self.paste = QPlainTextEdit(self)
        self.paste.setObjectName("summaryPaste")
        self.paste.setAccessibleName("Pasted texts")
        self.paste.setPlaceholderText("Paste one or more texts; separate documents with a line holding only ---")
        self.paste.setMaximumHeight(110)
        self.question = QLineEdit(self)
        self.question.setObjectName("summaryQuestion")
        self.question.setAccessibleName("Question the summary must answer")
        self.question.setPlaceholderText("Optional: the question the summary must answer")
        self.mode_compare = QRadioButton("Compare summaries", self)
        self.mode_compare.setObjectName("modeCompare")
        self.mode_compare.setChecked(True)
        self.mode_sentences = QRadioButton("Sentence by sentence (top-5)", self)
        self.mode_sentences.setObjectName("modeSentences")
        self.start_button = self._button("&Summarize", "summarizeStartButton", self.start)
        top = QHBoxLayout()
        top.addWidget(QLabel("Documents:", self))
        top.addWidget(self.source, 2)
        top.addWidget(self.question, 3)
        top.addWidget(self.mode_compare)
        top.addWidget(self.mode_sentences)
        top.addWidget(self.start_button)
        return top

    def _saved_row(self) -> QHBoxLayout:
        self.saved = QComboBox(self)
        self.saved.setObjectName("summarySaved")
        self.saved.setAccessibleName("Saved summary sessions")
        self.saved.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.saved.setMinimumContentsLength(30)
        self.resume_button = self._button("Resume", "summaryResumeButton", self.resume)
        self.saved_status = QLabel(self)
        self.saved_status.setObjectName("summarySavedStatus")
        saved_row = QHBoxLayout()
        saved_row.addWidget(QLabel("Saved:", self))
        saved_row.addWidget(self.saved, 3)
        saved_row.addWidget(self.resume_button)
        saved_row.addWidget(self.saved_status, 2)
        return saved_row

    def _compare_mode(self) -> QWidget:
        """Two summaries side by side, the preference buttons, the confidence and the best summary so far."""
        self.left = self._panel("Left", "summaryLeft")
        self.right = self._panel("Right", "summaryRight")
        sides = QHBoxLayout()
        sides.addWidget(self.left, 1)
        sides.addWidget(self.right, 1)
        self.prefer_left = self._button("◀  &Left is better", "summaryLeftButton", lambda: self.answer("left"))
        self.tie = self._button("E&qually good", "summaryTieButton", lambda: self.answer("tie"))
        self.prefer_right = self._button("&Right is better  ▶", "summaryRightButton", lambda: self.answer("right"))
        self.prefer_left.setToolTip("The left summary is better (L or ←)")
        self.tie.setToolTip("Both are equally good (E or =)")
        self.prefer_right.setToolTip("The right summary is better (R or →)")
        self.undo_button = self._button("Undo", "summaryUndoButton", self.undo)
        self.better_button = self._button("Write me a better one", "summaryBetterButton", self.write_better)
        self.accept_button = self._button("Use the best summary", "summaryAcceptButton", lambda: self.accept("best"))
        self.accept_rl_button = self._button("Use the written one", "summaryAcceptRLButton", lambda: self.accept("rl"))
        choices = QHBoxLayout()
        for w, k in ((self.prefer_left, 2), (self.tie, 1), (self.prefer_right, 2), (self.undo_button, 0)):
            choices.addWidget(w, k)
        self.confidence = QProgressBar(self)
        self.confidence.setObjectName("summaryConfidence")
        self.confidence.setRange(0, 1000)
        self.best = Card("Best summary so far", self, "summaryBest")
        self.best_text = QTextBrowser(self.best)
        self.best_text.setObjectName("summaryBestText")
        self.best.body.addWidget(self.best_text)
        self.rl_text = QTextBrowser(self.best)
        self.rl_text.setObjectName("summaryRLText")
        self.rl_text.setVisible(False)
        self.best.body.addWidget(self.rl_text)
        bottom = QHBoxLayout()
        bottom.addWidget(QLabel("Confidence in the best:", self))
        bottom.addWidget(self.confidence, 1)
        for w in (self.better_button, self.accept_button, self.accept_rl_button):
            bottom.addWidget(w)
        compare = QWidget(self)
        cl = QVBoxLayout(compare)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.addLayout(sides, 3)
        cl.addLayout(choices)
        cl.addLayout(bottom)
        cl.addWidget(self.best, 2)
        # the Compare page's keys, window-wide while the pair shows (the shortcuts belong to this panel, which is
        # visible only then), except in a text field such as the question (a field claims what it can type)
        self.shortcuts = window_shortcuts(compare, preference_keys(self.prefer_left, self.prefer_right, self.tie))
        return compare

    def _sentence_mode(self) -> QWidget:
        """The learner's top-5 next sentences, a pick (or Clarify's) and the summary so far."""
        sentences = QWidget(self)
        sl = QVBoxLayout(sentences)
        sl.setContentsMargins(0, 0, 0, 0)
        self.options = QListWidget(sentences)
        self.options.setObjectName("rlqaOptions")
        self.options.setAccessibleName("Top-5 next sentences")
        self.options.setWordWrap(True)
        self.choose_button = self._button("Add the selected sentence", "rlqaChooseButton", self.choose)
        self.auto_button = self._button("Let Clarify choose", "rlqaAutoButton", lambda: self.choose(auto=True))
        self.rlqa_undo = self._button("Undo", "rlqaUndoButton", self.undo)
        row = QHBoxLayout()
        for w in (self.choose_button, self.auto_button, self.rlqa_undo):
            row.addWidget(w)
        self.draft = QTextBrowser(sentences)
        self.draft.setObjectName("rlqaDraft")
        box = QGroupBox("Pick the next sentence (the learner's top 5, best first)", sentences)
        QVBoxLayout(box).addWidget(self.options)
        sl.addWidget(box, 2)
        sl.addLayout(row)
        sl.addWidget(QLabel("Summary so far:", sentences))
        sl.addWidget(self.draft, 1)
        return sentences

    def _panel(self, side: str, name: str) -> SummaryCard:
        card = SummaryCard(side, self, name)
        card.text.setObjectName(f"{name}Text")
        card.text.setAccessibleName(f"{side} summary")
        card.body.addWidget(card.text, 1)
        return card

    def _button(self, text: str, name: str, slot) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(name)
        button.setAccessibleName(text.replace("&", "").strip(" ◀▶"))
        button.setAutoDefault(False)
        button.clicked.connect(lambda: slot())
        return button

    # ---- the domain whose session log keeps the sessions ----------------------------------------------------
    def set_domain(self, name: str | None) -> None:
        if name != self.domain:
            self.domain = name
            self.refresh_saved()

    def refresh_saved(self) -> None:
        self.saved.clear()
        sessions = jobs.list_summary_sessions(self.domain) if self.domain is not None else []
        for s in sessions:
            kind = SUMMARY_SESSIONS.get(s.kind, "summary")
            steps = f"{s.entries} step{'s' if s.entries != 1 else ''}"
            title = summary_title(s.query, self.clusters)[:70]
            self.saved.addItem(f"#{s.id} · {kind} · {status_words(s.status)} · {steps}: {title}", s.id)
        self.render()

    # ---- jobs ---------------------------------------------------------------------------------------------------
    def _source_changed(self) -> None:
        key = self.source.currentData()
        self.paste.setVisible(key == "paste")
        if key == "folder" and self.isVisible():
            folder = QFileDialog.getExistingDirectory(self, "A folder of .txt files")
            self.folder = folder or None

    def _run(self, title: str, make_job, done) -> JobWorker | None:
        if is_running(self.worker):
            return None
        worker = JobWorker(make_job, title)
        self.progress.follow(worker)
        worker.succeeded.connect(done)
        worker.failed.connect(lambda exc, details: self.on_error(title, exc, details))
        worker.finished.connect(self.render)
        self.worker = self.pool.start(worker)
        self.render()
        return worker

    def start(self) -> JobWorker | None:
        key = self.source.currentData()
        question = self.question.text().strip()
        texts = [t for t in self.paste.toPlainText().split("\n---\n") if t.strip()] if key == "paste" else []
        files = [self.folder] if key == "folder" and self.folder else []
        bundled = key if key not in ("paste", "folder", "answers") else None
        encoder, pending = self.encoder, self.pending_topic if key == "answers" else None

        def topic():
            if pending is not None:
                return pending
            return jobs.load_topic(files, bundled, texts, question)

        if self.mode_sentences.isChecked():
            return self._run(
                "Preparing the sentences", lambda: jobs.rlqa_session_job(topic(), encoder), self._session_ready
            )
        settings = SummarySettings(candidates=self.candidates)
        return self._run(
            "Preparing candidate summaries",
            lambda: jobs.open_session_job(topic(), settings, encoder),
            self._session_ready,
        )

    def open_answers(self, question: str, query: str, answers: list[str]) -> JobWorker | None:
        """ "Summarize these answers" (the Compare page): the FAQ's answers in compare mode, query-focused."""
        self.pending_topic = jobs.answers_topic_of(question, query, list(answers))
        if self.source.findData("answers") < 0:
            self.source.insertItem(0, "The FAQ's answers", "answers")
        self.source.setItemText(0, f"The answers to “{question[:60]}”")
        self.source.setCurrentIndex(0)
        self.question.setText(self.pending_topic.question)
        self.mode_compare.setChecked(True)
        return self.start()

    def _session_ready(self, session) -> None:
        self.session = session
        self.log = jobs.SummaryLog.start(self.domain, session) if self.domain is not None else None
        self.refresh_saved()

    def resume(self) -> JobWorker | None:
        session_id = self.saved.currentData()
        if session_id is None or self.domain is None:
            return None
        domain, encoder = self.domain, self.encoder

        def resumed(session) -> None:
            self.session = session
            self.log = jobs.SummaryLog.attach(domain, int(session_id), session)
            self.render()

        return self._run(
            f"Resuming session {session_id}", lambda: jobs.resume_job(domain, session_id, encoder), resumed
        )

    def write_better(self) -> JobWorker | None:
        session = self.session
        if not isinstance(session, jobs.SummarySession):
            return None
        settings = jobs.RLSettings(replay_episodes=self.episodes)
        return self._run(
            "Writing a better summary", lambda: jobs.write_better_job(session, settings), lambda _: self.render()
        )

    # ---- actions ------------------------------------------------------------------------------------------------
    def _idle_comparing(self) -> jobs.SummarySession | None:
        """The compare-mode session when no job runs (None otherwise)."""
        s = self.session
        return s if isinstance(s, jobs.SummarySession) and not is_running(self.worker) else None

    def _idle_choosing(self) -> jobs.RLQASession | None:
        """The sentence-mode session when no job runs (None otherwise)."""
        s = self.session
        return s if isinstance(s, jobs.RLQASession) and not is_running(self.worker) else None

    def answer(self, preferred: str) -> None:
        s = self._idle_comparing()
        if s is not None and s.next_pair() is not None:
            s.answer(preferred)
            self.render()

    def undo(self) -> None:
        if self.session is not None and not is_running(self.worker):
            self.session.undo()
            self.render()

    def accept(self, which: str) -> None:
        s = self._idle_comparing()
        if s is not None and not s.accepted:
            s.accept(which)
            self.refresh_saved()

    def choose(self, auto: bool = False) -> None:
        s = self._idle_choosing()
        if s is None or s.done:
            return
        options = s.options()
        row = self.options.currentRow()
        s.choose(None if auto or row < 0 else options[row])
        self.render()

    # ---- view -------------------------------------------------------------------------------------------------------
    def render(self) -> None:  # type: ignore[override]  # shadows QWidget.render(device): a page redraws itself from its session
        busy = is_running(self.worker)
        self.start_button.setEnabled(not busy)
        self.resume_button.setEnabled(not busy and self.saved.count() > 0)
        where = f"saved in {self.domain}'s session log" if self.domain else "not saved: no domain is open"
        self.saved_status.setText(f"Session #{self.log.id}, {where}" if self.log is not None else where.capitalize())
        s = self.session
        if isinstance(s, jobs.SummarySession):
            self.stack.setCurrentIndex(1)
            self._render_compare(s, busy)
        elif s is not None:
            self.stack.setCurrentIndex(2)
            self.options.clear()
            for text in [] if s.done else s.option_texts():
                self.options.addItem(text)
            if self.options.count():
                self.options.setCurrentRow(0)
            for b in (self.choose_button, self.auto_button):
                b.setEnabled(not s.done and not busy)
            self.rlqa_undo.setEnabled(bool(s.history) and not busy)
            status = "complete" if s.done else f"{s.words} of {s.topic.max_words} words"
            self.draft.setHtml(_html(s.summary_text() or "(empty)") + f"<p style='color:#666'>{status}</p>")
        else:
            self.stack.setCurrentIndex(0)

    def _render_compare(self, s: jobs.SummarySession, busy: bool) -> None:
        pair = s.next_pair()
        for card, index in zip((self.left, self.right), pair or (None, None)):
            side = card.objectName().removeprefix("summary")
            card.title.setText(f"{side}: {summary_maker(s.kind_of(index))}" if index is not None else "")
            card.text.setHtml(
                _html(s.text(index)) if index is not None else "<p><i>No more comparisons: see the best below.</i></p>"
            )
        for b in (self.prefer_left, self.tie, self.prefer_right):
            b.setEnabled(pair is not None and not busy)
        self.undo_button.setEnabled(s.comparisons > 0 and not busy and not s.accepted)
        self.better_button.setEnabled(not busy and s.settings.acquisition != "unc" and not s.accepted)
        self.accept_button.setEnabled(not busy and not s.accepted)
        self.accept_rl_button.setVisible(s.rl_summary is not None)
        self.accept_rl_button.setEnabled(not busy and not s.accepted)
        self.confidence.setValue(int(1000 * s.confidence))
        self.confidence.setFormat(f"{100 * s.confidence:.0f}% after {counted(s.comparisons, 'comparison')}")
        state = "accepted, " if s.accepted else ""
        self.best.title.setText(
            f"Best summary so far ({state}{summary_maker(s.kind_of(s.best_index()))}; Clarify is "
            f"{100 * s.confidence:.0f}% sure it is the best)"
        )
        self.best_text.setHtml(_html(s.best_text()))
        scores = s.rl_score()
        self.rl_text.setVisible(scores is not None)
        if scores is not None:
            self.rl_text.setHtml(
                "<p><b>Written for you from what you preferred</b> (it scores "
                f"{scores[0]:.2f} by your preferences; the best compared summary scores {scores[1]:.2f})</p>"
                f"{_html(s.rl_text or '')}"
            )
