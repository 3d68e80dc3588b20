"""A stand-in for a person at the desk (issue 26's measure): someone who knows which entry they want and
reads only what the screen says, answering through the same ``Session`` the terminal and the app drive.

They answer a yes/no question "yes" when its words are in their entry's title; a multiple-choice question
with the option its title names (else "something else"); "Which of these is it?" with their entry if listed
(else "none of these"); a pair with the side that is their entry (neither, if neither is); a proposal
"yes" when it is their entry, else "no", then pick their entry among the others if it is there, else ask for
more questions once, else give up. Someone whose question nothing answers says "something else" / "no" /
"none of these", rejects proposals, and hands the question on when told nothing fits. Out of scope counts
as a success for them, in scope only their entry does.

Actions are what the person does: every answer to a question, every comparison, every reply to a proposal
or to a rejection. The figures the owners read: success, and questions + comparisons per query.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import click

from assistant.app.session.session import Phase, Session, SessionConfig
from assistant.text.phrases import text_keys, words
from assistant.text.tokens import STOPWORDS
from benchmarks.common import HELP, run_command

SOMETHING_ELSE = "something else"
NONE_OF_THESE = "none of these"
GENERIC = {"want", "do", "be", "it", "about", "is", "are", "its", "something", "thing", "have", "which", "these"}
MAX_ACTIONS = 40  # a person stops long before


@dataclass
class Outcome:
    """One query played by the stand-in."""

    query: str
    target: str | None  # the entry's key, None for a question nothing answers
    success: bool = False
    questions: int = 0
    comparisons: int = 0
    actions: int = 0
    ended: str = ""  # finished / failed / out_of_scope / gave up
    said_nothing_fits: bool = False
    trail: list[str] = field(default_factory=list)


class DeskPerson:
    """Answers a session's questions for ``title`` (the entry's name), or as someone nothing answers (None)."""

    def __init__(self, title: str | None) -> None:
        self.title = title
        self.keys = text_keys(title) if title else set()
        self.asked_more = False

    def _names(self, text: str) -> bool:
        content = [w for w in words(text) if w not in STOPWORDS and w not in GENERIC]
        return bool(content) and all(any(k == (w,) or w in k for k in self.keys) for w in content)

    def option(self, text: str, options: Sequence[str]) -> int:
        if self.title is None:
            for other in (SOMETHING_ELSE, NONE_OF_THESE, "no"):
                if other in options:
                    return options.index(other)
            return len(options) - 1
        if NONE_OF_THESE in options:
            return options.index(self.title) if self.title in options else options.index(NONE_OF_THESE)
        if tuple(options) == ("yes", "no"):
            subject = text.rstrip("?")
            for opener in ("Is it about the", "Is it about", "Do you want to", "Is something", "Is the", "Is its"):
                subject = subject.removeprefix(opener)
            return 0 if self._names(subject) else 1
        named = [i for i, o in enumerate(options) if o != SOMETHING_ELSE and self._names(o)]
        if named:
            return named[0]
        return options.index(SOMETHING_ELSE) if SOMETHING_ELSE in options else len(options) - 1


def play(session: Session, person: DeskPerson, outcome: Outcome) -> Outcome:
    """Drive ``session`` as ``person`` until it ends (or the person would have walked away)."""
    while outcome.actions < MAX_ACTIONS:
        phase = session.phase
        if phase.ended or (phase == Phase.OUT_OF_SCOPE and session.handed_off):
            break
        outcome.actions += 1
        if phase == Phase.CLARIFYING:
            view = session.question
            assert view is not None  # the clarifying phase has its question
            session.answer(person.option(view.text, view.options))
            outcome.questions += 1
            answered = session.conversation.answers[-1].option
            outcome.trail.append(f"{view.text} -> {view.options[answered] if answered is not None else '(no option)'}")
        elif phase == Phase.COMPARING:
            pair = session.pair
            assert pair is not None  # the comparing phase has its pair
            left, right = pair
            mine = [c.label_key == outcome.target for c in (left, right)]
            choice = "left" if mine[0] else "right" if mine[1] else "neither"
            session.prefer(choice)
            outcome.comparisons += 1
        elif phase == Phase.DECIDED:
            proposal = session.proposed
            assert proposal is not None  # the decided phase has its proposal
            if proposal.label_key == outcome.target:
                session.accept()
            else:
                session.reject("not it")
        elif phase == Phase.REJECTED:
            wanted = [c for c in session.alternatives if c.label_key == outcome.target]
            if wanted:
                session.choose(wanted[0].id)
            elif session.can_ask_more and not person.asked_more:
                person.asked_more = True
                session.ask_more()
            else:
                session.give_up()
        elif phase == Phase.OUT_OF_SCOPE:
            outcome.said_nothing_fits = True
            if outcome.target is None:
                session.hand_off("nothing here")
            else:
                session.show_closest()
    outcome.ended = str(session.status) if outcome.actions < MAX_ACTIONS else "walked away"
    if outcome.target is None:
        outcome.success = outcome.said_nothing_fits
    else:
        outcome.success = session.final is not None and session.final.label_key == outcome.target
    return outcome


def read_queries(path: Path) -> list[tuple[str | None, str]]:
    """(label key or None for out of scope, query) rows of a desk file (label<TAB>query)."""
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [(None if r["label"] == "out_of_scope" else r["label"], r["query"]) for r in rows]


def play_all(registry, rows: Sequence[tuple[str | None, str]], config: SessionConfig | None = None) -> list[Outcome]:
    """Every row played once by a stand-in who knows the row's entry (sessions in the registry's domain)."""
    domain = registry.domain
    out = []
    for key, query in rows:
        title = None if key is None else domain.labels[domain.label_index(key)].name
        session = Session.start(registry, query, config or SessionConfig())
        out.append(play(session, DeskPerson(title), Outcome(query, key)))
    return out


def summary(outcomes: Sequence[Outcome]) -> dict:
    """Success and effort over ``outcomes`` (in scope and out of scope apart)."""

    def part(chosen: list[Outcome]) -> dict:
        if not chosen:
            return {}
        n = len(chosen)
        return {
            "queries": n,
            "success": sum(o.success for o in chosen) / n,
            "questions": sum(o.questions for o in chosen) / n,
            "comparisons": sum(o.comparisons for o in chosen) / n,
            "questions_plus_comparisons": sum(o.questions + o.comparisons for o in chosen) / n,
            "actions": sum(o.actions for o in chosen) / n,
            "told_nothing_fits": sum(o.said_nothing_fits for o in chosen) / n,
        }

    return {
        "in_scope": part([o for o in outcomes if o.target is not None]),
        "out_of_scope": part([o for o in outcomes if o.target is None]),
    }


@click.command(context_settings=HELP)
@click.option("--domain", "name", required=True, help="a prepared domain of $CLARIFY_HOME")
@click.option("--queries", "files", multiple=True, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--pace", default=None, help="quick or thorough (default: the domain's)")
def main(name: str, files: tuple[Path, ...], pace: str | None) -> dict:
    """Play every row of the query files (label<TAB>query; label out_of_scope for a question nothing answers)
    as the stand-in person, in sessions of ``name``; prints the figures as JSON and a one-line summary."""
    from assistant.app.lifecycle.registry import ModelRegistry

    registry = ModelRegistry(name)
    rows = [row for path in files for row in read_queries(path)]
    outcomes = play_all(registry, rows, SessionConfig(pace=pace) if pace else None)
    figures = summary(outcomes)
    inside, outside = figures["in_scope"], figures["out_of_scope"]
    figures["domain"] = name
    figures["misses"] = [
        {"query": o.query, "target": o.target, "ended": o.ended, "trail": o.trail} for o in outcomes if not o.success
    ]
    print(json.dumps(figures, indent=2))
    line = f"{name}: in scope {inside.get('success', float('nan')):.1%} at {inside.get('actions', float('nan')):.2f} "
    line += f"actions, told nothing fits {inside.get('told_nothing_fits', float('nan')):.1%}"
    if outside:
        line += f"; out of scope turned away {outside['success']:.1%}"
    print(line)
    return figures


if __name__ == "__main__":
    run_command(main)
