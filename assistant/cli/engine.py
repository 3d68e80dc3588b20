"""`clarify prepare | train encoder | train policy | evaluate | ask`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from assistant.app.domains import prepare
from assistant.app.registry import CANDIDATE_SETTINGS, TEXT_PRIORS, VARIANTS, ModelRegistry
from assistant.app.research import (
    SYSTEMS,
    PolicyConfig,
    evaluate_job,
    plot_accuracy_vs_turns,
    train_encoder_job,
    train_policy_job,
)
from assistant.cli.common import run_with_progress
from assistant.errors import ClarifyError, ConfigError

CANDIDATES_OPTION = click.option(
    "--candidates",
    type=click.Choice(CANDIDATE_SETTINGS),
    default="all",
    show_default=True,
    help="Choose among all labels, or only labels that have training queries ('captioned').",
)


PRIOR_OPTION = click.option(
    "--prior",
    "text_prior",
    type=click.Choice(TEXT_PRIORS),
    default="sru",
    show_default=True,
    help="Text prior: the trained SRU encoder, or pooled MiniLM (no training; its own policies).",
)


@click.command("prepare")
@click.argument("name")
@click.option("--seed", default=0, show_default=True, help="Seed for training.")
@PRIOR_OPTION
def prepare_command(name: str, seed: int, text_prior: str) -> None:
    """Build domain NAME if needed and train whatever model is missing (cached in CLARIFY_HOME)."""
    trained = run_with_progress(prepare(name, seed=seed, text_prior=text_prior), f"preparing {name}")
    click.echo(f"{name} is ready" + (f" (trained: {', '.join(trained)})" if trained else " (nothing to train)"))


@click.group("train")
def train() -> None:
    """Train the text encoder or the stop policy of a domain."""


@train.command("encoder")
@click.argument("name")
@click.option("--seed", default=0, show_default=True)
def train_encoder_command(name: str, seed: int) -> None:
    """Train the prior's text encoder on domain NAME (replaces the cached one)."""
    registry = ModelRegistry(name)
    result = run_with_progress(train_encoder_job(registry, seed), f"training the {name} encoder")
    metrics = getattr(result, "metrics", None)
    click.echo(f"trained the {name} encoder" + (f": {json.dumps(metrics)}" if metrics else ""))
    click.echo(f"retrain the policies now: clarify train policy {name}")


@train.command("policy")
@click.argument("name")
@CANDIDATES_OPTION
@click.option("--variant", type=click.Choice(VARIANTS), default=None, help="Only this variant (default: both).")
@click.option("--iterations", default=PolicyConfig.iterations, show_default=True)
@click.option("--turn-reward", default=PolicyConfig.turn_reward, show_default=True, help="r_a: reward per question.")
@click.option("--turn-budget", default=PolicyConfig.turn_budget, show_default=True, help="Cap on mean questions.")
@click.option(
    "--estimator",
    type=click.Choice(["expected", "reinforce"]),
    default=PolicyConfig.estimator,
    show_default=True,
    help="Policy gradient: exact expectation over STOP/ASK draws, or sampled REINFORCE.",
)
@click.option("--seed", default=0, show_default=True)
@PRIOR_OPTION
def train_policy_command(
    name: str,
    candidates: str,
    variant: str | None,
    iterations: int,
    turn_reward: float,
    turn_budget: float,
    estimator: str,
    seed: int,
    text_prior: str,
) -> None:
    """Train the STOP/ASK policy of domain NAME with REINFORCE against the simulator."""
    registry = ModelRegistry(name, text_prior=text_prior)
    config = PolicyConfig(
        iterations=iterations, turn_reward=turn_reward, turn_budget=turn_budget or None, estimator=estimator
    )
    for v in [variant] if variant else list(VARIANTS):
        result = run_with_progress(train_policy_job(registry, candidates, v, config, seed), f"policy {candidates}/{v}")
        last = result.history[-1]
        click.echo(
            f"policy {candidates}/{v}: lambda={result.lam:.3f} reward={last['reward']:.2f} "
            f"accuracy={last['accuracy']:.3f} turns={last['turns']:.2f} ({result.seconds:.1f} s)"
        )


