"""`clarify ask`: a session in the terminal (questions, shortlist, comparisons, answer, or "nothing fits")."""

from __future__ import annotations

import json
import sys

import click

from assistant.app.registry import ModelRegistry
from assistant.cli.engine import CANDIDATES_OPTION, PACE_OPTION, PRIOR_OPTION
from assistant.errors import ClarifyError, ConfigError


def clarify_keys(not_visible: bool = False) -> str:
    """The answer keys of a question: "v = not visible" only where the question allows it (birds' parts)."""
    extra = ", v = not visible" if not_visible else ""
    return (
        f"option number, p<N> = probably <N>, s = not sure{extra}, a = add words, u = undo, "
        "d = skip to the answers, q = quit"
    )


CLARIFY_KEYS = clarify_keys(True)
COMPARE_KEYS = (
    "1 = left is better, 2 = right is better, t = equally good, a = add words, m = ask me more, u = undo, "
    "d = done, q = quit"
)
DECIDE_KEYS = "y = accept, n = reject, u = undo, q = quit"
NOTHING_FITS_KEYS = (
    "a = say it differently, c = show the closest answers anyway, h = hand it on to a person, u = undo, q = quit"
)


@click.command("ask")
@click.argument("name")
@click.argument("query", required=False)
@CANDIDATES_OPTION
@click.option("--resume", "resume_id", type=int, help="Continue the saved session with this id.")
@click.option("--no-compare", is_flag=True, help="Stop at the shortlist instead of comparing candidates.")
@click.option("--json-lines", is_flag=True, help="Machine mode: JSON events out, one answer token per input line.")
@click.option("--top", default=5, show_default=True, help="Length of the shortlist shown.")
@PRIOR_OPTION
@PACE_OPTION
def ask_command(
    name: str,
    query: str | None,
    candidates: str,
    resume_id: int | None,
    no_compare: bool,
    json_lines: bool,
    top: int,
    text_prior: str,
    pace: str | None,
) -> None:
    """Clarify QUERY in domain NAME in the terminal: questions, shortlist, comparisons, answer.

    Every answer is saved as it is given; quit at any time and continue with --resume ID.
    """
    from assistant.app.session import Session, SessionConfig

    registry = ModelRegistry(name, text_prior=text_prior)
    if resume_id is not None:
        session = Session.resume(registry, resume_id)
    elif query:
        config = SessionConfig(candidates=candidates, shortlist_size=top, pace=pace)
        session = Session.start(registry, query, config)
    else:
        raise ConfigError('give a query (clarify ask NAME "your question") or --resume ID')

    def emit(event: dict) -> None:
        click.echo(json.dumps(event) if json_lines else _render(event))

    emit({"type": "session", "id": session.id, "query": session.query})
    shown_shortlist = False
    while session.phase not in ("finished", "failed") and not (session.phase == "out_of_scope" and session.handed_off):
        if session.phase == "out_of_scope":
            view = session.nothing_fits
            emit(
                {
                    "type": "out_of_scope",
                    "message": view.message,
                    "probability": round(view.probability, 4),
                    "help_topics": list(view.help_topics),
                    "did_you_mean": [{"label": name, "probability": round(p, 4)} for name, p in view.did_you_mean],
                }
            )
        elif session.phase == "clarifying":
            view = session.question
            emit(
                {
                    "type": "question",
                    "turn": view.turn,
                    "text": view.text,
                    "options": list(view.options),
                    "not_visible": view.allows_not_visible,
                }
            )
        elif not shown_shortlist or (no_compare and session.phase == "comparing"):
            items = [_item(i + 1, it) for i, it in enumerate(session.posterior(top))]
            emit(
                {
                    "type": "shortlist",
                    "turns": session.conversation.turn,
                    "items": items,
                    "why": session.stop_explanation,
                }
            )
            shown_shortlist = True
            if no_compare:
                emit({"type": "end", "reason": f"stopped at the shortlist; continue with --resume {session.id}"})
                return
            continue
        elif session.phase == "comparing":
            left, right = session.pair
            emit(
                {"type": "pair", "left": _candidate(left), "right": _candidate(right), "confidence": session.confidence}
            )
        else:  # decided
            proposal = session.proposed
            emit({"type": "proposal", "label": proposal.label_name, "key": proposal.label_key, "text": proposal.text})
        line = sys.stdin.readline()
        if not line or line.strip().lower() == "q":
            emit({"type": "end", "reason": f"saved; continue with: clarify ask {name} --resume {session.id}"})
            return
        token = line.strip()
        if token.lower() == "a" and not json_lines:  # add words: ask for them on the next line
            click.echo("   Words to add (what else can you say about it?):")
            token = "a " + sys.stdin.readline().strip()
        elif token.lower() == "h" and not json_lines and session.phase == "out_of_scope":
            click.echo("   A note for the person who will answer it (optional):")
            token = "h " + sys.stdin.readline().strip()
        try:
            _act(session, token)
            if session.phase == "clarifying":
                shown_shortlist = False
        except ClarifyError as exc:  # before ValueError: a ConfigError is one too, with a better message
            emit({"type": "error", "message": str(exc)})
        except (ValueError, IndexError):
            view = session.question
            clarify = clarify_keys(view is not None and view.allows_not_visible)
            keys = {"clarifying": clarify, "comparing": COMPARE_KEYS, "out_of_scope": NOTHING_FITS_KEYS}.get(
                session.phase, DECIDE_KEYS
            )
            emit({"type": "error", "message": f"unknown answer {line.strip()!r}: {keys}"})
    final = session.final
    emit(
        {
            "type": "final",
            "session": session.id,
            "status": session.status,
            "label": final.label_name if final else None,
            "key": final.label_key if final else None,
            "text": final.text if final else None,
            "questions": session.conversation.turn,
            "comparisons": session.comparisons,
        }
    )


