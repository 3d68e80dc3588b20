"""*File > New domain from my FAQ…* (a preview with every problem by line, nothing written until it is
valid, then creating and preparing with progress and Cancel) and the Inbox dialog."""

from __future__ import annotations

from pathlib import Path

import pytest
from gui_helpers import TIMEOUT_MS, make_window
from PySide6.QtWidgets import QLineEdit, QPushButton, QTableView, QWizard

from assistant import paths
from assistant.app.desk.inbox import inbox_items
from assistant.app.desk.own_faq import create_domain_job
from assistant.progress import Progress, run_job
from assistant.store import KnowledgeBase, SessionLog

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def fast_create(name, source, fmt="auto", title="", seed=0):
    """The wizard's job without the minutes of preparing (tests use tiny budgets): create, then report."""
    report = yield from create_domain_job(name, source, fmt, title)
    for step in range(3):
        yield Progress(step + 1, 3, "cold start: a stand-in stage")  # the ETA is the panel's, not the job's
    return {"report": report, "prepared": ["cold start", "text prior: minilm (stand-in)"]}


def open_faq_wizard(qtbot, window, path: Path, name: str):
    wizard = window.faq.open_wizard()
    assert wizard.isVisible() and wizard.currentPage() is wizard.source
    wizard.findChild(QLineEdit, "faqPath").setText(str(path))
    assert wizard.findChild(QLineEdit, "faqDomainName").text() == path.stem.replace("-", "_")
    wizard.findChild(QLineEdit, "faqDomainName").setText(name)
    assert wizard.source.isComplete()
    wizard.next()
    page = wizard.preview_page
    qtbot.waitUntil(lambda: page.parsed is not None or "Cannot" in page.summary.text(), timeout=TIMEOUT_MS)
    return wizard, page


def test_a_bad_faq_is_previewed_with_its_problems_and_nothing_is_written(qtbot, tiny_window, tmp_path):
    bad = tmp_path / "desk.csv"
    bad.write_text("question,answer\nHow do I print?,Use the station.\n,No title here.\nHow do I scan?,\n")
    wizard, page = open_faq_wizard(qtbot, tiny_window, bad, "desk")
    problems = wizard.findChild(QTableView, "faqProblems")
    assert problems.model().rowCount() == 2 and problems.isVisible()
    assert [problems.model().records[i].line for i in range(2)] == [3, 4]
    assert "2 problem(s)" in page.summary.text() and not page.isComplete()
    assert not wizard.button(QWizard.WizardButton.CommitButton).isEnabled()
    assert not paths.domain_db_path("desk").exists()
    wizard.close()


def test_a_good_faq_is_created_and_prepared_with_progress(qtbot, tiny_window, monkeypatch):
    monkeypatch.setattr("gui.faq_wizard.create_from_faq_job", fast_create)
    wizard, page = open_faq_wizard(qtbot, tiny_window, EXAMPLES / "library-faq.md", "library")
    entries = wizard.findChild(QTableView, "faqEntries")
    assert entries.model().rowCount() == 33 and not wizard.findChild(QTableView, "faqProblems").isVisible()
    assert "33 entries, 6 categories" in page.summary.text() and page.isComplete()
    assert not paths.domain_db_path("library").exists()  # the preview writes nothing
    with qtbot.waitSignal(wizard.created, timeout=TIMEOUT_MS * 3) as created:
        wizard.next()
    assert created.args == ["library"]
    create = wizard.create_page
    assert "library is ready" in create.report.toHtml() and "stand-in" in create.report.toHtml()
    assert create.progress.bar.value() == create.progress.bar.maximum()
    assert paths.domain_db_path("library").exists()
    wizard.close()


@pytest.fixture
def library_with_unanswered():
    run_job(create_domain_job("library", EXAMPLES / "library-faq.csv"))
    with KnowledgeBase.open("library") as kb:
        log = SessionLog(kb)
        number = log.create("museum pass", {})
        log.append(number, "out_of_scope", {}, "out_of_scope", None)
        other = log.create("kindle wont sync", {})
        log.append(other, "reject", {"label": "ebooks"}, "failed", None)
    return number, other


def test_the_inbox_dialog_assigns_and_makes_new_entries(qtbot, settings, library_with_unanswered, monkeypatch):
    window = make_window(qtbot, settings)
    monkeypatch.setattr(window, "domain", "library")
    dialog = window.faq.open_inbox()
    table = dialog.findChild(QTableView, "inboxTable")
    assert table.model().rowCount() == 2 and "2 question(s)" in dialog.summary.text()
    # the newest (the rejected one) is selected, its rejected entry preselected
    assert dialog.selected().query == "kindle wont sync" and dialog.entry.currentData() == "ebooks"
    dialog.findChild(QPushButton, "inboxAssign").click()
    assert [i.query for i in inbox_items("library")] == ["museum pass"]
    dialog.findChild(QLineEdit, "inboxNewTitle").setText("Can I borrow a museum pass?")
    dialog.new_answer.setPlainText("Yes, at the information desk.")
    worker = dialog.new_entry_for_selected()
    qtbot.waitUntil(lambda: table.model().rowCount() == 0, timeout=TIMEOUT_MS * 3)
    assert worker is not None and "empty" in dialog.summary.text()
    with KnowledgeBase.open("library") as kb:
        assert "can-i-borrow-a-museum-pass" in kb.label_ids()
    dialog.close()
