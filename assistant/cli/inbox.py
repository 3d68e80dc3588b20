"""`clarify inbox NAME [SESSION]`: the questions Clarify could not answer, and one step to resolve each."""

from __future__ import annotations

import click

from assistant.cli.common import echo, echo_json, run_with_progress


@click.command("inbox")
@click.argument("name")
@click.argument("session", type=click.IntRange(1), required=False)
@click.option("--assign", "entry", metavar="ENTRY", help="The entry (key or title) that answers the question.")
@click.option("--new-entry", "new_title", metavar="TITLE", help="Make a new entry with this title (see --answer).")
@click.option("--answer", default="", help="The answer of the new entry (with --new-entry).")
@click.option("--dismiss", "dismiss_it", is_flag=True, help="Set the question aside: not something you answer.")
@click.option("--all", "show_all", is_flag=True, help="List resolved questions too.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def inbox_command(
    name: str,
    session: int | None,
    entry: str | None,
    new_title: str | None,
    answer: str,
    dismiss_it: bool,
    show_all: bool,
    as_json: bool,
) -> None:
    """The inbox of domain NAME: questions that ended out of scope, were handed on, or whose answers were
    rejected. Resolve one in a step: SESSION --assign ENTRY, SESSION --new-entry TITLE --answer TEXT (use
    the question itself as the title with --new-entry ""), or SESSION --dismiss."""
    from assistant.app.desk.inbox import assign, dismiss, new_entry_job

    actions = sum(x is not None and x is not False for x in (entry, new_title, dismiss_it or None))
    if session is None:
        if actions:
            raise click.UsageError("give the SESSION number of the question to resolve (see `clarify inbox NAME`)")
        _list(name, show_all, as_json)
        return
    if actions != 1:
        raise click.UsageError("resolve a question with exactly one of --assign, --new-entry or --dismiss")
    if entry is not None:
        done = assign(name, session, entry)
        text = f"assigned {done['query']!r} to {done['label']}"
    elif new_title is not None:
        done = run_with_progress(new_entry_job(name, session, answer, new_title), f"new entry in {name}")
        text = f"new entry {done['label']!r} ({done['title']}) answers {done['query']!r}"
    else:
        done = dismiss(name, session)
        text = f"dismissed {done['query']!r}"
    if as_json:
        echo_json(done)
        return
    others = len(done["resolved"]) - 1
    echo(text + (f" (and {_counted(others, 'more session')} with the same question)" if others else ""))
    echo(f"the models learn it at the next update: `clarify prepare {name}` (the app does it in the background)")


def _counted(n: int, noun: str) -> str:
    """'1 question', '2 questions'."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _list(name: str, show_all: bool, as_json: bool) -> None:
    from assistant.app.desk.inbox import inbox_items

    items = inbox_items(name, show_all)
    if as_json:
        echo_json([item.__dict__ for item in items])
        return
    if not items:
        echo(f"the inbox of {name} is empty: every question so far found an answer")
        return
    echo(f"{_counted(len(items), 'question')} {name} could not answer (newest first):")
    for item in items:
        done = f"  [{item.resolution}{' -> ' + item.label_key if item.label_key else ''}]" if item.resolution else ""
        echo(f"{item.session_id:>5}  {item.query!r}  ({item.reason}, {item.updated_at[:16]}){done}")
        if item.note:
            echo(f"       their note: {item.note}")
        if item.closest and not item.resolution:
            echo(f"       closest: {', '.join(item.closest[:3])}")
    echo(f'resolve one: clarify inbox {name} SESSION --assign ENTRY | --new-entry "TITLE" --answer "TEXT" | --dismiss')
