"""Imports that do not surprise, in the real app on faq (tiny trained models): the wizard names the columns
and says what the import makes stale and how long the update takes; after the import the old models keep
answering while the new ones are fine-tuned in the background, then the fresh ones take over."""

from __future__ import annotations

import shutil

import pytest
from gui_helpers import TIMEOUT_MS, named, use_hashed_sentences
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit
from test_gui_end_to_end import PREPARE_MS, ask, open_window

from models.checkpoint import read_sidecar

pytestmark = pytest.mark.slow


@pytest.fixture
def update_settings(tmp_path):
    settings = QSettings(str(tmp_path / "updates.ini"), QSettings.Format.IniFormat)
    settings.setValue("session/shortlist_size", 5)
    settings.setValue("session/ranking_budget", 4)
    return settings


@pytest.fixture
def own_trained_home(trained_home, tmp_path, monkeypatch):
    """A copy of the trained home that this test may change (the session's stays as it is)."""
    home = tmp_path / "home"
    shutil.copytree(trained_home, home)
    monkeypatch.setenv("CLARIFY_HOME", str(home))
    use_hashed_sentences(monkeypatch)
    return home


def test_an_import_keeps_the_old_models_answering_while_new_ones_are_fine_tuned(
    qtbot, own_trained_home, update_settings, tmp_path
):
    from assistant.priors.sru import encoder_checkpoint_path

    window = open_window(qtbot, update_settings, "faq")
    old = window.registries["faq"]
    assert old.stale() == []
    key = old.domain.labels[0].key
    queries = tmp_path / "two_queries.csv"
    queries.write_text(f"label,text\n{key},how do i strike words out\n{key},cross out a word please\n")

    wizard = window.open_import_wizard()
    wizard.findChild(QLineEdit, "importFile").setText(str(queries))
    assert wizard.findChild(QComboBox, "importFormat").currentData() == "csv"  # guessed from the file
    wizard.findChild(QComboBox, "importKind").setCurrentIndex(1)  # example questions
    columns = named(wizard, QLabel, "expectedColumns").text()
    assert "“label”, “text”" in columns and "optional" in columns and "--" not in columns
    wizard.findChild(QComboBox, "importDomain").setCurrentText("faq")
    wizard.next()
    impact = named(wizard, QLabel, "importImpact")
    qtbot.waitUntil(lambda: "older than the data" in impact.text(), timeout=PREPARE_MS)
    text = impact.text()
    assert "text encoder" in text and "stop policy" in text and "2 new train queries" in text
    assert "keeps answering" in text and "fine-tuning" in text and "about" in text
    wizard.next()  # Import
    qtbot.waitUntil(wizard.result_page.isComplete, timeout=TIMEOUT_MS)
    wizard.accept()

    # the domain is loaded with its new data; its models are older than it, and they keep answering
    qtbot.waitUntil(lambda: window.registries["faq"] is not old, timeout=PREPARE_MS)
    serving = window.registries["faq"]
    assert "encoder" in serving.stale() and any(s.startswith("policy-") for s in serving.stale())
    assert window.updater.updating is not None
    ask(qtbot, window, "cross out text")
    assert window.controller.snapshot is not None and window.controller.snapshot.phase in (
        "clarifying",
        "comparing",
        "decided",
    )
    # then fresh models take over for the next question
    qtbot.waitUntil(lambda: not window.updater.busy and window.registries["faq"].stale() == [], timeout=PREPARE_MS)
    sidecar = read_sidecar(encoder_checkpoint_path("faq"))
    assert sidecar["config"]["fine_tuned_from"].startswith("fine-tune of the encoder")
    assert sidecar["config"]["trained_on"]["train_queries"] == old.domain.queries("train")[1].size + 2
    assert "up to date" in window.statusBar().currentMessage()
