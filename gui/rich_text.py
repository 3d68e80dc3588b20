"""HTML the pages show: a candidate's text (the Compare page, the way-out page's preview) and "Why this question?"
(the Ask page)."""

from __future__ import annotations

import html
import math
import re
from html import escape
from typing import TYPE_CHECKING

from assistant.app.session.numbers import percent

if TYPE_CHECKING:
    from assistant.app.session.session_state import QuestionExplanation

LN2 = math.log(2.0)

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


def explanation_html(explanation: QuestionExplanation | None) -> str:
    """'Why this question': its expected information gain and what each answer would do to the top labels."""
    if not explanation:
        return "<p style='color:#666'>When a question is pending, this explains why it was chosen.</p>"
    gain = explanation["information_gain"] / LN2
    entropy = explanation["entropy"] / LN2
    rank = explanation.get("rank")
    best = (
        " (the most informative question left)"
        if rank == 1
        else (f" (rank {rank} among the questions left)" if rank else "")
    )
    parts = [
        f"<p>Expected information gain <b>{gain:.2f} bits</b>{best}; the current uncertainty is "
        f"{entropy:.2f} bits.</p>",
        "<table cellspacing='0' cellpadding='3' width='100%'>",
        # the chance that a person gives this answer, not an entry's share: it also holds the answers people give
        # by mistake, so it differs from the entry's row in "Most likely answers" and is named apart (issue 39)
        "<tr><th align='left'>If you answer</th><th align='right'>how likely you answer it</th>"
        "<th align='left'>likeliest entries then</th></tr>",
    ]
    for outcome in explanation["outcomes"]:
        tops = ", ".join(f"{html.escape(str(name), quote=False)} {percent(p)}" for name, p in outcome["top"][:3])
        parts.append(
            f"<tr><td><b>{html.escape(str(outcome['option']), quote=False)}</b></td><td align='right'>{percent(outcome['probability'])}</td>"
            f"<td>{tops}</td></tr>"
        )
    parts.append("</table>")
    return "".join(parts)
