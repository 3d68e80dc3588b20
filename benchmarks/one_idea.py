"""Questions that ask one idea once (issue 39), measured on the development desks (../shared/data/desks) and the
example FAQs with queries (docs/examples), each built as `clarify domain create` builds it:

- *pairs*: among a desk's induced yes/no questions, and within each facet's options, the pairs that say one idea
  in words: forms of one phrase, one naming a kind of the other ("portable cot" / "cot"), or MiniLM at least
  ``SAME_IDEA_SIMILARITY``;
- *conversations*: each desk query played with the BM25 prior, information gain, 8 questions and no answer
  lists, the person answering from the build's held-out answers (a seeded draw), with the one-idea rules off
  (the bundled domains' rules), on words alone (forms, near-synonyms, phrases inside one another) and on
  (``assistant.clarification.kinship``, as a desk's own FAQ has them): how many questions asked an idea an
  earlier answer had settled (by words; by words or the same entries), and the top-1 accuracy after 3 and 8.

    python -m benchmarks.one_idea [--desks museum,parks] [--data-dir DIR]

Prints one JSON object, then a one-line summary.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.clarifier import Clarifier, ClarifierConfig
from assistant.clarification.kinship import OWN_FAQ, kin_settled, similar_tags
from assistant.clarification.stopping import FixedTurns
from assistant.induction.synonyms import SAME_IDEA_SIMILARITY, meaning_text
from assistant.paths import REPO_ROOT, shared_data_dir
from assistant.priors.bm25 import BM25Prior
from assistant.sources.own_faq import parse_faq
from assistant.sources.own_faq.building import faq_domain_data
from assistant.store import Domain, KnowledgeBase, write_domain
from assistant.text.embeddings import phrase_vectors
from assistant.text.lemmas import phrase_key
from assistant.text.phrases import split_facet_tag, split_tag, words
from assistant.text.word_forms import head_contains, same_form

TURNS = 8
SETTINGS = ("off", "words", "on")
EXAMPLES = {"library": "library-faq.csv", "itdesk": "itdesk-faq.csv", "bikeshare": "bikeshare-faq.md"}


def desks(data_dir: str | None) -> dict[str, tuple[Path, Path]]:
    """{name: (FAQ file, queries file)}: the development desks, then the examples with queries."""
    root = shared_data_dir(data_dir) / "desks"
    found = {d.name: (d / "faq.csv", d / "queries.tsv") for d in sorted(root.iterdir()) if (d / "faq.csv").is_file()}
    examples = REPO_ROOT / "docs" / "examples"
    found.update({name: (examples / faq, examples / f"{name}-queries.tsv") for name, faq in EXAMPLES.items()})
    return found


def one_idea_pairs(domain: Domain) -> dict:
    """The pairs of the module docstring, by where they are and why, with a few examples."""
    questions = [q for q in domain.questions if q.induced]
    binaries = [(kind, shown) for kind, shown in (split_tag(q.tag) for q in questions if q.kind == "binary") if kind]
    facets = [
        [(split_facet_tag(q.tag)[0], o) for o in q.options[:-1]]
        for q in questions
        if q.kind == "choice" and split_facet_tag(q.tag)[0] in ("product", "action", "object")
    ]
    values = sorted({*binaries, *(v for options in facets for v in options)})
    vectors = dict(zip(values, phrase_vectors([meaning_text(kind, shown) for kind, shown in values])))
    counts: dict[str, int] = {}
    examples: list[str] = []
    for where, pairs in (
        ("yes/no", itertools.combinations(binaries, 2)),
        ("options", (p for options in facets for p in itertools.combinations(options, 2))),
    ):
        for a, b in pairs:
            why = _why(a, b, vectors)
            if why is not None:
                counts[f"{where} {why}"] = counts.get(f"{where} {why}", 0) + 1
                examples.append(f"{a[1]} / {b[1]}")
    return {"counts": counts, "examples": examples[:8]}


def _why(a: tuple, b: tuple, vectors: dict) -> str | None:
    if a[0] != b[0]:
        return None
    key_a, key_b = phrase_key(words(a[1])), phrase_key(words(b[1]))
    if same_form(key_a, key_b):
        return "form"
    if a[0] == "object" and (head_contains(key_a, key_b) or head_contains(key_b, key_a)):
        return "inside"
    return "minilm" if float(vectors[a] @ vectors[b]) >= SAME_IDEA_SIMILARITY else None


def conversations(domain: Domain, queries: list[tuple[str, int]]) -> dict:
    """The conversations of the module docstring, per setting."""
    prior = BM25Prior.fit(domain)
    model = AnswerModel(domain.p_hat(1.0), domain.option_mask)
    every = kin_settled(domain.questions, domain.counts, similar_tags(domain))
    by_words = kin_settled(domain.questions, None, similar_tags(domain))
    user = domain.heldout_answers
    assert user is not None  # an own FAQ's build stores them
    out = {}
    for setting in SETTINGS:
        meta = {k: v for k, v in domain.meta.items() if k != OWN_FAQ or setting == "on"}
        config = ClarifierConfig(max_turns=TURNS, answer_lists=False)
        clarifier = Clarifier(replace(domain, meta=meta), prior, model, FixedTurns(TURNS), config=config)
        if setting == "words":
            clarifier.implied = [
                [tuple(sorted({*own, *extra})) for own, extra in zip(mine, kin)]
                for mine, kin in zip(clarifier.implied, by_words)
            ]
        rng = np.random.default_rng(0)
        figures: dict[str, float] = dict.fromkeys(("questions", "repeats_by_words", "repeats"), 0)
        figures.update(top1_after_3=0, top1_after_8=0)
        for text, y in queries:
            conversation = clarifier.start(text, np.random.default_rng(1))
            said: list[tuple[int, int]] = []
            while (q := conversation.next_question()) is not None:
                p = user[q, : len(domain.questions[q].options), y].astype(np.float64)
                r = int(rng.choice(len(p), p=p / p.sum()))
                figures["repeats_by_words"] += any(q in by_words[a][b] for a, b in said)
                figures["repeats"] += any(q in every[a][b] for a, b in said)
                said.append((q, r))
                figures["questions"] += 1
                conversation.answer(q, r)
                figures["top1_after_3"] += conversation.turn == 3 and int(np.argmax(conversation.probs)) == y
            figures["top1_after_8"] += int(np.argmax(conversation.probs)) == y
        for k in ("top1_after_3", "top1_after_8"):
            figures[k] = round(figures[k] / max(len(queries), 1), 3)
        out[setting] = figures
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--desks", default="", help="Comma-separated desk names (default: all).")
    parser.add_argument("--data-dir", default=None, help="The shared data folder (default: ../shared/data).")
    args = parser.parse_args()
    wanted = [d for d in args.desks.split(",") if d]
    result: dict = {"turns": TURNS, "desks": {}}
    with tempfile.TemporaryDirectory() as folder:
        for name, (faq, query_file) in desks(args.data_dir).items():
            if wanted and name not in wanted:
                continue
            with KnowledgeBase(Path(folder) / f"{name}.db", name) as kb:
                write_domain(kb, faq_domain_data(name, parse_faq(faq).entries))
                domain = kb.load_domain()
            index = {label.key: y for y, label in enumerate(domain.labels)}
            with query_file.open(encoding="utf-8", newline="") as handle:
                rows = list(csv.reader(handle, delimiter="\t"))[1:]
            queries = [(text, index[key]) for key, text in rows if key in index]
            result["desks"][name] = {"pairs": one_idea_pairs(domain), "conversations": conversations(domain, queries)}
    print(json.dumps(result, indent=1))
    played = result["desks"].values()
    totals = {s: {k: sum(d["conversations"][s][k] for d in played) for k in ("questions", "repeats")} for s in SETTINGS}
    accuracy = {s: np.mean([d["conversations"][s]["top1_after_3"] for d in played]) for s in SETTINGS}
    print(
        "one idea: repeated ideas "
        + ", ".join(
            f"{s} {totals[s]['repeats']}/{totals[s]['questions']} (top-1 after 3: {accuracy[s]:.3f})" for s in SETTINGS
        )
    )


if __name__ == "__main__":
    main()
