"""`clarify ...`: a thin command-line layer over the engine.

Command groups live beside this module in assistant/cli/ (one module per group); this module wires them
together and turns every error meant for the person (``assistant.errors.USER_ERRORS``) into a one-line
message with exit code 2, never a traceback.
"""

from __future__ import annotations

import sqlite3
import sys

import click

from assistant import __version__
from assistant.errors import USER_ERRORS


class ClarifyGroup(click.Group):
    """A click group that reports the errors meant for the person as 'error: ...' on stderr, exit code 2.

    Errors of the machine itself (a full disk, a read-only or vanished folder, a file SQLite cannot read)
    are reported the same way: they are not bugs, and the message says what failed."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except USER_ERRORS as exc:
            _fail(ctx, str(exc))
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            _fail(ctx, f"{exc.strerror or exc}{where}: check the disk space, the path and its permissions")
        except sqlite3.DatabaseError as exc:
            _fail(ctx, f"the knowledge base failed ({exc}): if this repeats, rebuild the domain")
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(130)


def _fail(ctx: click.Context, message: str) -> None:
    """'error: <message>' on one line of stderr, exit code 2."""
    click.echo(f"error: {' '.join(message.split())}", err=True)
    ctx.exit(2)


@click.group(cls=ClarifyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="clarify")
def main() -> None:
    """Clarify: answers vague questions by asking a few informative ones.

    Data lives in $CLARIFY_HOME (default: the platform's user data folder).
    """


def _register() -> None:
    from assistant.cli import crowd, domain

    main.add_command(domain.domain)
    from assistant.cli import engine

    engine.register(main)
    from assistant.cli.ask import ask_command

    main.add_command(ask_command)
    from assistant.cli.sessions import sessions_command

    main.add_command(sessions_command)
    main.add_command(crowd.import_group)
    main.add_command(crowd.export_group)
    from assistant.cli import rank

    main.add_command(rank.rank)
    from assistant.cli.summarize import summarize

    main.add_command(summarize)
    from assistant.cli.bench import bench

    main.add_command(bench)
    from assistant.cli.learn import learn

    main.add_command(learn)
    from assistant.cli.inbox import inbox_command

    main.add_command(inbox_command)
    from assistant.cli.cold_start import cold_start

    main.add_command(cold_start)


_register()

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
