"""`clarify ask NAME QUERY`: a conversation in the terminal (questions, shortlist, comparisons, an answer), or
JSON events with one answer token per input line (--json-lines)."""

from __future__ import annotations

import json
import sys

import click

from assistant.app.session.numbers import percent
from assistant.app.session.phases import Phase
from assistant.cli.common import CANDIDATES_OPTION, PACE_OPTION, PRIOR_OPTION, SESSION_ID, echo, run_with_progress
from assistant.errors import ClarifyError, ConfigError


def stale_note(name: str, stale: list[str]) -> str:
    """The one line `ask` gives when it answers with models older than the domain's data."""
    what = "its text encoder and policies" if "encoder" in stale else "its policies"
    return (
        f"{name} changed since {what} were trained: answering with them as they are; "
        f"`clarify prepare {name}` brings them up to date"
    )


def clarify_keys(not_visible: bool = False) -> str:
    """The answer keys of a question: "v = not visible" only where the question allows it (birds' parts)."""
    extra = ", v = not visible" if not_visible else ""
    return (
        f"option number, p<N> = probably <N>, s = not sure{extra}, a = add words, u = undo, "
        "d = skip to the answers, q = quit"
    )


CLARIFY_KEYS = clarify_keys(True)
COMPARE_KEYS = (
    "1 = left is better, 2 = right is better, t = equally good, n = neither is relevant, a = add words, u = undo, "
    "m = ask me more, d = done (propose the current best), q = quit"
)
DECIDE_KEYS = "y = accept, n [why] = reject, u = undo, q = quit"
BEST_ANSWER_KEYS = "y = yes, n [why] = no (then its other answers, or more questions), u = undo, q = quit"
REJECTED_KEYS = "m = more questions without it, h = hand it on to a person, g = give up, u = undo, q = quit"
TAKE_ANOTHER_KEY = "<number> = take that answer instead, "  # only where another compared answer is on offer
NOTHING_FITS_KEYS = (
    "a = say it differently, c = show the closest answers anyway, h = hand it on to a person, u = undo, q = quit"
)


@click.command("ask")
@click.argument("name")
@click.argument("query", required=False)
@CANDIDATES_OPTION
@click.option("--resume", "resume_id", type=SESSION_ID, help="Continue the saved session with this id.")
@click.option("--no-compare", is_flag=True, help="Stop at the shortlist instead of comparing candidates.")
@click.option("--json-lines", is_flag=True, help="Machine mode: JSON events out, one answer token per input line.")
@click.option("--top", type=click.IntRange(1, 100), default=5, show_default=True, help="Length of the shortlist shown.")
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
    from assistant.app.desk.domains import ready_registry
    from assistant.app.session.session import Session, SessionConfig, check_session_exists, open_knowledge_base

    if resume_id is None and query is None:
        raise ConfigError('give a query (clarify ask NAME "your question") or --resume ID')
    if resume_id is not None:
        check_session_exists(name, resume_id)
    if hasattr(sys.stdin, "reconfigure"):  # a stray non-UTF-8 byte is an unknown answer, not a crash
        sys.stdin.reconfigure(errors="replace")
    # a fresh home: build the domain and install (or train) its models first, with progress on stderr
    registry = run_with_progress(ready_registry(name, candidates, text_prior), f"preparing {name}")
    stale = registry.stale((candidates,)) if hasattr(registry, "stale") else []  # a test's stand-in: none
    if stale:  # after an import or an update: the models it has answer now, `prepare` trains (issue 41)
        echo(f"note: {stale_note(name, stale)}", err=True)
    kb = open_knowledge_base(name)
    # another program (an import) may hold the write lock: each answer then waits for it, and says so
    kb.on_busy = lambda message: echo(f"note: {message}", err=True)
    if resume_id is not None:
        session = Session.resume(registry, resume_id, kb)
    else:
        assert query is not None  # checked above: without --resume a query is required
        config = SessionConfig(candidates=candidates, shortlist_size=top, pace=pace)
        session = Session.start(registry, query, config, kb)

    def emit(event: dict) -> None:
        echo(json.dumps(event) if json_lines else _render(event))

    emit({"type": "session", "id": session.id, "query": session.query})
    damaged_cache = getattr(registry.text_encoder, "note", "")  # a test's stand-in encoder caches nothing
    if damaged_cache:  # the answers' vectors on disk were damaged: read as empty, rebuilt
        emit({"type": "note", "message": damaged_cache})
    for repair in session.repaired:  # a log two programs once wrote at the same time
        emit({"type": "note", "message": f"{repair} (written by two programs at once)"})
    _converse(session, name, no_compare, json_lines, top, emit)


