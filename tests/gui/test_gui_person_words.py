"""No engine words where a person reads (issue 40): a walk through every page a desk person uses (Ask,
Compare with a proposal and a rejection, History, Summarize, Settings, Help) and the dialogs and wizards they
open (the questions of a domain, the inbox, a new domain from their FAQ) that fails on any word of the
engine's own vocabulary ("label", "prior", "induced", "JSON", "crowd", "ranker", "tag", "out of scope", ...)
in any text, tooltip, title, table cell or header shown. The Lab (for researchers) and the import of crowd
files (MTurk, Label Studio: its people know those words) are left out on purpose."""

from __future__ import annotations

import re
from pathlib import Path

from gui_helpers import TIMEOUT_MS, ask, click, click_option, option_buttons, wait_idle
from PySide6.QtWidgets import QLineEdit, QPushButton, QWidget
from test_gui_words import _plain, shown_texts

from assistant.store import KnowledgeBase, write_domain
from gui.help_text import HELP_HTML
from gui.questions_dialog import open_questions
from gui.workers import is_running
from tests.support import HashingEncoder
from tests.support.tiny import tiny_data

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"

ENGINE_WORDS = [
    re.compile(r"\blabels?\b(?! Studio)", re.I),  # Label Studio is a program's name
    re.compile(r"\b(?:prior|posterior)s?\b", re.I),
    re.compile(r"\binduc(?:ed|tion)\b", re.I),
    re.compile(r"\bJSON\b"),  # the format's name ("JSON Lines"); a file's ".jsonl" is what a person sees on disk
    re.compile(r"\bcrowd\b", re.I),
    re.compile(r"\branker\b", re.I),
    re.compile(r"\btags?\b", re.I),
    re.compile(r"faq-answers"),
    re.compile(r"out of scope|out_of_scope", re.I),
    re.compile(r"<-"),
    re.compile(r"\(s\)"),  # "comparison(s)"
]


def engine_words(root: QWidget) -> list[tuple[str, str]]:
    return [
        (match.group(0), text[:160])
        for text in shown_texts(root)
        for pattern in ENGINE_WORDS
        if (match := pattern.search(text))
    ]


def test_the_checker_finds_the_words_the_issue_saw():
    seen = (
        "43 entries (read title <- 'name', key <- 'label')",
        "A spreadsheet (CSV, TSV, JSON Lines)",
        "No crowd data is needed",
        "done · fitting the ranker · 1 / 1",
        "0 steps: faq-answers: answer 1",
        "Induced",
        "Session 3 saved as out of scope: nothing here fits",
        "6% after 0 comparison(s)",
    )
    for text in seen:
        assert any(p.search(text) for p in ENGINE_WORDS), text
    for fine in ("a .jsonl file", "the answers from “answer”", "Stopped asking", "Found in your entries"):
        assert not any(p.search(fine) for p in ENGINE_WORDS), fine


def test_no_screen_a_person_uses_shows_an_engine_word(qtbot, tiny_window):
    window = tiny_window
    seen: dict[str, list] = {}

    def check(state: str, root: QWidget | None = None) -> None:
        qtbot.wait(20)
        seen[state] = engine_words(root or window)

    check("start")
    ask(qtbot, window, "red breast")
    click_option(qtbot, window, option_buttons(window)[0].text())
    check("a question")
    click(qtbot, window, QPushButton, "skipButton")
    check("comparing")
    click(qtbot, window, QPushButton, "doneButton")
    check("an answer proposed")
    click(qtbot, window, QPushButton, "rejectButton")
    check("after a rejection")
    click(qtbot, window, QPushButton, "rejectedHandOnButton")
    check("handed on")
    window.show_page("history")
    window.history_page.refresh()
    wait_idle(qtbot, window)
    check("history")
    history = window.history_page.model
    assert history.index(0, 0).data() is not None
    statuses = [history.record(r).status_words for r in range(history.rowCount())]
    assert statuses == ["handed on to a person"]  # not "no answer" (issue 40)
    assert "1 handed on to a person" in window.history_page.summary.text()
    page = window.summarize_page
    page.encoder, page.candidates, page.episodes = HashingEncoder(384), 40, 40
    window.show_page("summarize")
    page.source.setCurrentIndex(page.source.findData("opinosis/battery-life_amazon_kindle"))
    page.start()
    qtbot.waitUntil(lambda: page.session is not None and not is_running(page.worker), timeout=60_000)
    page.prefer_left.click()
    qtbot.waitUntil(lambda: not is_running(page.worker), timeout=60_000)
    check("summarize")
    dialog = window.open_settings()
    check("settings", dialog)
    dialog.close()
    window.show_help()
    check("help", window.help_dialog)
    window.help_dialog.close()
    # Help's own section on the Lab names the Lab's buttons ("Export JSON", "Suggest queries to label")
    lab = re.compile(r"<h3>Lab .*?(?=<h3>)", re.S)
    seen["help"] = [(word, text) for word, text in seen["help"] if word not in ("JSON", "label", "crowd")]
    seen["help, the Lab left out"] = [
        (m.group(0), "Help") for p in ENGINE_WORDS if (m := p.search(_plain(lab.sub("", HELP_HTML))))
    ]
    with KnowledgeBase.create("tiny") as kb:  # the tiny domain's questions in its store, as a desk's are
        write_domain(kb, tiny_data())
    window.updater.reload = lambda name: None  # the real reload loads trained models the tiny domain lacks
    questions = open_questions(window)
    assert questions is not None
    qtbot.waitUntil(lambda: questions.model.rowCount() > 0 and questions.worker is None, timeout=TIMEOUT_MS)
    check("questions of the domain", questions)
    questions.close()
    inbox = window.faq.open_inbox()
    qtbot.waitUntil(lambda: inbox.model.rowCount() > 0, timeout=TIMEOUT_MS)
    check("inbox", inbox)
    inbox.close()
    wizard = window.faq.open_wizard()
    check("new domain: the FAQ", wizard)
    wizard.findChild(QLineEdit, "faqPath").setText(str(EXAMPLES / "library-faq.csv"))
    wizard.findChild(QLineEdit, "faqDomainName").setText("library")
    wizard.next()
    preview = wizard.preview_page
    qtbot.waitUntil(lambda: preview.parsed is not None, timeout=TIMEOUT_MS)
    check("new domain: the preview", wizard)
    wizard.close()
    found = {state: sorted(set(found)) for state, found in seen.items() if found}
    assert found == {}, "\n".join(f"{state}: {words}" for state, words in found.items())
