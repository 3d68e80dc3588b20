"""*File > New domain from my FAQ…*: a desk's own FAQ becomes a domain, with no crowd data.

Three pages: the FAQ (a file or a folder of articles, its format, the new domain's name); a preview of the
entries it holds and every problem with its file and line, nothing written (``assistant.app.desk.own_faq``
reads it in a worker); then the domain is created and prepared from its texts alone, with a progress bar,
an ETA and Cancel (``assistant.app.desk.domains.create_from_faq_job`` in a worker).
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
)

from assistant.app.desk.domains import create_from_faq_job
from assistant.app.desk.own_faq import FORMATS, MAX_TITLE_CHARS, preview_faq
from assistant.progress import Progress
from gui.dialogs import error_text
from gui.qt_models import Column, ProblemsModel, RecordTableModel
from gui.widgets import make_table, stretch_column
from gui.words import counted, desk_progress, faq_read_words, readiness_words
from gui.workers import JobWorker, ProgressPanel, WorkerPool

FORMAT_LABELS = {
    "auto": "tell from the file (a folder: articles)",
    "csv": "spreadsheet saved as CSV",
    "tsv": "tab-separated (TSV)",
    "jsonl": "one entry per line (.jsonl)",
    "markdown": "Markdown FAQ",
    "articles": "folder of help articles",
}
assert set(FORMAT_LABELS) - {"auto"} == set(FORMATS)


def suggested_name(path: str) -> str:
    """A domain name from a file or folder name ("IT desk FAQ.csv" -> "it_desk_faq")."""
    stem = re.sub(r"[^a-z0-9]+", "_", Path(path).stem.casefold()).strip("_")
    if not stem or not stem[0].isalpha():
        stem = f"faq_{stem}".strip("_")
    return stem[:64]


class EntriesModel(RecordTableModel):
    """``FaqEntry`` records: where, key, title, category, how many answers."""

    columns = (
        Column("Line", lambda e: e.line, lambda v: "" if v is None else str(v), Qt.AlignmentFlag.AlignRight),
        Column("Key", lambda e: e.key),
        Column("Title", lambda e: e.title, tooltip=lambda e: e.description or e.title),
        Column("Category", lambda e: e.category),
        Column("Answers", lambda e: len(e.answers), str, Qt.AlignmentFlag.AlignRight),
    )


class FaqSourcePage(QWizardPage):
    """Step 1: the FAQ, its format and the new domain's name."""

    def __init__(self, taken: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.taken = set(taken)
        self.setTitle("Your FAQ")
        self.setSubTitle(
            "A spreadsheet (CSV or TSV) or a .jsonl file with a title and an answer column, a Markdown FAQ, or a "
            "folder of help articles. Your FAQ is all Clarify needs."
        )
        self.path = QLineEdit(self)
        self.path.setObjectName("faqPath")
        self.path.setAccessibleName("FAQ file or folder")
        self.path.textChanged.connect(self._path_changed)
        browse_file = QPushButton("&File…", self)
        browse_file.setObjectName("faqBrowseFile")
        browse_file.clicked.connect(self.browse_file)
        browse_folder = QPushButton("F&older…", self)
        browse_folder.setObjectName("faqBrowseFolder")
        browse_folder.clicked.connect(self.browse_folder)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(browse_file)
        row.addWidget(browse_folder)
        self.format = QComboBox(self)
        self.format.setObjectName("faqFormat")
        self.format.setAccessibleName("FAQ format")
        for key, text in FORMAT_LABELS.items():
            self.format.addItem(text, key)
        self.name = QLineEdit(self)
        self.name.setObjectName("faqDomainName")
        self.name.setAccessibleName("Name of the new domain")
        self.name.textChanged.connect(lambda _: self.completeChanged.emit())
        self.title_edit = QLineEdit(self)
        self.title_edit.setObjectName("faqTitle")
        self.title_edit.setPlaceholderText("(the FAQ's own title, or the name)")
        self.title_edit.setMaxLength(MAX_TITLE_CHARS)
        self.name_hint = QLabel(self)
        self.name_hint.setObjectName("faqNameHint")
        self.name_hint.setStyleSheet("color: #b3261e")
        help_text = QLabel(
            "Columns are found by name, in any case: <b>title</b> (or question), <b>answer</b> (more answers in "
            "“answer 2”, “answer 3”…), and optionally <b>key</b> (or id), <b>description</b>, <b>category</b>. "
            "In Markdown each question is a heading with its answer below it; a higher heading is a category.",
            self,
        )
        help_text.setWordWrap(True)
        form = QFormLayout(self)
        faq_label = QLabel("&FAQ:", self)  # a label for a row of widgets has no buddy by itself: "&" would show
        faq_label.setBuddy(self.path)
        form.addRow(faq_label, row)
        form.addRow("F&ormat:", self.format)
        form.addRow("Domain &name:", self.name)
        form.addRow("", self.name_hint)
        form.addRow("&Title:", self.title_edit)
        form.addRow(help_text)

    def browse_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Your FAQ", "", "FAQ (*.csv *.tsv *.jsonl *.md *.markdown);;All files (*)"
        )
        if path:
            self.path.setText(path)

    def browse_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "A folder of help articles")
        if path:
            self.path.setText(path)

    def _path_changed(self, text: str) -> None:
        if text.strip() and not self.name.isModified():
            self.name.setText(suggested_name(text.strip()))
        self.completeChanged.emit()

    def isComplete(self) -> bool:
        from assistant.errors import ConfigError
        from assistant.paths import check_domain_name

        name = self.name.text().strip()
        try:
            check_domain_name(name)
        except ConfigError:
            self.name_hint.setText("lowercase letters, digits, '_' or '-', starting with a letter" if name else "")
            return False
        if name in self.taken:
            self.name_hint.setText(f"{name} exists already: choose another name")
            return False
        self.name_hint.setText("")
        return Path(self.path.text().strip()).exists()

    def choice(self) -> tuple[str, str, str, str]:
        """(path, format, domain name, title)."""
        return (
            self.path.text().strip(),
            str(self.format.currentData()),
            self.name.text().strip(),
            self.title_edit.text().strip(),
        )


