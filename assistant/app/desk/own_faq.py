"""A desk's own FAQ as a domain: preview a FAQ file (or folder of articles), create a domain from it, and
update the domain after the FAQ was edited (the jobs `clarify domain create|update` and the app's *New
domain from my FAQ* wizard run).

Nothing is written while the FAQ has a problem (``ValidationError`` lists every one with its file and
line). An update is keyed by the entries' keys: a new key is an added entry, a key that is gone a removed
one (its queries and annotations go with it; sessions keep their text), a key whose title, description,
category or answers changed an edited one; every entry that is still there keeps its place, its sessions
and what was learned from them (accepted session queries, inbox assignments).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from assistant import paths
from assistant.errors import ConfigError, DomainNotFoundError, ValidationError
from assistant.progress import Progress
from assistant.settings import MAX_TITLE_CHARS
from assistant.sources.adapters import BUNDLED_DOMAINS
from assistant.sources.own_faq import FORMATS, FaqEntry, ParsedFaq, check_source, faq_format, parse_faq
from assistant.store import KnowledgeBase, new_knowledge_base, write_domain

__all__ = [
    "FORMATS",
    "MAX_TITLE_CHARS",
    "FaqChanges",
    "ParsedFaq",
    "check_title",
    "create_domain_job",
    "faq_changes",
    "is_own_faq",
    "preview_faq",
    "refresh_job",
    "stored_entries",
]

OWN_FAQ_META = "own_faq"
FIX_HINT = "fix them in the FAQ and run the command again"


@dataclass(frozen=True)
class FaqChanges:
    """What an update does, by entry key (a new domain: everything is ``added``)."""

    added: tuple[str, ...] = ()
    edited: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()

    def describe(self) -> str:
        parts = [f"{len(v)} {k}" for k, v in asdict(self).items() if v]
        return ", ".join(parts) or "no entries"


@dataclass
class FaqDomainReport:
    """What ``create_domain_job`` did: the domain, the FAQ read, the changes and what the knowledge base holds."""

    domain: str
    source: str
    format: str
    read: str
    changes: FaqChanges
    stats: dict = field(default_factory=dict)
    categories: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    synthesized: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


def preview_faq(source: str | Path, fmt: str = "auto") -> ParsedFaq:
    """Read a FAQ without writing anything: its entries, what was read as what, and every problem."""
    return parse_faq(source, fmt)


def is_own_faq(name: str) -> bool:
    """Whether the built domain ``name`` was made from a desk's FAQ (``clarify domain create``)."""
    if not paths.domain_db_path(name).exists():
        return False
    with KnowledgeBase.open(name) as kb:
        return kb.get_meta().get(OWN_FAQ_META) == "true"


def _categories(kb: KnowledgeBase) -> dict[str, str]:
    """{label key: its category} as stored (the topic question's annotations; {} without one)."""
    from assistant.sources.own_faq.building import CATEGORY_TAG

    rows = kb.label_answers(CATEGORY_TAG, "induced")
    best: dict[str, tuple[float, str]] = {}
    for key, answer, count in rows:
        if count > best.get(key, (-1.0, ""))[0]:
            best[key] = (count, answer)
    return {key: answer for key, (_, answer) in best.items()}


def faq_changes(name: str, entries: list[FaqEntry]) -> FaqChanges:
    """Which entries an update of domain ``name`` adds, edits, removes and leaves unchanged."""
    if not paths.domain_db_path(name).exists():
        return FaqChanges(added=tuple(e.key for e in entries))
    with KnowledgeBase.open(name) as kb:
        stored = {label.key: label for label in kb.labels()}
        categories = _categories(kb)
    added: list[str] = []
    edited: list[str] = []
    unchanged: list[str] = []
    for entry in entries:
        old = stored.get(entry.key)
        if old is None:
            added.append(entry.key)
            continue
        same = (old.name, old.text, tuple(old.answers)) == (entry.title, entry.description, tuple(entry.answers))
        category = categories.get(entry.key)
        if category is not None and category != (entry.category or "something else"):
            same = False
        (unchanged if same else edited).append(entry.key)
    wanted = {e.key for e in entries}
    removed = [key for key in stored if key not in wanted]
    return FaqChanges(tuple(added), tuple(edited), tuple(removed), tuple(unchanged))


def stored_entries(name: str) -> list[FaqEntry]:
    """The entries of an own-FAQ domain as stored (every label, its category from the topic question)."""
    with KnowledgeBase.open(name) as kb:
        categories = _categories(kb)
        labels = kb.labels()
    return [
        FaqEntry(
            key=label.key,
            title=label.name,
            answers=tuple(label.answers),
            description=label.text,
            category="" if categories.get(label.key, "something else") == "something else" else categories[label.key],
            key_given=True,
        )
        for label in labels
    ]


