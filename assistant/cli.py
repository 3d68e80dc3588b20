"""`clarify ...`: a thin command-line layer over the engine.

Command groups live in assistant/commands/ (one module per group); this module wires them together and
turns every ``ClarifyError`` into a one-line message with exit code 2, never a traceback.
"""

from __future__ import annotations

import sys

import click

from assistant import __version__
from assistant.errors import ClarifyError


class ClarifyGroup(click.Group):
    """A click group that reports ClarifyError as 'error: ...' on stderr with exit code 2."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except ClarifyError as exc:
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
    from assistant.commands import crowd, domain

    main.add_command(domain.domain)
    from assistant.commands import engine

    engine.register(main)
    main.add_command(crowd.import_group)
    main.add_command(crowd.export_group)
    from assistant.commands import rank

    main.add_command(rank.rank)
    from assistant.commands import learn

    main.add_command(learn.learn)


_register()

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
