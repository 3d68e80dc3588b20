"""The plain records of a conversation ``Session``: its phases, its settings, what a person sees of the pending
question, the final answer it arrived at, the out-of-scope ending ("nothing here fits": what it can help
with, the closest answers as "did you mean"), and where sessions are listed (``assistant.app.session.session``
re-exports them).
"""

from __future__ import annotations

from dataclasses import dataclass

from assistant import paths
from assistant.app.session.numbers import percent
from assistant.clarification.clarifier import Conversation
from assistant.clarification.records import StopReason
from assistant.clarification.stopping import check_pace
from assistant.errors import ConfigError, SessionStateError
from assistant.settings import RANKING_BUDGET, RANKING_THRESHOLD, SHORTLIST_SIZE
from assistant.store import (
    SOMETHING_ELSE,
    EntryKind,
    KnowledgeBase,
    SessionLog,
    SessionRecord,
)

# Entries a person makes (undo takes back the last of these); the others are the session's own decisions.
USER_ACTIONS = frozenset(
    {
        EntryKind.ANSWER,
        EntryKind.WORDS,
        EntryKind.SKIP,
        EntryKind.MORE,
        EntryKind.COMPARE,
        EntryKind.DONE,
        EntryKind.ACCEPT,
        EntryKind.REJECT,
        EntryKind.CHOOSE,
        EntryKind.GIVE_UP,
        EntryKind.SHOW_CLOSEST,
        EntryKind.HAND_OFF,
    }
)


def open_knowledge_base(domain: str) -> KnowledgeBase:
    """A connection to ``domain``'s knowledge base for this thread's sessions (SQLite connections belong to the
    thread that opened them); close it when done."""
    return KnowledgeBase.open(domain)


@dataclass(frozen=True)
class SessionConfig:
    """``shortlist_size`` labels go to the comparison phase; the ranker stops at ``ranking_threshold``
    confidence or after ``ranking_budget`` comparisons. ``text_prior`` is the model registry's, recorded when
    the session starts so that it is resumed with the same one. ``pace``: "quick" or "thorough" (the cost of
    a question, see ``assistant.clarification.stopping.PACES``; None: the domain's default, recorded at the start)."""

    candidates: str = "all"
    shortlist_size: int = SHORTLIST_SIZE
    ranking_model: str = "gppl"
    acquisition: str = "imp"
    ranking_budget: int = RANKING_BUDGET
    ranking_threshold: float = RANKING_THRESHOLD
    seed: int = 0
    text_prior: str = "sru"
    pace: str | None = None

    def __post_init__(self) -> None:
        if self.shortlist_size < 1:
            raise ConfigError(f"shortlist_size must be at least 1, got {self.shortlist_size}")
        if self.pace is not None:
            check_pace(self.pace)


@dataclass(frozen=True)
class QuestionView:
    """What the person sees of the pending question; ``number``: 1 for the first question of the session."""

    index: int
    text: str
    kind: str
    options: tuple[str, ...]
    number: int
    allows_not_visible: bool

    @classmethod
    def of(cls, conversation: Conversation, index: int) -> QuestionView:
        """Question ``index`` of ``conversation`` as the next one to answer."""
        q = conversation.question(index)
        allows = index >= 0 and conversation.clarifier.domain.allows_not_visible(index)
        return cls(index, q.text, q.kind, q.options, conversation.turn + 1, allows)


@dataclass(frozen=True)
class FinalAnswer:
    """The answer a session proposes or arrived at: the label, the chosen candidate, the clarifier's belief in
    the label (``probability``), and ``chance``: the probability that this is the best of the compared answers
    (it starts from the clarifier's belief and learns from every comparison). ``answer_number`` of
    ``answers`` says which of the label's answer texts it is ("answer 2 of 5")."""

    label_key: str
    label_name: str
    text: str
    probability: float
    comparisons: int
    candidate_id: str = ""
    chance: float | None = None
    answer_number: int | None = None  # which of its label's answer texts this is (1 = the first), if it has several
    answers: int = 1  # how many answer texts its label has


@dataclass(frozen=True)
class OutOfScopeView:
    """The out-of-scope ending: how sure it is that nothing fits, what the domain can help with (its areas,
    or its most asked-about topics) and the closest answers as "did you mean" (name, probability)."""

    probability: float
    message: str
    help_topics: tuple[str, ...]
    did_you_mean: tuple[tuple[str, float], ...]


