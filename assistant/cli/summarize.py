"""`clarify summarize FILES... [--question TEXT]` and its subcommands: compare candidate summaries in the
terminal (like `rank demo`), `evaluate` BO's summary-rating protocol on DUC, `rl` the RL summary table,
`rlqa` the RLQA protocol, `sessions` the saved sessions. Sessions are saved turn by turn in a domain's
session log (--domain, faq by default) and resumed with --resume ID."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import click

from assistant.cli.common import SEED, SESSION_ID, check_output, echo, run_with_progress, terminal_text, write_json_file
from assistant.errors import ConfigError
from assistant.paths import write_output_file

DOMAIN_OPTION = click.option(
    "--domain", default="faq", show_default=True, help="The (built) domain whose session log keeps the session."
)

if TYPE_CHECKING:
    from assistant.app.research.summaries import RLSettings


class _DefaultToCompare(click.Group):
    """`clarify summarize FILES...` means `clarify summarize compare FILES...`."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["compare", *args]
        return super().parse_args(ctx, args)


@click.group(cls=_DefaultToCompare)
def summarize() -> None:
    """Summarise documents by comparing candidate summaries (BO 5.3-5.4) or sentence by sentence (RLQA).

    \b
    clarify summarize docs/ --question "what happened?"     compare summaries of your .txt files
    clarify summarize --bundled multiling/M000               a bundled cluster (see --list)
    clarify summarize --resume 12                            continue saved session 12
    clarify summarize evaluate duc2001 --interactions 20     BO's protocol on DUC (evaluation data)
    """


def _show(label: str, text: str, width: int = 100) -> None:
    click.echo(click.style(terminal_text(label), bold=True))
    echo(textwrap.fill(text, width=width, initial_indent="  ", subsequent_indent="  "))


def rl_settings(episodes: int) -> RLSettings:
    """``episodes`` replays of candidates (the agent's own episodes are off: see assistant.summarization.rl)."""
    from assistant.app.research.summaries import RLSettings

    return RLSettings(replay_episodes=episodes)


def compare_loop(session, better: bool = True, episodes: int = 2000) -> None:
    """The terminal comparison loop (also `clarify ask`'s "summarize these answers"): 1 / 2 / t / u / q, then
    the best summary, "write a better one", and accepting one of them."""
    echo(f"{len(session.prepared.candidates)} candidate summaries of {len(session.prepared.table)} sentences")
    while (pair := session.next_pair()) is not None:
        left, right = pair
        echo(f"\ncomparison {session.comparisons + 1} (P(best is best) = {session.confidence:.2f})")
        _show(f"[1] ({session.kind_of(left)})", session.text(left))
        _show(f"[2] ({session.kind_of(right)})", session.text(right))
        choice = click.prompt("better? 1 / 2 / t(ie) / u(ndo) / q(uit)", type=click.Choice(["1", "2", "t", "u", "q"]))
        if choice == "q":
            break
        if choice == "u":
            if not session.undo():
                echo("nothing to undo")
            continue
        session.answer({"1": "left", "2": "right", "t": "tie"}[choice])
    echo(f"\nafter {session.comparisons} comparisons, P(best is best) = {session.confidence:.2f}")
    _show("Best summary:", session.best_text())
    if better and session.settings.acquisition != "unc" and session.rl_summary is None:
        text = run_with_progress(session.write_better(rl_settings(episodes)), "writing a better one")
        scores = session.rl_score()
        _show(f"Written for you (learned reward {scores[0]:.2f}; best candidate {scores[1]:.2f}):", text)
    options = ["b", "r", "q"] if session.rl_summary is not None else ["b", "q"]
    keys = "b = accept the best" + (", r = accept the written one" if "r" in options else "") + ", q = keep for later"
    choice = click.prompt(keys, type=click.Choice(options), default="q", show_default=False)
    if choice != "q":
        session.accept("rl" if choice == "r" else "best")
        echo("accepted")


