"""The knowledge base: one SQLite file per domain (sqlite-utils). All SQL of the project lives here.

- ``domain``: the in-memory ``Domain`` (labels, questions, annotation counts as arrays, queries);
- ``schema``: tables and migrations;
- ``connection``: opening a file safely (``quick_check``) and writing while another program writes (write
  lock taken up front, waits with a timeout, ``StoreBusyError``);
- ``knowledge_base``: opening, migrating, reading a whole ``Domain``, writing labels/questions/annotations;
- ``loading``: reading a whole ``Domain`` into arrays;
- ``arrays``: the domain's arrays stored as numpy files beside the knowledge base, never trusted when stale or
  damaged (issue 42);
- ``building``: writing a bundled data set's ``DomainData`` in one transaction;
- ``session_log``: the session log (sessions and their entries), with its vocabulary (``EntryKind``,
  ``SessionKind``, ``SessionStatus``);
- ``reviews``: a desk's review of the questions (hidden, reworded), applied when a ``Domain`` is loaded.
"""

from assistant.store import connection
from assistant.store.building import DomainData, check_domain_data, new_knowledge_base, write_domain
from assistant.store.domain import (
    BINARY_OPTIONS,
    SIMILAR_TAGS,
    SOMETHING_ELSE,
    SPLITS,
    Domain,
    Label,
    Question,
    QuestionKind,
    normalize_label_name,
    replace_counts,
)
from assistant.store.knowledge_base import KnowledgeBase, built_domains, utc_now
from assistant.store.reviews import QuestionReview
from assistant.store.schema import SCHEMA_VERSION
from assistant.store.session_log import (
    EntryKind,
    SessionKind,
    SessionLog,
    SessionRecord,
    SessionStatus,
    SessionSummary,
)

__all__ = [
    "BINARY_OPTIONS",
    "SCHEMA_VERSION",
    "SIMILAR_TAGS",
    "SOMETHING_ELSE",
    "SPLITS",
    "Domain",
    "DomainData",
    "EntryKind",
    "KnowledgeBase",
    "Label",
    "Question",
    "QuestionKind",
    "QuestionReview",
    "SessionKind",
    "SessionLog",
    "SessionRecord",
    "SessionStatus",
    "SessionSummary",
    "built_domains",
    "check_domain_data",
    "connection",
    "new_knowledge_base",
    "normalize_label_name",
    "replace_counts",
    "utc_now",
    "write_domain",
]
