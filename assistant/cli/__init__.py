"""`clarify ...`: the command line, a thin layer over assistant.app (parse, run the app's jobs with a
progress bar, print). ``main`` is the console script.

This file is the package's face only: no module of assistant/cli/ imports it (they import each other by their
full names), so that it may import ``main``, which wires every command module together."""

from assistant.cli.root import main

__all__ = ["main"]
