"""`clarify sessions NAME`: the saved conversations of a domain, to resume with `clarify ask NAME --resume ID`."""

from __future__ import annotations

import json
from dataclasses import asdict

import click

from assistant.app.choices import SessionStatus
from assistant.cli.common import echo


@click.command("sessions")
@click.argument("name")
@click.option("--status", type=click.Choice([s.value for s in SessionStatus]), help="Only sessions with this status.")
@click.option("--json", "as_json", is_flag=True)
def sessions_command(name: str, status: str | None, as_json: bool) -> None:
    """List the saved sessions of domain NAME (resume one with `clarify ask NAME --resume ID`)."""
    from assistant.app.session import list_sessions

    rows = list_sessions(name, status)
    if as_json:
        echo(json.dumps([asdict(r) for r in rows], indent=2))
        return
    for r in rows:
        echo(
            f"{r.id:>5}  {r.status_words:<12} {r.updated_at}  {r.entries:>3} steps  {r.query[:60]}  "
            f"-> {r.final_label or ''}"
        )
