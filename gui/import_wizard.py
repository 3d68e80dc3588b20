"""The import wizard for crowd data: pick a file and its format, preview it (rows and every problem with
its line number, nothing written), then import it all-or-nothing and show the report (counts, merged tags,
agreement).

Both the preview (``crowdsourcing.importing.preview_import``) and the import (``import_file``) run in
worker threads; each opens its own connection to the domain's knowledge base.
"""

from __future__ import annotations

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

from assistant.app.desk.crowd import COLUMNS, ImportReport, import_impact_job, import_job, preview_job, preview_report
from gui.dialogs import error_text
from gui.qt_models import PreviewRowsModel, ProblemsModel
from gui.widgets import make_table, stretch_column
from gui.workers import JobWorker, ProgressPanel, WorkerPool

FORMAT_LABELS = {
    "mturk": "MTurk batch results (CSV)",
    "labelstudio": "Label Studio export (JSON)",
    "csv": "Plain CSV / TSV / JSON Lines",
}
KIND_LABELS = {
    "": "guess from the column names",
    "queries": "example questions (queries)",
    "tags": "crowd answers about tags",
    "labels": "labels (the answers Clarify chooses among)",
}
COLUMN_HELP = {
    "queries": "one example question per row and the label it is about",
    "tags": "one crowd answer per row: the label, the tag asked about and the answer (yes/no, or an option)",
    "labels": "one label per row (repeat a row to give a label several answer texts)",
}
FORMAT_HELP = {
    "mturk": "An MTurk batch results file of Clarify's tasks: each row's Input.* columns say what was asked, "
    "its Answer.* columns what the worker answered.",
    "labelstudio": "A Label Studio JSON export of a Clarify labelling project (one task per label and tag).",
}
# The engine's messages are written for the terminal too; the wizard says the same in its own words.
_FOR_PEOPLE = (
    (
        r"pass --kind \w+(?:,? (?:or )?(?:--kind )?\w+)*",
        "choose what the file holds under “Contents” on the first page",
    ),
    (r"(?:with|:)? ?`clarify import csv [^`]*--kind labels`", " with the import wizard (Contents: labels)"),
    (r"--kind labels", "Contents: labels"),
    (r" ?\(see `clarify domain stats [^`]*`\)", ""),
    (r"`clarify domain list`", "the domain list in the toolbar"),
    (r"see `clarify export tasks --help` for the task layout Clarify reads back", "use a batch of Clarify's own tasks"),
)


def for_people(message: str) -> str:
    """An engine message with the terminal's commands and flags put in the wizard's words."""
    import re

    for pattern, words in _FOR_PEOPLE:
        message = re.sub(pattern, words, message)
    return message


def expected_columns(fmt: str, kind: str) -> str:
    """What the wizard expects of a file of format ``fmt`` holding ``kind`` ('' = tell from the columns)."""
    if fmt in FORMAT_HELP:
        return FORMAT_HELP[fmt]
    if not kind:
        return (
            "A CSV, TSV or JSON Lines file whose column names say what it holds: a “tag” column means crowd "
            "answers about tags, a “name” or “answer” column means labels, otherwise example questions "
            "(columns “label” and “text”)."
        )
    required, optional = COLUMNS[kind]
    names = ", ".join(f"“{c}”" for c in required)
    extra = ", ".join(f"“{c}”" for c in optional)
    return f"Columns {names} ({COLUMN_HELP[kind]}); optional: {extra}."


def guess_format(path: str) -> str:
    """The likely format of ``path`` from its suffix and, for CSV, its header (only the file's start is read:
    this runs on the GUI thread as the user types)."""
    suffix = Path(path).suffix.casefold()
    if suffix == ".json":
        return "labelstudio"
    if suffix == ".csv":
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                head = handle.read(2000)
        except OSError:
            return "csv"
        return "mturk" if "Input." in head and ("Answer." in head or "WorkerId" in head) else "csv"
    return "csv"


