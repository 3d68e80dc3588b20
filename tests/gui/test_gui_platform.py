"""A first window that opens: before Qt loads its X11 plugin, clarify-gui checks the plugin's libraries and names
the Debian packages that are missing (Qt itself would abort, blaming xcb-cursor0 whatever is missing)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gui import app
from gui.platform_check import (
    QT_GUI_LIBRARIES,
    XCB_LIBRARIES,
    missing_libraries,
    missing_libraries_text,
    uses_xcb,
)


def test_which_sessions_open_an_x11_window():
    assert uses_xcb({"DISPLAY": ":0"}, "linux")
    assert uses_xcb({"DISPLAY": ":0", "QT_QPA_PLATFORM": "xcb"}, "linux")
    assert uses_xcb({"QT_QPA_PLATFORM": "xcb:nomitshm"}, "linux")
    assert not uses_xcb({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"}, "linux")
    assert not uses_xcb({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}, "linux")
    assert not uses_xcb({}, "linux")
    assert not uses_xcb({"DISPLAY": ":0"}, "darwin")


def test_missing_libraries_are_named_with_their_packages_one_a_line():
    hidden = {"libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libgthread-2.0.so.0", "libglib-2.0.so.0"}
    missing = missing_libraries(loads=lambda name: name not in hidden)
    assert missing == {
        "libglib-2.0.so.0": "libglib2.0-0",
        "libgthread-2.0.so.0": "libglib2.0-0",
        "libxcb-icccm.so.4": "libxcb-icccm4",
        "libxcb-keysyms.so.1": "libxcb-keysyms1",
    }
    text = missing_libraries_text(missing)
    package_lines = [line for line in text.splitlines() if line.startswith("    ")]
    assert [line.split()[0] for line in package_lines] == ["libglib2.0-0", "libxcb-icccm4", "libxcb-keysyms1"]
    assert "libglib-2.0.so.0, libgthread-2.0.so.0" in package_lines[0]  # one package, both its libraries
    assert "sudo apt-get install libglib2.0-0 libxcb-icccm4 libxcb-keysyms1" in text
    assert missing_libraries(loads=lambda name: True) == {}


def test_the_app_stops_with_the_packages_before_qt_starts(monkeypatch, capsys):
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("DISPLAY", ":0")
    for name in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(app, "missing_libraries", lambda: {"libxcb-icccm.so.4": "libxcb-icccm4"})
    assert app.main(["--domain", "faq", "--no-open"]) == 2
    err = capsys.readouterr().err
    assert "libxcb-icccm4   # libxcb-icccm.so.4" in err and 'clarify ask faq "your question"' in err
    # nothing missing, or no X11 window coming: no message
    monkeypatch.setattr(app, "missing_libraries", lambda: {})
    assert app.missing_libraries_help("faq") is None
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    monkeypatch.setattr(app, "missing_libraries", lambda: {"libxcb-icccm.so.4": "libxcb-icccm4"})
    assert app.missing_libraries_help("faq") is None


def test_every_library_here_loads_on_this_machine():
    """The check's real loader agrees with the system: the test machine can open windows (xvfb-run works)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("X11 libraries: Linux only")
    assert missing_libraries() == {}, "install them, or this machine cannot open a Qt window under X11"


@pytest.mark.skipif(shutil.which("readelf") is None, reason="needs readelf (binutils) to read the plugin")
def test_the_tables_cover_what_the_installed_plugin_needs():
    """Every system library that PySide6's X11 plugin and its Qt libraries link against is in the tables: a
    new PySide6 that needs one more fails here instead of aborting on a person's machine."""
    import PySide6

    qt = Path(PySide6.__file__).parent / "Qt"
    binaries = [
        qt / "plugins" / "platforms" / "libqxcb.so",
        qt / "lib" / "libQt6XcbQpa.so.6",
        qt / "lib" / "libQt6Gui.so.6",
        qt / "lib" / "libQt6Widgets.so.6",
        qt / "lib" / "libQt6DBus.so.6",
    ]
    runtime = ("libc.so", "libm.so", "libstdc++.so", "libgcc_s.so", "ld-linux", "libz.so", "libzstd.so")
    needed = set()
    for binary in binaries:
        out = subprocess.run(["readelf", "-d", str(binary)], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if "(NEEDED)" in line:
                name = line.split("[", 1)[1].rstrip("]")
                if not name.startswith(("libQt6", "libicu")) and not name.startswith(runtime):
                    needed.add(name)
    assert needed, "readelf found no NEEDED entries"
    assert needed <= set(QT_GUI_LIBRARIES) | set(XCB_LIBRARIES), needed - set(QT_GUI_LIBRARIES) - set(XCB_LIBRARIES)