def _sentence_mode(session) -> None:
    while not session.done:
        options = session.options()
        echo("\nnext sentence? (Enter = let Clarify choose, u = undo, q = stop)")
        for k, text in enumerate(session.option_texts(), 1):
            echo(textwrap.fill(text, 100, initial_indent=f" {k}. ", subsequent_indent="    "))
        choice = click.prompt("choice", default="", show_default=False)
        if choice == "q":
            break
        if choice == "u":
            session.undo()
            continue
        if choice and (not choice.isdigit() or not 1 <= int(choice) <= len(options)):
            echo(f"type 1-{len(options)}, Enter, u or q")
            continue
        session.choose(options[int(choice) - 1] if choice else None)
    _show("Summary:", session.summary_text())


@summarize.command("compare")
@click.argument("files", nargs=-1, type=click.Path())
@click.option("--question", default="", help="The question the summary must answer (query focus).")
@click.option("--bundled", default=None, help="A bundled cluster instead of files (opinosis/TOPIC, multiling/M000).")
@click.option("--list", "list_bundled", is_flag=True, help="List the bundled clusters and exit.")
@click.option(
    "--mode",
    type=click.Choice(["compare", "sentences"]),
    default="compare",
    show_default=True,
    help="compare: two summaries at a time; sentences: RLQA, pick among the top-5 next sentences.",
)
@click.option("--candidates", type=click.IntRange(2, 20000), default=300, show_default=True)
@click.option("--prior", type=click.Choice(["reaper", "minilm"]), default="reaper", show_default=True)
@click.option(
    "--budget", type=click.IntRange(1, 200), default=20, show_default=True, help="At most this many comparisons."
)
@click.option(
    "--threshold",
    type=click.FloatRange(0.5, 1.0),
    default=0.95,
    show_default=True,
    help="Stop comparing when P(best is best) exceeds it.",
)
@click.option("--better/--no-better", default=True, show_default=True, help="Write a better one with RL at the end.")
@click.option("--episodes", type=click.IntRange(1, 100000), default=2000, show_default=True)
@click.option(
    "--resume", type=SESSION_ID, default=None, help="Continue saved session ID (see `clarify summarize sessions`)."
)
@click.option("--seed", type=SEED, default=0, show_default=True)
@DOMAIN_OPTION
def compare_cmd(
    files,
    question,
    bundled,
    list_bundled,
    mode,
    candidates,
    prior,
    budget,
    threshold,
    better,
    episodes,
    resume,
    seed,
    domain,
) -> None:
    """Compare candidate summaries of FILES (text files or a folder of .txt): 1 / 2 pick, t tie, u undo, q quit."""
    from assistant.app.research.summaries import (
        SummaryLog,
        SummarySettings,
        bundled_clusters,
        load_topic,
        open_knowledge_base,
        open_session_job,
        resume_job,
        rlqa_session_job,
    )

    if list_bundled:
        for name in bundled_clusters():
            echo(name)
        return
    topic = None if resume is not None else load_topic(files, bundled, (), question)  # bad input fails first
    open_knowledge_base(domain).close()  # the log's domain must be built: say so before the long preparation
    if topic is None:
        session = run_with_progress(resume_job(domain, resume), "resuming")
        log = SummaryLog.attach(domain, resume, session)
    else:
        if mode == "sentences":
            session = run_with_progress(rlqa_session_job(topic), "preparing")
        else:
            settings = SummarySettings(
                candidates=candidates, prior=prior, budget=budget, threshold=threshold, seed=seed
            )
            session = run_with_progress(open_session_job(topic, settings), "preparing candidates")
        log = SummaryLog.start(domain, session)
    echo(f"session {log.id} (domain {domain})")
    if session.kind == "sentences":
        _sentence_mode(session)
    else:
        compare_loop(session, better, episodes)
    echo(f"saved as session {log.id}: clarify summarize --domain {domain} --resume {log.id}")


