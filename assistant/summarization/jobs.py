"""The jobs the CLI and the GUI run for summaries (no Qt): open a document set, write a better summary, set up
the RLQA sentence-by-sentence mode, and rebuild a saved session of either kind from its config."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assistant.errors import ConfigError
from assistant.progress import Job, Progress
from assistant.summarization.documents import Topic, from_texts, load_bundled, load_files
from assistant.summarization.rl import RLSettings
from assistant.summarization.rlqa import RLQALearner, RLQASession, RLQATopic
from assistant.summarization.session import SummarySession, SummarySettings
from assistant.summarization.text import SentenceTable


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


def write_better_job(session: SummarySession, settings: RLSettings | None = None) -> Job[str]:
    return (yield from session.write_better(settings))


def rlqa_session_job(topic: Topic, encoder=None, max_words: int = 100, weights=None) -> Job[RLQASession]:
    """An ``RLQASession`` for ``topic`` (sentence embeddings for the MiniLM feature)."""
    from assistant.summarization.prepare import sentence_encoder

    yield Progress(0, 2, "splitting sentences")
    table = SentenceTable.from_documents(topic.documents)
    yield Progress(1, 2, "embedding sentences (MiniLM)")
    enc = sentence_encoder(encoder)
    texts = table.texts + ([topic.question] if topic.question.strip() else [])
    vectors = enc.encode(texts)
    q = vectors[-1] if topic.question.strip() else None
    prepared = RLQATopic.build(table, topic.question, topic.references, vectors[: len(table)], q, max_words)
    learner = RLQALearner()
    if weights is not None:
        learner.weights = np.asarray(weights, dtype=np.float64).copy()
    yield Progress(2, 2, "ready")
    return RLQASession(prepared, learner, source=topic)


def rebuild_session_job(kind: str, config: dict, encoder=None) -> Job[SummarySession | RLQASession]:
    """A saved session of ``kind`` ('summary' or 'sentences') rebuilt from its config, before its replay."""
    if kind == SummarySession.kind:
        return (yield from SummarySession.from_config(config, encoder))
    if kind == RLQASession.kind:
        try:
            topic = Topic.from_dict(config["topic"])
            max_words, weights = int(config["max_words"]), config.get("weights")
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"saved sentence-by-sentence session is incomplete ({exc!r})") from exc
        return (yield from rlqa_session_job(topic, encoder, max_words, weights))
    raise ConfigError(f"a {kind!r} session is not a summary session")
