"""The inbox of a domain: the questions Clarify could not answer (out of scope, handed on, answers rejected),
and the one step that resolves each (`clarify inbox NAME`, the app's Inbox dialog).

- ``assign``: the right entry exists. The question becomes a training query of that entry (source
  ``INBOX_SOURCE``, train split; not when the same text is a dev or test query, which must never be
  trained on), and every open item with the same question is resolved with it.
- ``new_entry``: nothing answers it yet. A new entry is made from the question (its title, unless a better
  one is given) and the answer the person writes; the question becomes its first query. In a domain made
  from a FAQ file the questions are induced again so that the new entry has its own; it is kept when the
  FAQ file is imported again (add it to the file to edit it there).
- ``dismiss``: not something this desk answers (spam, a test).

Either way the models are older than the data afterwards: they keep serving and catch up in the
background (``assistant.app.lifecycle.updates``) or at the next `clarify prepare`.
"""

from __future__ import annotations

from collections.abc import Generator

from assistant.errors import ConfigError, UnknownLabelError
from assistant.progress import Progress
from assistant.sources.own_faq import derive_key
from assistant.store import KnowledgeBase, Label
from assistant.store.inbox import Inbox, InboxItem

INBOX_SOURCE = "inbox"

__all__ = ["INBOX_SOURCE", "InboxItem", "assign", "dismiss", "entries_of", "inbox_items", "new_entry_job"]


def inbox_items(name: str, include_resolved: bool = False) -> list[InboxItem]:
    """The open items of domain ``name``, newest first (``include_resolved``: all)."""
    with KnowledgeBase.open(name) as kb:
        return Inbox(kb).items(include_resolved)


def entries_of(name: str) -> list[Label]:
    """The entries (labels) of domain ``name``, in order: what an inbox question can be assigned to."""
    with KnowledgeBase.open(name) as kb:
        return kb.labels()


def _open_item(kb: KnowledgeBase, session_id: int) -> tuple[InboxItem, list[int]]:
    """The open item of ``session_id`` and the ids of every open item with the same question."""
    items = Inbox(kb).items()
    found = next((item for item in items if item.session_id == session_id), None)
    if found is None:
        resolved = any(item.session_id == session_id for item in Inbox(kb).items(include_resolved=True))
        raise ConfigError(
            f"session {session_id} is {'resolved already' if resolved else 'not in the inbox'}: "
            f"`clarify inbox {kb.name}` lists the open questions"
        )
    same = " ".join(found.query.casefold().split())
    return found, [item.session_id for item in items if " ".join(item.query.casefold().split()) == same]


def _add_query(kb: KnowledgeBase, label_key: str, text: str) -> bool:
    """The question as a training query of ``label_key`` (not when it is a held-out dev/test text)."""
    if kb.is_held_out_text(text):
        return False
    return kb.add_queries([(kb.label_ids()[label_key], text, "train", INBOX_SOURCE, "")]) > 0


def assign(name: str, session_id: int, label: str) -> dict:
    """Resolve an item with an existing entry (``label``: its key or name); returns what was done."""
    with KnowledgeBase.open(name) as kb:
        domain = kb.load_domain()
        try:
            key = domain.labels[domain.label_index(label)].key
        except UnknownLabelError as exc:
            raise ConfigError(str(exc)) from exc
        item, same = _open_item(kb, session_id)
        with kb.transaction():
            added = _add_query(kb, key, " ".join(item.query.split()))
            Inbox(kb).resolve(same, "assigned", key)
    return {"label": key, "query": item.query, "resolved": same, "query_added": added}


def dismiss(name: str, session_id: int, note: str = "") -> dict:
    """Set an item aside (with every open item of the same question)."""
    with KnowledgeBase.open(name) as kb:
        item, same = _open_item(kb, session_id)
        Inbox(kb).resolve(same, "dismissed", None, " ".join(note.split()))
    return {"query": item.query, "resolved": same}


def new_entry_job(
    name: str, session_id: int, answer: str, title: str = "", key: str = ""
) -> Generator[Progress, None, dict]:
    """Resolve an item with a new entry (title: the question itself unless given); returns what was done."""
    from assistant.app.desk.own_faq import is_own_faq, refresh_job  # rebuilding loads models: not for listing

    answer = answer.strip()
    if not answer:
        raise ConfigError("write the answer of the new entry (--answer TEXT): it is what people will be shown")
    yield Progress(0, 2, "adding the new entry")
    with KnowledgeBase.open(name) as kb:
        item, same = _open_item(kb, session_id)
        title = " ".join((title or item.query).split())
        for label in kb.labels():
            if " ".join(label.name.split()).casefold() == title.casefold():  # two entries no one can tell apart
                raise ConfigError(
                    f"the FAQ already has an entry titled {title!r} ({label.key}): give the question to it with "
                    f"--assign {label.key}, or choose another title"
                )
        existing = kb.label_ids()
        key = key or derive_key(title)
        base, n = key, 2
        while key in existing:
            key, n = f"{base}-{n}", n + 1
        with kb.transaction():
            kb.upsert_labels([Label(key=key, name=title, text="", answers=(answer,))], source=INBOX_SOURCE)
            added = _add_query(kb, key, " ".join(item.query.split()))
            Inbox(kb).resolve(same, "new_entry", key)
    if is_own_faq(name):
        yield from refresh_job(name)
    yield Progress(2, 2, f"new entry {key!r}")
    return {"label": key, "title": title, "query": item.query, "resolved": same, "query_added": added}