@summarize.command("sessions")
@DOMAIN_OPTION
def sessions_cmd(domain) -> None:
    """List the saved summary sessions of a domain."""
    from assistant.app.research.summaries import list_summary_sessions

    for s in list_summary_sessions(domain):
        echo(f"{s.id:>5}  {s.kind:<9} {s.status:<9} {s.updated_at}  {s.entries:>3} steps  {s.query[:70]}")


@summarize.command("evaluate")
@click.argument("dataset", type=click.Choice(["duc2001", "duc2002", "duc2004"]))
@click.option("--interactions", type=click.IntRange(0, 200), default=20, show_default=True)
@click.option(
    "--strategies",
    default="imp,tp,eig,unpa,unc,random",
    show_default=True,
    help="imp, tp, eig, unpa (GPPL); unc (Bradley-Terry); random (GPPL).",
)
@click.option("--prior", type=click.Choice(["reaper", "minilm"]), default="reaper", show_default=True)
@click.option("--features", type=click.Choice(["bigram", "minilm"]), default="bigram", show_default=True)
@click.option("--candidates", type=click.IntRange(10, 20000), default=10000, show_default=True)
@click.option("--max-topics", type=click.IntRange(1), default=None)
@click.option(
    "--checkpoints", default=None, help="Interaction counts to report, e.g. 0,10,20 (default 0,10,20,50,100)."
)
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True, help="Topics in parallel.")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None)
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None)
@click.option("--data-dir", type=click.Path(file_okay=False), default=None, help="Shared data folder (holds duc/).")
def evaluate_cmd(
    dataset,
    interactions,
    strategies,
    prior,
    features,
    candidates,
    max_topics,
    checkpoints,
    workers,
    seed,
    json_path,
    plot_path,
    data_dir,
) -> None:
    """BO's summary-rating protocol on DUC: NDCG@1% and Pearson r after 0..N simulated comparisons."""
    from assistant.app.research.summaries import plot_ndcg, summaries_rating_job, summaries_rating_table

    check_output(json_path, "--json", create_folders=True)
    check_output(plot_path, "--plot", create_folders=True)
    result = run_with_progress(
        summaries_rating_job(
            dataset,
            interactions,
            strategies.split(","),
            prior,
            features,
            seed,
            n_candidates=candidates,
            max_topics=max_topics,
            data_dir=data_dir,
            checkpoints=_numbers(checkpoints, "--checkpoints") if checkpoints else None,
            workers=workers,
        ),
        f"evaluating {dataset}",
    )
    echo(
        f"{dataset}: {result['topics']} topics, {result['users']} simulated users, prior {prior}, "
        f"features {features}, t = {result['t']} ({result['rouge']})"
    )
    echo(summaries_rating_table(result))
    w = result["wilcoxon"]
    echo(
        f"best at {w['interactions']}: {w['best']}; Wilcoxon p vs "
        + ", ".join(f"{e['row']} {e['ndcg1pct_p_value']:.3g}" for e in w["tests"])
    )
    _write(result, json_path)
    if plot_path:
        Path(plot_path).parent.mkdir(parents=True, exist_ok=True)
        echo(f"wrote {write_output_file(plot_path, lambda tmp: plot_ndcg(result, tmp), '--plot')}")


@summarize.command("rl")
@click.argument("dataset", type=click.Choice(["duc2001", "duc2002", "duc2004"]))
@click.option("--interactions", type=click.IntRange(0, 200), default=20, show_default=True)
@click.option("--episodes", type=click.IntRange(1, 100000), default=2000, show_default=True)
@click.option("--prior", type=click.Choice(["reaper", "minilm"]), default="reaper", show_default=True)
@click.option("--max-topics", type=click.IntRange(1), default=None)
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None)
@click.option("--data-dir", type=click.Path(file_okay=False), default=None)
def rl_cmd(dataset, interactions, episodes, prior, max_topics, seed, json_path, data_dir) -> None:
    """RL summaries on DUC (BO Table 6): ROUGE of the RL summary, the lead and the gold-reward upper bound."""
    from assistant.app.research.summaries import rl_summaries_job

    check_output(json_path, "--json", create_folders=True)
    result = run_with_progress(
        rl_summaries_job(
            dataset,
            interactions,
            prior,
            seed,
            max_topics=max_topics,
            data_dir=data_dir,
            rl_settings=rl_settings(episodes),
        ),
        f"RL on {dataset}",
    )
    _rows(result)
    _write(result, json_path)


