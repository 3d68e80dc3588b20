"""Regenerate the screenshots in docs/screenshots/ on real data, offscreen.

    QT_QPA_PLATFORM=offscreen python -m gui.screenshots [--out docs/screenshots] [--home DIR]

It works in a temporary copy of the data folder (CLARIFY_HOME, or --home), so nothing of yours changes:
it opens faq and birds (preparing them first if their models are missing, which takes a while the first
time), has a scripted conversation in each, runs the Lab's evaluation, a short policy training and a small
ranking evaluation, previews a broken import file, and saves each page with ``widget.grab()``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import click
from PySide6.QtWidgets import QWidget

from assistant.app.session.session import Phase
from gui.snapshot import SessionSnapshot
from gui.workers import JobWorker, is_running

SIZE = (1280, 820)
FAQ_QUERY = "how do I cross out text in an email"
FAQ_TARGET = "strikethrough"
NOTHING_FITS_QUERY = "can't log in"  # faq has no log-in FAQ
BIRDS_QUERY = "small bird with a bright red crest and a black face"
BIRDS_TARGET = "Cardinal"
BROKEN_IMPORT = (
    "label,tag,answer,kind\n"
    "faq-004,gmail formatting,yes,binary\n"
    "no-such-faq,gmail formatting,yes,binary\n"
    "faq-004,strikethrough,maybe,binary\n"
    "faq-005,,yes,binary\n"
)


def copy_home(source: Path, target: Path, domains: list[str]) -> None:
    """Copy the domains' knowledge bases and models (never the user's other data)."""
    (target / "domains").mkdir(parents=True, exist_ok=True)
    for name in domains:
        db = source / "domains" / f"{name}.db"
        if db.exists():
            for suffix in ("", "-wal", "-shm"):
                path = db.with_name(db.name + suffix)
                if path.exists():
                    shutil.copy2(path, target / "domains" / path.name)
        models = source / "models" / name
        if models.is_dir():
            shutil.copytree(models, target / "models" / name, dirs_exist_ok=True)
    cache = source / "cache"
    if cache.is_dir():
        shutil.copytree(cache, target / "cache", dirs_exist_ok=True)


class Shooter:
    """Drives a MainWindow and saves grabs."""

    def __init__(self, out: Path) -> None:
        from PySide6.QtCore import QSettings
        from PySide6.QtWidgets import QApplication

        from gui.main_window import MainWindow

        self.app = QApplication.instance() or QApplication(["clarify-screenshots"])
        self.out = out
        out.mkdir(parents=True, exist_ok=True)
        settings = QSettings(str(Path(os.environ["CLARIFY_HOME"]) / "screenshots.ini"), QSettings.Format.IniFormat)
        self.window = MainWindow(settings=settings, open_initial=False)
        self.window.resize(*SIZE)
        self.window.show()
        self.saved: list[Path] = []

    def wait(self, condition: Callable[[], bool], timeout: float = 1800.0, what: str = "") -> None:
        start = time.monotonic()
        while not condition():
            self.app.processEvents()
            time.sleep(0.01)
            if time.monotonic() - start > timeout:
                raise TimeoutError(f"timed out waiting for {what or condition}")
        for _ in range(10):
            self.app.processEvents()

    @property
    def snapshot(self) -> SessionSnapshot:
        """What the window shows of the open conversation (the script always has one open when it asks)."""
        snapshot = self.window.controller.snapshot
        if snapshot is None:
            raise RuntimeError("no conversation is open")
        return snapshot

    def idle(self) -> None:
        w = self.window
        self.wait(lambda: w.controller.idle and not is_running(w.opening), what="idle")
        self.settle()

    def settle(self, seconds: float = 0.3) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.app.processEvents()
            time.sleep(0.01)

    def shoot(self, name: str, widget: QWidget | None = None) -> None:
        self.settle()
        path = self.out / f"{name}.png"
        (widget or self.window).grab().save(str(path))
        self.saved.append(path)
        print(f"wrote {path}", flush=True)

    def open(self, domain: str) -> None:
        print(f"opening {domain} (prepares it if needed)…", flush=True)
        self.window.open_domain(domain)
        self.wait(lambda: self.window.domain == domain and self.window.controller.attached, what=f"open {domain}")
        self.idle()
        if self.window.last_error:
            raise RuntimeError(f"could not open {domain}: {self.window.last_error[1]}")

    def ask(self, query: str) -> None:
        page = self.window.ask_page
        page.query_input.setText(query)
        page.ask_button.click()
        self.idle()

    def answer_towards(self, target: str) -> None:
        """Answer the pending question as someone looking for ``target`` would: the option after which the
        target is most likely ("why this question"), else the option the crowd gave most often for it (the
        script reads the domain for that; the app never does)."""
        import numpy as np

        snapshot = self.snapshot
        question, explanation = snapshot.question, snapshot.explanation
        if question is None or explanation is None:
            raise RuntimeError("no question is waiting for an answer")
        best, best_p = -1, 0.0
        for i, outcome in enumerate(explanation["outcomes"]):
            p = max((prob for name, prob in outcome["top"] if target.lower() in name.lower()), default=0.0)
            if p > best_p:
                best, best_p = i, p
        if best >= 0:  # the answer after which the target is most likely
            self.window.ask_page.option_buttons[best].click()
            self.idle()
            return
        domain = self.window.registries[snapshot.domain].domain
        label = next(i for i, lab in enumerate(domain.labels) if target.lower() in lab.name.lower())
        counts = domain.counts[question.index, : len(question.options), label]
        if counts.sum() <= 0:
            self.window.ask_page.not_sure_button.click()
        else:
            self.window.ask_page.option_buttons[int(np.argmax(counts))].click()
        self.idle()

    def more_questions(self) -> None:
        """When the agent stopped before any comparison, ask for more questions (as a user can)."""
        snapshot = self.snapshot
        if snapshot.phase == Phase.COMPARING and snapshot.can_ask_more:
            self.window.compare_page.more_button.click()
            self.idle()

    def short_sessions(self) -> None:
        """Two more conversations for the History page: one left open, one rejected."""
        self.ask("share a folder with a friend")
        self.more_questions()
        if self.snapshot.phase == Phase.CLARIFYING:
            self.window.ask_page.option_buttons[0].click()
            self.idle()
        self.ask("my inbox is full of newsletters")
        if self.snapshot.phase == Phase.CLARIFYING:
            self.window.ask_page.skip_button.click()
            self.idle()
        while self.snapshot.phase == Phase.COMPARING:
            self.window.compare_page.prefer_left.click()
            self.idle()
        if self.snapshot.phase == Phase.DECIDED:
            self.window.compare_page.final.reason.setText("not what I meant")
            self.window.compare_page.final.reject_button.click()
            self.idle()

    def compare_towards(self, target: str) -> None:
        pair = self.snapshot.view.pair
        if pair is None:
            raise RuntimeError("no pair is waiting for a comparison")
        left, right = pair
        hit_left = target.lower() in (left.title + " " + left.text).lower()
        hit_right = target.lower() in (right.title + " " + right.text).lower()
        page = self.window.compare_page
        (
            page.prefer_left
            if hit_left and not hit_right
            else page.prefer_right
            if hit_right and not hit_left
            else page.tie
        ).click()
        self.idle()

    def conversation(self, domain: str, query: str, target: str, prefix: str, questions_before_shot: int) -> None:
        self.open(domain)
        self.ask(query)
        for _ in range(questions_before_shot):
            self.more_questions()
            if self.snapshot.phase != Phase.CLARIFYING:
                break
            self.answer_towards(target)
        self.more_questions()
        self.window.show_page("ask")
        self.shoot(f"{prefix}-ask")
        while self.snapshot.phase == Phase.CLARIFYING:
            self.answer_towards(target)
        if self.snapshot.phase == Phase.COMPARING:
            self.shoot(f"{prefix}-compare")
        while self.snapshot.phase == Phase.COMPARING:
            self.compare_towards(target)
        if self.snapshot.phase == Phase.DECIDED:
            self.shoot(f"{prefix}-answer")
            self.window.compare_page.final.accept_button.click()
            self.idle()

    def nothing_fits(self, domain: str, query: str, prefix: str, max_questions: int = 10) -> None:
        """A question the domain has no answer for: answer "something else" (a choice) or "no" (yes/no)
        until Clarify says so, and shoot its out-of-scope ending."""
        self.open(domain)
        self.ask(query)
        for _ in range(max_questions):
            if self.snapshot.phase != Phase.CLARIFYING:
                break
            question = self.snapshot.question
            options = question.options if question is not None else ()
            self.window.ask_page.option_buttons[len(options) - 1].click()  # "something else" / "no" come last
            self.idle()
        if self.snapshot.phase != Phase.OUT_OF_SCOPE:
            raise RuntimeError(f"{query!r} on {domain} ended in {self.snapshot.phase!r}, not out of scope")
        self.window.show_page("ask")
        self.shoot(f"{prefix}-out-of-scope-ask")

    def run_panel(self, panel: QWidget, start: Callable[[], JobWorker | None]) -> None:
        worker = start()
        if worker is None:
            raise RuntimeError(f"{panel.objectName()} did not start: {self.window.last_error}")
        self.wait(lambda: worker.outcome is not None, what=panel.objectName())
        self.settle(0.5)
        if worker.outcome != "succeeded":
            raise RuntimeError(f"{panel.objectName()} {worker.outcome}: {self.window.last_error}")


@click.command(
    name="python -m gui.screenshots",
    help=__doc__.splitlines()[0],
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.option("--out", default="docs/screenshots", help="folder for the PNG files")
@click.option("--home", default=None, help="data folder to copy (default: $CLARIFY_HOME or the user's)")
@click.option("--episodes", type=int, default=500, help="episodes for the Lab evaluation")
def main(out: str, home: str | None, episodes: int) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from assistant import paths

    source = Path(home) if home else paths.home()
    folder = Path(out).resolve()
    with tempfile.TemporaryDirectory(prefix="clarify-shots-") as scratch:
        copy_home(source, Path(scratch), ["faq", "birds"])
        os.environ["CLARIFY_HOME"] = scratch
        shooter = Shooter(folder)
        try:
            shoot_everything(shooter, Path(scratch), episodes)
        finally:
            shooter.window.close()
    print(f"{len(shooter.saved)} screenshots in {folder}")


def shoot_everything(shooter: Shooter, scratch: Path, episodes: int) -> None:
    """The pages in the order the README shows them."""
    window = shooter.window
    shooter.conversation("birds", BIRDS_QUERY, BIRDS_TARGET, "birds", 2)
    shooter.conversation("faq", FAQ_QUERY, FAQ_TARGET, "faq", 2)
    shooter.nothing_fits("faq", NOTHING_FITS_QUERY, "faq")
    shooter.short_sessions()
    window.show_page("history")
    shooter.idle()
    shooter.shoot("history")

    lab = window.lab_page
    window.show_page("lab")
    lab.evaluation.episodes.setValue(episodes)
    shooter.run_panel(lab.evaluation, lab.evaluation.run)
    shooter.shoot("lab-evaluation")
    lab.tabs.setCurrentWidget(lab.training)
    lab.training.iterations.setValue(150)
    shooter.run_panel(lab.training, lab.training.run)
    shooter.shoot("lab-training")
    lab.tabs.setCurrentWidget(lab.ranking)
    lab.ranking.questions.setValue(15)
    shooter.run_panel(lab.ranking, lab.ranking.run)
    shooter.shoot("lab-ranking")

    broken = scratch / "faq_tags.csv"
    broken.write_text(BROKEN_IMPORT)
    wizard = window.open_import_wizard()
    wizard.source.file.setText(str(broken))
    wizard.source.domain.setCurrentText("faq")
    wizard.next()
    page = wizard.preview_page
    shooter.wait(lambda: page.plan is not None, what="import preview")
    shooter.shoot("import-preview", wizard)
    wizard.reject()


if __name__ == "__main__":
    main()