@click.command("evaluate")
@click.argument("name")
@click.option("--episodes", default=2000, show_default=True, help="Simulated conversations per system.")
@click.option("--seed", default=0, show_default=True, help="Same seed, same numbers.")
@CANDIDATES_OPTION
@click.option("--queries", "queries_file", type=click.Path(dir_okay=False), help="TSV with columns label, query.")
@click.option("--systems", default=",".join(SYSTEMS), show_default=True, help="Comma-separated systems to run.")
@click.option("--max-turns", default=10, show_default=True)
@click.option("--json", "json_file", type=click.Path(dir_okay=False), help="Write the results as JSON.")
@click.option("--plot", "plot_file", type=click.Path(dir_okay=False), help="Write Acc@1 vs turns as PNG.")
@click.option("--csv", "csv_file", type=click.Path(dir_okay=False), help="Write the table as CSV.")
@PRIOR_OPTION
def evaluate_command(
    name: str,
    episodes: int,
    seed: int,
    candidates: str,
    queries_file: str | None,
    systems: str,
    max_turns: int,
    json_file: str | None,
    plot_file: str | None,
    csv_file: str | None,
    text_prior: str,
) -> None:
    """Run every system on the same simulated episodes of domain NAME (IC Table 1)."""
    chosen = tuple(s.strip() for s in systems.split(",") if s.strip())
    registry = ModelRegistry(name, text_prior=text_prior)
    job = evaluate_job(registry, candidates, episodes, seed, chosen, max_turns, queries_file=queries_file)
    report = run_with_progress(job, f"evaluating {name}")
    click.echo(report.to_markdown())
    click.echo(
        f"({report.meta['episodes']} episodes, {report.meta['candidates']} candidates, {report.meta['seconds']} s)"
    )
    if json_file:
        report.to_json(json_file)
    if csv_file:
        Path(csv_file).write_text(report.to_csv())
    if plot_file:
        plot_accuracy_vs_turns(report, plot_file)


# ---- ask -------------------------------------------------------------------------------------------------

CLARIFY_KEYS = "option number, p<N> = probably <N>, s = not sure, v = not visible, u = undo, d = done, q = quit"
COMPARE_KEYS = (
    "1 = left is better, 2 = right is better, t = equally good, n = neither is relevant, u = undo, "
    "m = more questions, d = done (propose the current best), q = quit"
)
DECIDE_KEYS = "y = accept, n [why] = reject, u = undo, q = quit"
REJECTED_KEYS = "<number> = take that answer instead, m = more questions without it, g = give up, u = undo, q = quit"


@click.command("ask")
@click.argument("name")
@click.argument("query", required=False)
@CANDIDATES_OPTION
@click.option("--resume", "resume_id", type=int, help="Continue the saved session with this id.")
@click.option("--no-compare", is_flag=True, help="Stop at the shortlist instead of comparing candidates.")
@click.option("--json-lines", is_flag=True, help="Machine mode: JSON events out, one answer token per input line.")
@click.option("--top", default=5, show_default=True, help="Length of the shortlist shown.")
@PRIOR_OPTION
def ask_command(
    name: str,
    query: str | None,
    candidates: str,
    resume_id: int | None,
    no_compare: bool,
    json_lines: bool,
    top: int,
    text_prior: str,
) -> None:
    """Clarify QUERY in domain NAME in the terminal: questions, shortlist, comparisons, answer.

    Every answer is saved as it is given; quit at any time and continue with --resume ID.
    """
    from assistant.app.session import Session, SessionConfig

    registry = ModelRegistry(name, text_prior=text_prior)
    if resume_id is not None:
        session = Session.resume(registry, resume_id)
    elif query:
        session = Session.start(registry, query, SessionConfig(candidates=candidates, shortlist_size=top))
    else:
        raise ConfigError('give a query (clarify ask NAME "your question") or --resume ID')

    def emit(event: dict) -> None:
        click.echo(json.dumps(event) if json_lines else _render(event))

    emit({"type": "session", "id": session.id, "query": session.query})
    shown_shortlist = False
    while session.phase not in ("finished", "failed"):
        if session.phase == "clarifying":
            view = session.question
            emit({"type": "question", "turn": view.turn, "text": view.text, "options": list(view.options)})
        elif not shown_shortlist or (no_compare and session.phase == "comparing"):
            items = [_item(i + 1, it) for i, it in enumerate(session.posterior(top))]
            emit({"type": "shortlist", "turns": session.conversation.turn, "items": items})
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
        elif session.phase == "rejected":
            others = [_candidate(c) for c in session.alternatives]
            emit({"type": "rejected", "alternatives": others, "can_ask_more": session.can_ask_more})
        else:  # decided
            proposal = session.proposed
            emit(
                {
                    "type": "proposal",
                    "label": proposal.label_name,
                    "key": proposal.label_key,
                    "text": proposal.text,
                    "chance": proposal.chance,
                }
            )
        line = sys.stdin.readline()
        if not line or line.strip().lower() == "q":
            emit({"type": "end", "reason": f"saved; continue with: clarify ask {name} --resume {session.id}"})
            return
        try:
            _act(session, line.strip())
            if session.phase == "clarifying":
                shown_shortlist = False
        except ClarifyError as exc:  # before ValueError: a ConfigError is one too, with a better message
            emit({"type": "error", "message": str(exc)})
        except (ValueError, IndexError):
            keys = {"clarifying": CLARIFY_KEYS, "comparing": COMPARE_KEYS, "rejected": REJECTED_KEYS}.get(
                session.phase, DECIDE_KEYS
            )
            emit({"type": "error", "message": f"unknown answer {line.strip()!r}: {keys}"})
    final = session.final
    emit(
        {
            "type": "final",
            "status": session.status,
            "label": final.label_name if final else None,
            "key": final.label_key if final else None,
            "text": final.text if final else None,
            "questions": session.conversation.turn,
            "comparisons": session.comparisons,
        }
    )


