"""Before the first window: are the system libraries Qt needs for an X11 window installed?

Qt loads its X11 platform plugin (``libqxcb.so``) only when the QApplication is created; if one of the
plugin's libraries is missing, Qt aborts the process with "xcb-cursor0 or libxcb-cursor0 is needed", whatever
is really missing (on a fresh Debian: libxcb-icccm4 and libxcb-keysyms1). So ``clarify-gui`` looks first: it
tries to load every library the plugin needs and, if any is missing, names the Debian packages to install and
exits with 2 instead of letting Qt abort.

The tables list what PySide6 6.11's binaries ask for (``readelf -d``: their NEEDED entries, less Qt's own
libraries and the C/C++ runtime), with the Debian 12 package of each (``dpkg -S``). A test reads the NEEDED
entries of the installed plugin and fails when a new PySide6 needs a library missing here.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable, Mapping

# Qt's own GUI libraries (QtGui, QtWidgets, QtDBus), on every platform: library -> Debian package.
QT_GUI_LIBRARIES = {
    "libGL.so.1": "libgl1",
    "libEGL.so.1": "libegl1",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libX11.so.6": "libx11-6",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libdbus-1.so.3": "libdbus-1-3",
}
# The X11 platform plugin (Qt/plugins/platforms/libqxcb.so and Qt/lib/libQt6XcbQpa.so.6).
XCB_LIBRARIES = {
    "libxcb.so.1": "libxcb1",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
}


def uses_xcb(environ: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    """Whether Qt will open its windows through X11 (xcb): on Linux, QT_QPA_PLATFORM names xcb, or it is unset
    and an X display is set outside a Wayland session (there Qt tries Wayland first)."""
    import sys

    env = os.environ if environ is None else environ
    if not (platform or sys.platform).startswith("linux"):
        return False
    chosen = env.get("QT_QPA_PLATFORM", "")
    if chosen:
        return chosen.split(";")[0].split(":")[0] == "xcb"
    wayland = bool(env.get("WAYLAND_DISPLAY")) and env.get("XDG_SESSION_TYPE", "") == "wayland"
    return bool(env.get("DISPLAY")) and not wayland


def _loads(name: str) -> bool:
    try:
        ctypes.CDLL(name)
    except OSError:
        return False
    return True


def missing_libraries(
    libraries: Mapping[str, str] | None = None, loads: Callable[[str], bool] = _loads
) -> dict[str, str]:
    """The libraries of ``libraries`` (default: Qt's and the X11 plugin's) that cannot be loaded, with their
    packages. Loading is what the plugin will do (the same search path: ld.so.cache, LD_LIBRARY_PATH)."""
    wanted = {**QT_GUI_LIBRARIES, **XCB_LIBRARIES} if libraries is None else libraries
    return {name: package for name, package in wanted.items() if not loads(name)}


def missing_libraries_text(missing: Mapping[str, str]) -> str:
    """What to tell the person: one line per package to install (with the libraries it brings), then the
    command."""
    packages: dict[str, list[str]] = {}
    for name, package in missing.items():
        packages.setdefault(package, []).append(name)
    width = max(len(p) for p in packages)
    lines = [
        "clarify-gui cannot open a window: Qt's X11 platform (xcb) needs system libraries that are not installed.",
        "Install these packages (Debian or Ubuntu names):",
        *(f"    {package.ljust(width)}   # {', '.join(names)}" for package, names in packages.items()),
        f"e.g.  sudo apt-get install {' '.join(packages)}",
        "(Qt itself would stop with a message about xcb-cursor0, whichever library is missing.)",
    ]
    return "\n".join(lines)
