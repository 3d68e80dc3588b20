"""`clarify prepare | train encoder | train policy | evaluate | ask`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from assistant.agent import CANDIDATE_SETTINGS, VARIANTS, AgentFactory, prepare
from assistant.commands.common import run_with_progress
from assistant.errors import ClarifyError, ConfigError
from assistant.evaluation import SYSTEMS, evaluate
from assistant.simulator import episodes_from_file, sample_episodes
from assistant.training import PolicyConfig

CANDIDATES_OPTION = click.option(
    "--candidates",
    type=click.Choice(CANDIDATE_SETTINGS),
    default="all",
    show_default=True,
    help="Choose among all labels, or only labels that have training queries ('captioned').",
)


@click.command("prepare")
@click.argument("name")
@click.option("--seed", default=0, show_default=True, help="Seed for training.")
def prepare_command(name: str, seed: int) -> None:
    """Build domain NAME if needed and train whatever model is missing (cached in CLARIFY_HOME)."""
    trained = run_with_progress(prepare(name, seed=seed), f"preparing {name}")
    click.echo(f"{name} is ready" + (f" (trained: {', '.join(trained)})" if trained else " (nothing to train)"))


@click.group("train")
def train() -> None:
    """Train the text encoder or the stop policy of a domain."""


@train.command("encoder")
@click.argument("name")
@click.option("--seed", default=0, show_default=True)
def train_encoder_command(name: str, seed: int) -> None:
    """Train the prior's text encoder on domain NAME (replaces the cached one)."""
    from assistant.agent import _train_encoder

    factory = AgentFactory(name)
    result = run_with_progress(_train_encoder(factory.protocol, seed), f"training the {name} encoder")
    metrics = getattr(result, "metrics", None)
    click.echo(f"trained the {name} encoder" + (f": {json.dumps(metrics)}" if metrics else ""))
    click.echo(f"retrain the policies now: clarify train policy {name}")


@train.command("policy")
@click.argument("name")
@CANDIDATES_OPTION
@click.option("--variant", type=click.Choice(VARIANTS), default=None, help="Only this variant (default: both).")
@click.option("--iterations", default=PolicyConfig.iterations, show_default=True)
@click.option("--turn-reward", default=PolicyConfig.turn_reward, show_default=True, help="r_a: reward per question.")
@click.option("--seed", default=0, show_default=True)
def train_policy_command(
    name: str, candidates: str, variant: str | None, iterations: int, turn_reward: float, seed: int
) -> None:
    """Train the STOP/ASK policy of domain NAME with REINFORCE against the simulator."""
    factory = AgentFactory(name)
    config = PolicyConfig(iterations=iterations, turn_reward=turn_reward)
    for v in [variant] if variant else list(VARIANTS):
        result = run_with_progress(factory.train_policy(candidates, v, config, seed), f"policy {candidates}/{v}")
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
) -> None:
    """Run every system on the same simulated episodes of domain NAME (IC Table 1)."""
    chosen = tuple(s.strip() for s in systems.split(",") if s.strip())
    factory = AgentFactory(name)
    setup = factory.evaluation_setup(candidates)
    agent = factory.protocol.agent_domain
    if queries_file:
        test = episodes_from_file(agent, queries_file, episodes, seed)
        outside = [e for e in test if e.target not in set(setup.candidates.tolist())]
        if outside:
            raise ConfigError(
                f"{queries_file}: label {agent.labels[outside[0].target].name!r} is not among the {candidates} "
                "candidates; use --candidates all"
            )
    else:
        test = sample_episodes(agent, episodes, seed, "test", setup.candidates)
    dev = sample_episodes(agent, 500, seed + 7919, "dev", setup.candidates)
    report = run_with_progress(evaluate(setup, test, dev, max_turns, chosen), f"evaluating {name}")
    report.meta.update({"seed": seed, "candidate_setting": candidates, "queries_file": queries_file})
    click.echo(report.to_markdown())
    click.echo(
        f"({report.meta['episodes']} episodes, {report.meta['candidates']} candidates, {report.meta['seconds']} s)"
    )
    if json_file:
        report.to_json(json_file)
    if csv_file:
        Path(csv_file).write_text(report.to_csv())
    if plot_file:
        report.plot(plot_file)


# ---- ask -------------------------------------------------------------------------------------------------

ASK_HELP = "answer with the option number, p<N> = probably, s = not sure, v = not visible, u = undo, d = done, q = quit"


@click.command("ask")
@click.argument("name")
@click.argument("query")
@CANDIDATES_OPTION
@click.option("--json-lines", is_flag=True, help="Machine mode: JSON lines out, one answer token per input line.")
@click.option("--top", default=5, show_default=True, help="Length of the final shortlist.")
def ask_command(name: str, query: str, candidates: str, json_lines: bool, top: int) -> None:
    """Clarify QUERY in domain NAME by asking questions in the terminal.

    Answers: the option number (1, 2, ...), p<N> for "probably <option N>", s (not sure), v (not visible,
    birds), u (undo), d (done: show the shortlist now), q (quit).
    """
    conversation = AgentFactory(name).clarifier(candidates).start(query)

    def emit(event: dict) -> None:
        click.echo(json.dumps(event) if json_lines else _render(event))

    while True:
        question = conversation.next_question()
        if question is None:
            break
        q = conversation.question(question)
        emit(
            {
                "type": "question",
                "turn": conversation.turn + 1,
                "index": question,
                "text": q.text,
                "options": list(q.options),
            }
        )
        line = sys.stdin.readline()
        if not line:
            emit({"type": "end", "reason": "input closed"})
            return
        token = line.strip().lower()
        try:
            if token == "q":
                emit({"type": "end", "reason": "quit"})
                return
            if token == "d":
                conversation.force_stop()
                continue
            if token == "u":
                conversation.undo()
                emit({"type": "undone", "turn": conversation.turn})
                continue
            if token == "s":
                conversation.answer(question, kind="not_sure")
            elif token == "v":
                conversation.answer(question, kind="not_visible")
            else:
                kind = "probably" if token.startswith("p") else "option"
                number = int(token.removeprefix("p"))
                if not 1 <= number <= len(q.options):
                    raise ValueError
                conversation.answer(question, number - 1, kind)
        except ValueError:
            emit({"type": "error", "message": f"unknown answer {token!r}: {ASK_HELP}"})
        except ClarifyError as exc:
            emit({"type": "error", "message": str(exc)})
    items = [
        {"rank": i + 1, "label": item.label.name, "key": item.label.key, "probability": round(item.probability, 4)}
        for i, item in enumerate(conversation.shortlist(top))
    ]
    emit({"type": "shortlist", "turns": conversation.turn, "items": items})


def _render(event: dict) -> str:
    kind = event["type"]
    if kind == "question":
        options = "  ".join(f"[{i + 1}] {o}" for i, o in enumerate(event["options"]))
        return f"\nQ{event['turn']}: {event['text']}\n   {options}   (s not sure, u undo, d done, q quit)"
    if kind == "shortlist":
        lines = [f"\nShortlist after {event['turns']} question(s):"]
        lines += [f"  {it['rank']}. {it['label']}  ({it['probability']:.1%})" for it in event["items"]]
        return "\n".join(lines)
    if kind == "undone":
        return "   (last answer undone)"
    if kind == "error":
        return f"   {event['message']}"
    return f"({event.get('reason', kind)})"


def register(main: click.Group) -> None:
    for command in (prepare_command, train, evaluate_command, ask_command):
        main.add_command(command)
