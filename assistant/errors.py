"""One exception hierarchy for the engine.

Every message says what was wrong and how to fix it. The CLI turns a ``ClarifyError`` into a one-line
error with exit code 2; the GUI shows it in a dialog. Configuration errors are also ``ValueError``s
(scikit-learn's habit). models/ has its own small errors (it imports nothing of the project):
``from_model_errors`` turns them into these where the engine loads models, and ``USER_ERRORS`` lists
every error whose message is meant for the person (what the CLI and the GUI catch).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from models.errors import ModelConfigError, ModelError


class ClarifyError(Exception):
    """Base class of every error the engine raises on purpose."""


class ConfigError(ClarifyError, ValueError):
    """A parameter or setting has an invalid value."""


class DomainNotFoundError(ClarifyError):
    """A domain was named that is neither built nor bundled."""


class StoreError(ClarifyError):
    """The knowledge base file cannot be opened, migrated or written."""


class StoreBusyError(StoreError):
    """Another program (an import, a second session) held the knowledge base's write lock for too long."""


class DataMissingError(ClarifyError):
    """An evaluation data set is not where Clarify looked for it (evaluation-only data is never bundled)."""


class ModelMissingError(ClarifyError):
    """A trained model (checkpoint) that is needed is absent or unreadable."""


class UnknownLabelError(ClarifyError):
    """A label name does not match any label of the domain."""


class EmptyQueryError(ClarifyError):
    """The user's query is empty or contains no usable words."""


class SessionStateError(ClarifyError):
    """An action does not fit the current state of a session (e.g. answering after the end)."""


class SessionChangedError(SessionStateError):
    """Another program (a second window or terminal) wrote to the same session since this one last read it:
    nothing was written; the session has been reloaded as it now stands."""


class Cancelled(ClarifyError):
    """A long job was cancelled by the user."""


class NotFittedError(RuntimeError):
    """A model used before its ``fit``: a bug in the caller, never the person's mistake, so deliberately no
    ``ClarifyError`` (the CLI does not turn it into a one-line error with exit 2; it fails loudly)."""


def check_fitted(model: object, *attributes: str) -> None:
    """scikit-learn's convention: a model's fitted state lives in attributes whose names end in "_", set by
    ``fit`` only (never in ``__init__``). Raise ``NotFittedError`` unless ``model`` has all of ``attributes``
    (none given: at least one such attribute)."""
    names = attributes or tuple(k for k in vars(model) if k.endswith("_") and not k.startswith("__"))
    if not names or not all(hasattr(model, name) for name in names):
        raise NotFittedError(f"{type(model).__name__} is not fitted: call fit() before using it")


@dataclass(frozen=True)
class Problem:
    """One problem found while validating an input file.

    ``line`` is 1-based (the physical line of a CSV row, or the index of a JSON record); ``column`` names
    the column or field. Either may be None when the problem concerns the whole file.
    """

    file: str
    line: int | None
    column: str | None
    message: str

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
        if self.column:
            where += f" [{self.column}]"
        return f"{where}: {self.message}"


class ValidationError(ClarifyError):
    """An input file has problems; nothing was written. ``problems`` lists each one with its place."""

    def __init__(self, problems: list[Problem], hint: str = "") -> None:
        self.problems = list(problems)
        self.hint = hint
        first = str(self.problems[0]) if self.problems else "invalid input"
        more = f" (and {len(self.problems) - 1} more problems)" if len(self.problems) > 1 else ""
        tail = f"; {hint}" if hint else ""
        super().__init__(f"{first}{more}; nothing was imported{tail}")

    def report(self, limit: int = 50) -> str:
        """All problems, one per line (at most ``limit``)."""
        lines = [str(p) for p in self.problems[:limit]]
        if len(self.problems) > limit:
            lines.append(f"... {len(self.problems) - limit} more")
        return "\n".join(lines)


USER_ERRORS: tuple[type[Exception], ...] = (ClarifyError, ModelError)


@contextmanager
def from_model_errors(fix: str = "") -> Iterator[None]:
    """Re-raise models/' errors as the engine's: ConfigError for a bad model configuration, else
    ModelMissingError, with ``fix`` (what to run) appended to the message."""
    try:
        yield
    except ModelConfigError as exc:
        raise ConfigError(str(exc)) from exc
    except ModelError as exc:
        raise ModelMissingError(f"{exc}" + (f" ({fix})" if fix else "")) from exc
