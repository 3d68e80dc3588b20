"""One probability, every screen (issue 32): every percentage on the Ask and Compare pages and in the terminal
is one the session's one view (assistant.app.session.view.SessionView) gives, read off the screen."""

from __future__ import annotations

import re

from PySide6.QtCore import QModelIndex, Qt

from assistant.app.session.numbers import percent
from assistant.app.session.session import Session, SessionConfig
from assistant.app.session.view import session_view
from assistant.cli.ask import _render
from gui.snapshot import take_snapshot
from tests.support.tiny import TinyAgents

PERCENT = re.compile(r"[<>]?\d+(?:\.\d+)?\s?%")
SURE = re.compile(r"([<>]?\d+(?:\.\d+)?\s?%) sure")
CONFIG = SessionConfig(shortlist_size=3, ranking_budget=3, ranking_threshold=0.999)


def shown(text: str) -> list[str]:
    return [p.replace(" ", "") for p in PERCENT.findall(text)]


def table_texts(model) -> str:
    cells = []
    for row in range(model.rowCount(QModelIndex())):
        for column in range(model.columnCount(QModelIndex())):
            cells.append(str(model.data(model.index(row, column), Qt.ItemDataRole.DisplayRole) or ""))
    return " | ".join(cells)


def screen_text(window) -> str:
    """Every text of the Ask and Compare pages a person can read numbers in."""
    ask, compare = window.ask_page, window.compare_page
    parts = [
        table_texts(ask.posterior_model),
        ask.why.toPlainText(),
        compare.query_label.text(),
        compare.confidence.text(),
        table_texts(compare.shortlist_model),
        compare.final.status.text(),
    ]
    return "\n".join(parts)


def terminal_text(session, view) -> str:
    return "\n".join([_render(view.shortlist_dict()), _render(view.to_dict())])


def check_one_source(window, session) -> None:
    view = session_view(session)
    snapshot = take_snapshot(session, "tiny")
    assert snapshot.view == view  # built once, from the same belief
    window.ask_page.render(snapshot)
    window.compare_page.render(snapshot)
    allowed = {*view.percentages(), percent(view.threshold), percent(view.compared_mass)}
    if view.best_of_compared is not None:
        allowed.add(percent(view.best_of_compared))
    on_screen, in_terminal = shown(screen_text(window)), shown(terminal_text(session, view))
    assert on_screen and in_terminal
    assert set(on_screen) <= allowed, (on_screen, allowed)
    assert set(in_terminal) <= allowed, (in_terminal, allowed)
    # the posterior table and the terminal's shortlist read the same entries, the bar the proposal's chance
    assert table_texts(window.ask_page.posterior_model).count("%") >= len(view.entries)
    if view.proposal is not None:
        assert window.compare_page.confidence.text().startswith(view.proposal.sure)
        assert view.proposal.sure in screen_text(window)
    # "sure" is only ever said of the one belief: the proposal's chance or the compared entries' mass; the
    # chance best among the compared is never called "sure"
    sure_of = {percent(view.compared_mass)}
    if view.proposal is not None:
        sure_of.add(percent(view.proposal.chance))
    for text in (screen_text(window), terminal_text(session, view)):
        assert {p.replace(" ", "") for p in SURE.findall(text)} <= sure_of, text
        assert "sure it is the best" not in text and "sure of its current best" not in text


def test_every_percentage_on_the_pages_and_in_the_terminal_comes_from_the_one_view(qtbot, tiny_window):
    session = Session.start(TinyAgents(), "bird", CONFIG)
    session.answer(kind="not_sure")
    session.answer(kind="not_sure")
    assert session.phase == "comparing"
    check_one_source(tiny_window, session)  # comparing, nothing compared yet
    session.prefer("left")
    check_one_source(tiny_window, session)  # comparing, one comparison made
    session.done()
    assert session.phase == "decided"
    check_one_source(tiny_window, session)  # the proposal
    view = session_view(session)
    # the shortlist count is the table's rows
    assert view.stop_explanation is not None
    rows = window_rows = tiny_window.compare_page.shortlist_model.rowCount(QModelIndex())
    assert rows == len(view.answers) == window_rows
    assert f"among the {rows} compared" in view.stop_explanation


def test_percent_never_says_100_or_0_of_what_is_not_certain():
    assert percent(0.996) == ">99%" and percent(0.9949) == "99%" and percent(0.9996) == "100%"
    assert percent(0.004) == "<1%" and percent(1e-12) == "<1%" and percent(0.0) == "0%"
    assert percent(0.086) == "9%" and percent(0.5) == "50%"
