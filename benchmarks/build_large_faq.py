"""Build a large desk FAQ (issue 33) from the shared data: the Stack Exchange beer and coffee questions that have
answers (title as the question, the accepted answer first, then the others by score) and StackFAQ's 125 threads,
written as a CSV that `clarify domain create NAME --from FILE` reads. The data is read from ../shared/data at run
time; the CSV is an output, never committed.

    python -m benchmarks.build_large_faq --out /tmp/desk-1000.csv [--limit 1000] [--answers 3]
    python -m benchmarks.build_large_faq --out /tmp/desk-large.csv --sets stackfaq,beer,coffee,semeval --limit 5000
    clarify domain create desk1000 --from /tmp/desk-1000.csv && clarify prepare desk1000

Stack Exchange bodies are HTML: tags are dropped and entities decoded; an answer is cut at ``--answer-chars``.
"""

from __future__ import annotations

import argparse
import csv
import html
import json
import re
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

from assistant.paths import shared_data_dir
from assistant.sources.own_faq.entries import title_form

_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")


def plain(text: str, limit: int = 0) -> str:
    """Stack Exchange HTML as one line of plain text (at most ``limit`` characters, 0 = all, cut at a word)."""
    text = _SPACE.sub(" ", html.unescape(_TAG.sub(" ", text or ""))).strip()
    if limit and len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0] + " ..."
    return text


def stackexchange_entries(posts: Path, site: str, answers: int, answer_chars: int) -> list[dict]:
    """One entry per question with at least one answer: title, the question body as description, answers with
    the accepted one first, then by score."""
    questions: dict[str, dict] = {}
    replies: dict[str, list[tuple[int, str, str]]] = defaultdict(list)
    for _, row in ET.iterparse(posts, events=("end",)):
        if row.tag != "row":
            continue
        kind, post_id = row.get("PostTypeId"), row.get("Id", "")
        if kind == "1" and row.get("Title"):
            questions[post_id] = {
                "title": plain(row.get("Title", "")),
                "body": plain(row.get("Body", ""), 300),
                "accepted": row.get("AcceptedAnswerId"),
                "tags": re.findall(r"<([^>]+)>", row.get("Tags", "") or ""),
            }
        elif kind == "2" and row.get("ParentId"):
            replies[row.get("ParentId", "")].append((int(row.get("Score", "0")), post_id, row.get("Body", "")))
        row.clear()
    entries = []
    for post_id, q in questions.items():
        found = replies.get(post_id)
        if not found:
            continue
        ranked = sorted(found, key=lambda r: (r[1] != q["accepted"], -r[0]))
        texts = [plain(body, answer_chars) for _, _, body in ranked[:answers]]
        texts = [t for t in texts if t]
        if texts and q["title"]:
            category = site  # the site, not its 100+ tags: a category is a facet question, its list must stay short
            entries.append(
                {
                    "key": f"{site}-{post_id}",
                    "title": q["title"],
                    "description": q["body"],
                    "category": category,
                    "answers": texts,
                }
            )
    return entries


def stackfaq_entries(path: Path, answers: int, answer_chars: int) -> list[dict]:
    """StackFAQ's threads: the question and its answers (its crowd paraphrases are left out: a desk has none)."""
    pairs = json.loads(path.read_text(encoding="utf-8"))["root"]["qapair"]
    entries = []
    for i, pair in enumerate(pairs):
        texts = [plain(a, answer_chars) for a in pair.get("answer", [])[:answers]]
        texts = [t for t in texts if t]
        if texts and pair.get("question"):
            entries.append(
                {
                    "key": f"stackfaq-{i}",
                    "title": plain(pair["question"]),
                    "description": "",
                    "category": "software",
                    "answers": texts,
                }
            )
    return entries


def semeval_entries(data: Path, answers: int, answer_chars: int) -> list[dict]:
    """SemEval-2016 task 3's Qatar Living threads (evaluation-only data, read from ../shared and never bundled):
    one entry per related question (subject as the title, body as the description, its forum category), its
    Good comments as answers in thread order; a thread that repeats another (``SubtaskA_Skip...``) or has no
    Good comment is left out."""
    entries = []
    seen: set[str] = set()
    for name in ("SemEval2016-Task3-CQA-QL-train-part2.xml", "SemEval2016-Task3-CQA-QL-dev.xml"):
        for thread in ET.parse(data / "semeval2016-task3-cqa" / name).getroot().iter("Thread"):
            question = thread.find("RelQuestion")
            if question is None or thread.get("SubtaskA_Skip_Because_Same_As_RelQuestion_ID"):
                continue
            key = question.get("RELQ_ID", "")
            good = [
                plain(c.findtext("RelCText") or "", answer_chars)
                for c in thread.iter("RelComment")
                if c.get("RELC_RELEVANCE2RELQ") == "Good"
            ]
            good = [t for t in good if t][:answers]
            title = plain(question.findtext("RelQSubject") or "")
            if not good or not title or key in seen:
                continue
            seen.add(key)
            entries.append(
                {
                    "key": f"semeval-{key}",
                    "title": title,
                    "description": plain(question.findtext("RelQBody") or "", 300),
                    "category": "qatar",  # one facet value per source, as for the Stack Exchange sites
                    "answers": good,
                }
            )
    return entries


SETS = ("stackfaq", "beer", "coffee", "semeval")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path, help="The CSV to write (not in the repository).")
    parser.add_argument("--limit", type=int, default=1000, help="Entries at most (the import takes 5,000).")
    parser.add_argument("--answers", type=int, default=3, help="Answers per entry at most.")
    parser.add_argument("--answer-chars", type=int, default=600, help="Characters per answer at most.")
    parser.add_argument("--data-dir", default=None, help="The shared data folder (default: ../shared/data).")
    parser.add_argument(
        "--sets",
        default="stackfaq,beer,coffee",
        help=f"Comma-separated data sets, in this order ({', '.join(SETS)}; semeval: Qatar Living threads, ~1,000 "
        "more entries for a larger FAQ).",
    )
    args = parser.parse_args(argv)
    data = shared_data_dir(args.data_dir)
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    unknown = [s for s in sets if s not in SETS]
    if unknown:
        parser.error(f"unknown data set(s) {', '.join(unknown)}: use {', '.join(SETS)}")
    entries: list[dict] = []
    for name in sets:
        if name == "stackfaq":
            entries += stackfaq_entries(data / "stackfaq" / "stackExchange-FAQ.json", args.answers, args.answer_chars)
        elif name == "semeval":
            entries += semeval_entries(data, args.answers, args.answer_chars)
        else:
            entries += stackexchange_entries(
                data / f"stackexchange-{name}" / "Posts.xml", name, args.answers, args.answer_chars
            )
    seen: set[str] = set()
    unique = []
    for entry in entries:  # one entry per question text: the import refuses titles of the same form
        if title_form(entry["title"]) not in seen:
            seen.add(title_form(entry["title"]))
            unique.append(entry)
    unique = unique[: args.limit]
    width = max(len(e["answers"]) for e in unique)
    columns = ["key", "title", "description", "category", "answer"] + [f"answer {i}" for i in range(2, width + 1)]
    with args.out.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(columns)
        for e in unique:
            answers = e["answers"] + [""] * (width - len(e["answers"]))
            writer.writerow([e["key"], e["title"], e["description"], e["category"], *answers])
    print(f"{len(unique)} entries -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
