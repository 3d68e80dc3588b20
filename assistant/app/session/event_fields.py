"""Reading a stored entry's payload field by field, for the typed events (``assistant.app.session.events``):
each read checks the JSON type Clarify writes, so that a damaged or hand-edited log says which entry and which
field is wrong (``DamagedEntryError``, a ``SessionStateError``: a resume leaves the entry out and says so)
instead of failing somewhere later with a KeyError."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING
from enum import StrEnum
from typing import Any

from assistant.clarification.records import AnswerKind, StopReason
from assistant.errors import SessionStateError
from assistant.store import EntryKind


class DamagedEntryError(SessionStateError):
    """A stored entry of a conversation is not one Clarify writes (an unknown kind, a missing or mistyped field)."""


def unknown_kind(kind: object) -> DamagedEntryError:
    return DamagedEntryError(
        f"unknown session log entry {kind!r} (written by another program or a newer Clarify): the session is "
        "replayed without it; update Clarify to replay it"
    )


class Fields:
    """The payload of one stored entry of kind ``kind``, read field by field with the type each event's field
    declares (its annotation: ``read``)."""

    def __init__(self, kind: EntryKind, payload: object) -> None:
        self.kind = kind
        if not isinstance(payload, dict):
            raise self._damaged(f"is {type(payload).__name__}, not a JSON object")
        self.payload: dict[str, Any] = payload

    def _damaged(self, problem: str) -> DamagedEntryError:
        return DamagedEntryError(
            f"the log's '{self.kind}' entry {problem}: the log was edited or written by another program, so the "
            "session is replayed without it (start a new session if that changes what it should say)"
        )

    def read(self, key: str, annotation: str, default: object = MISSING) -> Any:
        """The value under ``key`` as a field annotated ``annotation`` holds it; ``default`` when the key is
        missing (older logs), ``DamagedEntryError`` when there is none or the value has another type."""
        if key not in self.payload:
            if default is MISSING:
                raise self._damaged(f"has no {key!r}")
            return default
        value = self.payload[key]
        base = annotation.removesuffix(" | None")
        if value is None and base != annotation:
            return None
        what, check = _TYPES[base]
        if value is None or not check(value):
            raise self._damaged(f"has {key!r} = {_short(value)}, not {what}")
        if base in _CHOICES:
            return _CHOICES[base](value)
        return _tuples(value) if isinstance(value, list) else value


def _is_text(value: object) -> bool:
    return isinstance(value, str)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_texts(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _is_weighted(value: object) -> bool:
    return isinstance(value, list) and all(
        isinstance(r, list) and len(r) == 2 and isinstance(r[0], str) and _is_number(r[1]) for r in value
    )


def _is_one_of(kind: type[StrEnum]) -> Callable[[object], bool]:
    values = set(kind)
    return lambda value: value in values


_CHOICES: dict[str, type[StrEnum]] = {"AnswerKind": AnswerKind, "StopReason": StopReason}

# what each field annotation of the events accepts: (in words, check)
_TYPES: dict[str, tuple[str, Callable[[object], bool]]] = {
    "str": ("a text", _is_text),
    "bool": ("true or false", lambda v: isinstance(v, bool)),
    "int": ("a whole number", lambda v: isinstance(v, int) and not isinstance(v, bool)),
    "float": ("a number", _is_number),
    "dict": ("a JSON object", lambda v: isinstance(v, dict)),
    "tuple[str, ...]": ("a list of texts", _is_texts),
    "tuple[tuple[str, float], ...]": ("a list of [label, probability]", _is_weighted),
    "tuple[tuple[str, ...], ...]": (
        "a list of rows of texts",
        lambda v: isinstance(v, list) and all(map(_is_texts, v)),
    ),
    **{name: (f"one of {', '.join(kind)}", _is_one_of(kind)) for name, kind in _CHOICES.items()},
}


def _tuples(value: list) -> tuple:
    """A JSON list as the frozen events hold it: tuples all the way down."""
    return tuple(_tuples(v) if isinstance(v, list) else v for v in value)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
