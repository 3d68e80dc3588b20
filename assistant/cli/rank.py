"""`clarify rank evaluate|demo`: the pairwise ranker on community-QA data."""

from __future__ import annotations

import textwrap
from pathlib import Path

import click

from assistant.app.choices import RANKING_DATASETS
from assistant.cli.common import (
    SEED,
    FiniteFloat,
    check_output,
    echo,
    run_with_progress,
    terminal_text,
    write_json_file,
)
from assistant.paths import write_output_file

_DATASET_HELP = "DATASET: " + "; ".join(f"{k} = {v}" for k, v in RANKING_DATASETS.items())


@click.group()
def rank() -> None:
    """Find the best answer by pairwise comparisons (GPPL / Bradley-Terry / MC-dropout ranker)."""


@rank.command("evaluate", epilog=_DATASET_HELP)
@click.argument("dataset")
@click.option(
    "--interactions", type=click.IntRange(0, 200), default=10, show_default=True, help="Comparisons per question."
)
@click.option(
    "--strategies",
    default="imp,tp,eig,unpa,unc,random",
    show_default=True,
    help="Comma-separated acquisitions: imp (= ei), tp, eig, unpa, unc, random.",
)
@click.option(
    "--models", default="gppl,bt,mcd,deep", show_default=True, help="Comma-separated: gppl, bt, mcd, deep, swag."
)
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seeds the simulated user and every strategy.")
@click.option(
    "--t", "noise", type=FiniteFloat(0), default=0.3, show_default=True, help="Noise level t of the simulated user."
)
@click.option(
    "--split",
    type=click.Choice(["test", "dev", "train", "all"]),
    default="test",
    show_default=True,
    help="Questions to use.",
)
@click.option("--max-questions", type=click.IntRange(1), default=None, help="Use at most this many questions.")
@click.option(
    "--candidates", type=click.IntRange(2, 1000), default=100, show_default=True, help="Candidates per question."
)
@click.option(
    "--json", "json_path", type=click.Path(dir_okay=False), default=None, help="Write the result as JSON here."
)
@click.option(
    "--plot", "plot_path", type=click.Path(dir_okay=False), default=None, help="Write a PNG of the curves here."
)
@click.option(
    "--data-dir", type=click.Path(file_okay=False), default=None, help="Shared data folder (semeval, wikiqa)."
)
def evaluate_cmd(
    dataset: str,
    interactions: int,
    strategies: str,
    models: str,
    seed: int,
    noise: float,
    split: str,
    max_questions: int | None,
    candidates: int,
    json_path: str | None,
    plot_path: str | None,
    data_dir: str | None,
) -> None:
    """Simulate users ranking DATASET's answers; report accuracy and NDCG@5 per model and strategy.

    Every compatible model x strategy runs on the same questions and the same simulated answers (UNC goes
    with bt and deep, the other strategies with gppl, mcd and swag). GPPL and BT take milliseconds per
    step; the deep rankers (mcd, deep, swag) 0.15-0.35 s, so a full run on beer takes several minutes.
    The first run on a data set computes ROUGE-L and MiniLM embeddings once and caches them.
    """
    from assistant.app.research.research import plot_ranking_curves, ranking_evaluation_job, ranking_table

    check_output(json_path, "--json", create_folders=True)
    check_output(plot_path, "--plot", create_folders=True)
    result = run_with_progress(
        ranking_evaluation_job(
            dataset,
            interactions=interactions,
            strategies=strategies,
            models=models,
            seed=seed,
            t=noise,
            split=split,
            data_dir=data_dir,
            candidates=candidates,
            max_questions=max_questions,
        ),
        f"evaluating {dataset}",
    )
    echo(
        f"{result['dataset']} {result['split']}: {result['questions']} questions, "
        f"{result['candidates_per_question']:.0f} candidates each, t = {result['t']}, seed {result['seed']} "
        "(accuracy and NDCG@5 in %, Wilcoxon p-values of the best row after the last interaction vs each row)"
    )
    echo(ranking_table(result))
    if json_path:
        Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        echo(f"wrote {write_json_file(json_path, result)}")
    if plot_path:
        Path(plot_path).parent.mkdir(parents=True, exist_ok=True)
        echo(f"wrote {write_output_file(plot_path, lambda tmp: plot_ranking_curves(result, tmp), '--plot')}")


def _show(label: str, text: str, width: int = 100, limit: int = 700) -> None:
    body = text if len(text) <= limit else text[:limit].rstrip() + " [...]"
    click.echo(click.style(terminal_text(label), bold=True))
    for paragraph in body.splitlines():
        echo(textwrap.fill(paragraph, width=width, initial_indent="  ", subsequent_indent="  "))


@rank.command("demo", epilog=_DATASET_HELP)
@click.argument("dataset")
@click.option("--question", type=int, default=None, help="Index of the test question (default: chosen by --seed).")
@click.option("--candidates", type=click.IntRange(2, 1000), default=20, show_default=True, help="Candidates to rank.")
@click.option("--model", type=click.Choice(["gppl", "bt"]), default="gppl", show_default=True)
@click.option(
    "--acquisition", type=click.Choice(["imp", "tp", "eig", "unpa", "unc", "random"]), default="imp", show_default=True
)
@click.option(
    "--budget", type=click.IntRange(1, 100), default=10, show_default=True, help="At most this many comparisons."
)
@click.option(
    "--threshold", type=FiniteFloat(0, 1), default=0.9, show_default=True, help="Stop when P(best is best) exceeds it."
)
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option(
    "--data-dir", type=click.Path(file_okay=False), default=None, help="Shared data folder (semeval, wikiqa)."
)
def demo_cmd(
    dataset: str,
    question: int | None,
    candidates: int,
    model: str,
    acquisition: str,
    budget: int,
    threshold: float,
    seed: int,
    data_dir: str | None,
) -> None:
    """Compare answers of one DATASET question two at a time: 1 / 2 pick, t tie, u undo, q quit."""
    from assistant.app.research.research import ranking_demo_job

    demo = run_with_progress(
        ranking_demo_job(dataset, question, candidates, model, acquisition, budget, threshold, seed, data_dir),
        "preparing",
    )
    cands, session = demo.candidates, demo.session
    _show(f"Question ({len(cands)} candidate answers):", demo.question, limit=500)
    while True:
        pair = session.next_pair()
        if pair is None:
            break
        left, right = pair
        echo("")
        echo(f"comparison {len(session.history) + 1} (P(best is best) = {session.confidence:.2f})")
        _show("[1]", cands[left].text)
        _show("[2]", cands[right].text)
        try:
            choice = click.prompt(
                "better? 1 / 2 / t(ie) / u(ndo) / q(uit)", type=click.Choice(["1", "2", "t", "u", "q"])
            )
        except click.Abort:  # end of input (a closed pipe, Ctrl+D): like q
            echo("")
            choice = "q"
        if choice == "q":
            break
        if choice == "u":
            if not session.undo():
                echo("nothing to undo")
            continue
        session.answer({"1": "left", "2": "right", "t": "tie"}[choice])
    best = session.best_index
    echo("")
    reason = session.stop_reason or "quit"
    echo(f"stopped ({reason}) after {len(session.history)} comparisons, P(best is best) = {session.confidence:.2f}")
    _show(f"Best answer (ROUGE-L vs the accepted answer: {demo.utilities[best]:.2f}):", cands[best].text)
    accepted = (
        "yes" if best == demo.best else f"no (the accepted answer ranks {session.ranking().index(demo.best) + 1})"
    )
    echo(f"is it the accepted answer? {accepted}")
