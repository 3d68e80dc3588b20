"""The jobs the CLI and the GUI run for summaries (no Qt): open a document set, write a better summary,
set up the RLQA sentence-by-sentence mode, and save / resume sessions (JSON under $CLARIFY_HOME)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from assistant import paths
from assistant.errors import ConfigError
from assistant.progress import Job, Progress
from assistant.summarization.documents import Topic, from_texts, load_bundled, load_files
from assistant.summarization.session import SummarySession, SummarySettings


def load_topic(
    files: Sequence[str] = (), bundled: str | None = None, texts: Sequence[str] = (), question: str = ""
) -> Topic:
    """Documents from files / a folder, a bundled cluster, or pasted texts (exactly one source)."""
    sources = sum(bool(x) for x in (list(files), bundled, [t for t in texts if t.strip()]))
    if sources != 1:
        raise ConfigError("give exactly one source of documents: files or a folder, a bundled cluster, or pasted texts")
    if bundled:
        topic = load_bundled(bundled)
        topic.question = question.strip()
        return topic
    if files:
        return load_files(files, question)
    return from_texts(list(texts), question=question)


def open_session_job(topic: Topic, settings: SummarySettings | None = None, encoder=None) -> Job[SummarySession]:
    return (yield from SummarySession.create(topic, settings, encoder))


def write_better_job(session: SummarySession, episodes: int = 2000) -> Job[str]:
    return (yield from session.write_better(episodes))


def rlqa_session_job(topic: Topic, encoder=None, max_words: int = 100):
    """An ``RLQASession`` for ``topic`` (sentence embeddings for the MiniLM feature)."""
    from assistant.summarization.prepare import sentence_encoder
    from assistant.summarization.rlqa import RLQASession, RLQATopic
    from assistant.summarization.text import SentenceTable

    yield Progress(0, 2, "splitting sentences")
    table = SentenceTable.from_documents(topic.documents)
    yield Progress(1, 2, "embedding sentences (MiniLM)")
    enc = sentence_encoder(encoder)
    texts = table.texts + ([topic.question] if topic.question.strip() else [])
    vectors = enc.encode(texts)
    q = vectors[-1] if topic.question.strip() else None
    prepared = RLQATopic.build(table, topic.question, topic.references, vectors[: len(table)], q, max_words)
    yield Progress(2, 2, "ready")
    return RLQASession(prepared)


def sessions_dir() -> Path:
    path = paths.home() / "summaries"
    path.mkdir(parents=True, exist_ok=True)
    return path


def save_session(session: SummarySession, name: str | None = None) -> Path:
    """Write the session as JSON; returns the file (``name`` defaults to the next free number)."""
    folder = sessions_dir()
    if name is None:
        taken = [int(p.stem) for p in folder.glob("*.json") if p.stem.isdigit()]
        name = str(max(taken, default=0) + 1)
    path = folder / f"{name}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(session.to_dict()))
    tmp.replace(path)
    return path


def resume_session_job(name: str, encoder=None) -> Job[SummarySession]:
    path = Path(name) if Path(name).suffix == ".json" else sessions_dir() / f"{name}.json"
    if not path.is_file():
        raise ConfigError(f"no saved summary session {name!r} ({path}); `clarify summarize sessions` lists them")
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path} is not a saved session ({exc})") from exc
    return (yield from SummarySession.from_dict(data, encoder))
