"""`clarify ...`: the command line, a thin layer over assistant.app (parse, run the app's jobs with a
progress bar, print). ``main`` is the console script."""

from assistant.cli.main import main

__all__ = ["main"]