def refresh_job(name: str) -> Generator[Progress, None, dict]:
    """Induce the questions and synthesize the queries of an own-FAQ domain again from its stored entries
    (after an entry was added from the inbox); every entry keeps its row, sessions and learned queries."""
    from assistant.sources.own_faq.building import faq_domain_data

    yield Progress(0, 2, f"inducing the questions of {name} again from its {len(stored_entries(name))} entries")
    with KnowledgeBase.open(name) as kb:
        meta = kb.get_meta()
    entries = stored_entries(name)
    kept = {k: v for k, v in meta.items() if k in (OWN_FAQ_META, "faq_source", "faq_format", "faq_sha256")}
    data = faq_domain_data(name, entries, title=meta.get("title", name), meta=kept)
    with KnowledgeBase.open(name) as kb:
        write_domain(kb, data)
        stats = kb.stats()
    yield Progress(2, 2, f"{name}: {stats['labels']} entries, {sum(stats['questions'].values())} questions")
    return stats


def check_title(title: str) -> str:
    """The domain's title as given, stripped; a ConfigError for one too long to show or with line breaks."""
    title = title.strip()
    if len(title) > MAX_TITLE_CHARS:
        raise ConfigError(
            f"the title has {len(title):,} characters (at most {MAX_TITLE_CHARS}): give a short name for the desk"
        )
    if any(not c.isprintable() for c in title):
        raise ConfigError("the title has a line break or a control character: give it on one line")
    return title


def _check_target(name: str, update: bool) -> None:
    paths.check_domain_name(name)
    if name in BUNDLED_DOMAINS:
        raise ConfigError(f"{name!r} is a bundled domain: choose another name for your FAQ (e.g. 'my_{name}')")
    exists = paths.domain_db_path(name).exists()
    if update and not exists:
        raise DomainNotFoundError(
            f"domain {name!r} does not exist: create it first with `clarify domain create {name} --from FILE`"
        )
    if not update and exists:
        raise ConfigError(
            f"domain {name!r} exists already: update it from the edited FAQ with "
            f"`clarify domain update {name} --from FILE`, or choose another name"
        )
    if update and not is_own_faq(name):
        raise ConfigError(
            f"domain {name!r} was not made from a FAQ file: `clarify domain update` edits only domains made by "
            "`clarify domain create`"
        )


def _write_under_the_domain_lock(name: str, data, update: bool) -> Generator[Progress, None, dict]:
    """Write the domain while holding its lock: an update waits for a running `prepare` (and the reverse),
    and a new domain is linked into place only if no other program created it meanwhile (one decision)."""
    from assistant.app.lifecycle.model_sets import domain_lock

    release = yield from domain_lock(name, "updating" if update else "creating")
    try:
        with KnowledgeBase.create(name) if update else new_knowledge_base(name, exclusive=True) as kb:
            write_domain(kb, data)
            kb.load_domain()  # fails loudly if what was written is inconsistent
            return kb.stats()
    finally:
        release()


def create_domain_job(
    name: str,
    source: str | Path,
    fmt: str = "auto",
    title: str = "",
    update: bool = False,
    out_of_scope_exclude: tuple[str, ...] = (),
) -> Generator[Progress, None, FaqDomainReport]:
    """Create domain ``name`` from a FAQ (``update``: update it after the FAQ was edited); yields progress,
    returns the report. Raises ValidationError (nothing written) when the FAQ has problems."""
    # here, not at the top: building induces questions (wordfreq, the wording gate), and opening a domain for
    # a conversation imports this module (issue 33)
    from assistant.sources.own_faq.building import faq_domain_data

    _check_target(name, update)
    title = check_title(title)
    check_source(source)
    concrete = faq_format(source, fmt)
    source = Path(source)
    yield Progress(0, 4, f"reading {source.name}")
    parsed = parse_faq(source, concrete)
    if parsed.problems or not parsed.entries:
        raise ValidationError(parsed.problems, FIX_HINT)
    changes = faq_changes(name, parsed.entries)
    yield Progress(1, 4, f"{parsed.describe()}: inducing questions and synthesizing queries from the texts")
    meta = {
        OWN_FAQ_META: "true",
        "faq_source": source.name,
        "faq_format": concrete,
        "faq_sha256": parsed.sha256,
    }
    data = faq_domain_data(
        name,
        parsed.entries,
        title=title or parsed.title or name,
        out_of_scope_exclude=out_of_scope_exclude,
        meta=meta,
    )
    yield Progress(2, 4, f"writing {len(data.labels)} entries and {len(data.questions)} questions")
    stats = yield from _write_under_the_domain_lock(name, data, update)
    # a new domain is written under a temporary name and linked into place: name the place it is in now
    stats = {**stats, "path": str(paths.domain_db_path(name))}
    yield Progress(4, 4, f"{'updated' if update else 'created'} {name}")
    import json

    return FaqDomainReport(
        domain=name,
        source=str(source),
        format=concrete,
        read=parsed.describe(),
        changes=changes,
        stats=stats,
        categories=parsed.categories,
        ignored=list(parsed.ignored),
        synthesized=json.loads(data.meta["synthesized_queries"]),
    )
