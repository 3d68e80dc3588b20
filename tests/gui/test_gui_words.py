"""Words for people: a walk through every page in the states a person meets (a question, comparisons, a
proposal, a rejection, more questions, History, the Lab's results, a summary, Settings, Help) that fails if
any engine name (gppl, imp, fixed_turns, lexrank, a label key ...) shows anywhere a person can read it; and
Help names exactly the buttons the window has."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pyqtgraph as pg
import pytest
from gui_helpers import ask, click, click_option, option_buttons, wait_idle
from PySide6.QtCore import QAbstractListModel, Qt
from PySide6.QtGui import QAction, QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QTabBar,
    QTextEdit,
    QWidget,
)

from assistant.app.research.research import RANKING_MODELS, RANKING_STRATEGIES, SYSTEMS
from assistant.app.session.session import EntryKind, RankingStopReason, StopReason
from gui.help_text import HELP_HTML
from gui.words import (
    DECIDED_REASONS,
    INTERNAL_NAMES,
    PAIR_CHOICES,
    STOP_REASONS,
    cluster_words,
    decided_words,
    stop_words,
)
from gui.words import RANKING_MODELS as RANKER_WORDS
from gui.words import SYSTEMS as SYSTEM_WORDS
from gui.workers import is_running
from tests.support import HashingEncoder

# engine names, and the tiny domain's label keys ("k0".."k3") and FAQ keys ("faq-042")
PATTERNS = [re.compile(rf"(?<![\w@#-]){re.escape(name)}(?![\w-])") for name in sorted(INTERNAL_NAMES)]
PATTERNS += [re.compile(r"\bk[0-3]\b"), re.compile(r"\bfaq-\d+"), re.compile(r"\((?:lead|random|mmr)\)")]


def _plain(text: str) -> str:
    if "<" in text:
        document = QTextDocument()
        document.setHtml(text)
        return document.toPlainText()
    return text


def _model_texts(view: QAbstractItemView) -> list[str]:
    model = view.model()
    if model is None:
        return []
    columns = 1 if isinstance(model, QAbstractListModel) else model.columnCount()
    texts = [str(model.headerData(c, Qt.Orientation.Horizontal) or "") for c in range(columns)]
    for r in range(model.rowCount()):
        for c in range(columns):
            index = model.index(r, c)
            texts += [str(index.data() or ""), str(index.data(Qt.ItemDataRole.ToolTipRole) or "")]
    return texts


def _legend_texts(widget: QWidget) -> list[str]:
    legends = [getattr(widget, "legend", None)]
    return [label.text for legend in legends if legend is not None for _, label in legend.items]


def shown_texts(root: QWidget) -> list[str]:
    """Everything a person can read in ``root`` now: labels, buttons, group titles, combo items, tabs, text
    views, tables, placeholders, progress texts, tooltips, plot legends, the title and the status bar."""
    texts = [root.windowTitle()]
    for widget in [root, *root.findChildren(QWidget)]:
        if not widget.isVisible():
            continue
        texts.append(widget.toolTip())
        if isinstance(widget, QLabel):
            texts.append(_plain(widget.text()))
        elif isinstance(widget, QAbstractButton):
            texts.append(widget.text())
        elif isinstance(widget, QGroupBox):
            texts.append(widget.title())
        elif isinstance(widget, QComboBox):
            for i in range(widget.count()):
                texts += [widget.itemText(i), str(widget.itemData(i, Qt.ItemDataRole.ToolTipRole) or "")]
        elif isinstance(widget, QTabBar):
            texts += [widget.tabText(i) for i in range(widget.count())]
        elif isinstance(widget, QTextEdit):
            texts.append(widget.toPlainText())
        elif isinstance(widget, QAbstractItemView):
            texts += _model_texts(widget)
        elif isinstance(widget, QLineEdit):
            texts.append(widget.placeholderText())
        elif isinstance(widget, QProgressBar):
            texts.append(widget.text())
        elif isinstance(widget, pg.GraphicsView):
            texts += _legend_texts(widget)
    status = getattr(root, "statusBar", None)
    if status is not None:
        texts.append(status().currentMessage())
    return [t for t in texts if t]


def internal_names(root: QWidget) -> list[tuple[str, str]]:
    found = []
    for text in shown_texts(root):
        for pattern in PATTERNS:
            match = pattern.search(text)
            if match:
                found.append((match.group(0), text[:160]))
    return found


def test_the_checker_finds_what_the_issue_saw(qtbot):
    """The walk below is only as good as its checker: it finds the names a person saw (issue 26)."""
    label = QLabel("Ask me more questions (not “faq-042”).")
    combo = QComboBox()
    combo.addItems(["gppl", "bt"])
    qtbot.addWidget(label)
    qtbot.addWidget(combo)
    for widget in (label, combo):
        widget.show()
    assert [name for name, _ in internal_names(label)] == ["faq-042"]
    assert [name for name, _ in internal_names(combo)] == ["gppl", "bt"]
    for seen in ("Left (lexrank)", "Right (random)", "fixed_turns", "lambda_1", "eubo", "unpa", "imp", "out_of_scope"):
        assert any(p.search(seen) for p in PATTERNS), seen


def test_every_engine_name_has_words():
    assert set(SYSTEMS) <= set(SYSTEM_WORDS)
    assert set(RANKING_MODELS) <= set(RANKER_WORDS)
    assert set(RANKING_STRATEGIES) <= set(PAIR_CHOICES)
    assert set(StopReason) <= set(STOP_REASONS) and all(stop_words(r) == STOP_REASONS[r] for r in StopReason)
    assert set(RankingStopReason) <= set(DECIDED_REASONS)
    assert decided_words(StopReason.USER) == "You are done comparing"
    assert decided_words("something new") == "The comparisons are done"
    assert cluster_words("opinosis/battery-life_amazon_kindle") == "Reviews: battery life, amazon kindle"
    assert cluster_words("multiling/M000") == "News articles (MultiLing set M000)"
    assert EntryKind.MORE  # the transcript's words for every entry kind: tests/gui/test_gui_rendering.py


def _lab_results(window) -> None:
    """The Lab's panels show results of every kind of row (the engine's own names as the jobs return them)."""
    ranking_rows = [
        dict(model=m, strategy=s, interactions=k, accuracy=0.5, ndcg5=0.7, seconds_per_interaction=0.001)
        for m, s in (("gppl", "imp"), ("gppl", "eig"), ("bt", "unc"), ("pairwisegp", "eubo"), ("swag", "unpa"))
        for k in (0, 1, 2)
    ]
    ranking_rows.append(dict(model="prior", strategy="none", interactions=0, accuracy=0.4, ndcg5=0.6))
    ranking_rows[-1]["seconds_per_interaction"] = 0.0
    best = {"model": "gppl", "strategy": "imp"}
    window.lab_page.ranking.on_result(
        dict(rows=ranking_rows, dataset="coffee", split="test", questions=3, candidates_per_question=15, t=0.3,
             interactions=2, wilcoxon={"best": best})
    )  # fmt: skip
    curves = {key: {"acc1": [0.2, 0.4, 0.6]} for key in ("ig", "lambda_1", "static_ig", "random")}
    rows = [
        dict(system=s, acc1=0.5 + 0.01 * i, acc1_se=0.02, acc3=0.7, mean_turns=2.5, episodes=60)
        for i, s in enumerate(SYSTEMS)
    ]
    rows[2]["turns"] = 2
    window.lab_page.evaluation.on_result(
        SimpleNamespace(curves=curves, rows=rows, meta=dict(domain="tiny", candidates=4, episodes=60, seconds=1))
    )


def test_no_page_shows_an_engine_name(qtbot, tiny_window):
    window = tiny_window
    seen: dict[str, list] = {}

    def check(state: str, root: QWidget | None = None) -> None:
        qtbot.wait(20)
        seen[state] = internal_names(root or window)

    ask(qtbot, window, "red breast")
    click_option(qtbot, window, option_buttons(window)[0].text())
    check("a question")
    click(qtbot, window, QPushButton, "skipButton")
    click(qtbot, window, QPushButton, "preferLeftButton")
    check("comparing")
    click(qtbot, window, QPushButton, "doneButton")
    check("an answer proposed")
    click(qtbot, window, QPushButton, "rejectButton")
    check("after a rejection")
    rejected = window.controller.snapshot.rejected.label_name
    click(qtbot, window, QPushButton, "rejectedMoreButton")
    window.show_page("ask")
    check("more questions")
    assert f"Ask me more questions (not “{rejected}”)" in window.ask_page.transcript.toPlainText()
    window.show_page("history")
    window.history_page.refresh()
    wait_idle(qtbot, window)
    check("history")
    window.show_page("lab")
    _lab_results(window)
    for tab in range(window.lab_page.tabs.count()):
        window.lab_page.tabs.setCurrentIndex(tab)
        check(f"lab tab {tab}")
    page = window.summarize_page
    page.encoder, page.candidates, page.episodes = HashingEncoder(384), 40, 40
    window.show_page("summarize")
    page.source.setCurrentIndex(page.source.findData("opinosis/battery-life_amazon_kindle"))
    page.start()
    qtbot.waitUntil(lambda: page.session is not None and not is_running(page.worker), timeout=60_000)
    page.prefer_left.click()
    page.better_button.click()
    qtbot.waitUntil(lambda: page.rl_text.isVisible() and not is_running(page.worker), timeout=60_000)
    check("summarize")
    assert page.saved.count() and "battery" in page.saved.itemText(0)
    dialog = window.open_settings()
    check("settings", dialog)
    dialog.close()
    window.show_help()
    check("help", window.help_dialog)
    window.help_dialog.close()
    assert {state: found for state, found in seen.items() if found} == {}


# ---- Help names the window's real buttons ---------------------------------------------------------------------
def _name(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("&", "").strip(" :…→◀▶"))


def window_names(window) -> set[str]:
    names = {_name(w.text()) for w in window.findChildren(QAbstractButton)}
    names |= {_name(a.text()) for a in window.findChildren(QAction)}
    names |= {_name(w.text()) for w in window.findChildren(QLabel) if len(w.text()) < 40}
    names |= {_name(w.title()) for w in window.findChildren(QGroupBox)}
    for bar in window.findChildren(QTabBar):
        names |= {_name(bar.tabText(i)) for i in range(bar.count())}
    return names


def test_help_names_every_button_and_only_buttons_that_exist(tiny_window):
    tiny_window.lab_page, tiny_window.summarize_page  # noqa: B018 - made on first use: make them now
    named_in_help = {_name(name) for name in re.findall(r"<b>(.*?)</b>", HELP_HTML, re.S)}
    existing = window_names(tiny_window)
    assert named_in_help - existing == set(), "Help names what the window does not have"
    buttons = {
        _name(b.text())
        for b in tiny_window.findChildren(QAbstractButton)
        if isinstance(b, QPushButton | QRadioButton) and not b.objectName().startswith("option")
    }
    assert buttons - named_in_help == set(), "buttons that Help does not explain"
    for page in ("Ask", "Compare", "History", "Lab", "Summarize"):
        assert f"<h3>{page}" in HELP_HTML


@pytest.mark.parametrize("key", ["Ctrl+1", "Ctrl+5", "Ctrl+Z", "Ctrl+N", "F1"])
def test_help_lists_the_keys(key):
    assert f"<code>{key}</code>" in HELP_HTML


def test_the_shortlist_bubble_promises_no_comparison():
    """Issue 34: "Here is my shortlist … Which of these is better?" with no comparison after it; issue 40: nor
    "Here is my shortlist" with no shortlist on the screen."""
    from assistant.app.session.events import Stop
    from gui.transcript import event_html

    html = event_html(Stop("confident"), {})
    assert "No more questions for now" in html and "Which of these is better" not in html
    assert "shortlist" not in html  # issue 40: the screen may show one proposal, no list


def test_counts_read_as_words():
    from gui.words import counted

    assert [counted(n, "question") for n in (0, 1, 2)] == ["0 questions", "1 question", "2 questions"]