class FaqPreviewPage(QWizardPage):
    """Step 2: the entries and every problem (file, line), before anything is written."""

    def __init__(self, wizard: FaqWizard) -> None:
        super().__init__(wizard)
        self.wizard_ = wizard
        self.setTitle("Preview")
        self.setSubTitle("Nothing has been written yet. Fix any problem in the FAQ and preview again (Back, Next).")
        self.setCommitPage(True)
        self.setButtonText(QWizard.WizardButton.CommitButton, "&Create and prepare")
        self.summary = QLabel(self)
        self.summary.setObjectName("faqPreviewSummary")
        self.summary.setWordWrap(True)
        self.problems_model = ProblemsModel(self)
        self.problems = make_table("faqProblems", "Problems found in the FAQ", self)
        self.problems.setModel(self.problems_model)
        stretch_column(self.problems, 2)
        self.problems.setWordWrap(True)
        self.problems.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.entries_model = EntriesModel(self)
        self.entries = make_table("faqEntries", "Entries of the FAQ", self)
        self.entries.setModel(self.entries_model)
        stretch_column(self.entries, 2)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.problems)
        split.addWidget(self.entries)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        self.parsed: Any = None
        self.worker: JobWorker | None = None

    def initializePage(self) -> None:
        self.parsed = None
        self.problems_model.set_records([])
        self.entries_model.set_records([])
        path, fmt, _name, _title = self.wizard_.source.choice()
        self.summary.setText(f"Reading {escape(Path(path).name)}…")

        def job():
            yield Progress(0, 1, f"reading {Path(path).name}")
            return preview_faq(path, fmt)

        worker = JobWorker(job, "Preview")
        self.worker = worker
        worker.succeeded.connect(self.show_parsed)
        worker.failed.connect(self.show_error)
        self.wizard_.pool.start(worker)
        self.completeChanged.emit()

    def show_parsed(self, parsed: Any) -> None:
        self.parsed = parsed
        self.problems_model.set_records(parsed.problems)
        self.entries_model.set_records(parsed.entries)
        self.problems.setVisible(bool(parsed.problems))
        if parsed.problems:
            self.summary.setText(
                f"<b style='color:#b3261e'>{counted(len(parsed.problems), 'problem')}.</b> Nothing was written; fix them in "
                f"the FAQ, then go Back and Next to read it again. ({escape(faq_read_words(parsed))})"
            )
        elif not parsed.entries:
            self.summary.setText("<b style='color:#b3261e'>The FAQ has no entries.</b>")
        else:
            self.summary.setText(
                f"{escape(faq_read_words(parsed))}. No problems. <b>Create and prepare</b> writes the domain and prepares "
                "it from these texts (a few minutes)."
            )
        self.completeChanged.emit()

    def show_error(self, exc: BaseException, details: str) -> None:
        message, _more = error_text(exc)
        self.summary.setText(f"<b style='color:#b3261e'>Cannot read the FAQ.</b> {escape(message)}")
        self.completeChanged.emit()

    def isComplete(self) -> bool:
        return self.parsed is not None and self.parsed.ok


