"""`clarify-gui [--domain NAME]`: start the desktop app (or explain how to work without a display)."""

from __future__ import annotations

import gc
import os
import sys
import traceback
from collections.abc import Sequence

import click

from gui.platform_check import missing_libraries, missing_libraries_text, uses_xcb

HEADLESS_HELP = """clarify-gui needs a display, and none was found (DISPLAY and WAYLAND_DISPLAY are not set).

Without a display, use the terminal mode instead:
{commands}

To run the window anyway (e.g. for screenshots), set QT_QPA_PLATFORM=offscreen, or start it under xvfb-run."""


def terminal_commands(domain: str) -> str:
    """The terminal mode's commands, one a line, for the messages that say a window cannot open."""
    commands = [
        (f'clarify ask {domain} "your question"', "questions, shortlist, comparisons, answer"),
        (f"clarify sessions {domain}", "saved sessions; continue one with: clarify ask DOMAIN --resume ID"),
        (f"clarify evaluate {domain}", "the simulator evaluation (the Lab page)"),
    ]
    width = max(len(c) for c, _ in commands)
    return "\n".join(f"    {c.ljust(width)}   # {what}" for c, what in commands)


def headless_help(domain: str) -> str:
    return HEADLESS_HELP.format(commands=terminal_commands(domain))


def missing_libraries_help(domain: str) -> str | None:
    """When Qt is about to open an X11 window without all the libraries it needs: which packages to install
    (Qt would abort naming the wrong one); None when nothing is missing or no X11 window is coming."""
    if not uses_xcb():
        return None
    missing = missing_libraries()
    if not missing:
        return None
    return f"{missing_libraries_text(missing)}\n\nWithout a window, use the terminal mode:\n{terminal_commands(domain)}"


def display_available(environ: dict[str, str] | None = None, platform: str | None = None) -> bool:
    """True when Qt can show a window: a display server, or an explicit QT_QPA_PLATFORM."""
    env = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if env.get("QT_QPA_PLATFORM"):
        return True
    if platform.startswith(("win", "darwin", "cygwin")):
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


@click.command(name="clarify-gui", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--domain", help="domain to open first (default: the last one used, or faq)")
@click.option("--no-open", is_flag=True, help="do not prepare a domain at start-up")
def command(domain: str | None, no_open: bool) -> int:
    """Clarify desktop app."""
    return run(domain, no_open)


def _excepthook(exc_type, exc, tb) -> None:  # pragma: no cover - only for exceptions nobody caught
    """Show an unexpected exception in a dialog instead of letting it end the app."""
    traceback.print_exception(exc_type, exc, tb)
    try:
        from PySide6.QtWidgets import QApplication

        from gui.dialogs import show_exception

        if QApplication.instance() is not None:
            show_exception(QApplication.activeWindow(), "Unexpected error", exc)
    except Exception:
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """`clarify-gui [--domain NAME] [--no-open]`: the exit code (2 without a display, after saying what to do;
    2 for a bad option, after the usage and the error; 0 for --help)."""
    try:
        with command.make_context("clarify-gui", list(sys.argv[1:] if argv is None else argv)) as ctx:
            return command.invoke(ctx)
    except click.exceptions.Exit as exc:  # --help
        return exc.exit_code
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code


def run(domain: str | None, no_open: bool) -> int:
    if not display_available():
        print(headless_help(domain or "faq"), file=sys.stderr)
        return 2
    missing = missing_libraries_help(domain or "faq")
    if missing is not None:
        print(missing, file=sys.stderr)
        return 2
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

    from PySide6.QtWidgets import QApplication

    from gui import APP_NAME, ORGANIZATION

    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "clarify-gui"])
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(ORGANIZATION)

    from gui.launch_trace import trace_from_environment
    from gui.main_window import MainWindow
    from gui.workers import GuiThreadGarbageCollection

    sys.excepthook = _excepthook
    collection = GuiThreadGarbageCollection()
    collection.young_only()  # until the first domain is ready and its heap frozen (below)
    collection.start()
    window = MainWindow(initial_domain=domain, open_initial=not no_open)
    trace = trace_from_environment(window)  # the bench's timings (gui.launch_trace), off unless asked for
    window.show()
    if trace is not None:
        trace.shown()
    interrupt = quit_on_interrupt(window)  # noqa: F841 - the timer lives as long as the app
    # Everything alive now lives as long as the app: keep it out of the full collections, which would
    # otherwise pause the window for a few hundred ms now and then (torch alone makes a big heap). The models
    # load after the window shows: what they bring is frozen once the first domain is ready.
    gc.collect()
    gc.freeze()
    window.domainReady.connect(lambda _name: collection.freeze())
    code = int(app.exec())
    # End at once: the window is gone, every session is saved turn by turn and the settings are written
    # here. A normal interpreter shutdown (torch's teardown, a job that would not stop in a worker) took
    # about 6 s under load after the window had closed (measured with xdotool under Xvfb).
    window.settings.sync()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def quit_on_interrupt(window):
    """Ctrl+C in the terminal closes the window like its close button. Qt's event loop runs in C++, where
    Python cannot react to signals: a timer hands control back to Python a few times a second."""
    import signal

    from PySide6.QtCore import QTimer

    signal.signal(signal.SIGINT, lambda *_: window.close())
    timer = QTimer(window)
    timer.timeout.connect(lambda: None)
    timer.start(200)
    return timer


if __name__ == "__main__":
    sys.exit(main())
