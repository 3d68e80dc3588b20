"""The import wizard: a preview with every problem and its line before anything is written, then the import
and its report."""

from __future__ import annotations

from pathlib import Path

import pytest
from gui_helpers import TIMEOUT_MS, make_window
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QTableView, QTextBrowser, QWizard

from assistant import paths
from tests.support import crowd as crowd_helpers

BAD_TAGS = (
    "label,tag,answer,kind\n"
    "card_arrival,card delivery,yes,binary\n"
    "nonexistent_label,card delivery,yes,binary\n"
    "card_arrival,lost card,maybe,binary\n"
)


@pytest.fixture
def bank_window(qtbot, settings):
    helpers = crowd_helpers
    helpers.build_bank("bank")
    window = make_window(qtbot, settings)  # the tiny domain is open; the wizard imports into 'bank'
    return window, helpers


def open_wizard(qtbot, window, path: Path, fmt: str):
    wizard = window.open_import_wizard()
    assert wizard.isVisible() and wizard.currentPage() is wizard.source
    wizard.findChild(QLineEdit, "importFile").setText(str(path))
    formats = wizard.findChild(QComboBox, "importFormat")
    assert formats.currentData() == fmt  # guessed from the file
    wizard.findChild(QComboBox, "importDomain").setCurrentText("bank")
    assert wizard.source.isComplete()
    wizard.next()
    page = wizard.preview_page
    assert wizard.currentPage() is page
    qtbot.waitUntil(lambda: page.plan is not None or "Cannot" in page.summary.text(), timeout=TIMEOUT_MS)
    return wizard, page


def test_the_preview_lists_problems_with_line_numbers_and_writes_nothing(qtbot, bank_window, tmp_path):
    window, helpers = bank_window
    bad = tmp_path / "bad_tags.csv"
    bad.write_text(BAD_TAGS)
    before = helpers.dump("bank")
    wizard, page = open_wizard(qtbot, window, bad, "csv")
    problems = wizard.findChild(QTableView, "previewProblems").model()
    lines = [problems.index(r, 0).data() for r in range(problems.rowCount())]
    columns = [problems.index(r, 1).data() for r in range(problems.rowCount())]
    messages = [problems.index(r, 2).data() for r in range(problems.rowCount())]
    assert lines == ["3", "4"] and columns == ["label", "answer"]
    assert "nonexistent_label" in messages[0] and "maybe" in messages[1]
    summary = wizard.findChild(QLabel, "previewSummary").text()
    assert "2 problem(s) on line(s) 3, 4" in summary and "Nothing was written" in summary
    rows = wizard.findChild(QTableView, "previewRows").model()
    assert rows.rowCount() == 2 and rows.index(1, 6).data() == "problem"  # line 4 did not parse
    assert not page.isComplete()  # the Import button stays disabled
    assert not wizard.button(QWizard.WizardButton.CommitButton).isEnabled()
    wizard.reject()
    assert helpers.dump("bank") == before


def test_an_import_with_its_report(qtbot, bank_window):
    window, helpers = bank_window
    before = helpers.dump("bank")
    wizard, page = open_wizard(qtbot, window, helpers.DATA / "mturk_tags_bank.csv", "mturk")
    assert page.plan.ok and page.isComplete()
    assert "no problems" in page.summary.text()
    assert "would add" in wizard.findChild(QTextBrowser, "previewReport").toPlainText()
    assert helpers.dump("bank") == before  # the preview wrote nothing
    imported: list = []
    wizard.imported.connect(lambda domain, report: imported.append((domain, report)))
    wizard.next()  # Import
    result = wizard.result_page
    qtbot.waitUntil(lambda: result.isComplete(), timeout=TIMEOUT_MS)
    assert not result.failed
    text = wizard.findChild(QTextBrowser, "importReport").toPlainText()
    assert "Imported" in text and "annotations" in text and "kappa 0.653" in text
    assert imported and imported[0][0] == "bank" and imported[0][1].status == "imported"
    assert helpers.dump("bank") != before
    qtbot.waitUntil(lambda: "Imported into bank" in window.statusBar().currentMessage(), timeout=TIMEOUT_MS)
    wizard.accept()
    # the same file again: nothing changes
    again = helpers.dump("bank")
    wizard, page = open_wizard(qtbot, window, helpers.DATA / "mturk_tags_bank.csv", "mturk")
    assert "imported before" in page.summary.text()
    wizard.reject()
    assert helpers.dump("bank") == again
    assert paths.domain_db_path("bank").exists()
