"""The Summarize page: a bundled cluster compared in a worker, answers, undo, RL, the RLQA mode, sessions saved in
the domain's log and resumed, and the FAQ's "Summarize these answers"."""

from __future__ import annotations

from assistant.app.session.session import open_knowledge_base
from assistant.store import KnowledgeBase, SessionLog
from gui.pages.summarize import SummarizePage
from gui.workers import WorkerPool, is_running
from tests.support import HashingEncoder


def _page(qtbot, domain: str | None = None):
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
    if domain is not None:
        KnowledgeBase.create(domain).close()
        page.set_domain(domain)
    page.source.setCurrentIndex(page.source.findData("multiling/M000"))
    return page, errors


def _wait(qtbot, page, ready) -> None:
    qtbot.waitUntil(lambda: ready() and not is_running(page.worker), timeout=60_000)


def test_compare_mode_answers_undo_write_better_and_saves_each_step(qtbot):
    page, errors = _page(qtbot, "scratch")
    page.question.setText("tsunami aid donations")
    page.start()
    _wait(qtbot, page, lambda: page.session is not None)
    assert not errors and page.stack.currentIndex() == 1
    assert page.left.text.toPlainText() and page.right.text.toPlainText()
    page.prefer_left.click()
    page.prefer_right.click()
    assert page.session.comparisons == 2 and page.undo_button.isEnabled()
    page.undo_button.click()
    assert page.session.comparisons == 1
    assert "sure it is the best" in page.best.title.text()
    page.better_button.click()
    _wait(qtbot, page, lambda: page.rl_text.isVisibleTo(page))  # rendered in the GUI thread once the job is done
    assert "Written for you" in page.rl_text.toPlainText() and page.accept_rl_button.isVisibleTo(page)
    page.accept_rl_button.click()
    assert page.session.accepted and not page.accept_button.isEnabled()
    with open_knowledge_base("scratch") as kb:
        log = SessionLog(kb)
        [saved] = log.list(kind="summary")
        assert saved.status == "finished"
        assert [k for k, _ in log.entries(saved.id)] == ["compare", "compare", "undo", "better", "accept"]
    assert page.saved.count() == 1 and "#1 · comparing summaries · answered" in page.saved.itemText(0)


def test_a_saved_session_resumes_where_it_stopped(qtbot):
    page, _ = _page(qtbot, "scratch")
    page.start()
    _wait(qtbot, page, lambda: page.session is not None)
    page.prefer_right.click()
    page.tie.click()
    best, pending = page.session.best_index(), page.session.next_pair()
    other, _ = _page(qtbot, "scratch")
    other.saved.setCurrentIndex(0)
    other.resume_button.click()
    _wait(qtbot, other, lambda: other.session is not None)
    assert other.session.comparisons == 2 and other.session.best_index() == best
    assert other.session.next_pair() == pending and other.log.id == page.log.id
    other.prefer_left.click()
    with open_knowledge_base("scratch") as kb:
        assert [k for k, _ in SessionLog(kb).entries(page.log.id)] == ["compare", "compare", "compare"]


def test_sentence_mode_offers_five_and_builds_the_summary(qtbot):
    page, errors = _page(qtbot)
    page.mode_sentences.setChecked(True)
    page.start()
    _wait(qtbot, page, lambda: page.session is not None)
    assert not errors and page.options.count() == 5 and "not saved" in page.saved_status.text().lower()
    page.options.setCurrentRow(2)
    chosen = page.session.options()[2]
    page.choose_button.click()
    assert page.session.draft.chosen == [chosen]
    page.auto_button.click()
    assert len(page.session.draft.chosen) == 2 and "words" in page.draft.toPlainText()


def test_the_answers_of_a_faq_open_query_focused(qtbot):
    page, errors = _page(qtbot)
    answers = [
        "Use the strikethrough button in the formatting bar. It crosses out the selected text.",
        "Select the text and press Alt+Shift+5 to strike it through. The shortcut works in most editors.",
        "Open the format menu and choose strikethrough. The text gets a line through it.",
    ]
    page.open_answers("How do I cross out text?", "strike text in an email", answers)
    _wait(qtbot, page, lambda: page.session is not None)
    assert not errors and page.source.currentData() == "answers"
    topic = page.session.prepared.topic
    assert [d.name for d in topic.documents] == ["answer 1", "answer 2", "answer 3"]
    assert topic.question == "How do I cross out text? strike text in an email" == page.question.text()


def test_the_answer_card_offers_to_summarize_a_faq_with_several_answers(qtbot):
    from dataclasses import replace

    from assistant.app.session.session import Session, SessionConfig
    from gui.controller import SessionController
    from gui.pages.compare import ComparePage
    from gui.snapshot import take_snapshot
    from tests.support.tiny import TinyAgents

    agents = TinyAgents(name="tinyfaq")
    answers = ("Feed it seeds. Robins like worms too.", "Put out a bird bath. Keep it clean.")
    agents.domain = replace(agents.domain, labels=[replace(lab, answers=answers) for lab in agents.domain.labels])
    session = Session.start(agents, "red breast", SessionConfig(shortlist_size=3, ranking_budget=1))
    controller = SessionController()
    page = ComparePage(controller)
    qtbot.addWidget(page)
    page.render(take_snapshot(session, "tinyfaq"))
    assert not page.final.summarize_button.isVisibleTo(page)  # still asking
    while session.phase != "decided":
        session.answer(0) if session.phase == "clarifying" else session.prefer("left")
    snapshot = take_snapshot(session, "tinyfaq")
    page.render(snapshot)
    assert page.final.summarize_button.isVisibleTo(page)
    with qtbot.waitSignal(page.summarizeAnswersRequested, timeout=2000) as signal:
        page.final.summarize_button.click()
    request = signal.args[0]  # the view's AnswersToSummarize
    assert (request.question, request.query, request.answers) == (snapshot.proposed.label_name, "red breast", answers)
    controller.shutdown()