def _converse(session, name: str, no_compare: bool, json_lines: bool, top: int, emit) -> None:
    """Show the session and apply the person's answers until it ends ("final") or they quit. Every event is
    the session's one view (``assistant.app.session.view``, docs/json-lines.md)."""
    from assistant.app.session.view import session_view

    shown_shortlist = False
    while not (view := session_view(session, top)).over:
        stopped = session.phase not in (Phase.CLARIFYING, Phase.OUT_OF_SCOPE)
        if stopped and (not shown_shortlist or (no_compare and session.phase == Phase.COMPARING)):
            emit(view.shortlist_dict())
            shown_shortlist = True
            if no_compare:
                emit({"type": "end", "reason": f"stopped at the shortlist; continue with --resume {session.id}"})
                return
            continue
        emit(view.to_dict())
        line = sys.stdin.readline()
        if not line or line.strip().lower() == "q":
            emit({"type": "end", "reason": f"saved; continue with: clarify ask {name} --resume {session.id}"})
            return
        if line.strip().lower() == "s" and session.phase == Phase.DECIDED:
            _summarize_answers(view, name, json_lines, emit)
            continue
        _answer_line(session, line, json_lines, emit)
        if session.phase == Phase.CLARIFYING:
            shown_shortlist = False
    emit(view.to_dict())  # the end: "final"


def _answer_line(session, line: str, json_lines: bool, emit) -> None:
    """Apply one line the person typed; an unknown answer is an error event with the keys of the phase."""
    token = line.strip()
    if token.lower() == "a" and not json_lines:  # add words: ask for them on the next line
        echo("   Words to add (what else can you say about it?):")
        token = "a " + sys.stdin.readline().strip()
    elif token.lower() == "h" and not json_lines and session.phase in (Phase.OUT_OF_SCOPE, Phase.REJECTED):
        echo("   A note for the person who will answer it (optional):")
        token = "h " + sys.stdin.readline().strip()
    try:
        _act(session, token)
    except ClarifyError as exc:  # before ValueError: a ConfigError is one too, with a better message
        emit({"type": "error", "message": str(exc)})
    except (ValueError, IndexError):
        waiting = session.question
        clarify = clarify_keys(waiting is not None and waiting.allows_not_visible)
        keys = {
            Phase.CLARIFYING: clarify,
            Phase.COMPARING: COMPARE_KEYS,
            Phase.REJECTED: _rejected_keys(bool(session.alternatives)),
            Phase.OUT_OF_SCOPE: NOTHING_FITS_KEYS,
        }.get(session.phase, DECIDE_KEYS)
        emit({"type": "error", "message": f"unknown answer {line.strip()!r}: {keys}"})


def _summarize_answers(view, domain: str, json_lines: bool, emit) -> None:
    """`s` at the proposal: compare summaries of the proposed FAQ's answers (query-focused), saved as a summary
    session of the same domain; then back to the proposal."""
    from assistant.app.research.summaries import SummaryLog, answers_topic_of, open_session_job
    from assistant.cli.summarize import compare_loop

    found = view.answers_to_summarize
    if found is None:
        emit({"type": "error", "message": "this answer has a single text: there is nothing to summarise"})
        return
    if json_lines:
        emit({"type": "error", "message": "summaries need the terminal: run `clarify ask` without --json-lines"})
        return
    topic = answers_topic_of(found.question, found.query, list(found.answers))
    summary = run_with_progress(open_session_job(topic), "preparing candidate summaries")
    log = SummaryLog.start(domain, summary)
    echo(f"Summarizing the {len(found.answers)} answers of {found.question!r} (summary session {log.id})")
    compare_loop(summary)
    echo(f"saved as summary session {log.id}; back to the answer")


def _act(session, line: str) -> None:
    """Apply one terminal answer to the session (raises ValueError for an unknown one). "a WORDS" adds words
    to the query in any phase before the comparisons."""
    from assistant.app.session.session import Phase

    token, _, rest = line.partition(" ")
    token = token.lower()
    if token == "a":
        session.add_words(rest.strip())
    elif token == "u":
        session.undo()
    elif session.phase == Phase.OUT_OF_SCOPE:
        if token == "c":
            session.show_closest()
        elif token == "h":
            session.hand_off(rest.strip())
        else:
            raise ValueError(token)
    elif session.phase == Phase.CLARIFYING:
        if token == "s":
            session.answer(kind="not_sure")
        elif token == "v":
            session.answer(kind="not_visible")
        elif token == "d":
            session.skip_to_shortlist()
        else:
            kind = "probably" if token.startswith("p") else "option"
            session.answer(int(token.removeprefix("p")) - 1, kind)
    elif session.phase == Phase.COMPARING:
        choices = {"1": "left", "2": "right", "t": "tie", "n": "neither"}
        if token in choices:
            session.prefer(choices[token])
        elif token == "m":
            session.ask_more()
        elif token == "d":
            session.done()
        else:
            raise ValueError(token)
    elif session.phase == Phase.REJECTED:
        if token == "m":
            session.ask_more()
        elif token == "h":
            session.hand_off(rest.strip())
        elif token == "g":
            session.give_up()
        else:
            session.choose(session.alternatives[int(token) - 1].id)
    elif token == "y":
        session.accept()
    elif token == "n":
        session.reject(rest.strip())
    else:
        raise ValueError(token)


