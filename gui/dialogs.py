"""Dialogs: errors (what went wrong and what to do), About, Help (F1) and session settings.

Every dialog is shown with ``open()`` (window-modal, never a nested event loop), so the app keeps
running and tests can inspect and close them.
"""

from __future__ import annotations

import traceback

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QMessageBox,
    QSpinBox,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from assistant.errors import USER_ERRORS, ClarifyError, ValidationError
from gui import APP_NAME

HELP_HTML = """
<h2>Clarify</h2>
<p>Clarify answers a short question by asking you a few clarifying questions, then lets you pick the best of
the shortlisted answers by comparing them two at a time.</p>
<h3>Asking</h3>
<ol>
<li>Pick a domain in the toolbar (<i>faq</i>: software FAQs, <i>birds</i>: bird species, <i>banking</i>:
banking requests). The first time, Clarify prepares the domain (trains its models); this runs in the
background and can be cancelled.</li>
<li>Type what you are looking for and press <b>Ask</b> (Enter).</li>
<li>Answer each question with its buttons (keys <b>1</b>&ndash;<b>9</b>). Tick <i>Probably</i> first for a
less certain answer; <b>Not sure</b> (N) leaves the belief unchanged; <b>Not visible</b> (V, birds) skips the
attribute. The panel on the right shows the ten most likely answers and how each answer moved them;
<i>Why this question?</i> shows its expected information gain and what each answer would do.</li>
<li><b>Skip to shortlist</b> stops the questions at any time.</li>
</ol>
<h3>Comparing</h3>
<p>Two answers appear side by side, each headed by the question it answers: choose <b>Left is better</b>
(&larr; or L), <b>Right is better</b> (&rarr; or R), <b>Equally good</b> (E or =) or <b>Neither is relevant</b>
(N: both are set aside; when every answer is set aside, Clarify asks a few more questions without them).
The bar shows how sure Clarify is that its current best (&#9733;) is the best of these answers; the list
below shows each answer's chance. What you say holds: an answer you preferred always stays above the one it
beat. <b>Done</b> stops comparing and shows Clarify's best.</p>
<p>Then Clarify asks <b>Accept this answer?</b> If not, <b>Reject</b> lets you take another of the compared
answers, answer more questions (without the rejected one), or give up. <b>Undo</b> takes back every step,
also the last one.</p>
<h3>Everywhere</h3>
<table cellpadding="3">
<tr><td><b>Ctrl+N</b></td><td>new question</td></tr>
<tr><td><b>Ctrl+Z</b></td><td>undo the last answer or comparison (works in every phase)</td></tr>
<tr><td><b>Ctrl+1 &hellip; Ctrl+4</b></td><td>Ask, Compare, History, Lab pages</td></tr>
<tr><td><b>Ctrl+I</b></td><td>import crowd data</td></tr>
<tr><td><b>Ctrl+,</b></td><td>session settings</td></tr>
<tr><td><b>F1</b></td><td>this help</td></tr>
<tr><td><b>Ctrl+Q</b></td><td>quit (Ctrl+C in the terminal that started Clarify does the same)</td></tr>
</table>
<p>Every answer is saved as you give it: an interrupted conversation can be resumed from the
<b>History</b> page. The <b>Lab</b> page runs the simulator evaluation, trains the models with live learning
curves, and evaluates the pairwise ranker.</p>
<p>Without a display, use the terminal: <code>clarify ask faq "your question"</code>.</p>
"""

ABOUT_HTML = """
<h3>Clarify {version}</h3>
<p>An interactive clarification assistant: it asks informative questions, then ranks the shortlisted
answers by pairwise comparison.</p>
<p>Methods from: Yu et al., <i>Interactive classification by asking informative questions</i>;
Simpson, Gao &amp; Gurevych, <i>Interactive text ranking with Bayesian optimization</i> (TACL 2020);
<i>Bayesian deep learning for interactive community question answering</i>;
Wang et al., <i>active and self-paced learning for deep answer selection</i> (2020);
Chali et al., <i>a reinforcement learning formulation to complex question answering</i> (2015).</p>
<p>Data: CUB-200-2011, StackFAQ, BANKING77 (see the bundled PROVENANCE files). MIT licence.</p>
"""


def error_text(exc: BaseException) -> tuple[str, str]:
    """(message, details) for an exception: the engine's own message for a ClarifyError (it says what
    to do), a bug report hint plus the traceback for anything else."""
    if isinstance(exc, ValidationError):
        return str(exc), exc.report()
    if isinstance(exc, USER_ERRORS):
        return str(exc), ""
    details = "".join(traceback.format_exception(exc))
    return (
        f"{type(exc).__name__}: {exc}\n\nThis is a bug in Clarify, not something you did wrong. Try again; "
        "if it happens again, please report it with the details below.",
        details,
    )


def show_error(parent: QWidget | None, title: str, message: str, details: str = "") -> QMessageBox:
    """A non-blocking warning dialog (window-modal)."""
    box = QMessageBox(parent)
    box.setObjectName("errorDialog")
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle(f"{APP_NAME}: {title}" if title else APP_NAME)
    box.setText(title or "Something went wrong")
    box.setInformativeText(message)
    if details:
        box.setDetailedText(details)
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.setWindowModality(Qt.WindowModality.WindowModal)
    box.open()
    return box


def show_exception(parent: QWidget | None, title: str, exc: BaseException, details: str = "") -> QMessageBox:
    message, more = error_text(exc)
    if not more and not isinstance(exc, USER_ERRORS):
        more = details
    return show_error(parent, title, message, more)


class HelpDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("helpDialog")
        self.setWindowTitle(f"{APP_NAME} help")
        self.resize(640, 620)
        browser = QTextBrowser(self)
        browser.setObjectName("helpText")
        browser.setAccessibleName("Help text")
        browser.setHtml(HELP_HTML)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(browser)
        layout.addWidget(buttons)


def about_html() -> str:
    try:
        from importlib.metadata import version

        number = version("clarify-assistant")
    except Exception:  # not installed as a distribution (running from a checkout)
        number = ""
    return ABOUT_HTML.format(version=number)


# The question pace (assistant.app.registry.PACES): the domain's own default, or one of the two.
PACE_DEFAULT = "domain default"
PACE_CHOICES = (PACE_DEFAULT, "quick", "thorough")


def pace_key(domain: str) -> str:
    """The QSettings key of the pace a person chose for ``domain``. The pace belongs to the domain it was
    chosen in: what suits faq ("quick": one or two questions) stops a bird session far too early."""
    return f"pace/{domain}"


class SettingsDialog(QDialog):
    """Session settings (saved in QSettings): question pace (for ``domain``, the open domain, alone),
    shortlist size, ranking budget and confidence, candidates."""

    def __init__(self, settings: QSettings, domain: str | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("settingsDialog")
        self.setWindowTitle(f"{APP_NAME} settings")
        self.settings = settings
        self.domain = domain
        config = session_config(settings, domain)
        self.candidates = QComboBox(self)
        self.candidates.addItems(["all", "captioned"])
        self.candidates.setCurrentText(config.candidates)
        self.candidates.setToolTip("Choose among all labels, or only those with example queries")
        self.shortlist = QSpinBox(self)
        self.shortlist.setRange(1, 20)
        self.shortlist.setValue(config.shortlist_size)
        self.budget = QSpinBox(self)
        self.budget.setRange(1, 50)
        self.budget.setValue(config.ranking_budget)
        self.threshold = QDoubleSpinBox(self)
        self.threshold.setRange(0.5, 0.999)
        self.threshold.setDecimals(3)
        self.threshold.setSingleStep(0.01)
        self.threshold.setValue(config.ranking_threshold)
        self.model = QComboBox(self)
        self.model.addItems(["gppl", "bt"])
        self.model.setCurrentText(config.ranking_model)
        self.acquisition = QComboBox(self)
        self.acquisition.addItems(["imp", "tp", "eig", "unpa", "unc", "random"])
        self.acquisition.setCurrentText(config.acquisition)
        self.pace = QComboBox(self)
        self.pace.addItems(list(PACE_CHOICES))
        self.pace.setCurrentText(config.pace or PACE_DEFAULT)
        self.pace.setToolTip(
            "How many questions the assistant may ask in this domain: 'quick' asks fewer, 'thorough' keeps "
            "asking while a question still helps; the domain's default was chosen on its dev queries"
        )
        self.pace.setEnabled(domain is not None)
        pace_label = f"Question &pace ({domain}):" if domain else "Question &pace:"
        form = QFormLayout()
        for label, widget in (
            (pace_label, self.pace),
            ("&Candidates:", self.candidates),
            ("&Shortlist size:", self.shortlist),
            ("Comparisons at &most:", self.budget),
            ("Stop at &confidence:", self.threshold),
            ("Ranking &model:", self.model),
            ("&Pair selection:", self.acquisition),
        ):
            widget.setAccessibleName(label.replace("&", "").rstrip(":").split(" (")[0])
            form.addRow(label, widget)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)

    def accept(self) -> None:
        self.settings.setValue("session/candidates", self.candidates.currentText())
        self.settings.setValue("session/shortlist_size", self.shortlist.value())
        self.settings.setValue("session/ranking_budget", self.budget.value())
        self.settings.setValue("session/ranking_threshold", self.threshold.value())
        self.settings.setValue("session/ranking_model", self.model.currentText())
        self.settings.setValue("session/acquisition", self.acquisition.currentText())
        if self.domain is not None:
            self.settings.setValue(pace_key(self.domain), self.pace.currentText())
        super().accept()


def session_config(settings: QSettings, domain: str | None = None):
    """The SessionConfig stored in ``settings`` for sessions in ``domain`` (defaults for what is missing or
    invalid): the pace is the one chosen in ``domain`` (None: the domain's default)."""
    from assistant.app.session import SessionConfig

    default = SessionConfig()
    values = {}
    for name, kind in (
        ("candidates", str),
        ("shortlist_size", int),
        ("ranking_budget", int),
        ("ranking_threshold", float),
        ("ranking_model", str),
        ("acquisition", str),
        ("pace", str),
    ):
        if name == "pace":  # never the old "session/pace", saved once for every domain
            raw = settings.value(pace_key(domain)) if domain else None
        else:
            raw = settings.value(f"session/{name}")
        if raw is None or (name == "pace" and raw == PACE_DEFAULT):
            continue
        try:
            values[name] = kind(raw)
        except (TypeError, ValueError):
            continue
    try:
        return SessionConfig(**{**default.__dict__, **values})
    except ClarifyError:
        return default


def open_about(parent: QWidget) -> QMessageBox:
    """The About box (non-modal; deletes itself when closed)."""
    box = QMessageBox(parent)
    box.setObjectName("aboutDialog")
    box.setWindowTitle(f"About {APP_NAME}")
    box.setTextFormat(Qt.TextFormat.RichText)
    box.setText(about_html())
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box