AREA_GROUP = "area"
# the multiple-choice questions that name what a domain is about: its services, its FAQ's categories
TOPIC_TAGS = ("product", "category")


def out_of_scope_view(conversation: Conversation, title: str, k: int = 3) -> OutOfScopeView:
    """The view of a conversation that concluded that nothing fits (clarification.out_of_scope)."""
    domain = conversation.clarifier.domain
    probability = conversation.out_of_scope_probability() or 0.0
    areas = [q for q in domain.questions if q.group == AREA_GROUP and q.kind == "choice"]
    if areas:
        topics = tuple(o for o in areas[0].options if o != SOMETHING_ELSE)
    else:  # what it is about (the services, the topics), else the widest multiple-choice question, else a few
        # labels; never the actions ("I can help with: search, add, link" says nothing)
        choices = sorted(
            (q for q in domain.questions if q.kind == "choice" and q.tag.split("@")[0] != "action"),
            key=lambda q: (q.tag not in TOPIC_TAGS, -len(q.options)),
        )
        topics = tuple(o for o in choices[0].options if o != SOMETHING_ELSE) if choices else ()
        topics = topics or tuple(label.name for label in domain.labels[:8])
    # the closest labels with their share of the whole belief ("nothing fits" included): the chance that each
    # is what the person meant, beside how sure the assistant is that none is
    closest = tuple((item.label.name, (1.0 - probability) * item.probability) for item in conversation.shortlist(k))
    message = (
        f"I don't have an answer for that: nothing in {title} seems to fit ({percent(probability)} sure). You can say "
        "it differently, look at the closest answers anyway, or hand the question on to a person."
    )
    return OutOfScopeView(probability, message, topics, closest)


def explain_stop(reason: str, conversation: Conversation, shortlist_size: int) -> str:
    """Why a conversation stopped asking (a ``StopReason``), in words."""
    covered = conversation.coverage()
    top = float(conversation.probs.max())
    reasons: dict[str, str] = {
        StopReason.CONFIDENT: f"it is {percent(covered)} sure the answer is among the {shortlist_size} likeliest "
        f"(best guess {percent(top)})",
        StopReason.NO_INFORMATIVE_QUESTION: (
            "no question left would tell the shortlisted answers apart"
            if conversation.turn
            else "none of its questions would tell these answers apart"  # none was asked: none is "left"
        ),
        StopReason.NO_QUESTION: "it has asked every question it has",
        StopReason.MAX_TURNS: f"it reached its limit of {conversation.clarifier.config.max_turns} questions",
        StopReason.USER: "you chose to skip to the answers",
        StopReason.OUT_OF_SCOPE: "nothing it knows seems to fit the question",
        StopReason.CLOSEST: "you asked for the closest answers",
    }
    return "Stopped asking: " + reasons.get(reason, reason) + "."


def resumable(kb: KnowledgeBase, domain: str, text_prior: str, session_id: int) -> tuple[SessionRecord, SessionConfig]:
    """The log record of conversation ``session_id`` and its settings, if an assistant with ``text_prior`` can
    resume it; else a SessionStateError that says how to."""
    record = SessionLog(kb).record(session_id)
    if record is None:
        raise SessionStateError(f"there is no session {session_id} in domain {domain!r}")
    if record.kind != "clarify":
        raise SessionStateError(
            f"session {session_id} of domain {domain!r} is a {record.kind} session, not a conversation: resume it "
            f"with `clarify summarize --domain {domain} --resume {session_id}` or on the Summarize page"
        )
    config = SessionConfig(**{k: v for k, v in record.config.items() if k in SessionConfig.__dataclass_fields__})
    if config.text_prior != text_prior:
        raise SessionStateError(
            f"session {session_id} was started with the {config.text_prior!r} text prior, this assistant uses "
            f"{text_prior!r}: resume it with the same prior (clarify ask {domain} --resume {session_id} --prior "
            f"{config.text_prior})"
        )
    return record, config


def check_session_exists(domain: str, session_id: int) -> None:
    """A SessionStateError unless ``domain`` has a saved session ``session_id`` (checked before anything is
    prepared or trained: a mistyped id must not start a training)."""
    if not paths.domain_db_path(domain).exists():
        raise SessionStateError(f"there is no session {session_id} in domain {domain!r}: it is not built yet")
    with KnowledgeBase.open(domain) as kb:
        if SessionLog(kb).record(session_id) is None:
            raise SessionStateError(
                f"there is no session {session_id} in domain {domain!r}: `clarify sessions {domain}` lists them"
            )