def report_html(report: ImportReport) -> str:
    """An import report as HTML: its headline, then the same summary rows the terminal prints."""
    head = (
        f"<h3>{escape(report.status.capitalize())}: {escape(report.file)}</h3>"
        f"<p>{escape(report.format)}, {escape(str(report.kind or 'unknown kind'))} into domain "
        f"<b>{escape(report.domain)}</b>; {report.rows} rows, {report.records} records.</p>"
    )
    rows = "".join(
        f"<tr><td><b>{escape(heading)}</b></td><td>{escape(text)}</td></tr>" for heading, text in report.summary(20)
    )
    return f"{head}<table cellpadding='3'>{rows}</table>"


def _in_words(problem: Any) -> Any:
    """A problem with its message in the wizard's words (problems are frozen dataclasses)."""
    import dataclasses

    try:
        return dataclasses.replace(problem, message=for_people(problem.message))
    except (TypeError, ValueError):
        return problem


class SourcePage(QWizardPage):
    """Step 1: the file, its format and kind, and the domain."""

    def __init__(self, domains: list[str], current: str | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle("Choose the file to import")
        self.setSubTitle("Crowd answers (tags), example queries or labels, from MTurk, Label Studio or a plain file.")
        self.file = QLineEdit(self)
        self.file.setObjectName("importFile")
        self.file.setAccessibleName("File to import")
        self.file.textChanged.connect(self._file_changed)
        browse = QPushButton("&Browse…", self)
        browse.setObjectName("importBrowse")
        browse.setAccessibleName("Browse for the file")
        browse.clicked.connect(self.browse)
        row = QHBoxLayout()
        row.addWidget(self.file, 1)
        row.addWidget(browse)
        self.format = QComboBox(self)
        self.format.setObjectName("importFormat")
        self.format.setAccessibleName("File format")
        for key, text in FORMAT_LABELS.items():
            self.format.addItem(text, key)
        self.kind = QComboBox(self)
        self.kind.setObjectName("importKind")
        self.kind.setAccessibleName("What the file holds")
        for key, text in KIND_LABELS.items():
            self.kind.addItem(text, key)
        self.domain = QComboBox(self)
        self.domain.setObjectName("importDomain")
        self.domain.setAccessibleName("Domain to import into")
        self.domain.setEditable(True)
        self.domain.addItems(domains)
        if current:
            self.domain.setCurrentText(current)
        self.domain.editTextChanged.connect(lambda _: self.completeChanged.emit())
        self.columns = QLabel(self)
        self.columns.setObjectName("expectedColumns")
        self.columns.setWordWrap(True)
        self.format.currentIndexChanged.connect(self._show_columns)
        self.kind.currentIndexChanged.connect(self._show_columns)
        self._show_columns()
        hint = QLabel(
            "A new domain name creates the domain (from a file of labels only). Nothing is written before you "
            "confirm the preview.",
            self,
        )
        hint.setWordWrap(True)
        hint.setStyleSheet("color: #666")
        form = QFormLayout(self)
        file_label = QLabel("&File:", self)
        file_label.setBuddy(self.file)
        form.addRow(file_label, row)
        form.addRow("F&ormat:", self.format)
        form.addRow("&Contents:", self.kind)
        form.addRow("&Domain:", self.domain)
        form.addRow("Expected:", self.columns)
        form.addRow(hint)

    def _show_columns(self) -> None:
        self.columns.setText(expected_columns(str(self.format.currentData()), str(self.kind.currentData() or "")))

    def browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Crowd data file", "", "Crowd data (*.csv *.tsv *.json *.jsonl);;All files (*)"
        )
        if path:
            self.file.setText(path)

    def _file_changed(self, text: str) -> None:
        if Path(text).is_file():
            self.format.setCurrentIndex(self.format.findData(guess_format(text)))
        self.completeChanged.emit()

    def isComplete(self) -> bool:
        from assistant.errors import ConfigError
        from assistant.paths import check_domain_name

        try:
            check_domain_name(self.domain.currentText().strip())
        except ConfigError:
            return False
        return Path(self.file.text().strip()).is_file()

    def choice(self) -> tuple[str, str, str, str | None]:
        """(path, domain, format, kind or None)."""
        return (
            self.file.text().strip(),
            self.domain.currentText().strip(),
            str(self.format.currentData()),
            str(self.kind.currentData()) or None,
        )


