"""How long a person waits for the app (issue 33): from starting `clarify-gui` to an Ask page where a question can
be typed and submitted, on a relaunch (a home where faq is prepared) and on the first launch of a fresh home
(faq is built and its release models installed meanwhile).

Each launch is a new process (``python -m gui``, as the `clarify-gui` script does) on the offscreen platform,
with its own settings folder, traced by ``gui.launch_trace``: as soon as the page is usable a vague question is
typed into it key by key and submitted, while faq may still be loading. Wall seconds from the start of the
process: ``usable`` (the page takes a question), ``ready`` (faq answers), ``answered`` (the question typed at
``usable`` got its first answer: it was kept through the loading) and ``stall`` (the longest the event loop
went without turning between usable and ready: how long the window froze).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS_S = {"gui_relaunch_usable": 3.0, "gui_first_launch_usable": 20.0}
QUESTION = "my email looks wrong"


def launch_times(home: Path, timeout: float = 600.0) -> dict[str, float]:
    """One launch of the app on ``home``: seconds from the process start to each moment ``gui.launch_trace``
    wrote (``usable``, ``asked``, ``ready``, ``answered``), and ``stall`` (seconds)."""
    with tempfile.TemporaryDirectory(prefix="clarify-gui-launch-") as tmp:
        trace = Path(tmp) / "trace.txt"
        env = {
            **os.environ,
            "CLARIFY_HOME": str(home),
            "XDG_CONFIG_HOME": str(Path(tmp) / "config"),  # the settings of a new user: faq opens first
            "QT_QPA_PLATFORM": "offscreen",
            "CLARIFY_GUI_TRACE": str(trace),
            "CLARIFY_GUI_TRACE_ASK": QUESTION,
            "CLARIFY_GUI_TRACE_QUIT": "1",
        }
        start = time.time()
        done = subprocess.run(
            [sys.executable, "-m", "gui"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
        )
        marks: dict[str, float] = {}
        for line in trace.read_text(encoding="utf-8").splitlines() if trace.exists() else []:
            name, when, *value = line.split()
            marks[name] = float(value[0]) if value else round(float(when) - start, 3)
    if "answered" not in marks:
        raise RuntimeError(
            f"the app did not answer the question (exit {done.returncode}): {marks}\n{done.stderr[-2000:]}"
        )
    return marks


def gui_launch_times(home: Path | None, repeats: int, folder: Path) -> dict[str, list[float | None]]:
    """``repeats`` first launches, each on a fresh home in ``folder``, then ``repeats`` relaunches on ``home``
    (default: the home the first launch made). Lists of seconds by figure."""
    figures: dict[str, list[float | None]] = {}
    first_home = None
    for repeat in range(repeats):
        fresh = folder / f"fresh-home-{repeat}"
        fresh.mkdir()
        marks = launch_times(fresh)
        first_home = first_home or fresh
        for name in ("usable", "ready", "answered", "stall"):
            figures.setdefault(f"gui_first_launch_{name}", []).append(marks.get(name))
    relaunch_home = home or first_home
    assert relaunch_home is not None
    for _ in range(repeats):
        marks = launch_times(relaunch_home)
        for name in ("usable", "ready", "answered", "stall"):
            figures.setdefault(f"gui_relaunch_{name}", []).append(marks.get(name))
    return figures
