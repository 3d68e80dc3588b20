"""A candidate's text as the HTML its panel shows (the Compare page, the way-out page's preview)."""

from __future__ import annotations

import re
from html import escape

_ATTRIBUTE = re.compile(r"^\s*([^:;]{1,40}):\s*(.+?)\s*$")


def candidate_html(text: str) -> str:
    """A candidate's text as HTML: 'key: value; key: value' summaries as a table, prose as paragraphs."""
    parts = [p for p in text.split(";") if p.strip()]
    pairs = [_ATTRIBUTE.match(p) for p in parts]
    if len(parts) >= 2 and all(pairs):
        rows = "".join(
            f"<tr><td style='color:#555; padding-right:10px'>{escape(m.group(1).strip())}</td>"
            f"<td><b>{escape(m.group(2))}</b></td></tr>"
            for m in pairs
            if m is not None
        )
        return f"<table cellspacing='0' cellpadding='3'>{rows}</table>"
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    return "".join(f"<p>{escape(p).replace(chr(10), '<br>')}</p>" for p in paragraphs) or "<p><i>(no text)</i></p>"
