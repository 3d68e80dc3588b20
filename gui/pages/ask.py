"""The Ask page: query box, chat-style transcript, the pending question with its answer buttons, the live
top-10 posterior and "why this question".

The page renders ``SessionSnapshot`` objects and sends actions to the ``SessionController``; the
conversation's state lives in the engine's ``Session``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut, QShowEvent, QTextCursor
from PySide6.QtWidgets import (
    QCheckBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from assistant.app.session.numbers import percent
from assistant.app.session.phases import Phase
from gui.controller import SessionController
from gui.loading import LoadingBanner
from gui.options import OPTION_KEYS, OptionArea, OptionButton, option_key
from gui.qt_models import PosteriorModel
from gui.rich_text import explanation_html
from gui.snapshot import SessionSnapshot
from gui.transcript import transcript_html
from gui.widgets import Card, make_table, press_if_shown, stretch_column, window_shortcuts
from gui.words import counted

if TYPE_CHECKING:
    from assistant.app.session.session_records import OutOfScopeView

POSTERIOR_TITLE = "Most likely answers"


def nothing_fits_text(view: OutOfScopeView, handed_off: bool) -> str:
    """The out-of-scope ending in words: what it says, what it can help with, the closest answers."""
    lines = [view.message]
    if view.help_topics:
        lines.append("I can help with: " + ", ".join(view.help_topics) + ".")
    if view.did_you_mean:
        lines.append("Did you mean: " + "; ".join(f"{name} ({percent(p)})" for name, p in view.did_you_mean) + "?")
    if handed_off:
        lines.append(
            "Handed on: your question (and your note, if you wrote one) is saved in this domain's list of "
            "unanswered questions, which the people who look after its answers read to add new ones. "
            "Nothing more happens here: type a new question above to go on."
        )
    return "\n".join(lines)


class AskPage(QWidget):
    """See the module docstring. ``askRequested(query)``: the main window makes sure the domain is ready
    and then starts the session; ``compareRequested``: show the Compare page."""

    askRequested = Signal(str)
    compareRequested = Signal()

    def __init__(self, controller: SessionController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("askPage")
        self.controller = controller
        self.snapshot: SessionSnapshot | None = None
        self.option_buttons: list[OptionButton] = []
        self.faq_examples = False  # the bundled faq's examples ("it was in gmail") mean nothing on another desk
        self._words_session: tuple[str, int | None] | None = None  # the session "Say more about it" belongs to
        # built in the order of the keyboard's Tab: the query, the conversation, the question, the belief
        query_row = self._query_row()
        left = self._conversation_column()
        right = self._belief_column()
        splitter = self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.setObjectName("askSplitter")
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setChildrenCollapsible(False)
        self._split = False  # the split is set at the first show, when the page knows its width
        right.setMinimumWidth(380)
        layout = QVBoxLayout(self)
        layout.addLayout(query_row)
        layout.addWidget(splitter, 1)
        self._shortcuts()
        controller.snapshotChanged.connect(self.render)
        controller.busyChanged.connect(self._busy)
        self.render(None)

    def _query_row(self) -> QHBoxLayout:
        self.query_input = QLineEdit(self)
        self.query_input.setObjectName("queryInput")
        self.query_input.setAccessibleName("Your question")
        self.query_input.setPlaceholderText("What are you looking for?")
        self.query_input.setClearButtonEnabled(True)
        self.query_input.returnPressed.connect(self._ask)
        self.ask_button = QPushButton("&Ask", self)
        self.ask_button.setObjectName("askButton")
        self.ask_button.setAccessibleName("Ask")
        self.ask_button.setToolTip("Start a conversation about this question (Enter)")
        self.ask_button.setDefault(True)
        self.ask_button.clicked.connect(self._ask)
        query_label = QLabel("&Question:", self)
        query_label.setBuddy(self.query_input)
        query_row = QHBoxLayout()
        query_row.addWidget(query_label)
        query_row.addWidget(self.query_input, 1)
        query_row.addWidget(self.ask_button)
        return query_row

    def _conversation_column(self) -> QWidget:
        """The transcript, and below it the pending question with its answers."""
        self.transcript = QTextBrowser(self)
        self.transcript.setObjectName("transcriptView")
        self.transcript.setAccessibleName("Conversation so far")
        self.transcript.setOpenLinks(False)
        self.transcript.setMinimumHeight(140)
        # like a chat: whenever the conversation grows (also when its layout finishes later), show its end
        self.transcript.verticalScrollBar().rangeChanged.connect(lambda _low, high: self._follow(high))
        self._question_card()
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        # getting the domain ready (the window opens before its models load): progress, Cancel, the kept
        # question; in this column, which the posterior's column keeps taller anyway (the window never grows)
        self.loading = LoadingBanner(left)
        left_layout.addWidget(self.loading)
        left_layout.addWidget(self.transcript, 1)
        left_layout.addWidget(self.card)
        return left

    def _question_card(self) -> None:
        """The pending question, its answer buttons, the other answers and ways on, and "Say more about it"."""
        self.card = Card("", self, "questionCard")
        self.question_text = QLabel("Type what you are looking for above and press Ask.", self.card)
        self.question_text.setObjectName("questionText")
        self.question_text.setAccessibleName("Current question")
        self.question_text.setWordWrap(True)
        self.question_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # a question reads large; longer messages (the out-of-scope ending) in the normal size
        self.message_font = self.question_text.font()
        self.question_font = self.question_text.font()
        self.question_font.setPointSizeF(self.question_font.pointSizeF() * 1.35)
        self.question_text.setFont(self.question_font)
        self.answer_area = OptionArea(self.card)
        self.answer_buttons = self.answer_area.buttons_widget
        self.probably = QCheckBox("&Probably (I am not certain)", self.card)
        self.probably.setObjectName("probablyCheck")
        self.probably.setAccessibleName("Give the next answer as probably")
        self.probably.setToolTip("Tick before choosing an answer to give it with less weight (key P)")
        self.not_sure_button = self._button("&Not sure", "notSureButton", "I do not know the answer (key N)")
        self.not_sure_button.clicked.connect(lambda: self.controller.answer(None, "not_sure"))
        self.not_visible_button = self._button(
            "Not v&isible", "notVisibleButton", "The attribute cannot be seen: skip it and its group (key V)"
        )
        self.not_visible_button.clicked.connect(lambda: self.controller.answer(None, "not_visible"))
        self.undo_button = self._button("&Undo", "undoButton", "Take back the last answer (Ctrl+Z)")
        self.undo_button.clicked.connect(self.controller.undo)
        self.skip_button = self._button("&Skip to the answers", "skipButton", "Stop asking and compare the shortlist")
        self.skip_button.clicked.connect(self.controller.skip_to_shortlist)
        self.more_button = self._button("Ask me &more", "shortlistMoreButton", "Ask more questions before comparing")
        self.more_button.clicked.connect(self.controller.ask_more)
        # say more at any point before the comparisons: the prior is recomputed, the answers stay
        self.words_input = QLineEdit(self.card)
        self.words_input.setObjectName("addWordsInput")
        self.words_input.setAccessibleName("Add words to your question")
        self.words_input.setPlaceholderText("Say more about it")
        self.words_input.returnPressed.connect(self._add_words)
        self.words_button = self._button("A&dd words", "addWordsButton", "Add these words to your question")
        self.words_button.clicked.connect(self._add_words)
        self.stop_note = QLabel("", self.card)
        self.stop_note.setObjectName("stopExplanation")
        self.stop_note.setAccessibleName("Why the assistant stopped asking")
        self.stop_note.setWordWrap(True)
        self.stop_note.setStyleSheet("color: #555; font-style: italic")
        # the out-of-scope ending: see the closest answers anyway, or hand the question on to a person
        self.closest_button = self._button(
            "Show the c&losest answers", "showClosestButton", "Compare the closest answers although none seems to fit"
        )
        self.closest_button.clicked.connect(self.controller.show_closest)
        self.hand_off_button = self._button(
            "Hand it on to a &person", "handOffButton", "Add the question to the list of unanswered questions"
        )
        self.hand_off_button.clicked.connect(self._hand_off)
        self.compare_button = self._button("Go to &comparisons →", "goCompareButton", "Show the Compare page")
        self.compare_button.clicked.connect(self.compareRequested)
        self._lay_out_card()

    def _lay_out_card(self) -> None:
        secondary = QHBoxLayout()
        secondary.addWidget(self.probably)
        secondary.addStretch(1)
        for button in (
            self.not_sure_button,
            self.not_visible_button,
            self.skip_button,
            self.more_button,
            self.closest_button,
            self.hand_off_button,
            self.compare_button,
            self.undo_button,
        ):
            secondary.addWidget(button)
        words_row = QHBoxLayout()
        words_row.addWidget(self.words_input, 1)
        words_row.addWidget(self.words_button)
        self.card.body.addWidget(self.question_text)
        self.card.body.addWidget(self.stop_note)
        self.card.body.addWidget(self.answer_area)
        self.card.body.addLayout(secondary)
        self.card.body.addLayout(words_row)
        self.card.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)

    def _belief_column(self) -> QWidget:
        """The most likely answers (the posterior) and why this question."""
        self.posterior_model = PosteriorModel(self)
        self.posterior_view = make_table("posteriorView", "Most likely answers", self)
        self.posterior_view.setModel(self.posterior_model)
        stretch_column(self.posterior_view, 1)
        self.posterior_view.setMinimumHeight(24 * 10 + 30)
        posterior_box = self.posterior_box = QGroupBox(POSTERIOR_TITLE, self)
        QVBoxLayout(posterior_box).addWidget(self.posterior_view)
        self.why = QTextBrowser(self)
        self.why.setObjectName("whyView")
        self.why.setAccessibleName("Why this question")
        self.why.setHtml(explanation_html(None))
        why_box = QGroupBox("Why this question?", self)
        QVBoxLayout(why_box).addWidget(self.why)
        right = QWidget(self)
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(posterior_box, 3)
        right_layout.addWidget(why_box, 2)
        return right

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._split and self.splitter.width() > 0:
            self._split = True
            width = self.splitter.width()
            self.splitter.setSizes([width * 3 // 5, width - width * 3 // 5])  # the answers' names need room

    def _button(self, text: str, name: str, tip: str) -> QPushButton:
        button = QPushButton(text, self.card)
        button.setObjectName(name)
        button.setAccessibleName(text.replace("&", "").rstrip(" →"))
        button.setToolTip(tip)
        button.setAutoDefault(False)
        return button

    def _shortcuts(self) -> None:
        """The answer keys work wherever the focus is in the window while this page shows (also after a click
        on the conversation), except in a text field: a field takes the keys it can type (Qt asks the focused
        widget first, and a line edit claims printable keys), so "1" typed in "Add words" stays a "1"."""
        context = Qt.ShortcutContext.WindowShortcut
        self.shortcuts: list[QShortcut] = []
        for key in OPTION_KEYS:
            shortcut = QShortcut(QKeySequence(key), self.card, context=context)
            shortcut.activated.connect(lambda k=key: self._option_key(k))
            self.shortcuts.append(shortcut)
        buttons = (("N", self.not_sure_button), ("V", self.not_visible_button), ("P", self.probably))
        self.shortcuts += window_shortcuts(self.card, buttons)

    def _option_key(self, key: str) -> None:
        for button in self.option_buttons:
            if button.key == key:
                press_if_shown(button)

    # ---- actions ---------------------------------------------------------------------------------------
    def set_domain(self, name: str, changed: bool) -> None:
        """A domain was opened: its own hints, and (another domain) an empty question field."""
        self.faq_examples = name == "faq"
        self.query_input.setPlaceholderText(
            "What are you looking for?" + (" e.g. “how do I cross out text in an email”" if self.faq_examples else "")
        )
        self.words_input.setPlaceholderText(
            "Say more about it" + (", e.g. “it was in gmail”" if self.faq_examples else "")
        )
        if changed:  # the last domain's question is no question of this one
            self.query_input.clear()
            self.words_input.clear()

    def _ask(self) -> None:
        query = self.query_input.text().strip()
        if query:
            self.askRequested.emit(query)
        else:
            self.query_input.setFocus()

    def _add_words(self) -> None:
        words = self.words_input.text().strip()
        if words and self.controller.add_words(words):
            self.words_input.clear()

    def _option_button(self, index: int, option: str, count: int) -> OptionButton:
        button = OptionButton(option, option_key(index, count), self.answer_buttons)
        button.setObjectName(f"option{index + 1}Button")
        button.setAutoDefault(False)
        button.clicked.connect(lambda _=False, i=index: self._answer(i))
        return button

    def _hand_off(self) -> None:
        if self.controller.hand_off(self.words_input.text().strip()):
            self.words_input.clear()  # the note went with the question

    def _answer(self, option: int) -> None:
        kind = "probably" if self.probably.isChecked() else "option"
        if self.controller.answer(option, kind):
            self.probably.setChecked(False)

    def _busy(self, busy: bool) -> None:
        self.setCursor(Qt.CursorShape.BusyCursor if busy else Qt.CursorShape.ArrowCursor)

    # ---- rendering ---------------------------------------------------------------------------------------
    def render(self, snapshot: SessionSnapshot | None) -> None:  # type: ignore[override]  # shadows QWidget.render(device): a page draws a snapshot
        self.snapshot = snapshot
        self.transcript.setHtml(transcript_html(snapshot))
        self._scroll_transcript()
        QTimer.singleShot(0, self._scroll_transcript)  # again once the new text is laid out
        self._render_question(snapshot)
        self._forget_other_sessions_words(snapshot)
        key = None if snapshot is None else (snapshot.domain, snapshot.session_id)
        self.posterior_model.update(
            snapshot.view.entries if snapshot else (), key, snapshot.questions_answered if snapshot else None
        )
        self.why.setHtml(explanation_html(snapshot.explanation if snapshot else None))
        promise = snapshot.view.promise if snapshot is not None else None
        # the conformal shortlist in words: the first rows hold the right entry at the promised rate (issue 32)
        self.posterior_box.setTitle(f"{POSTERIOR_TITLE}: {promise}" if promise else POSTERIOR_TITLE)
        if snapshot is not None and self.query_input.text().strip() != snapshot.query:
            self.query_input.setText(snapshot.query)

    def _forget_other_sessions_words(self, snapshot: SessionSnapshot | None) -> None:
        """Words typed in "Say more about it" belong to their session: a new one starts with the field empty (a
        rejection's note once waited there, selected, in the next session). The note itself is read by the
        session when it is given (``assistant.app.session.rejection``), never copied here."""
        session = None if snapshot is None else (snapshot.domain, snapshot.session_id)
        if session != self._words_session:
            self._words_session = session
            self.words_input.clear()

    def _follow(self, maximum: int) -> None:
        self.transcript.verticalScrollBar().setValue(maximum)

    def _scroll_transcript(self) -> None:
        """Show the latest messages."""
        self.transcript.moveCursor(QTextCursor.MoveOperation.End)
        self.transcript.ensureCursorVisible()
        bar = self.transcript.verticalScrollBar()
        bar.setValue(bar.maximum())

    def _render_question(self, snapshot: SessionSnapshot | None) -> None:
        question = snapshot.question if snapshot else None
        options = question.options if question else ()
        self.option_buttons = self.answer_area.set_options(
            options, lambda index, option: self._option_button(index, option, len(options))
        )
        self.question_text.setFont(
            self.question_font if question is not None or snapshot is None else self.message_font
        )
        if question is not None:
            self.card.title.setText(f"Question {question.number}")
            self.question_text.setText(question.text)
            if self.option_buttons:
                self.option_buttons[0].setFocus()
        elif snapshot is None:
            self.card.title.setText("Start")
            self.question_text.setText("Type what you are looking for above and press Ask.")
        elif snapshot.phase == Phase.COMPARING:
            self.card.title.setText("Shortlist ready")
            self.question_text.setText(
                f"After {counted(snapshot.questions_answered, 'question')} the assistant has a shortlist: "
                "compare the candidates two at a time, or ask it for more questions."
            )
        elif snapshot.phase == Phase.OUT_OF_SCOPE and snapshot.nothing_fits is not None:
            self.card.title.setText("Nothing here fits" + (": handed on" if snapshot.handed_off else ""))
            self.question_text.setText(nothing_fits_text(snapshot.nothing_fits, snapshot.handed_off))
        elif snapshot.phase == Phase.DECIDED:
            self.card.title.setText("Answer proposed")
            self.question_text.setText("The assistant proposes an answer: accept or reject it on the Compare page.")
        elif snapshot.phase == Phase.REJECTED:
            self.card.title.setText("Answer rejected")
            self.question_text.setText(
                "On the Compare page: take another answer, answer more questions without it, or give up."
            )
        else:
            self.card.title.setText("Finished" if snapshot.phase == Phase.FINISHED else "Ended without an answer")
            self.question_text.setText("Type a new question above (Ctrl+N) to start again, or Undo.")
        clarifying = question is not None
        self.answer_area.setVisible(clarifying)
        self.probably.setVisible(clarifying)
        self.not_sure_button.setVisible(clarifying)
        self.not_visible_button.setVisible(question is not None and question.allows_not_visible)
        self.skip_button.setVisible(clarifying)
        self.more_button.setVisible(snapshot is not None and snapshot.can_ask_more)
        can_add = snapshot is not None and snapshot.can_add_words
        self.words_input.setVisible(can_add)
        self.words_button.setVisible(can_add)
        why = snapshot.stop_explanation if snapshot is not None and not clarifying else None
        self.stop_note.setText(why or "")
        self.stop_note.setVisible(bool(why))
        self.compare_button.setVisible(
            snapshot is not None and snapshot.phase in (Phase.COMPARING, Phase.DECIDED, Phase.REJECTED)
        )
        ending = snapshot is not None and snapshot.phase == Phase.OUT_OF_SCOPE
        self.closest_button.setVisible(ending)
        self.hand_off_button.setVisible(ending)
        self.hand_off_button.setEnabled(snapshot is not None and ending and not snapshot.handed_off)
        self.words_input.setPlaceholderText(
            "Say it differently, or write a note for the person who will answer"
            if ending
            else "Say more about it" + (", e.g. “it was in gmail”" if self.faq_examples else "")
        )
        self.undo_button.setVisible(snapshot is not None)
        self.undo_button.setEnabled(snapshot is not None and snapshot.can_undo)
        if (
            snapshot is not None
            and not clarifying
            and snapshot.phase in (Phase.COMPARING, Phase.DECIDED, Phase.REJECTED)
        ):
            self.compare_button.setFocus()
