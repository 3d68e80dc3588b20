"""Text from a file or a person without what would act on a terminal or a spreadsheet viewer that shows it:
escape sequences (colours, titles, links, cursor moves) and control characters. The terminal's output
(``assistant.cli.common.terminal_text``) and the files Clarify exports (``crowdsourcing.export``) both use it."""

from __future__ import annotations

import re

# Escape sequences (ECMA-48), 7-bit and 8-bit: CSI (ESC [ or 0x9b) with its parameters and final byte; the
# string commands OSC, DCS, SOS, PM and APC up to their terminator (BEL, ESC \\ or ST 0x9c; without one, up to
# the end of the line: one hostile label must not hide the lines after it); any other ESC with its
# intermediate and final bytes.
_ESCAPE_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]).*?(?:\x07|\x1b\\|\x9c|(?=\n)|\Z)"
    r"|\x1b[ -/]*[0-~]?",
    re.DOTALL,
)
# What is left of the C0 controls but tab and newline (a carriage return rewrites the line), DEL, and C1.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable_text(text: object) -> str:
    """``str(text)`` without escape sequences and control characters (tabs and newlines stay)."""
    return _CONTROL.sub("", _ESCAPE_SEQUENCE.sub("", str(text)))