class PreviewPage(QWizardPage):
    """Step 2: every row and every problem (with its line), before anything is written."""

    def __init__(self, wizard: ImportWizard) -> None:
        super().__init__(wizard)
        self.wizard_ = wizard
        self.setTitle("Preview")
        self.setSubTitle("Nothing has been written yet. Fix any problem in the file and preview again.")
        self.setCommitPage(True)
        self.setButtonText(QWizard.WizardButton.CommitButton, "&Import")
        self.summary = QLabel(self)
        self.summary.setObjectName("previewSummary")
        self.summary.setWordWrap(True)
        self.impact = QLabel(self)
        self.impact.setObjectName("importImpact")
        self.impact.setWordWrap(True)
        self.progress = ProgressPanel(self, "preview")
        self.problems_model = ProblemsModel(self)
        self.problems = make_table("previewProblems", "Problems found in the file", self)
        self.problems.setModel(self.problems_model)
        stretch_column(self.problems, 2)
        self.problems.setWordWrap(True)  # the messages say how to fix each row: show them whole
        self.problems.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.rows_model = PreviewRowsModel(self)
        self.rows = make_table("previewRows", "Rows of the file", self)
        self.rows.setModel(self.rows_model)
        stretch_column(self.rows, 3)
        self.report = QTextBrowser(self)
        self.report.setObjectName("previewReport")
        self.report.setAccessibleName("What the import would do")
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.problems)
        split.addWidget(self.rows)
        split.addWidget(self.report)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.impact)
        layout.addWidget(self.progress)
        layout.addWidget(split, 1)
        self.plan: Any = None
        self.worker: JobWorker | None = None
        self.impact_worker: JobWorker | None = None

    def initializePage(self) -> None:
        self.plan = None
        self.progress.setVisible(True)
        self.impact.setText("")
        self.problems_model.set_records([])
        self.rows_model.set_records([])
        self.report.clear()
        path, domain, fmt, kind = self.wizard_.source.choice()
        self.summary.setText(f"Checking {Path(path).name} against domain {domain}…")
        worker = JobWorker(lambda: preview_job(path, domain, fmt, kind), "Preview")
        self.worker = worker
        self.progress.follow(worker)
        worker.succeeded.connect(self.show_plan)
        worker.failed.connect(self.show_error)
        self.wizard_.pool.start(worker)
        self.completeChanged.emit()

    def show_plan(self, plan: Any) -> None:
        self.plan = plan
        self.problems_model.set_records([_in_words(p) for p in plan.problems])
        self.rows_model.set_records(plan.rows)
        self.problems.setVisible(bool(plan.problems))
        if plan.problems:
            lines = sorted({p.line for p in plan.problems if p.line is not None})
            where = f" on line(s) {', '.join(map(str, lines[:12]))}{'…' if len(lines) > 12 else ''}" if lines else ""
            self.summary.setText(
                f"<b style='color:#b3261e'>{len(plan.problems)} problem(s){where}.</b> Nothing was written; "
                "fix the file and run the wizard again."
            )
        elif plan.already_imported is not None:
            self.summary.setText("This exact file was imported before: importing it again changes nothing.")
        else:
            self.summary.setText(f"{len(plan.rows)} rows checked, no problems. Nothing has been written yet.")
        self.progress.setVisible(False)
        try:
            heading = (
                "<p style='color:#b3261e'><b>Blocked by the problems above.</b> Once they are fixed, the import "
                "would do this:</p>"
                if plan.problems
                else ""
            )
            report = preview_report(plan)
            self.report.setHtml(heading + report_html(report))
            if plan.ok and plan.already_imported is None:
                self._check_impact(report.domain, dict(report.added))
        except Exception as exc:  # the preview report is a convenience; the rows and problems are what matter
            self.report.setPlainText(f"(no preview report: {exc})")
        self.completeChanged.emit()

    def _check_impact(self, domain: str, added: dict[str, int]) -> None:
        """Say what the import will make older than the data and how long catching up takes."""
        self.impact.setText("<i>Checking what the import changes for the models…</i>")
        worker = JobWorker(lambda: import_impact_job(domain, added), "What the import changes")
        self.impact_worker = worker
        worker.succeeded.connect(lambda text: self.impact.setText(f"<b>What changes:</b> {escape(text)}"))
        worker.failed.connect(lambda exc, _: self.impact.setText(""))
        self.wizard_.pool.start(worker)

    def show_error(self, exc: BaseException, details: str) -> None:
        message, more = error_text(exc)
        message = for_people(message)
        self.summary.setText(f"<b style='color:#b3261e'>Cannot preview this file.</b> {escape(message)}")
        self.report.setPlainText(more or "")
        self.completeChanged.emit()

    def isComplete(self) -> bool:
        return self.plan is not None and self.plan.ok


