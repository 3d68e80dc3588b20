"""Helpers for the GUI tests: tiny agents, waiting for the session thread, making windows, MiniLM's hashed
stand-in for the trained home, clicking."""

from __future__ import annotations

from collections.abc import Generator

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QPushButton, QTableView, QWidget

from assistant.progress import Progress
from gui.workers import is_running
from tests.support import HashingEncoder
from tests.support.tiny import TinyAgents

TIMEOUT_MS = 20_000


def tiny_loader(name: str) -> Generator[Progress, None, TinyAgents]:
    yield Progress(0, 1, f"preparing {name}")
    agents = TinyAgents(turns=3, name=name)
    yield Progress(1, 1, "ready")
    return agents


def wait_idle(qtbot, window, timeout: int = TIMEOUT_MS) -> None:
    """Wait until no session action and no domain preparation is in flight."""
    qtbot.waitUntil(
        lambda: window.controller.idle and not is_running(window.opening),
        timeout=timeout,
    )


def close_window(window) -> None:
    window._force_close = True
    window.close()


def make_window(qtbot, settings, loader=tiny_loader, domain: str = "tiny"):
    from gui.main_window import MainWindow

    window = MainWindow(settings=settings, domain_loader=loader, initial_domain=domain)
    qtbot.addWidget(window, before_close_func=close_window)
    window.show()
    qtbot.waitUntil(lambda: window.domain == domain and window.controller.attached, timeout=TIMEOUT_MS)
    wait_idle(qtbot, window)
    return window


# ---- one vector space in the trained home (conftest.trained_home) ----
class HashedSentenceEncoder(HashingEncoder):
    """MiniLM's stand-in in the trained home: hashed words at MiniLM's width (gui_training fills the answers'
    cache with the same vectors), built with SentenceEncoder's arguments."""

    def __init__(self, *args, **kwargs) -> None:
        from models.pretrained import EMBEDDING_DIM

        super().__init__(EMBEDDING_DIM)


def use_hashed_sentences(patch) -> None:
    """Every sentence encoder built from here on (the registry's, the priors', the phrases') is hashed."""
    import assistant.text.embeddings
    import models.pretrained

    patch.setattr(models.pretrained, "SentenceEncoder", HashedSentenceEncoder)
    patch.setattr(assistant.text.embeddings, "SentenceEncoder", HashedSentenceEncoder)
    assistant.text.embeddings._phrase_encoder.cache_clear()


# ---- driving the window through its named widgets ----
def named(window, cls, name):
    widget = window.findChild(cls, name)
    assert widget is not None, f"no {cls.__name__} named {name!r}"
    return widget


def click(qtbot, window, cls, name):
    widget = named(window, cls, name)
    assert widget.isEnabled(), f"{name} is disabled"
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)


def option_buttons(window) -> list[QPushButton]:
    box = named(window, QWidget, "answerButtons")
    return [b for b in box.findChildren(QPushButton) if b.isVisible()]


def click_option(qtbot, window, text):
    [button] = [b for b in option_buttons(window) if b.text() == text]
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)


def posterior(window) -> list[tuple[str, str]]:
    view = named(window, QTableView, "posteriorView")
    model = view.model()
    return [(model.index(r, 1).data(), model.index(r, 2).data()) for r in range(model.rowCount())]


def ask(qtbot, window, query):
    field = named(window, QLineEdit, "queryInput")
    field.clear()
    qtbot.keyClicks(field, query)
    click(qtbot, window, QPushButton, "askButton")


def activate(qtbot, window) -> None:
    """Make ``window`` the active window (keyboard shortcuts need it)."""
    window.raise_()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=TIMEOUT_MS)


# ---- a domain whose first question has eleven options (the keys 1-9, 0, and one without a key) ----------
ELEVEN_OPTIONS = (
    "search",
    "create",
    "send",
    "add",
    "download",
    "delete",
    "disable",
    "link",
    "remove",
    "share with a colleague in another team",
    "something else",
)


def make_many_options_domain():
    """11 labels ("faq-001" ...), one question with 11 options, each option pointing at its own label, so the
    question is the most informative one and every option is a different answer."""
    import numpy as np

    from assistant.store import BINARY_OPTIONS, Domain, Label, Question

    n = len(ELEVEN_OPTIONS)
    labels = [Label(f"faq-{i + 1:03d}", f"How do I {o} things?") for i, o in enumerate(ELEVEN_OPTIONS)]
    questions = [
        Question("action", "What do you want to do?", "choice", "action", ELEVEN_OPTIONS),
        Question("tag::mail", "Is it about mail?", "binary", "tag::mail", BINARY_OPTIONS),
    ]
    counts = np.ones((2, n, n), dtype=np.float32)
    counts[0] += 20 * np.eye(n, dtype=np.float32)
    counts[1, 2:] = 0
    counts[1, 0, : n // 2] = 8
    texts = [f"{o} things" for o in ELEVEN_OPTIONS]
    return Domain(
        name="many",
        title="Many options",
        labels=labels,
        questions=questions,
        counts=counts,
        query_texts=texts,
        query_labels=np.arange(n),
        query_splits=np.array(["train"] * n),
    )


class ManyOptionsAgents(TinyAgents):
    """TinyAgents over ``make_many_options_domain``."""

    def __init__(self, turns: int = 2, name: str = "many") -> None:
        from assistant.store import KnowledgeBase
        from tests.support import WordHashEncoder

        self.name = name
        self.domain = make_many_options_domain()
        self.text_encoder = WordHashEncoder()
        self.turns = turns
        with KnowledgeBase.create(self.name) as kb:
            kb.upsert_labels(self.domain.labels, "test")


def many_options_loader(name: str) -> Generator[Progress, None, ManyOptionsAgents]:
    yield Progress(0, 1, f"preparing {name}")
    agents = ManyOptionsAgents(turns=2, name=name)
    yield Progress(1, 1, "ready")
    return agents
