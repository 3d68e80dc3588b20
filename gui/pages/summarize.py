"""The Summarize page: open documents (a folder of .txt files, a bundled cluster, or pasted texts), an
optional question, then either compare two candidate summaries at a time (left / right / equal / undo)
with the best summary and its confidence and a "write me a better one" button (RL), or build the summary
sentence by sentence choosing among the top-5 (RLQA). Every long step runs in a JobWorker with Cancel; the
jobs are the engine's (assistant/summarization/jobs.py)."""

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

from assistant.app import summaries as jobs
from assistant.app.summaries import SummarySettings, bundled_clusters
from gui.widgets import Card
from gui.workers import JobWorker, ProgressPanel, WorkerPool, is_running

ErrorHandler = Callable[[str, BaseException, str], None]


def _html(text: str) -> str:
    return f"<p>{escape(text)}</p>"


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
        self.session = None
        self.rlqa = None
        self.worker: JobWorker | None = None
        self.folder: str | None = None

        # ---- source ----------------------------------------------------------------------------------------
        self.source = QComboBox(self)
        self.source.setObjectName("summarySource")
        self.source.setAccessibleName("Documents")
        self.source.addItem("Pasted texts", "paste")
        self.source.addItem("A folder of .txt files…", "folder")
        for name in bundled_clusters():
            self.source.addItem(f"Bundled: {name}", name)
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
        self.start_button = QPushButton("&Summarize", self)
        self.start_button.setObjectName("summarizeStartButton")
        self.start_button.clicked.connect(self.start)
        self.progress = ProgressPanel(self, "summaryProgress")
        top = QHBoxLayout()
        top.addWidget(QLabel("Documents:", self))
        top.addWidget(self.source, 2)
        top.addWidget(self.question, 3)
        top.addWidget(self.mode_compare)
        top.addWidget(self.mode_sentences)
        top.addWidget(self.start_button)

        # ---- compare mode ------------------------------------------------------------------------------------
        self.left = self._panel("Left", "summaryLeft")
        self.right = self._panel("Right", "summaryRight")
        sides = QHBoxLayout()
        sides.addWidget(self.left, 1)
        sides.addWidget(self.right, 1)
        self.prefer_left = self._button("◀  Left is better", "summaryLeftButton", lambda: self.answer("left"))
        self.tie = self._button("Equally good", "summaryTieButton", lambda: self.answer("tie"))
        self.prefer_right = self._button("Right is better  ▶", "summaryRightButton", lambda: self.answer("right"))
        self.undo_button = self._button("Undo", "summaryUndoButton", self.undo)
        self.better_button = self._button("Write me a better one", "summaryBetterButton", self.write_better)
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
        bottom.addWidget(self.better_button)
        compare = QWidget(self)
        cl = QVBoxLayout(compare)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.addLayout(sides, 3)
        cl.addLayout(choices)
        cl.addLayout(bottom)
        cl.addWidget(self.best, 2)

        # ---- sentence mode -------------------------------------------------------------------------------------
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
        row.addWidget(self.choose_button)
        row.addWidget(self.auto_button)
        row.addWidget(self.rlqa_undo)
        self.draft = QTextBrowser(sentences)
        self.draft.setObjectName("rlqaDraft")
        box = QGroupBox("Pick the next sentence (the learner's top 5, best first)", sentences)
        QVBoxLayout(box).addWidget(self.options)
        sl.addWidget(box, 2)
        sl.addLayout(row)
        sl.addWidget(QLabel("Summary so far:", sentences))
        sl.addWidget(self.draft, 1)

        self.empty = QLabel(
            "Choose documents (a bundled cluster, a folder or pasted texts), optionally a question, "
            "and press Summarize.",
            self,
        )
        self.empty.setObjectName("summaryEmpty")
        self.empty.setWordWrap(True)
        self.stack = QStackedWidget(self)
        for w in (self.empty, compare, sentences):
            self.stack.addWidget(w)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.paste)
        layout.addWidget(self.progress)
        layout.addWidget(self.stack, 1)
        self._source_changed()
        self.render()

    def _panel(self, side: str, name: str) -> Card:
        card = Card(side, self, name)
        text = QTextBrowser(card)
        text.setObjectName(f"{name}Text")
        text.setAccessibleName(f"{side} summary")
        card.body.addWidget(text, 1)
        card.text = text
        return card

    def _button(self, text: str, name: str, slot) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(name)
        button.setAccessibleName(text.strip(" ◀▶"))
        button.setAutoDefault(False)
        button.clicked.connect(lambda: slot())
        return button

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
        bundled = key if key not in ("paste", "folder") else None
        encoder = self.encoder
        if self.mode_sentences.isChecked():

            def make():
                return jobs.rlqa_session_job(jobs.load_topic(files, bundled, texts, question), encoder)

            return self._run("Preparing the sentences", make, self._rlqa_ready)
        settings = SummarySettings(candidates=self.candidates)

        def make_session():
            return jobs.open_session_job(jobs.load_topic(files, bundled, texts, question), settings, encoder)

        return self._run("Preparing candidate summaries", make_session, self._session_ready)

    def _session_ready(self, session) -> None:
        self.session, self.rlqa = session, None
        self.render()

    def _rlqa_ready(self, session) -> None:
        self.rlqa, self.session = session, None
        self.render()

    def write_better(self) -> JobWorker | None:
        if self.session is None:
            return None
        session, episodes = self.session, self.episodes
        return self._run(
            "Writing a better summary", lambda: jobs.write_better_job(session, episodes), lambda _: self.render()
        )

    # ---- actions ------------------------------------------------------------------------------------------------
    def answer(self, preferred: str) -> None:
        if self.session is not None and self.session.next_pair() is not None and not is_running(self.worker):
            self.session.answer(preferred)
            self.render()

    def undo(self) -> None:
        target = self.session or self.rlqa
        if target is not None and not is_running(self.worker):
            target.undo()
            self.render()

    def choose(self, auto: bool = False) -> None:
        if self.rlqa is None or self.rlqa.done:
            return
        options = self.rlqa.options()
        row = self.options.currentRow()
        self.rlqa.choose(None if auto or row < 0 else options[row])
        self.render()

    # ---- view -------------------------------------------------------------------------------------------------------
    def render(self) -> None:
        busy = is_running(self.worker)
        self.start_button.setEnabled(not busy)
        if self.session is not None:
            s = self.session
            self.stack.setCurrentIndex(1)
            pair = s.next_pair()
            for card, index in zip((self.left, self.right), pair or (None, None)):
                card.title.setText(
                    f"{card.objectName().removeprefix('summary')} ({s.kind(index)})" if index is not None else ""
                )
                card.text.setHtml(
                    _html(s.text(index))
                    if index is not None
                    else "<p><i>No more comparisons: see the best summary below.</i></p>"
                )
            for b in (self.prefer_left, self.tie, self.prefer_right):
                b.setEnabled(pair is not None and not busy)
            self.undo_button.setEnabled(s.comparisons > 0 and not busy)
            self.better_button.setEnabled(not busy and s.settings.acquisition != "unc")
            self.confidence.setValue(int(1000 * s.confidence))
            self.confidence.setFormat(f"{100 * s.confidence:.0f}% after {s.comparisons} comparison(s)")
            self.best.title.setText(
                f"Best summary so far ({s.kind(s.best_index())}, {100 * s.confidence:.0f}% confident)"
            )
            self.best_text.setHtml(_html(s.best_text()))
            scores = s.rl_score()
            self.rl_text.setVisible(scores is not None)
            if scores is not None:
                text = s.prepared.table.summary_text(s.rl_summary)
                self.rl_text.setHtml(
                    f"<p><b>Written for you (RL, learned reward {scores[0]:.2f}; best candidate "
                    f"{scores[1]:.2f}):</b></p>{_html(text)}"
                )
        elif self.rlqa is not None:
            r = self.rlqa
            self.stack.setCurrentIndex(2)
            self.options.clear()
            for j in [] if r.done else r.options():
                self.options.addItem(r.topic.table.texts[j])
            if self.options.count():
                self.options.setCurrentRow(0)
            for b in (self.choose_button, self.auto_button):
                b.setEnabled(not r.done and not busy)
            self.rlqa_undo.setEnabled(bool(r.history) and not busy)
            words = r.draft.words
            self.draft.setHtml(
                _html(r.summary_text() or "(empty)") + f"<p style='color:#666'>{words} of {r.topic.max_words} words</p>"
            )
        else:
            self.stack.setCurrentIndex(0)
