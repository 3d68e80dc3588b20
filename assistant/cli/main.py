"""`clarify ...`: a thin command-line layer over the engine.

Command groups live beside this module in assistant/cli/ (one module per group); this module wires them
together and turns every error meant for the person (``assistant.errors.USER_ERRORS``) into a one-line
message with exit code 2, never a traceback.
"""

from __future__ import annotations

import sys

import click

from assistant import __version__
from assistant.errors import USER_ERRORS


class ClarifyGroup(click.Group):
    """A click group that reports the errors meant for the person as 'error: ...' on stderr, exit code 2."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except USER_ERRORS as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(2)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(130)


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


_register()

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