class FaqCreatePage(QWizardPage):
    """Step 3: create the domain and prepare it from the texts, with progress, an ETA and Cancel."""

    def __init__(self, wizard: FaqWizard) -> None:
        super().__init__(wizard)
        self.wizard_ = wizard
        self.setTitle("Creating and preparing your domain")
        self.setSubTitle("Questions are induced from the texts and the models trained on queries made from them.")
        self.progress = ProgressPanel(self, "faqCreate")
        self.progress.words = lambda record, left: desk_progress(
            record.message, left
        )  # no losses, rewards or priors here
        self.progress.forward_only = True
        self.report = QTextBrowser(self)
        self.report.setObjectName("faqCreateReport")
        self.report.setAccessibleName("What was created")
        layout = QVBoxLayout(self)
        layout.addWidget(self.progress)
        layout.addWidget(self.report, 1)
        self.result: dict | None = None
        self.ended = False

    def initializePage(self) -> None:
        self.result, self.ended = None, False
        path, fmt, name, title = self.wizard_.source.choice()
        worker = JobWorker(lambda: create_from_faq_job(name, path, fmt, title), f"Creating {name}")
        self.progress.follow(worker)
        worker.succeeded.connect(lambda result: self.show_result(name, result))
        worker.failed.connect(self.show_error)
        worker.cancelled.connect(
            lambda: self._end(
                f"Cancelled. If the domain was already written, {name} is kept and is prepared the next time "
                "you open it (or run `clarify prepare` on it)."
            )
        )
        self.wizard_.pool.start(worker)

    def show_result(self, name: str, result: dict) -> None:
        self.result = result
        report = result["report"]
        stats = report.stats
        self.report.setHtml(
            f"<h3>{escape(name)} is ready</h3><p>{escape(report.read)}.</p>"
            f"<p>{counted(stats['labels'], 'entry', 'entries')}; from their texts it found "
            f"{counted(sum(stats['questions'].values()), 'question')} it can ask people, and practised on "
            f"{counted(stats['queries']['train'] + stats['queries']['dev'], 'made-up question')}.</p>"
            + readiness_words(result.get("readiness") or {})
            + "<p>Ask a question on the Ask page. Questions it cannot answer wait in the inbox.</p>"
        )
        self.completeChanged.emit()
        self.wizard_.created.emit(name)

    def show_error(self, exc: BaseException, details: str) -> None:
        message, more = error_text(exc)
        self._end(f"{message}" + (f"\n\n{more}" if more else ""))

    def _end(self, text: str) -> None:
        self.ended = True
        self.report.setPlainText(text)
        self.completeChanged.emit()

    def isComplete(self) -> bool:
        return self.result is not None or self.ended


class FaqWizard(QWizard):
    """See the module docstring. ``created(name)`` once the domain is created and prepared."""

    created = Signal(str)

    def __init__(self, pool: WorkerPool, taken: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("faqWizard")
        self.setWindowTitle("New domain from my FAQ")
        self.setWizardStyle(QWizard.WizardStyle.ClassicStyle)
        self.setOption(QWizard.WizardOption.NoBackButtonOnLastPage, True)
        self.resize(900, 640)
        self.pool = pool
        self.source = FaqSourcePage(taken, self)
        self.preview_page = FaqPreviewPage(self)
        self.create_page = FaqCreatePage(self)
        self.addPage(self.source)
        self.addPage(self.preview_page)
        self.addPage(self.create_page)