def _short(text: str, width: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _render(event: dict) -> str:
    from assistant.app.session.session import SessionStatus

    kind = event["type"]
    if kind == "session":
        return f"Session {event['id']}: {event['query']}"
    if kind == "question":
        options = "  ".join(f"[{i + 1}] {o}" for i, o in enumerate(event["options"]))
        return f"\nQ{event['turn']}: {event['text']}\n   {options}   ({clarify_keys(event.get('not_visible', False))})"
    if kind == "shortlist":
        turns = event["turns"]
        lines = [f"\nShortlist after {turns} question{'' if turns == 1 else 's'}:"]
        if event.get("why"):
            lines.append(f"  ({event['why']})")
        if event.get("promise"):
            lines.append(f"  ({event['promise']})")
        lines += [f"  {it['rank']}. {it['label']}  ({percent(it['probability'])})" for it in event["items"]]
        if event.get("nothing_fits") is not None:
            lines.append(f"  (nothing here fits: {percent(event['nothing_fits'])})")
        return "\n".join(lines)
    if kind == "pair":
        return _render_pair(event)
    if kind == "proposal":
        return _render_proposal(event)
    if kind == "rejected":
        others = event["alternatives"]
        take = "Take another of the compared answers, ask" if others else "Ask"
        lines = [f"\nRejected. {take} more questions, hand it on to a person, or give up:"]
        lines += [f"  [{i + 1}] {c['title']}: {_short(c['text'], 160)}" for i, c in enumerate(others)]
        return "\n".join([*lines, f"   ({_rejected_keys(bool(others))})"])
    if kind == "out_of_scope":
        lines = [f"\n{event['message']}"]
        if event["help_topics"]:
            lines.append("  I can help with: " + ", ".join(event["help_topics"]))
        if event["did_you_mean"]:
            lines.append(
                "  Did you mean: "
                + "; ".join(f"{d['label']} ({percent(d['probability'])})" for d in event["did_you_mean"])
            )
        lines.append(f"   ({NOTHING_FITS_KEYS})")
        return "\n".join(lines)
    if kind == "final":
        if event["status"] == SessionStatus.OUT_OF_SCOPE:
            return (
                f"\nNothing here fits; handed on to a person (logged as out of scope, session {event.get('session')})."
            )
        if event["status"] == SessionStatus.FAILED and event.get("handed_off"):
            return f"\nNo answer accepted; handed on to a person (session {event.get('session')})."
        if event["status"] == SessionStatus.FAILED:
            return "\nNo answer accepted (logged as a failure)."
        q, c = event["questions"], event["comparisons"]
        counts = f"{q} question{'' if q == 1 else 's'}, {c} comparison{'' if c == 1 else 's'}"
        return f"\nFinal answer: {event['label']} ({counts})"
    if kind in ("error", "note"):
        return f"   {event['message']}"
    return f"({event.get('reason', kind)})"


def _rejected_keys(others: bool) -> str:
    """The keys after a rejection: a number takes another compared answer only where there is one."""
    return (TAKE_ANOTHER_KEY if others else "") + REJECTED_KEYS


def _render_pair(event: dict) -> str:
    left, right = event["left"], event["right"]
    sure = (
        f"Clarify is {percent(event['chance'])} sure its current best is the right answer"
        if event.get("chance") is not None
        else ""
    )
    if event.get("best_of_compared") is not None:
        sure += f"; best of the compared: {percent(event['best_of_compared'])} chance"
    return (
        f"\nWhich answer is better? ({sure})\n"
        f"  [1] {left['title']}: {_short(left['text'])}\n  [2] {right['title']}: {_short(right['text'])}\n"
        f"   ({COMPARE_KEYS})"
    )


def _render_proposal(event: dict) -> str:
    several = event.get("answers", 1) > 1
    summarize = f", s = summarize these {event['answers']} answers" if several else ""
    which = f"answer {event['answer_number']} of {event['answers']}; " if event.get("answer_number") else ""
    sure = f"{which}{percent(event['chance'])} sure this is the right answer"
    if event.get("best_of_compared") is not None:
        sure += f"; best of the compared: {percent(event['best_of_compared'])} chance"
    if event.get("best_answer") or event.get("best_of_compared") is None:  # not chosen by comparisons
        return f"\n{event['label']} ({sure})\n  {_short(event['text'], 600)}\nDid this answer it? ({BEST_ANSWER_KEYS}{summarize})"
    return (
        f"\nProposed answer: {event['label']} ({sure})\n  {_short(event['text'], 600)}\n"
        f"Accept this answer? ({DECIDE_KEYS}{summarize})"
    )
