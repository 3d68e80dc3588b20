"""Two checks of a prepared large desk FAQ (issue 42), run by ``benchmarks.large_faq`` in its home:

- ``repeated_turns``: the speed of a turn beyond the shared data. ../shared/data gives about 1,530 distinct
  entries, so the desk's entries are **repeated under new keys** (``<key>#<copy>``), their annotations, answer
  model and prior scores copied, each copy's prior ``COPY_SHIFT`` nats below the one before (as unrelated entries
  are less likely): for the speed figures only, never for quality. It times, in this process, a conversation's
  start (the prior's scores, the belief, the first question) and each answer to the next question, in CPU
  seconds, at 1 and at ``copies`` times the desk's size: the engine's own cost, without the terminal's
  process start, model loading and session log (the `clarify ask` figures of ``large_faq`` have those).
- ``faq_inside_desk``: quality at scale. The bundled faq's 125 entries are among the desk's (its StackFAQ
  threads, matched by title); the faq's test queries are asked of each: Acc@1 of the prior, and the stand-in
  person of ``benchmarks.desk_person`` playing the owners' hidden-style queries (benchmarks/desk_queries/
  faq.tsv and faq-out-of-scope.tsv): success and actions. The faq must be prepared in the same home.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import numpy as np

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.clarifier import Clarifier
from assistant.sources.own_faq.entries import title_form
from assistant.store import Domain

COPY_SHIFT = 3.0
QUERIES_DIR = Path(__file__).resolve().parent / "desk_queries"


class RepeatedPrior:
    """A prior's scores for a domain repeated ``copies`` times: copy c's scores are the original's minus
    c * ``shift`` (log-space), so that the copies are as unlikely as unrelated entries."""

    def __init__(self, prior, copies: int, shift: float = COPY_SHIFT) -> None:
        self.prior, self.copies, self.shift = prior, copies, shift
        self.name = f"{getattr(prior, 'name', 'prior')} x{copies}"

    def scores(self, texts) -> np.ndarray:
        base = np.asarray(self.prior.scores(texts), dtype=np.float64)
        return np.concatenate([base - c * self.shift for c in range(self.copies)], axis=1)


def repeated_clarifier(clarifier: Clarifier, copies: int) -> Clarifier:
    """``clarifier`` (over all its domain's labels) on its domain repeated ``copies`` times (module docstring)."""
    d = clarifier.domain
    labels = [
        lab if c == 0 else dataclasses.replace(lab, key=f"{lab.key}#{c}") for c in range(copies) for lab in d.labels
    ]
    domain = Domain(
        name=d.name,
        title=d.title,
        labels=labels,
        questions=d.questions,
        counts=np.tile(d.counts, (1, 1, copies)),
        meta=dict(d.meta),
    )
    m = clarifier.model
    model = AnswerModel(
        np.tile(m.p_hat, (1, 1, copies)),
        m.option_mask,
        None if m.tag_scores is None else np.tile(m.tag_scores, (1, 1, copies)),
        m.lam,
        m.w,
        m.b,
    )
    return Clarifier(
        domain,
        RepeatedPrior(clarifier.prior, copies),
        model,
        clarifier.stop_rule,
        clarifier.strategy,
        None,
        clarifier.config,
        clarifier.out_of_scope,
    )


def time_conversation(clarifier: Clarifier, query: str, answers: int = 3) -> dict:
    """CPU seconds of a conversation's start to its first question, and of each answer (the first option) to
    the next question."""
    start = time.process_time()
    conversation = clarifier.start(query, np.random.default_rng(0))
    question = conversation.next_question()
    first = time.process_time() - start
    later = []
    for _ in range(answers):
        if question is None:
            break
        start = time.process_time()
        conversation.answer(question, 0)
        question = conversation.next_question()
        later.append(time.process_time() - start)
    return {"query": query, "first_question_cpu_s": round(first, 3), "answers_cpu_s": [round(s, 4) for s in later]}


def stand_in_clarifier(domain: Domain) -> Clarifier:
    """A clarifier for a desk that is not prepared: BM25 over the entries' texts as the prior, the induced
    annotations as the answer model (lambda = 1), stopping at 90% belief, answer lists on. Its figures are the
    turn's arithmetic at this size, not the prepared desk's (``--unprepared``: said so in the output)."""
    from assistant.clarification.records import ClarifierConfig
    from assistant.clarification.stopping import ThresholdStop
    from assistant.priors.bm25 import BM25Prior

    model = AnswerModel(domain.p_hat(1.0), domain.option_mask)
    config = ClarifierConfig(answer_lists=True)
    return Clarifier(domain, BM25Prior.fit(domain), model, ThresholdStop(0.9), config=config)


def _timed_sizes(base: Clarifier, queries: tuple[str, ...], copies: int) -> dict:
    rows = {}
    for n in sorted({1, copies}):
        clarifier = base if n == 1 else repeated_clarifier(base, n)
        clarifier.start(queries[0]).next_question()  # warm: the prior's embedder, first-use caches
        runs = [time_conversation(clarifier, q) for q in queries]
        answers = [s for r in runs for s in r["answers_cpu_s"]]
        rows[str(clarifier.domain.num_labels)] = {
            "copies": n,
            "runs": runs,
            "first_question_cpu_s_max": max(r["first_question_cpu_s"] for r in runs),
            "answer_cpu_s_max": max(answers) if answers else None,
            "answer_cpu_s_median": float(np.median(answers)) if answers else None,
        }
    return rows


def repeated_turns(base: Clarifier, queries: tuple[str, ...], copies: int) -> dict:
    """Conversation CPU seconds on the desk (``base``, over all its labels) and on it repeated ``copies`` times,
    with the gains over the likely labels (``assistant.clarification.questions``) and, for comparison, over
    every label."""
    from assistant.clarification import questions

    floor = questions.FLOOR_MIN_LABELS
    out: dict = {"copy_shift_nats": COPY_SHIFT, "floor": _timed_sizes(base, queries, copies)}
    try:
        questions.FLOOR_MIN_LABELS = 2**62  # every label, as before issue 42
        out["every_label"] = _timed_sizes(base, queries, copies)
    finally:
        questions.FLOOR_MIN_LABELS = floor
    return out


def _title_keys(domain: Domain) -> dict[str, str]:
    return {title_form(lab.name): lab.key for lab in domain.labels}


def _acc_at_1(registry, texts: list[str], keys: list[str]) -> float:
    clarifier = registry.clarifier()
    scores = np.asarray(clarifier.prior.scores(texts))
    top = [clarifier.domain.labels[i].key for i in np.argmax(scores, axis=1)]
    return float(np.mean([t == k for t, k in zip(top, keys)])) if keys else float("nan")


def faq_inside_desk(faq_registry, desk_registry) -> dict:
    """The faq's test queries and the owners' queries on faq alone and inside the desk (module docstring)."""
    from benchmarks.desk_person import play_all, read_queries, summary

    faq, desk = faq_registry.domain, desk_registry.domain
    in_desk = _title_keys(desk)
    to_desk = {lab.key: in_desk.get(title_form(lab.name)) for lab in faq.labels}
    texts, labels = faq.queries("test")
    faq_keys = [faq.labels[i].key for i in labels]
    found = [i for i, k in enumerate(faq_keys) if to_desk[k] is not None]
    rows = read_queries(QUERIES_DIR / "faq.tsv") + read_queries(QUERIES_DIR / "faq-out-of-scope.tsv")
    desk_rows = [(None if k is None else to_desk.get(k), q) for k, q in rows]
    desk_rows = [(k, q) for (k, q), (orig, _) in zip(desk_rows, rows) if orig is None or k is not None]
    return {
        "faq_entries_found_in_desk": sum(v is not None for v in to_desk.values()),
        "faq_entries": len(faq.labels),
        "test_queries": len(found),
        "acc_at_1": {
            "faq_alone": _acc_at_1(faq_registry, [texts[i] for i in found], [faq_keys[i] for i in found]),
            "inside_desk": _acc_at_1(
                desk_registry, [texts[i] for i in found], [str(to_desk[faq_keys[i]]) for i in found]
            ),
        },
        "stand_in_person": {
            "faq_alone": summary(play_all(faq_registry, rows)),
            "inside_desk": summary(play_all(desk_registry, desk_rows)),
        },
    }