def _act(session, line: str) -> None:
    """Apply one terminal answer to the session (raises ValueError for an unknown one)."""
    token, _, rest = line.partition(" ")
    token = token.lower()
    if token == "u":
        session.undo()
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
        choices = {"1": "left", "2": "right", "t": "tie", "n": "neither"}
        if token in choices:
            session.prefer(choices[token])
        elif token == "m":
            session.ask_more()
        elif token == "d":
            session.done()
        else:
            raise ValueError(token)
    elif session.phase == "rejected":
        if token == "m":
            session.ask_more()
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
        return f"\nQ{event['turn']}: {event['text']}\n   {options}   ({CLARIFY_KEYS})"
    if kind == "shortlist":
        lines = [f"\nShortlist after {event['turns']} question(s):"]
        lines += [f"  {it['rank']}. {it['label']}  ({it['probability']:.1%})" for it in event["items"]]
        return "\n".join(lines)
    if kind == "pair":
        left, right = event["left"], event["right"]
        return (
            f"\nWhich answer is better? (Clarify is {event['confidence']:.0%} sure of its current best)\n"
            f"  [1] {left['title']}: {_short(left['text'])}\n  [2] {right['title']}: {_short(right['text'])}\n"
            f"   ({COMPARE_KEYS})"
        )
    if kind == "proposal":
        chance = f" ({event['chance']:.0%} sure it is the best one)" if event.get("chance") is not None else ""
        return (
            f"\nProposed answer: {event['label']}{chance}\n  {_short(event['text'], 600)}\n"
            f"Accept this answer? ({DECIDE_KEYS})"
        )
    if kind == "rejected":
        lines = ["\nRejected. Take another of the compared answers, ask more questions, or give up:"]
        lines += [f"  [{i + 1}] {c['title']}: {_short(c['text'], 160)}" for i, c in enumerate(event["alternatives"])]
        return "\n".join([*lines, f"   ({REJECTED_KEYS})"])
    if kind == "final":
        if event["status"] == "failed":
            return "\nNo answer accepted (logged as a failure)."
        return f"\nFinal answer: {event['label']} ({event['questions']} questions, {event['comparisons']} comparisons)"
    if kind == "error":
        return f"   {event['message']}"
    return f"({event.get('reason', kind)})"


@click.command("sessions")
@click.argument("name")
@click.option("--status", type=click.Choice(["active", "finished", "failed"]), help="Only sessions with this status.")
@click.option("--json", "as_json", is_flag=True)
def sessions_command(name: str, status: str | None, as_json: bool) -> None:
    """List the saved sessions of domain NAME (resume one with `clarify ask NAME --resume ID`)."""
    from dataclasses import asdict

    from assistant.app.session import list_sessions

    rows = list_sessions(name, status)
    if as_json:
        click.echo(json.dumps([asdict(r) for r in rows], indent=2))
        return
    for r in rows:
        click.echo(
            f"{r.id:>5}  {r.status:<9} {r.updated_at}  {r.turns:>3} turns  {r.query[:60]}  -> {r.final_label or ''}"
        )


def register(main: click.Group) -> None:
    for command in (prepare_command, train, evaluate_command, ask_command, sessions_command):
        main.add_command(command)
