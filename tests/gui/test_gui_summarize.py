"""The Summarize page: a bundled cluster compared in a worker, answers, undo, RL, and the RLQA mode."""

from __future__ import annotations

from gui.pages.summarize import SummarizePage
from gui.workers import WorkerPool, is_running
from tests.support import HashingEncoder


def _page(qtbot):
    errors = []
    pool = WorkerPool()
    page = SummarizePage(
        pool,
        lambda title, exc, details: errors.append((title, exc)),
        encoder=HashingEncoder(384),
        candidates=40,
        episodes=40,
    )
    qtbot.addWidget(page)
    page.resize(1200, 800)
    page.source.setCurrentIndex(page.source.findData("multiling/M000"))
    return page, errors


def test_compare_mode_answers_undo_and_write_better(qtbot):
    page, errors = _page(qtbot)
    page.question.setText("tsunami aid donations")
    page.start()
    qtbot.waitUntil(lambda: page.session is not None and not is_running(page.worker), timeout=60_000)
    assert not errors and page.stack.currentIndex() == 1
    assert page.left.text.toPlainText() and page.right.text.toPlainText()
    page.prefer_left.click()
    page.prefer_right.click()
    assert page.session.comparisons == 2 and page.undo_button.isEnabled()
    page.undo_button.click()
    assert page.session.comparisons == 1
    assert "confident" in page.best.title.text()
    page.better_button.click()
    qtbot.waitUntil(lambda: page.session.rl_summary is not None and not is_running(page.worker), timeout=60_000)
    assert page.rl_text.isVisibleTo(page) and "Written for you" in page.rl_text.toPlainText()


def test_sentence_mode_offers_five_and_builds_the_summary(qtbot):
    page, errors = _page(qtbot)
    page.mode_sentences.setChecked(True)
    page.start()
    qtbot.waitUntil(lambda: page.rlqa is not None and not is_running(page.worker), timeout=60_000)
    assert not errors and page.options.count() == 5
    page.options.setCurrentRow(2)
    chosen = page.rlqa.options()[2]
    page.choose_button.click()
    assert page.rlqa.draft.chosen == [chosen]
    page.auto_button.click()
    assert len(page.rlqa.draft.chosen) == 2 and "words" in page.draft.toPlainText()
