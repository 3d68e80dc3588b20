"""The main window: domain picker, Ask / Compare / History / Lab pages, menus, shortcuts, settings.

The window opens on the Ask page at once, before any model is loaded: the engine's model stack is imported by
the job that needs it, in a worker. Opening a domain runs ``assistant.app.desk.domains.open_domain`` (build +
install or train what is missing + warm up) in a worker, its progress (in a desk person's words) and Cancel on
the Ask page's loading banner (``gui.loading``); the page stays usable meanwhile, and a question asked then is
kept and answered once the domain is ready. The ready registry is cached for the run (trained models on disk by
the engine). Geometry, the last domain and session settings are in QSettings."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent
from PySide6.QtWidgets import QLabel, QMainWindow, QMessageBox, QTabWidget

from assistant.app.desk.listing import available_domains
from assistant.app.session.phases import Phase
from gui import APP_NAME, ORGANIZATION
from gui.controller import SessionController
from gui.dialogs import HelpDialog, SettingsDialog, open_about, session_config, show_error, show_exception
from gui.domain_picker import DomainPicker
from gui.faq_actions import FaqActions
from gui.model_updates import ModelUpdater
from gui.pages.ask import AskPage
from gui.pages.compare import ComparePage
from gui.pages.history import HistoryPage
from gui.snapshot import SessionSnapshot
from gui.transcript import status_line
from gui.widgets import page_placeholder, replace_tab
from gui.window_menus import PAGES, make_actions, make_menus, make_toolbar
from gui.window_size import fit_to_screen
from gui.words import domain_words
from gui.workers import JobWorker, WorkerPool, is_running

if TYPE_CHECKING:  # imported when the wizard first opens: most runs never import a file
    from assistant.app.desk.crowd import ImportReport
    from assistant.app.desk.domains import DomainLoader
    from assistant.app.session.view import AnswersToSummarize
    from gui.import_wizard import ImportWizard
    from gui.pages.lab import LabPage
    from gui.pages.summarize import SummarizePage

DEFAULT_DOMAIN = "faq"
CLOSE_WAIT_MS = 600  # closing waits at most this long for running jobs (and half of it for the session)


def open_domain(name: str) -> Any:
    """The default loader: ``assistant.app.desk.domains.open_domain``, imported in the worker that runs it (it
    brings the model stack, seconds of imports the window does not wait for)."""
    from assistant.app.desk.domains import open_domain as job

    return job(name)


class MainWindow(QMainWindow):
    """See the module docstring. ``domainReady(name)``: a domain is open and answers questions.

    ``domain_loader(name)`` is the job that makes a domain ready and returns its model registry (default
    ``assistant.app.desk.domains.open_domain``); ``settings`` defaults to the user's QSettings.
    """

    domainReady = Signal(str)
    # made by gui.window_menus (with the other actions, which only it reads)
    undo_action: QAction
    domain_picker: DomainPicker
    faq: FaqActions

    def __init__(
        self,
        settings: QSettings | None = None,
        domain_loader: DomainLoader | None = None,
        initial_domain: str | None = None,
        open_initial: bool = True,
    ) -> None:
        super().__init__()
        self.setObjectName("mainWindow")
        self.settings = settings or QSettings(ORGANIZATION, APP_NAME)
        self.domain_loader: DomainLoader = domain_loader or open_domain
        self.pool = WorkerPool(self)
        self.controller = SessionController(self)  # its session config comes with the domain (_use_registry)
        self.registries: dict[str, Any] = {}
        self.domain: str | None = None
        self.opening: JobWorker | None = None
        self.opening_name: str | None = None  # the domain ``opening`` gets ready
        self._after_open: list[Callable[[], object]] = []
        self.pending_query: str | None = None  # asked while the domain was getting ready: answered once it is
        self._last_phase: str | None = None
        self.last_error: tuple[str, str] | None = None
        self.help_dialog: HelpDialog | None = None
        self.stuck: list[JobWorker] = []

        self.ask_page = AskPage(self.controller, self)
        self.compare_page = ComparePage(self.controller, self)
        self.history_page = HistoryPage(self.controller, self)
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("mainTabs")
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.ask_page, "Ask")
        self.tabs.addTab(self.compare_page, "Compare")
        self.tabs.addTab(self.history_page, "History")
        # The Lab and Summarize pages need the research stack (seconds of imports): each is made when it is
        # first shown (a placeholder holds its tab until then), never while the window opens, nor while the
        # first domain loads (the worker imports that stack then: the GUI thread would wait for it, frozen).
        self._lab_page: LabPage | None = None
        self._summarize_page: SummarizePage | None = None
        self._placeholders = {name: page_placeholder(name, self) for name in ("lab", "summarize")}
        self.tabs.addTab(self._placeholders["lab"], "Lab")
        self.tabs.addTab(self._placeholders["summarize"], "Summarize")
        self.tabs.currentChanged.connect(self._page_changed)
        self.setCentralWidget(self.tabs)

        make_actions(self)
        make_menus(self)
        make_toolbar(self)
        self.status_domain = QLabel(self)
        self.status_domain.setObjectName("statusDomain")
        self.updater = ModelUpdater(self.pool, self.report_error, self)
        self.updater.reloaded.connect(self._reloaded)
        self.updater.message.connect(lambda text: self.statusBar().showMessage(text, 20000))
        self.statusBar().addPermanentWidget(self.updater.panel)
        self.statusBar().addPermanentWidget(self.status_domain)
        self.statusBar().showMessage("Welcome to Clarify. Pick a domain, type a question and press Ask.")

        self.ask_page.askRequested.connect(self.ask)
        self.ask_page.compareRequested.connect(lambda: self.show_page("compare"))
        self.compare_page.newQuestionRequested.connect(self.new_question)
        self.compare_page.summarizeAnswersRequested.connect(self.summarize_answers)
        self.history_page.resumed.connect(lambda sid: self.statusBar().showMessage(f"Resuming session {sid}…", 4000))
        self.controller.snapshotChanged.connect(self._snapshot_changed)
        self.controller.errorOccurred.connect(self._controller_error)
        self.controller.busyChanged.connect(self._busy_changed)
        self.controller.busyNotice.connect(
            lambda message: self.statusBar().showMessage(message[:1].upper() + message[1:])
        )

        self.setWindowTitle(APP_NAME)
        fit_to_screen(self, self.settings)
        self.refresh_domains()
        start = initial_domain or str(self.settings.value("app/last_domain", DEFAULT_DOMAIN) or DEFAULT_DOMAIN)
        self.domain_picker.select(start)
        if open_initial:
            QTimer.singleShot(0, lambda: self.open_domain(start))

    # ---- settings --------------------------------------------------------------------------------------
    def save_settings(self) -> None:
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        if self.domain:
            self.settings.setValue("app/last_domain", self.domain)
        self.settings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        """Closing always ends the app within a second: running jobs are cancelled (what they trained is
        kept in their checkpoints) and waited for briefly; ``stuck`` lists those that did not stop (the app
        then exits without them, see ``gui.app.main``)."""
        self.save_settings()
        self.stuck = self.pool.shutdown(timeout_ms=CLOSE_WAIT_MS)
        self.controller.shutdown(timeout_ms=CLOSE_WAIT_MS // 2)
        event.accept()

    # ---- domains ------------------------------------------------------------------------------------------
    def refresh_domains(self) -> None:
        current = self.domain_picker.currentData() or self.domain
        try:
            entries = available_domains()
        except Exception as exc:  # a broken CLARIFY_HOME must not keep the window from opening
            entries = []
            self.statusBar().showMessage(f"Cannot list the domains: {exc}")
        self.domain_picker.fill(entries, self.registries, current)

    def _picker_activated(self, index: int) -> None:
        name = self.domain_picker.itemData(index)
        if name and name != self.domain:
            self.open_domain(name)

    def open_domain(self, name: str, then: Callable[[], object] | None = None) -> None:
        """Make ``name`` the current domain, preparing it first if this run has not yet (in the background: the
        window stays usable, the Ask page shows the progress and Cancel)."""
        if is_running(self.opening):
            if name != self.opening_name:  # one domain gets ready at a time: the picker shows that one
                self.domain_picker.select(self.opening_name or name)
                self.statusBar().showMessage(
                    f"{self.opening_name} is getting ready: wait for it, or press Cancel on the Ask page first.", 8000
                )
                return
            if then is not None:
                self._after_open.append(then)
            return
        if then is not None:
            self._after_open.append(then)
        if name in self.registries:
            self._use_registry(name, self.registries[name])
            return
        self.domain_picker.select(name)
        self.statusBar().showMessage(f"Getting {name} ready…")
        loader = self.domain_loader
        worker = JobWorker(lambda: loader(name), f"Getting {name} ready")
        worker.succeeded.connect(lambda registry: self._opened(name, registry))
        worker.failed.connect(lambda exc, details: self._open_failed(name, exc, details))
        worker.cancelled.connect(lambda: self._open_cancelled(name))
        self.opening, self.opening_name = worker, name
        self.ask_page.loading.follow(worker, name)
        if self.pending_query:
            self.ask_page.loading.question_kept(self.pending_query)
        self.pool.start(worker)

    def _opened(self, name: str, registry: Any) -> None:
        self.opening, self.opening_name = None, None  # a worker reports once (also when abandoned: workers.py)
        self.ask_page.loading.hide()
        self.registries[name] = registry
        self.refresh_domains()
        self._use_registry(name, registry)

    def _use_registry(self, name: str, registry: Any) -> None:
        self.ask_page.set_domain(name, changed=name != self.domain)
        self.domain = name
        self.domain_picker.select(name)
        self.controller.attach(registry, session_config(self.settings, name))
        for page in (self._lab_page, self._summarize_page):  # made later already know it (their properties)
            if page is not None:
                page.set_domain(name)
        if self.tabs.currentWidget() in self._placeholders.values():  # shown while loading: its page now
            self._page_changed(self.tabs.currentIndex())
        self.settings.setValue("app/last_domain", name)
        self.setWindowTitle(f"{APP_NAME} — {name}")
        notice = getattr(registry, "notice", "")
        domain = getattr(registry, "domain", None)
        self.history_page.model.label_names = {lab.key: lab.name for lab in getattr(domain, "labels", ())}
        if domain is not None:
            self.status_domain.setText(domain_words(name, domain.num_labels, len(domain.questions)))
        self.statusBar().showMessage(notice or f"{name} is ready: type a question and press Ask.", 6000)
        self.history_page.refresh()
        callbacks, self._after_open = self._after_open, []
        for callback in callbacks:
            callback()
        query, self.pending_query = self.pending_query, None
        if query is not None:  # asked while the domain was getting ready
            self.ask(query)
        self.updater.offer(name, registry)
        self.domainReady.emit(name)

    def _reloaded(self, name: str, registry: Any) -> None:
        """Fresh models of ``name`` (new data, or updated models): used from the next question on."""
        self.registries[name] = registry
        if name == self.domain:
            self.controller.swap_registry(registry)
            self.status_domain.setText(domain_words(name, registry.domain.num_labels, len(registry.domain.questions)))

    def _open_failed(self, name: str, exc: BaseException, details: str) -> None:
        self.opening, self.opening_name = None, None
        self._after_open = []
        self.domain_picker.select(self.domain or name)
        self.statusBar().showMessage(f"Could not prepare {name}.", 8000)
        self.ask_page.loading.stopped(self._kept(f"Getting {name} ready failed (see the message)."))
        self.pending_query = None
        self.report_error(f"Could not prepare the {name} domain", exc, details)

    def _open_cancelled(self, name: str) -> None:
        self.opening, self.opening_name = None, None
        self._after_open = []
        if self.domain:
            self.domain_picker.select(self.domain)
        self.statusBar().showMessage(
            f"Preparing {name} was cancelled; what was already trained is kept and reused next time.", 8000
        )
        self.ask_page.loading.stopped(
            self._kept(f"Getting {name} ready was cancelled; what was already done is kept and reused next time.")
        )
        self.pending_query = None

    def _kept(self, text: str) -> str:
        """``text``, and what became of a question asked meanwhile (it stays in the question box)."""
        if self.pending_query is None:
            return text
        if not self.ask_page.query_input.text().strip():
            self.ask_page.query_input.setText(self.pending_query)
        return f"{text} Your question is still in the box: press Ask to try again."

    def models_changed(self, name: str) -> None:
        """A model of ``name`` was retrained (Lab) or its data changed (import): load it afresh in the
        background; until then the models loaded now keep answering."""
        if name in self.registries:
            self.updater.reload(name)
            self.statusBar().showMessage(f"The models of {name} changed: loading them for the next question.", 8000)

    # ---- conversation ---------------------------------------------------------------------------------
    def ask(self, query: str) -> None:
        """Start a session for ``query`` in the current domain; while a domain is getting ready (or when none
        is open yet), the question is kept and asked in that domain once it is ready (the latest question
        only: one typed again replaces it)."""
        name = self.opening_name if is_running(self.opening) else self.domain
        name = name or self.domain_picker.currentData() or DEFAULT_DOMAIN
        if name not in self.registries:
            self.pending_query = query
            self.open_domain(name)
            self.ask_page.loading.question_kept(query)
            self.statusBar().showMessage(f"Your question is kept: it is answered as soon as {name} is ready.")
            return
        if not self.controller.start(query):
            self.statusBar().showMessage("Busy: wait a moment and try again.", 3000)
            return
        if not is_running(self.opening):  # what a cancelled or failed opening said is old news now
            self.ask_page.loading.hide()
        self.statusBar().showMessage(f"Thinking about “{query}”…")

    def new_question(self) -> None:
        self.controller.clear()
        self.show_page("ask")
        self.ask_page.query_input.selectAll()
        self.ask_page.query_input.setFocus()
        self.statusBar().showMessage("Type a new question and press Ask.", 4000)

    def undo(self) -> None:
        snapshot = self.controller.snapshot
        if snapshot is None or not snapshot.can_undo:
            self.statusBar().showMessage("Nothing to undo.", 3000)
            return
        self.controller.undo()

    def _snapshot_changed(self, snapshot: SessionSnapshot | None) -> None:
        self.undo_action.setEnabled(snapshot is not None and snapshot.can_undo)
        phase = snapshot.phase if snapshot else None
        if phase != self._last_phase:
            if phase in (Phase.CLARIFYING, Phase.OUT_OF_SCOPE) or phase is None:  # the ending's choices are on Ask
                if self.tabs.currentWidget() is not self._lab_page or phase is not None:
                    self.show_page("ask")
            else:
                self.show_page("compare")
        self._last_phase = phase
        if snapshot is None:
            return
        message = status_line(snapshot)
        self.statusBar().showMessage(message)
        if phase in (Phase.FINISHED, Phase.FAILED, Phase.OUT_OF_SCOPE):
            self.history_page.refresh()
            self.faq.session_ended(phase)

    def _busy_changed(self, busy: bool) -> None:
        snapshot = self.controller.snapshot
        self.undo_action.setEnabled(not busy and snapshot is not None and snapshot.can_undo)
        self.ask_page.ask_button.setEnabled(not busy)

    # ---- pages, dialogs ------------------------------------------------------------------------------------
    def show_page(self, name: str) -> None:
        if name not in PAGES:
            raise KeyError(name)
        if name in self._placeholders and self._first_loading:
            self.tabs.setCurrentWidget(self._placeholders[name])  # made once the domain is ready
            return
        self.tabs.setCurrentWidget(getattr(self, f"{name}_page"))  # the Lab and Summarize pages are made now

    @property
    def _first_loading(self) -> bool:
        """The first domain of this run is loading: the research stack is being imported in its worker."""
        return self.domain is None and is_running(self.opening)

    def summarize_answers(self, request: AnswersToSummarize) -> None:
        """The Compare page's "Summarize these answers": the FAQ's answers on the Summarize page."""
        self.show_page("summarize")
        self.summarize_page.open_answers(request.question, request.query, list(request.answers))

    def _page_changed(self, index: int) -> None:
        widget = self.tabs.widget(index)
        if widget is self.history_page:
            self.history_page.refresh()
        elif widget is self._placeholders["lab"] and not self._first_loading:
            self.tabs.setCurrentWidget(self.lab_page)
        elif widget is self._placeholders["summarize"] and not self._first_loading:
            self.tabs.setCurrentWidget(self.summarize_page)

    @property
    def lab_page(self) -> LabPage:
        """The Lab page, made on first use (see ``__init__``)."""
        if self._lab_page is None:
            from gui.pages.lab import LabPage

            page = self._lab_page = LabPage(self.pool, self.report_error, self)
            page.modelsChanged.connect(self.models_changed)
            page.set_domain(self.domain)
            replace_tab(self.tabs, self._placeholders["lab"], page, "Lab")
        return self._lab_page

    @property
    def summarize_page(self) -> SummarizePage:
        """The Summarize page, made on first use (see ``__init__``)."""
        if self._summarize_page is None:
            from gui.pages.summarize import SummarizePage

            page = self._summarize_page = SummarizePage(self.pool, self.report_error, self)
            page.set_domain(self.domain)
            replace_tab(self.tabs, self._placeholders["summarize"], page, "Summarize")
        return self._summarize_page

    def show_help(self) -> None:
        if self.help_dialog is None:
            self.help_dialog = HelpDialog(self)
        self.help_dialog.show()
        self.help_dialog.raise_()

    def show_about(self) -> QMessageBox:
        return open_about(self)

    def open_settings(self) -> SettingsDialog:
        dialog = SettingsDialog(self.settings, self.domain, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        domain = self.domain
        # with no domain open yet the settings are read when it opens (``_use_registry``): reading them now would
        # import the session's modules in the GUI thread, waiting for the worker that is importing them
        if domain is not None:
            dialog.accepted.connect(lambda: self.controller.set_config(session_config(self.settings, domain)))
        dialog.open()
        return dialog

    def open_import_wizard(self) -> ImportWizard:
        from gui.import_wizard import ImportWizard

        names = [self.domain_picker.itemData(i) for i in range(self.domain_picker.count())]
        wizard = ImportWizard(self.pool, [n for n in names if n], self.domain, self)
        wizard.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        wizard.imported.connect(self._imported)
        wizard.open()
        return wizard

    def _imported(self, domain: str, report: ImportReport) -> None:
        self.models_changed(domain)
        self.refresh_domains()
        added = ", ".join(f"{v} {k}" for k, v in report.added.items() if v) or "nothing new"
        self.statusBar().showMessage(f"Imported into {domain}: {added}.", 8000)

    # ---- errors ----------------------------------------------------------------------------------------------
    def report_error(self, title: str, exc: BaseException, details: str = "") -> None:
        box = show_exception(self, title, exc, details)
        self.last_error = (title, box.informativeText())

    def _controller_error(self, title: str, message: str, details: str) -> None:
        show_error(self, title, message, details)
        self.last_error = (title, message)
        self.statusBar().showMessage(message.splitlines()[0], 8000)