def _act(session, line: str) -> None:
    """Apply one terminal answer line to the session (raises ValueError for an unknown token). "a WORDS"
    adds words to the query in any phase before the comparisons."""
    token = line.lower()
    if token == "a" or token.startswith("a "):
        session.add_words(line[1:].strip())
    elif token == "u":
        session.undo()
    elif session.phase == "out_of_scope":
        if token == "c":
            session.show_closest()
        elif token == "h" or token.startswith("h "):
            session.hand_off(line[1:].strip())
        else:
            raise ValueError(token)
    elif session.phase == "clarifying":
        if token == "s":
            session.answer(kind="not_sure")
        elif token == "v":
            session.answer(kind="not_visible")
        elif token == "d":
            session.skip_to_shortlist()
        else:
            kind = "probably" if token.startswith("p") else "option"
            session.answer(int(token.removeprefix("p")) - 1, kind)
    elif session.phase == "comparing":
        choices = {"1": "left", "2": "right", "t": "tie"}
        if token in choices:
            session.prefer(choices[token])
        elif token == "m":
            session.ask_more()
        elif token == "d":
            session.accept()
        else:
            raise ValueError(token)
    elif token in ("y", "d"):
        session.accept()
    elif token == "n":
        session.reject("rejected in the terminal")
    else:
        raise ValueError(token)


def _item(rank: int, item) -> dict:
    return {"rank": rank, "label": item.label.name, "key": item.label.key, "probability": round(item.probability, 4)}


def _candidate(candidate) -> dict:
    return {"id": candidate.id, "title": candidate.title, "text": candidate.text}


def _short(text: str, width: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _render(event: dict) -> str:
    kind = event["type"]
    if kind == "session":
        return f"Session {event['id']}: {event['query']}"
    if kind == "question":
        options = "  ".join(f"[{i + 1}] {o}" for i, o in enumerate(event["options"]))
        return f"\nQ{event['turn']}: {event['text']}\n   {options}   ({clarify_keys(event.get('not_visible', False))})"
    if kind == "shortlist":
        lines = [f"\nShortlist after {event['turns']} question(s):"]
        if event.get("why"):
            lines.append(f"  ({event['why']})")
        lines += [f"  {it['rank']}. {it['label']}  ({it['probability']:.1%})" for it in event["items"]]
        return "\n".join(lines)
    if kind == "pair":
        left, right = event["left"], event["right"]
        return (
            f"\nWhich is better? (confidence in the current best: {event['confidence']:.0%})\n"
            f"  [1] {left['title']}: {_short(left['text'])}\n  [2] {right['title']}: {_short(right['text'])}\n"
            f"   ({COMPARE_KEYS})"
        )
    if kind == "proposal":
        return f"\nAnswer: {event['label']}\n  {_short(event['text'], 600)}\n   ({DECIDE_KEYS})"
    if kind == "out_of_scope":
        lines = [f"\n{event['message']}"]
        if event["help_topics"]:
            lines.append("  I can help with: " + ", ".join(event["help_topics"]))
        if event["did_you_mean"]:
            lines.append(
                "  Did you mean: " + "; ".join(f"{d['label']} ({d['probability']:.0%})" for d in event["did_you_mean"])
            )
        lines.append(f"   ({NOTHING_FITS_KEYS})")
        return "\n".join(lines)
    if kind == "final":
        if event["status"] == "out_of_scope":
            return (
                f"\nNothing here fits; handed on to a person (logged as out of scope, session {event.get('session')})."
            )
        if event["status"] == "failed":
            return "\nNo answer accepted (logged as a failure)."
        return f"\nFinal answer: {event['label']} ({event['questions']} questions, {event['comparisons']} comparisons)"
    if kind == "error":
        return f"   {event['message']}"
    return f"({event.get('reason', kind)})"
