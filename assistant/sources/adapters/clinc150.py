"""CLINC150 -> the "clinc" domain (Larson et al. 2019, CC BY 3.0).

- Labels: the 150 intents (key "pin_change", name "Pin change"), each in one of 10 areas (banking, credit
  cards, travel, ...); no answer texts exist.
- Queries: the official splits, unchanged: train (100 per intent), val as dev (20 per intent), test (30 per
  intent). The out-of-scope queries keep their official splits too (oos_train -> train, oos_val -> dev,
  oos_test -> test) and are stored apart from the labelled queries (``DomainData.out_of_scope``).
- Questions: the areas as one multiple-choice question ("Which area is it about?" banking / credit cards /
  ... / something else), plus the questions induced from the intent names and training queries (binary
  questions and facets, assistant.induction.induction) over all 150 intents, the person model fitted on dev.
  The area question's answers come from the intent's area: the agent and the simulated user both expect the
  right area with probability 1 - ``AREA_ERROR``, half of the rest on "something else" and half spread
  over the other areas (an assumption, not a measurement: no crowd answered it).
"""

from __future__ import annotations

import json
from collections import defaultdict

from assistant.errors import ConfigError
from assistant.sources.adapters.induced import heldout_answers, induced_questions, pseudo_count
from assistant.sources.bundled import bundled_file
from assistant.store import SOMETHING_ELSE, DomainData, Label, Question

DATASET = "clinc150"
AREA_TAG = "area"
AREA_QUESTION = "Which area is it about?"
AREA_ERROR = 0.1
OFFICIAL_SPLITS = {"train": "train", "val": "dev", "test": "test"}
OUT_OF_SCOPE_SPLITS = {"oos_train": "train", "oos_val": "dev", "oos_test": "test"}
OUT_OF_SCOPE_INTENT = "oos"


def readable(key: str) -> str:
    """'kitchen_and_dining' -> 'kitchen and dining'."""
    return " ".join(key.replace("_", " ").split())


def intent_name(key: str) -> str:
    """'pin_change' -> 'Pin change'."""
    text = readable(key)
    return text[:1].upper() + text[1:]


def read_areas() -> dict[str, str]:
    """Intent key -> its area key (the 10 CLINC150 domains)."""
    areas = json.loads(bundled_file(DATASET, "domains.json").read_text(encoding="utf-8"))
    area_of = {}
    for area, intents in areas.items():
        for intent in intents:
            if intent in area_of:
                raise ConfigError(f"{DATASET}/domains.json: intent {intent!r} is in two areas")
            area_of[intent] = area
    return area_of


def area_question(area_keys: list[str]) -> Question:
    options = (*(readable(a) for a in area_keys), SOMETHING_ELSE)
    return Question(AREA_TAG, AREA_QUESTION, "choice", AREA_TAG, options)


def area_answers(labels: list[Label], area_of: dict[str, str], question: Question) -> list[tuple[str, str, str, float]]:
    """(label, tag, option, probability): the right area 1 - AREA_ERROR, half the rest "something else"."""
    others = len(question.options) - 2
    rows = []
    for label in labels:
        own = readable(area_of[label.key])
        for option in question.options:
            if option == own:
                p = 1.0 - AREA_ERROR
            elif option == SOMETHING_ELSE:
                p = AREA_ERROR / 2
            else:
                p = AREA_ERROR / 2 / others
            rows.append((label.key, AREA_TAG, option, p))
    return rows


def read_queries(
    area_of: dict[str, str],
) -> tuple[list[tuple[str, str, str]], dict[str, dict[str, list[str]]], list[tuple[str, str]]]:
    """The official splits: (intent, text, split) rows, texts by split and intent, and (text, split) of the
    out-of-scope queries; val becomes dev."""
    raw = json.loads(bundled_file(DATASET, "data_full.json").read_text(encoding="utf-8"))
    missing = (set(OFFICIAL_SPLITS) | set(OUT_OF_SCOPE_SPLITS)) - set(raw)
    if missing:
        raise ConfigError(f"{DATASET}/data_full.json lacks the splits {sorted(missing)}")
    queries: list[tuple[str, str, str]] = []
    texts: dict[str, dict[str, list[str]]] = {s: defaultdict(list) for s in OFFICIAL_SPLITS.values()}
    seen: set[tuple[str, str]] = set()
    for official, split in OFFICIAL_SPLITS.items():
        for position, (text, intent) in enumerate(raw[official]):
            if intent not in area_of:
                raise ConfigError(f"{DATASET}/data_full.json {official}[{position}]: unknown intent {intent!r}")
            text = " ".join(str(text).split())
            if text and (intent, text) not in seen:  # a paraphrase repeated across splits stays in the first
                seen.add((intent, text))
                queries.append((intent, text, split))
                texts[split][intent].append(text)
    out_of_scope = []
    for official, split in OUT_OF_SCOPE_SPLITS.items():
        for text, intent in raw[official]:
            if intent != OUT_OF_SCOPE_INTENT:
                raise ConfigError(f"{DATASET}/data_full.json {official}: expected intent 'oos', got {intent!r}")
            out_of_scope.append((" ".join(str(text).split()), split))
    return queries, texts, out_of_scope


def load() -> DomainData:
    area_of = read_areas()
    keys = sorted(area_of, key=lambda k: (list(dict.fromkeys(area_of.values())).index(area_of[k]), k))
    labels = [Label(key=k, name=intent_name(k), text=intent_name(k)) for k in keys]
    queries, texts, out_of_scope = read_queries(area_of)
    # the induced facets within each area: "What do you want to do in banking?"
    areas: dict[str, list[int]] = defaultdict(list)
    for y, key in enumerate(keys):
        areas[readable(area_of[key])].append(y)
    induced, annotations, induced_meta = induced_questions(
        labels, [texts["train"][k] for k in keys], [texts["dev"][k] for k in keys], groups=areas
    )
    area = area_question(list(dict.fromkeys(area_of[k] for k in keys)))
    area_rows = area_answers(labels, area_of, area)
    per_area = pseudo_count(len(area.options))
    annotations += [(lk, tag, option, round(per_area * p, 4)) for lk, tag, option, p in area_rows]
    questions = [area, *induced]
    return DomainData(
        name="clinc",
        title="Virtual assistant (CLINC150)",
        description="Route a request to one of 150 intents in 10 areas, or say that none fits.",
        labels=labels,
        questions=questions,
        annotations=annotations,
        annotation_source="induced",
        queries=queries,
        heldout=heldout_answers(labels, questions, queries, areas) + area_rows,
        out_of_scope=out_of_scope,
        meta={
            **induced_meta,
            "area_error": f"{AREA_ERROR:g}",
            "citation": "Larson et al. 2019 (CLINC150, CC BY 3.0)",
        },
    )
