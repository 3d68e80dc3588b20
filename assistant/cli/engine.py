"""`clarify prepare | train encoder | train policy | evaluate | ask`."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import click

from assistant.app.domains import prepare
from assistant.app.registry import CANDIDATE_SETTINGS, PACES, TEXT_PRIORS, VARIANTS, ModelRegistry
from assistant.app.research import (
    SYSTEMS,
    PolicyConfig,
    evaluate_job,
    noise_sweep_job,
    noise_table,
    pace_config,
    plot_accuracy_vs_turns,
    train_encoder_job,
    train_policy_job,
    tune_coverage_job,
)
from assistant.cli.common import EPISODES, SEED, FiniteFloat, check_output, run_with_progress
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


PACE_OPTION = click.option(
    "--pace",
    type=click.Choice(PACES),
    default=None,
    help="The cost of a question: 'quick' asks fewer, 'thorough' asks while a question still helps "
    "(default: the domain's).",
)


@click.command("prepare")
@click.argument("name")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed for training.")
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
@click.option("--seed", type=SEED, default=0, show_default=True)
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
@click.option("--iterations", type=click.IntRange(1, 1_000_000), default=PolicyConfig.iterations, show_default=True)
@click.option("--turn-reward", type=FiniteFloat(), default=None, help="r_a: reward per question (default: the pace's).")
@click.option("--turn-budget", type=FiniteFloat(0), default=None, help="Cap on mean questions (default: the pace's).")
@click.option(
    "--estimator",
    type=click.Choice(["expected", "reinforce"]),
    default=PolicyConfig.estimator,
    show_default=True,
    help="Policy gradient: exact expectation over STOP/ASK draws, or sampled REINFORCE.",
)
@click.option("--seed", type=SEED, default=0, show_default=True)
@PRIOR_OPTION
@PACE_OPTION
def train_policy_command(
    name: str,
    candidates: str,
    variant: str | None,
    iterations: int,
    turn_reward: float | None,
    turn_budget: float | None,
    estimator: str,
    seed: int,
    text_prior: str,
    pace: str | None,
) -> None:
    """Train the STOP/ASK policy of domain NAME with REINFORCE against the simulator, on dev episodes with
    vague first queries, and tune its compare-only-when-covered rule on dev."""
    registry = ModelRegistry(name, text_prior=text_prior)
    pace = pace or registry.default_pace
    config = pace_config(pace, PolicyConfig(iterations=iterations, estimator=estimator))
    if turn_reward is not None:
        config = replace(config, turn_reward=turn_reward)
    if turn_budget is not None:
        config = replace(config, turn_budget=turn_budget or None)
    for v in [variant] if variant else list(VARIANTS):
        job = train_policy_job(registry, candidates, v, config, seed, pace=pace)
        result = run_with_progress(job, f"policy {candidates}/{v}/{pace}")
        last = result.history[-1]
        click.echo(
            f"policy {candidates}/{v}/{pace}: lambda={result.lam:.3f} reward={last['reward']:.2f} "
            f"accuracy={last['accuracy']:.3f} turns={last['turns']:.2f} ({result.seconds:.1f} s)"
        )
        if v == "learned":
            tuned = run_with_progress(tune_coverage_job(registry, candidates, pace, seed=seed), "coverage rule")
            click.echo(f"compare only when the shortlist covers the answer with p >= {tuned['coverage']}")


@click.command("evaluate")
@click.argument("name")
@click.option("--episodes", type=EPISODES, default=2000, show_default=True, help="Simulated conversations per system.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Same seed, same numbers.")
@CANDIDATES_OPTION
@click.option(
    "--queries",
    default="crowd",
    show_default=True,
    help="First queries: 'crowd' (held-out crowd queries), 'vague' (vague versions of them) or a TSV file "
    "with columns label, query.",
)
@click.option("--systems", default=",".join(SYSTEMS), show_default=True, help="Comma-separated systems to run.")
@click.option("--max-turns", type=click.IntRange(1, 100), default=10, show_default=True)
@click.option("--json", "json_file", type=click.Path(dir_okay=False), help="Write the results as JSON.")
@click.option("--plot", "plot_file", type=click.Path(dir_okay=False), help="Write Acc@1 vs turns as PNG.")
@click.option("--csv", "csv_file", type=click.Path(dir_okay=False), help="Write the table as CSV.")
@click.option(
    "--user-noise",
    default="0",
    show_default=True,
    help="Share of the simulated user's answers flipped, 'not sure' or another person's; several levels "
    "(0,0.1,0.2) give Acc@1 against noise.",
)
@PRIOR_OPTION
@PACE_OPTION
def evaluate_command(
    name: str,
    episodes: int,
    seed: int,
    candidates: str,
    queries: str,
    systems: str,
    max_turns: int,
    json_file: str | None,
    plot_file: str | None,
    csv_file: str | None,
    user_noise: str,
    text_prior: str,
    pace: str | None,
) -> None:
    """Run every system on the same simulated episodes of domain NAME (IC Table 1)."""
    chosen = tuple(s.strip() for s in systems.split(",") if s.strip())
    unknown = [s for s in chosen if s not in SYSTEMS]
    if not chosen or unknown:
        what = f"unknown system(s) {', '.join(unknown)}" if unknown else f"no system in --systems {systems!r}"
        raise ConfigError(f"{what}: choose from {', '.join(SYSTEMS)}")
    for path, option in ((json_file, "--json"), (csv_file, "--csv"), (plot_file, "--plot")):
        check_output(path, option)
    levels = _noise_levels(user_noise)
    registry = ModelRegistry(name, text_prior=text_prior)
    args = {
        "candidates": candidates,
        "episodes": episodes,
        "seed": seed,
        "systems": chosen,
        "max_turns": max_turns,
        "queries": queries,
        "pace": pace,
    }
    if len(levels) > 1:
        reports = run_with_progress(noise_sweep_job(registry, levels, **args), f"evaluating {name}")
        click.echo(noise_table(reports))
        click.echo(f"(Acc@1 / mean questions; {reports[0].meta['episodes']} episodes per level)")
        if json_file:
            Path(json_file).write_text(json.dumps([r.to_dict() for r in reports], indent=2))
        return
    job = evaluate_job(registry, user_noise=levels[0], **args)
    report = run_with_progress(job, f"evaluating {name}")
    click.echo(report.to_markdown())
    meta = report.meta
    click.echo(
        f"({meta['episodes']} episodes, {meta['candidates']} candidates, {meta['queries']} queries, pace "
        f"{meta['pace']}, coverage rule {meta['coverage']}, {meta['user_noise']}, agent-user answer "
        f"correlation {meta['agent_user_correlation']:.3f}, Acc@1 0.9 after "
        f"{meta.get('questions_to_acc1_0.9')} questions, {meta['seconds']} s)"
    )
    if json_file:
        report.to_json(json_file)
    if csv_file:
        Path(csv_file).write_text(report.to_csv())
    if plot_file:
        plot_accuracy_vs_turns(report, plot_file)


def _noise_levels(text: str) -> list[float]:
    try:
        levels = [float(part) for part in text.split(",") if part.strip()]
    except ValueError as exc:
        raise ConfigError(
            f"--user-noise takes numbers in [0, 1) separated by commas (e.g. 0,0.1,0.2), got {text!r}"
        ) from exc
    if not levels or any(not 0 <= level < 1 for level in levels):
        raise ConfigError(f"--user-noise takes numbers in [0, 1) separated by commas (e.g. 0,0.1,0.2), got {text!r}")
    return levels


# ---- ask -------------------------------------------------------------------------------------------------


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


@click.command("ask")
@click.argument("name")
@click.argument("query", required=False)
@CANDIDATES_OPTION
@click.option("--resume", "resume_id", type=int, help="Continue the saved session with this id.")
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
    from assistant.app.session import Session, SessionConfig, open_session_log

    if resume_id is None and query is None:
        raise ConfigError('give a query (clarify ask NAME "your question") or --resume ID')
    if hasattr(sys.stdin, "reconfigure"):  # a stray non-UTF-8 byte is an unknown answer, not a crash
        sys.stdin.reconfigure(errors="replace")
    registry = ModelRegistry(name, text_prior=text_prior)
    kb = open_session_log(name)
    # another program (an import) may hold the write lock: each answer then waits for it, and says so
    kb.on_busy = lambda message: click.echo(f"note: {message}", err=True)
    if resume_id is not None:
        session = Session.resume(registry, resume_id, kb)
    else:
        config = SessionConfig(candidates=candidates, shortlist_size=top, pace=pace)
        session = Session.start(registry, query, config, kb)

    def emit(event: dict) -> None:
        click.echo(json.dumps(event) if json_lines else _render(event))

    emit({"type": "session", "id": session.id, "query": session.query})
    shown_shortlist = False
    while session.phase not in ("finished", "failed"):
        if session.phase == "clarifying":
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
        try:
            _act(session, token)
            if session.phase == "clarifying":
                shown_shortlist = False
        except ClarifyError as exc:  # before ValueError: a ConfigError is one too, with a better message
            emit({"type": "error", "message": str(exc)})
        except (ValueError, IndexError):
            view = session.question
            clarify = clarify_keys(view is not None and view.allows_not_visible)
            keys = {"clarifying": clarify, "comparing": COMPARE_KEYS}.get(session.phase, DECIDE_KEYS)
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
    """Apply one terminal answer line to the session (raises ValueError for an unknown token). "a WORDS"
    adds words to the query in any phase before the comparisons."""
    token = line.lower()
    if token == "a" or token.startswith("a "):
        session.add_words(line[1:].strip())
    elif token == "u":
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
    if kind == "final":
        if event["status"] == "failed":
            return "\nNo answer accepted (logged as a failure)."
        return f"\nFinal answer: {event['label']} ({event['questions']} questions, {event['comparisons']} comparisons)"
    if kind == "error":
        return f"   {event['message']}"
    return f"({event.get('reason', kind)})"


def register(main: click.Group) -> None:
    for command in (prepare_command, train, evaluate_command, ask_command):
        main.add_command(command)
