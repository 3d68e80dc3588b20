"""A desk reviews the questions of a domain: lists them, hides one, shows it again, rewords it or one of its
options (`clarify domain questions NAME`, the app's "Questions of this domain" dialog).

The review is stored in the knowledge base by tag (assistant.store.reviews) and survives rebuilds and
imports. A hidden question is left out of the ``Domain`` every conversation, training and evaluation loads,
so it is never asked. That changes the question set the models were trained on: the encoder's and the
policies' data hashes change, so the models already trained still load and serve, marked *stale*
(``ModelRegistry.stale``; `clarify prepare` or the app's *Update the models* retrains them). A reworded
question or option changes only what a person reads (a renamed option also what the query's words are
matched against) and nothing a model was trained on, except that a renamed option is part of the
encoder's data hash (stale, as above).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import asdict, dataclass, replace

from assistant.errors import ConfigError
from assistant.progress import Progress
from assistant.store import BINARY_OPTIONS, SOMETHING_ELSE, KnowledgeBase, QuestionReview

MAX_QUESTION_CHARS = 200
MAX_OPTION_CHARS = 60


@dataclass(frozen=True)
class QuestionEntry:
    """One question of a domain as the review shows it: ``text`` and ``options`` as asked (reworded where the
    desk reworded them), ``original_text`` and ``original_options`` as induced or imported, ``hidden``
    (never asked), ``reworded`` (the text or an option differs from the original)."""

    tag: str
    text: str
    kind: str
    options: tuple[str, ...]
    induced: bool
    hidden: bool
    reworded: bool
    original_text: str
    original_options: tuple[str, ...]

    def to_dict(self) -> dict:
        data = asdict(self)
        data["options"], data["original_options"] = list(self.options), list(self.original_options)
        return data


def list_questions(domain: str) -> list[QuestionEntry]:
    """Every stored question of ``domain`` (hidden ones too), in the store's order."""
    with KnowledgeBase.open(domain) as kb:
        return _entries(kb)


def _entries(kb: KnowledgeBase) -> list[QuestionEntry]:
    reviews = kb.question_reviews()
    entries = []
    for question in kb.questions():
        review = reviews.get(question.tag, QuestionReview(question.tag))
        options = tuple(review.options.get(o, o) for o in question.options)
        text = review.text or question.text
        entries.append(
            QuestionEntry(
                question.tag,
                text,
                question.kind,
                options,
                question.induced,
                review.hidden,
                text != question.text or options != question.options,
                question.text,
                question.options,
            )
        )
    return entries


def _find(entries: list[QuestionEntry], tag: str, domain: str) -> QuestionEntry:
    for entry in entries:
        if entry.tag == tag:
            return entry
    raise ConfigError(f"domain {domain!r} has no question with tag {tag!r}: see `clarify domain questions {domain}`")


def _review_of(kb: KnowledgeBase, tag: str) -> QuestionReview:
    return kb.question_reviews().get(tag, QuestionReview(tag))


def set_hidden(domain: str, tag: str, hidden: bool = True) -> QuestionEntry:
    """Hide the question ``tag`` (never asked) or show it again; refuses to hide the last one still asked."""
    with KnowledgeBase.open(domain) as kb:
        entries = _entries(kb)
        _find(entries, tag, domain)
        if hidden and all(e.hidden for e in entries if e.tag != tag):
            raise ConfigError(f"{tag!r} is the last question of {domain!r} still asked: show another one first")
        kb.save_question_review(replace(_review_of(kb, tag), hidden=hidden))
        return _find(_entries(kb), tag, domain)


def reword_question(domain: str, tag: str, text: str) -> QuestionEntry:
    """Ask the question ``tag`` as ``text`` from now on (the original text back when ``text`` equals it)."""
    text = " ".join((text or "").split())
    if not text:
        raise ConfigError("the new wording is empty: give the question as a person should read it")
    if len(text) > MAX_QUESTION_CHARS:
        raise ConfigError(f"the new wording has {len(text)} characters: keep a question under {MAX_QUESTION_CHARS}")
    if not text.endswith("?"):
        raise ConfigError(f"{text!r} is not a question: end it with '?'")
    with KnowledgeBase.open(domain) as kb:
        entry = _find(_entries(kb), tag, domain)
        new = None if text == entry.original_text else text
        kb.save_question_review(replace(_review_of(kb, tag), text=new))
        return _find(_entries(kb), tag, domain)


def reword_option(domain: str, tag: str, old: str, new: str) -> QuestionEntry:
    """Show the option ``old`` (as shown now, or as induced) of the multiple-choice question ``tag`` as
    ``new``. The yes/no of a binary question and "something else" keep their words (the engine reads them)."""
    new = " ".join((new or "").split())
    if not new:
        raise ConfigError("the new option is empty: give the option as a person should read it")
    if len(new) > MAX_OPTION_CHARS:
        raise ConfigError(f"the new option has {len(new)} characters: keep an option under {MAX_OPTION_CHARS}")
    with KnowledgeBase.open(domain) as kb:
        entry = _find(_entries(kb), tag, domain)
        if entry.kind == "binary":
            raise ConfigError(f"{tag!r} is a yes/no question: its options stay {' / '.join(BINARY_OPTIONS)}")
        if old in entry.options:
            stored = entry.original_options[entry.options.index(old)]
        elif old in entry.original_options:
            stored = old
        else:
            raise ConfigError(f"{tag!r} has no option {old!r}: its options are {' / '.join(entry.options)}")
        if stored == SOMETHING_ELSE:
            raise ConfigError(f"'{SOMETHING_ELSE}' keeps its words: Clarify reads it as 'none of these'")
        shown = [o for o, s in zip(entry.options, entry.original_options) if s != stored]
        if new in shown or new == SOMETHING_ELSE:
            raise ConfigError(f"{tag!r} already offers {new!r}: choose another wording")
        review = _review_of(kb, tag)
        options = {k: v for k, v in review.options.items() if k != stored}
        if new != stored:
            options[stored] = new
        kb.save_question_review(replace(review, options=options))
        return _find(_entries(kb), tag, domain)


def reset_question(domain: str, tag: str) -> QuestionEntry:
    """Forget every review of ``tag``: shown, with its original text and options."""
    with KnowledgeBase.open(domain) as kb:
        _find(_entries(kb), tag, domain)
        kb.save_question_review(QuestionReview(tag))
        return _find(_entries(kb), tag, domain)


def listing_job(domain: str) -> Generator[Progress, None, list[QuestionEntry]]:
    """``list_questions`` as a job (the app runs it in a worker)."""
    yield Progress(0, 1, f"reading the questions of {domain}")
    entries = list_questions(domain)
    yield Progress(1, 1, f"{len(entries)} questions")
    return entries


def change_job(domain: str, change: str, tag: str, *args: str) -> Generator[Progress, None, QuestionEntry]:
    """One change as a job: ``change`` is 'hide', 'show', 'reword', 'reword_option' or 'reset' (arguments as
    the functions above take them after the tag)."""
    changes = {
        "hide": lambda: set_hidden(domain, tag, True),
        "show": lambda: set_hidden(domain, tag, False),
        "reword": lambda: reword_question(domain, tag, *args),
        "reword_option": lambda: reword_option(domain, tag, *args),
        "reset": lambda: reset_question(domain, tag),
    }
    if change not in changes:
        raise ConfigError(f"unknown change {change!r}: use one of {', '.join(changes)}")
    yield Progress(0, 1, f"{change} {tag}")
    entry = changes[change]()
    yield Progress(1, 1, f"{change} {tag}: done")
    return entry