@summarize.command("rlqa")
@click.option(
    "--train",
    "train_sets",
    default="duc2001,duc2002",
    show_default=True,
    help="Training data sets (comma-separated); their topics are taken in order.",
)
@click.option(
    "--test", "test_set", type=click.Choice(["duc2001", "duc2002", "duc2004"]), default="duc2004", show_default=True
)
@click.option("--sizes", default="10,20,30", show_default=True, help="Numbers of training topics.")
@click.option("--epochs", type=click.IntRange(1, 1000), default=30, show_default=True)
@click.option("--max-test", type=click.IntRange(1), default=None)
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None)
@click.option("--data-dir", type=click.Path(file_okay=False), default=None)
def rlqa_cmd(train_sets, test_set, sizes, epochs, max_test, seed, json_path, data_dir) -> None:
    """The RLQA protocol: train on TRAIN topics (with / without the simulated top-5 user), test on TEST."""
    from assistant.app.research.summaries import rlqa_evaluation_job

    check_output(json_path, "--json", create_folders=True)
    train = [s.strip() for s in train_sets.split(",") if s.strip()]
    if test_set in train:
        raise ConfigError("--train and --test must be different data sets")
    result = run_with_progress(
        rlqa_evaluation_job(train, test_set, _numbers(sizes, "--sizes"), epochs, seed, max_test, data_dir), "RLQA"
    )
    _rows(result)
    _write(result, json_path)


@summarize.command("rlqa-tune")
@click.option("--dataset", type=click.Choice(["duc2001", "duc2002", "duc2004"]), default="duc2001", show_default=True)
@click.option("--folds", type=click.IntRange(2, 100), default=4, show_default=True)
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None)
@click.option("--data-dir", type=click.Path(file_okay=False), default=None)
def rlqa_tune_cmd(dataset, folds, seed, json_path, data_dir) -> None:
    """How the RLQA learner's settings were chosen: cross-validation over DATASET's topics (ROUGE-2 recall)."""
    from assistant.app.research.summaries import rlqa_tuning_job

    check_output(json_path, "--json", create_folders=True)
    result = run_with_progress(rlqa_tuning_job(dataset, folds, seed=seed, data_dir=data_dir), "RLQA tuning")
    for row in result["rows"]:
        name = row.get("system") or ", ".join(f"{k} {row[k]:g}" for k in ("learning_rate", "trace_decay", "epochs"))
        user = f"  with the simulated user {row['rouge2_user']:.4f}" if "rouge2_user" in row else ""
        echo(f"{name}: ROUGE-2 {row['rouge2']:.4f}{user}")
    _write(result, json_path)


def _numbers(text: str, option: str) -> list[int]:
    try:
        return [int(s) for s in text.split(",") if s.strip()]
    except ValueError as exc:
        raise ConfigError(f"{option} must be comma-separated numbers, got {text!r}") from exc


def _rows(result: dict) -> None:
    echo(f"({result['rouge']})")
    for row in result["rows"]:
        cells = "  ".join(f"{k} {v:.4f}" for k, v in row.items() if isinstance(v, float))
        extra = f" [{row['train_topics']} training topics]" if "train_topics" in row else ""
        echo(f"{row['system']}{extra}: {cells}")


def _write(result: dict, json_path: str | None) -> None:
    if json_path:
        Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        echo(f"wrote {write_json_file(json_path, result)}")
