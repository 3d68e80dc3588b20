"""`clarify ...`: a thin command-line layer over the engine; ``main`` is the root command group.

Command groups live beside this module in assistant/cli/ (one module per group); this module wires them
together and turns every error meant for the person (``assistant.errors.USER_ERRORS``) into a one-line
message with exit code 2, never a traceback. ``assistant.cli.main`` is only the `python -m` entry to it.
"""

from __future__ import annotations

import os
import sqlite3
import sys

import click

from assistant import __version__
from assistant.cli.common import echo
from assistant.errors import USER_ERRORS


class ClarifyGroup(click.Group):
    """A click group that reports the errors meant for the person as 'error: ...' on stderr, exit code 2.

    Errors of the machine itself (a full disk, a read-only or vanished folder, a file SQLite cannot read)
    are reported the same way: they are not bugs, and the message says what failed."""

    def main(self, *args, **kwargs):
        """click's own refusals (a missing argument, a number out of range, a file that is a folder) as one
        'error: ...' line with exit code 2 too, not click's usage block."""
        if kwargs.get("standalone_mode", True) is False:
            return super().main(*args, **kwargs)
        try:
            done = super().main(*args, **{**kwargs, "standalone_mode": False})
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.exceptions.Abort:
            echo("aborted", err=True)
            sys.exit(1)
        except click.UsageError as exc:
            where = f"{exc.ctx.command_path}: " if exc.ctx is not None and exc.ctx.parent is not None else ""
            hint = f" (see {exc.ctx.command_path} --help)" if exc.ctx is not None else ""
            echo(f"error: {where}{' '.join(exc.format_message().split())}{hint}", err=True)
            sys.exit(2)
        except click.ClickException as exc:
            echo(f"error: {' '.join(exc.format_message().split())}", err=True)
            sys.exit(exc.exit_code)
        sys.exit(done if isinstance(done, int) else 0)  # click returns the code of a ctx.exit(code)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:  # the reader went away (`clarify sessions faq | head -1`): not an error of ours
            _quiet_stdout()
            ctx.exit(EXIT_BROKEN_PIPE)
        except USER_ERRORS as exc:
            _fail(ctx, str(exc))
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            _fail(ctx, f"{exc.strerror or exc}{where}: check the disk space, the path and its permissions")
        except sqlite3.DatabaseError as exc:
            _fail(ctx, f"the knowledge base failed ({exc}): if this repeats, rebuild the domain")
        except KeyboardInterrupt:
            echo("interrupted", err=True)
            ctx.exit(130)


# What a shell reports for a program that SIGPIPE ended (128 + 13), as for `yes | head -1`.
EXIT_BROKEN_PIPE = 141


def _quiet_stdout() -> None:
    """Point stdout at /dev/null: the interpreter's last flush would otherwise fail again on the closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real file descriptor (a test runner's stream): nothing to flush
        pass


def _fail(ctx: click.Context, message: str) -> None:
    """'error: <message>' on one line of stderr, exit code 2."""
    echo(f"error: {' '.join(message.split())}", err=True)
    ctx.exit(2)


@click.group(cls=ClarifyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="clarify")
def main() -> None:
    """Clarify: answers vague questions by asking a few informative ones.

    Data lives in $CLARIFY_HOME (default: the platform's user data folder).
    """


def _register() -> None:
    import assistant.cli.crowd as crowd
    import assistant.cli.domain as domain

    main.add_command(domain.domain)
    import assistant.cli.engine as engine

    engine.register(main)
    from assistant.cli.ask import ask_command

    main.add_command(ask_command)
    from assistant.cli.sessions import sessions_command

    main.add_command(sessions_command)
    main.add_command(crowd.import_group)
    main.add_command(crowd.export_group)
    import assistant.cli.rank as rank

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