class ResultPage(QWizardPage):
    """Step 3: the import (one transaction) and its report."""

    def __init__(self, wizard: ImportWizard) -> None:
        super().__init__(wizard)
        self.wizard_ = wizard
        self.setTitle("Import")
        self.progress = ProgressPanel(self, "import")
        self.report = QTextBrowser(self)
        self.report.setObjectName("importReport")
        self.report.setAccessibleName("Import report")
        layout = QVBoxLayout(self)
        layout.addWidget(self.progress)
        layout.addWidget(self.report, 1)
        self.result: ImportReport | None = None
        self.failed = False

    def initializePage(self) -> None:
        self.result = None
        self.failed = False
        path, domain, fmt, kind = self.wizard_.source.choice()
        worker = JobWorker(lambda: import_job(path, domain, fmt, kind), f"Importing {Path(path).name}")
        self.progress.follow(worker)
        worker.succeeded.connect(self.show_report)
        worker.failed.connect(self.show_error)
        worker.cancelled.connect(lambda: self._ended("Cancelled: nothing was imported."))
        self.wizard_.pool.start(worker)

    def show_report(self, report: ImportReport) -> None:
        self.result = report
        self.report.setHtml(report_html(report))
        self.completeChanged.emit()
        self.wizard_.imported.emit(report.domain, report)

    def show_error(self, exc: BaseException, details: str) -> None:
        message, more = error_text(exc)
        self._ended(f"Nothing was imported. {for_people(message)}" + (f"\n\n{for_people(more)}" if more else ""))

    def _ended(self, text: str) -> None:
        self.failed = True
        self.report.setPlainText(text)
        self.completeChanged.emit()

    def isComplete(self) -> bool:
        return self.result is not None or self.failed


class ImportWizard(QWizard):
    """See the module docstring. ``imported(domain, report)`` after a successful import."""

    imported = Signal(str, object)  # (domain, ImportReport)

    def __init__(
        self, pool: WorkerPool, domains: list[str], current: str | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("importWizard")
        self.setWindowTitle("Import examples and answers")
        self.setWizardStyle(QWizard.WizardStyle.ClassicStyle)
        self.setOption(QWizard.WizardOption.NoBackButtonOnLastPage, True)
        self.resize(900, 640)
        self.pool = pool
        self.source = SourcePage(domains, current, self)
        self.preview_page = PreviewPage(self)
        self.result_page = ResultPage(self)
        self.addPage(self.source)
        self.addPage(self.preview_page)
        self.addPage(self.result_page)
