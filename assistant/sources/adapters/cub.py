"""CUB-200-2011 birds -> the "birds" domain, as in IC.

- Labels: the 200 species.
- Questions: the 312 attributes fall into 28 groups ("has_bill_shape::dagger" is in "has_bill_shape").
  Groups with at most 5 values become one multiple-choice question each (8 groups), every value of the
  other groups a binary question (279).
- Annotations: CUB gives, per species and attribute, the percentage of MTurk image annotations marking
  the attribute present. With n images of the species this is stored as expected counts: a binary
  question gets yes = pct/100 * n and no = n - yes; a multiple-choice question one count per value.
- Queries: Reed et al.'s captions (10 per image) of the 50 captioned species, split by CUB's official
  train/test image split; every 10th training image of a species (by image id) goes to dev.
- Meta ``images_per_label``: JSON {label key: [images, training images]}, needed by the simulator
  protocol that samples per-image annotations.
"""

from __future__ import annotations

import csv
import json
import re
from collections import defaultdict
from dataclasses import replace

import numpy as np

from assistant.errors import ConfigError
from assistant.sources.bundled import bundled_file
from assistant.sources.templates import TemplateSet, display_text
from assistant.store import BINARY_OPTIONS, DomainData, Label, Question
from assistant.text.grammar import agree

DATASET = "cub"
MAX_CHOICE_VALUES = 5
DEV_EVERY = 10
SUMMARY_GROUPS = (
    "has_size",
    "has_shape",
    "has_primary_color",
    "has_bill_shape",
    "has_crown_color",
    "has_wing_color",
    "has_breast_color",
    "has_head_pattern",
)


def _read_pairs(relative: str) -> list[tuple[int, str]]:
    rows = []
    path = bundled_file(DATASET, relative)
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        first, _, rest = line.strip().partition(" ")
        if not first.isdigit() or not rest:
            raise ConfigError(f"{path}:{number}: expected '<id> <value>', got {line!r}")
        rows.append((int(first), rest.strip()))
    return rows


def species_name(class_name: str) -> str:
    """'017.Cardinal' -> 'Cardinal'; '001.Black_footed_Albatross' -> 'Black-footed Albatross'."""
    bare = re.sub(r"^\d+\.", "", class_name)
    parts = bare.split("_")
    # CUB writes hyphenated English names with underscores ("Black_footed"); lowercase parts joined by '-'.
    name = parts[0]
    for part in parts[1:]:
        name += ("-" if part[:1].islower() else " ") + part
    return name


