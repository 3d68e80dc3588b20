"""Summaries as the CLI and the GUI's Summarize page use them: open documents (files, pasted texts, a
bundled cluster, a FAQ's answers), compare candidate summaries, write a better one, build one sentence by
sentence (RLQA), and the researchers' DUC protocols (assistant.evaluation.summaries).

Sessions are saved turn by turn in a domain's session log (kinds 'summary' and 'sentences'), like the
clarifying conversations: ``SummaryLog.start(domain, session)`` opens the log row and from then on every
action of the session is appended as it happens; ``resume_job(domain, id)`` rebuilds a session from its saved
config and replays its entries, and ``SummaryLog.attach`` continues its log.
"""

from __future__ import annotations

from assistant.app.session.session import open_knowledge_base
from assistant.errors import SessionStateError
from assistant.evaluation.summaries.plots import plot_ndcg
from assistant.evaluation.summaries.rating import evaluate as summaries_rating_job
from assistant.evaluation.summaries.rating import table as summaries_rating_table
from assistant.evaluation.summaries.rl import cross_validate_rlqa as rlqa_tuning_job
from assistant.evaluation.summaries.rl import evaluate_rl as rl_summaries_job
from assistant.evaluation.summaries.rl import evaluate_rlqa as rlqa_evaluation_job
from assistant.progress import Job
from assistant.store import KnowledgeBase, SessionLog, SessionSummary
from assistant.summarization.documents import Topic, bundled_clusters
from assistant.summarization.jobs import (
    load_topic,
    open_session_job,
    rebuild_session_job,
    rlqa_session_job,
    write_better_job,
)
from assistant.summarization.rl import RLSettings
from assistant.summarization.rlqa import RLQASession
from assistant.summarization.session import SummarySession, SummarySettings, answers_topic, topic_title

SUMMARY_KINDS = (SummarySession.kind, RLQASession.kind)


class SummaryLog:
    """Appends one summary session's actions to a domain's session log (see the module docstring).

    Each entry is written through a connection of its own, opened in the thread that acts (SQLite connections
    belong to their thread, and "write me a better one" finishes in a worker): an action costs a millisecond."""

    def __init__(self, domain: str, session_id: int, session: SummarySession | RLQASession) -> None:
        self.domain, self.id, self.session = domain, int(session_id), session
        session.recorder = self

    @classmethod
    def start(cls, domain: str, session: SummarySession | RLQASession) -> SummaryLog:
        """A new log row for ``session`` in ``domain`` (built); its actions are appended from now on."""
        topic = session.prepared.topic if isinstance(session, SummarySession) else session.source
        title = topic_title(topic) if topic is not None else "summary"
        with KnowledgeBase.open(domain) as kb:
            session_id = SessionLog(kb).create(title, session.config(), kind=session.kind)
        return cls(domain, session_id, session)

    @classmethod
    def attach(cls, domain: str, session_id: int, session: SummarySession | RLQASession) -> SummaryLog:
        """Continue the log of a resumed session."""
        return cls(domain, session_id, session)

    def __call__(self, kind: str, payload: dict) -> None:
        with KnowledgeBase.open(self.domain) as kb:
            SessionLog(kb).append(self.id, kind, payload, self.session.status, None)


def list_summary_sessions(domain: str) -> list[SessionSummary]:
    """The saved summary sessions of ``domain`` (both kinds), newest first."""
    with KnowledgeBase.open(domain) as kb:
        log = SessionLog(kb)
        return sorted(
            [s for kind in SUMMARY_KINDS for s in log.list(kind=kind)], key=lambda s: (s.updated_at, s.id), reverse=True
        )


def resume_job(domain: str, session_id: int, encoder=None) -> Job[SummarySession | RLQASession]:
    """Rebuild saved summary session ``session_id`` of ``domain`` and replay its log (reads the log with its own
    connection, closed before returning; attach a ``SummaryLog`` in the thread that goes on with it)."""
    with KnowledgeBase.open(domain) as kb:
        log = SessionLog(kb)
        record = log.record(int(session_id))
        if record is None:
            raise SessionStateError(f"there is no session {session_id} in domain {domain!r}")
        if record.kind not in SUMMARY_KINDS:
            raise SessionStateError(
                f"session {session_id} of domain {domain!r} is a conversation: resume it with "
                f"`clarify ask {domain} --resume {session_id}` or on the History page"
            )
        entries = log.entries(int(session_id))
    session = yield from rebuild_session_job(record.kind, record.config, encoder)
    session.replay(entries)
    return session


def answers_topic_of(question: str, query: str, answers: list[str]) -> Topic:
    """The topic "Summarize these answers" opens (the answers as documents, question + query as the focus)."""
    return answers_topic(question, query, answers)


__all__ = [
    "SUMMARY_KINDS",
    "RLSettings",
    "SummaryLog",
    "SummarySettings",
    "answers_topic_of",
    "bundled_clusters",
    "list_summary_sessions",
    "load_topic",
    "open_knowledge_base",
    "open_session_job",
    "plot_ndcg",
    "resume_job",
    "rl_summaries_job",
    "rlqa_evaluation_job",
    "rlqa_session_job",
    "rlqa_tuning_job",
    "summaries_rating_job",
    "summaries_rating_table",
    "write_better_job",
]
