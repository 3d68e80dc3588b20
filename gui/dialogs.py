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
from gui.help_text import HELP_HTML
from gui.widgets import fill_combo
from gui.words import (
    CANDIDATE_TIPS,
    CANDIDATES,
    PACE_DEFAULT,
    PACE_TIPS,
    PACES,
    PAIR_CHOICE_TIPS,
    PAIR_CHOICES,
    RANKING_MODEL_TIPS,
    RANKING_MODELS,
)

# What a session can use (the Lab evaluates more rankers and pair choices than a session offers).
SESSION_RANKING_MODELS = ("gppl", "bt")
SESSION_PAIR_CHOICES = ("imp", "tp", "eig", "unpa", "unc", "random")

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
        self.resize(680, 620)
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


def pace_key(domain: str) -> str:
    """The QSettings key of the pace a person chose for ``domain``. The pace belongs to the domain it was
    chosen in: what suits faq ("quick": one or two questions) stops a bird session far too early."""
    return f"pace/{domain}"


class SettingsDialog(QDialog):
    """Session settings (saved in QSettings): question pace (for ``domain``, the open domain, alone),
    shortlist size, ranking budget and confidence, candidates. Every choice shows words (gui.words); the
    settings keep the engine's names."""

    def __init__(self, settings: QSettings, domain: str | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("settingsDialog")
        self.setWindowTitle(f"{APP_NAME} settings")
        self.settings = settings
        self.domain = domain
        config = session_config(settings, domain)
        self.candidates = fill_combo(QComboBox(self), CANDIDATES, CANDIDATE_TIPS, config.candidates)
        self.candidates.setToolTip("Which answers Clarify may propose")
        self.shortlist = QSpinBox(self)
        self.shortlist.setRange(1, 20)
        self.shortlist.setValue(config.shortlist_size)
        self.shortlist.setToolTip("How many answers Clarify compares when it stops asking")
        self.budget = QSpinBox(self)
        self.budget.setRange(1, 50)
        self.budget.setValue(config.ranking_budget)
        self.budget.setToolTip("Clarify proposes its best answer after this many comparisons at the latest")
        self.threshold = QDoubleSpinBox(self)
        self.threshold.setRange(0.5, 0.999)
        self.threshold.setDecimals(3)
        self.threshold.setSingleStep(0.01)
        self.threshold.setValue(config.ranking_threshold)
        self.threshold.setToolTip("Clarify stops comparing once it is this sure of its best answer (0.9 = 90%)")
        models = {k: v for k, v in RANKING_MODELS.items() if k in SESSION_RANKING_MODELS}
        self.model = fill_combo(QComboBox(self), models, RANKING_MODEL_TIPS, config.ranking_model)
        self.model.setToolTip("How Clarify learns from your comparisons which answer is best")
        pairs = {k: v for k, v in PAIR_CHOICES.items() if k in SESSION_PAIR_CHOICES}
        self.acquisition = fill_combo(QComboBox(self), pairs, PAIR_CHOICE_TIPS, config.acquisition)
        self.acquisition.setToolTip("How Clarify chooses the next two answers to show you")
        self.pace = fill_combo(QComboBox(self), PACES, PACE_TIPS, config.pace or PACE_DEFAULT)
        self.pace.setToolTip("How many questions Clarify may ask in this domain before it shows answers")
        self.pace.setEnabled(domain is not None)
        pace_label = f"Question &pace ({domain}):" if domain else "Question &pace:"
        form = QFormLayout()
        for label, widget in (
            (pace_label, self.pace),
            ("&Answers to choose from:", self.candidates),
            ("&Shortlist size:", self.shortlist),
            ("Comparisons at &most:", self.budget),
            ("Stop at &confidence:", self.threshold),
            ("How comparisons are &learned:", self.model),
            ("Which &pair comes next:", self.acquisition),
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
        self.settings.setValue("session/candidates", self.candidates.currentData())
        self.settings.setValue("session/shortlist_size", self.shortlist.value())
        self.settings.setValue("session/ranking_budget", self.budget.value())
        self.settings.setValue("session/ranking_threshold", self.threshold.value())
        self.settings.setValue("session/ranking_model", self.model.currentData())
        self.settings.setValue("session/acquisition", self.acquisition.currentData())
        if self.domain is not None:
            self.settings.setValue(pace_key(self.domain), self.pace.currentData())
        super().accept()


def session_config(settings: QSettings, domain: str | None = None):
    """The SessionConfig stored in ``settings`` for sessions in ``domain`` (defaults for what is missing or
    invalid): the pace is the one chosen in ``domain`` (None: the domain's default)."""
    from assistant.app.session.session import SessionConfig

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