def load() -> DomainData:
    classes = _read_pairs("classes.txt")
    attributes = _read_pairs("attributes.txt")
    matrix = np.loadtxt(bundled_file(DATASET, "attributes/class_attribute_labels_continuous.txt"), dtype=np.float64)
    if matrix.shape != (len(classes), len(attributes)):
        raise ConfigError(f"CUB attribute matrix has shape {matrix.shape}, expected {(len(classes), len(attributes))}")
    class_of_image = dict(_read_pairs("image_class_labels.txt"))
    is_train = {i: v == "1" for i, v in _read_pairs("train_test_split.txt")}
    keys = [name for _, name in classes]
    class_index = {cid: i for i, (cid, _) in enumerate(classes)}

    images = defaultdict(list)
    for image_id, class_id in sorted(class_of_image.items()):
        images[class_index[int(class_id)]].append(image_id)
    n_images = np.array([len(images[i]) for i in range(len(classes))], dtype=np.float64)
    n_train = np.array([sum(is_train[i] for i in images[c]) for c in range(len(classes))], dtype=np.int64)

    # attribute groups, in file order
    groups: dict[str, list[tuple[int, str]]] = {}
    for column, (_, attr) in enumerate(attributes):
        group, _, value = attr.partition("::")
        groups.setdefault(group, []).append((column, value))

    templates = TemplateSet.builtin("birds")
    questions: list[Question] = []
    annotations: list[tuple[str, str, str, float]] = []
    for group, values in groups.items():
        if len(values) <= MAX_CHOICE_VALUES:
            options = tuple(display_text(v) for _, v in values)
            questions.append(Question(group, templates.question_text(group, "choice"), "choice", group, options))
            for y, key in enumerate(keys):
                for (column, _), option in zip(values, options):
                    annotations.append((key, group, option, float(matrix[y, column] / 100.0 * n_images[y])))
        else:
            for column, value in values:
                tag = f"{group}::{value}"
                questions.append(Question(tag, templates.question_text(tag, "binary"), "binary", group, BINARY_OPTIONS))
                for y, key in enumerate(keys):
                    yes = float(matrix[y, column] / 100.0 * n_images[y])
                    annotations.append((key, tag, "yes", yes))
                    annotations.append((key, tag, "no", float(n_images[y] - yes)))

    # "Is its underparts white?" -> "Are its underparts white?": the verb agrees with the part (a parser decides)
    texts = agree([q.text for q in questions])
    questions = [replace(q, text=text) for q, text in zip(questions, texts)]
    labels = [Label(key=key, name=species_name(key), text=_summary(matrix[y], groups)) for y, key in enumerate(keys)]
    return DomainData(
        name="birds",
        title="Birds (CUB-200-2011)",
        description="Identify one of 200 North American bird species by its visible attributes.",
        labels=labels,
        questions=questions,
        annotations=annotations,
        annotation_source="cub",
        queries=_caption_queries(keys, class_index, is_train),
        supports_not_visible=True,
        meta={
            "images_per_label": json.dumps(
                {key: [int(n_images[y]), int(n_train[y])] for y, key in enumerate(keys)}, sort_keys=True
            ),
            "citation": "Wah et al. 2011 (CUB-200-2011); Reed et al. 2016 (captions)",
            # the whole bird is always in view: "not visible" applies to its parts only
            "always_visible_groups": json.dumps(sorted(ALWAYS_VISIBLE_GROUPS)),
        },
    )


ALWAYS_VISIBLE_GROUPS = frozenset({"has_size", "has_shape", "has_primary_color"})


def _summary(row: np.ndarray, groups: dict[str, list[tuple[int, str]]]) -> str:
    """Short description from the attributes most workers marked (for display, e.g. on the compare page)."""
    parts = []
    for group in SUMMARY_GROUPS:
        values = groups[group]
        pct = np.array([row[c] for c, _ in values])
        if pct.max() < 25:
            continue
        top = [display_text(v) for (_, v), p in zip(values, pct) if p >= max(25.0, 0.6 * pct.max())]
        parts.append(f"{display_text(group.removeprefix('has_'))}: {', '.join(top[:3])}")
    return "; ".join(parts)


def _caption_queries(
    keys: list[str], class_index: dict[int, int], is_train: dict[int, bool]
) -> list[tuple[str, str, str]]:
    lines = bundled_file(DATASET, "captions/text_testclasses.txt").read_text(encoding="utf-8").splitlines()
    index_path = bundled_file(DATASET, "captions/caption_blocks_to_images.tsv")
    blocks = list(csv.DictReader(index_path.open(encoding="utf-8"), delimiter="\t"))
    train_rank: dict[str, int] = defaultdict(int)
    queries = []
    for block in sorted(blocks, key=lambda b: int(b["image_id"])):
        image_id = int(block["image_id"])
        key = keys[class_index[int(block["class_id"])]]
        if is_train[image_id]:
            split = "dev" if train_rank[key] % DEV_EVERY == DEV_EVERY - 1 else "train"
            train_rank[key] += 1
        else:
            split = "test"
        first, last = int(block["first_line"]), int(block["last_line"])
        for text in lines[first - 1 : last]:
            text = " ".join(text.split())
            if text:
                queries.append((key, text, split))
    return queries
