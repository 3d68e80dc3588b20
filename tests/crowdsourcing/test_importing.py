"""Applying imports to a knowledge base: all-or-nothing, idempotent, with a full report."""

from __future__ import annotations

import json

import pytest

from assistant import paths
from assistant.errors import ConfigError, DomainNotFoundError, ValidationError
from assistant.progress import collect, run_job
from assistant.store import KnowledgeBase
from crowdsourcing.importers import parse_file
from crowdsourcing.importing import apply_plan, import_file, plan_import, preview_import, resolve_tags
from crowdsourcing.report import preview_report
from tests.support.crowd import dump


def do_import(path, domain="bank", fmt="mturk", **options):
    return run_job(import_file(path, domain, fmt, **options))


def induced_state(domain, tag):
    with KnowledgeBase.open(domain) as kb:
        induced = kb.db.execute("SELECT induced FROM questions WHERE tag = ?", [tag]).fetchone()[0]
        rows = kb.db.execute(
            "SELECT COUNT(*) FROM annotations a JOIN questions q ON q.id = a.question_id "
            "WHERE q.tag = ? AND a.source = 'induced'",
            [tag],
        ).fetchone()[0]
    return induced, rows


def test_mturk_tag_batch_report(bank, data):
    assert induced_state(bank, "card delivery") == (1, 8)
    records, report = collect(import_file(data / "mturk_tags_bank.csv", bank, "mturk"))
    assert [r.step for r in records] == [0, 1, 2, 3]
    assert report.status == "imported"
    assert report.added == {"labels": 0, "questions": 6, "annotations": 35, "queries": 0}
    assert report.skipped["existing"] == 0
    assert [r["assignment"] for r in report.rejected_assignments] == ["3GNCZX450JB0S7W0KAA36XB7YJ7APX"]
    merges = {m["tag"]: m for m in report.merged_tags}
    assert merges["lost card"]["merged"] == ["Lost cards"]
    assert merges["lost card"]["reason"] == "same words" and merges["lost card"]["existing_question"]
    assert merges["pin code"] == {
        "tag": "pin code",
        "merged": ["PIN-code"],
        "reason": "normalised",
        "existing_question": False,
        "kind": "binary",
    }
    new = {q["tag"]: q["text"] for q in report.new_questions}
    assert new["stolen card"] == "Is it about stolen card?"
    assert "Lost cards" not in new and "PIN-code" not in new
    # both induced questions got crowd answers: their induced annotations are gone, the flag is cleared
    assert report.induced_replaced == {"count": 2, "tags": ["card delivery", "foreign currency"]}
    assert induced_state(bank, "card delivery") == (0, 0)
    # agreement: HIT 1 has exactly two workers -> Cohen (hand-computed 16/23), HIT 2 three -> Fleiss
    tasks = {t["task"]: t for t in report.agreement["tasks"]}
    assert tasks["3J5XXLQDHMDN8R7Y2O4Q5Q1MWW7V3C"]["method"] == "cohen"
    assert tasks["3J5XXLQDHMDN8R7Y2O4Q5Q1MWW7V3C"]["kappa"] == pytest.approx(16 / 23, abs=1e-4)
    assert tasks["3KTCJ4SCVGMRX2Y1S6ZZ8V1JQRW1MA"]["method"] == "fleiss"
    assert report.agreement["overall"]["binary"]["raters"] == 3
    # p_hat after the import, add-one smoothing: card_arrival / card delivery has 2 yes, 0 no -> 3/4
    distributions = report.answer_distributions
    pair = next(
        p for p in distributions["pair_distributions"] if (p["label"], p["tag"]) == ("card_arrival", "card delivery")
    )
    assert pair["p"] == {"yes": 0.75, "no": 0.25}
    assert distributions["pairs"] == 14
    with KnowledgeBase.open(bank) as kb:
        stored = kb.find_import(report.sha256, "tags")
        assert stored is not None and stored["report"]["added"]["annotations"] == 35
        assert kb.stats()["annotations_by_source"]["crowd:mturk"] == 35


def test_reimport_changes_nothing(bank, data):
    first = do_import(data / "mturk_tags_bank.csv")
    before = dump(bank)
    second = do_import(data / "mturk_tags_bank.csv")
    assert second.status == "already imported"
    assert second.previous_import["id"] == first.import_id
    assert dump(bank) == before


def test_overlapping_batch_is_not_counted_twice(bank, data, tmp_path):
    do_import(data / "mturk_tags_bank.csv")
    copy = tmp_path / "batch_again.csv"
    copy.write_bytes((data / "mturk_tags_bank.csv").read_bytes() + b"\n")  # other bytes, same assignments
    report = do_import(copy)
    assert report.status == "imported"
    assert report.added == {"labels": 0, "questions": 0, "annotations": 0, "queries": 0}
    assert report.skipped["existing"] == 35
    assert report.induced_replaced["count"] == 0


def test_every_bundled_format_imports(bank, data):
    for name, fmt in [
        ("mturk_choice_bank.csv", "mturk"),
        ("mturk_queries_bank.csv", "mturk"),
        ("labelstudio_tags_bank.json", "labelstudio"),
        ("labelstudio_queries_bank.json", "labelstudio"),
        ("queries_bank.csv", "csv"),
        ("tags_bank.csv", "csv"),
        ("tags_bank.jsonl", "csv"),
    ]:
        report = do_import(data / name, fmt=fmt)
        assert report.status == "imported", name
        assert sum(report.added.values()) > 0, name
    with KnowledgeBase.open(bank) as kb:
        sources = kb.stats()["annotations_by_source"]
        domain = kb.load_domain()  # everything stored is consistent with the questions' options
    assert set(sources) >= {"crowd:mturk", "crowd:labelstudio", "crowd:csv", "crowd:jsonl"}
    assert domain.questions[domain.question_index("delivery speed")].options == ("standard", "express", "next day")


def test_queries_report_and_split(bank, data):
    report = do_import(data / "mturk_queries_bank.csv")
    assert report.added["queries"] == 3
    assert report.skipped["existing"] == 1  # "where is my card" was there already
    assert report.rejected_assignments[0]["reason"] == "rejected: Not a question about the item"
    report = do_import(data / "queries_bank.csv", fmt="csv")
    assert report.added["queries"] == 5
    with KnowledgeBase.open(bank) as kb:
        splits = dict(kb.db.execute("SELECT text, split FROM queries WHERE source = 'crowd:csv'"))
        workers = {w for (w,) in kb.db.execute("SELECT worker FROM queries WHERE source = 'crowd:mturk'")}
    assert splits["how long does delivery take"] == "test"
    assert splits["is the rate fair"] == "train"  # empty split -> the default
    assert workers == {"A2XJ8E3Y2M1K4Q", "A1RFS3YXD1ZIKG"}


def test_plain_tags_with_counts_merge_and_p_hat(bank, data):
    report = do_import(data / "tags_bank.csv", fmt="csv")
    [merge] = report.merged_tags
    assert merge["tag"] == "card blocked" and merge["reason"] == "spelling"
    assert merge["merged"] == ["Card Blocked", "card blokced"]
    assert report.skipped["not_applicable"] == 1
    pairs = {(p["label"], p["tag"]): p["p"] for p in report.answer_distributions["pair_distributions"]}
    assert pairs["card_arrival", "card delivery"]["yes"] == pytest.approx(5 / 7, abs=1e-4)  # 4 yes, 1 no
    assert pairs["lost_or_stolen_card", "card blocked"]["yes"] == pytest.approx(5 / 6, abs=1e-4)  # 3 + 1 yes
    assert pairs["top_up_failed", "card type"] == pytest.approx({"visa": 2 / 3, "mastercard": 1 / 3}, abs=1e-4)
    report = do_import(data / "tags_bank.csv", fmt="csv", alpha=0.0)
    assert report.status == "already imported"


def test_failed_import_leaves_the_database_byte_for_byte_unchanged(bank, data, tmp_path):
    before = dump(bank)
    bad = tmp_path / "bad.csv"
    bad.write_text(
        (data / "queries_bank.csv").read_text(encoding="utf-8") + "card_arival,where is it,train,w9\n",
        encoding="utf-8",
    )
    with pytest.raises(ValidationError) as caught:
        do_import(bad, fmt="csv")
    [problem] = caught.value.problems
    assert (problem.file, problem.line, problem.column) == ("bad.csv", 7, "label")
    assert "unknown label 'card_arival' in domain 'bank': did you mean 'card_arrival'?" in problem.message
    assert dump(bank) == before


def test_a_write_that_fails_midway_rolls_everything_back(bank, data):
    parsed = parse_file(data / "mturk_tags_bank.csv", "mturk")
    before = dump(bank)
    with KnowledgeBase.open(bank) as kb:
        plan = plan_import(parsed, kb)
        assert plan.ok and plan.questions_new and plan.induced_replaced
        # a plan gone stale: the last row names a label deleted since it was made -> fails after the
        # questions were created and the induced annotations deleted, inside the same transaction
        plan.annotations.append(("deleted_label", "lost card", "yes", 1.0, "w", "t"))
        with pytest.raises(KeyError):
            apply_plan(kb, plan)
    assert dump(bank) == before


def test_choice_answers_are_checked_against_the_domain(bank, tmp_path):
    path = tmp_path / "choices.csv"
    path.write_text(
        "label,tag,answer,kind,worker\n"
        "card_arrival,card type,amex,choice,w1\n"  # existing question: options visa|mastercard
        "card_arrival,card size,large,choice,w1\n"  # new question with one option only
        "card_arrival,Card Type,yes,binary,w2\n",  # a choice question asked as binary
        encoding="utf-8",
    )
    plan = preview_import(path, bank, "csv")
    found = {p.line: p.message for p in plan.problems}
    assert "unknown option 'amex' for question 'card type': use one of 'visa', 'mastercard'" in found[2]
    assert "new multiple-choice question 'card size' has 1 option(s)" in found[3]
    assert "is a multiple-choice question ('card type') in the domain" in found[4]
    assert [row.status for row in plan.rows] == ["problem", "problem", "problem"]


def test_preview_writes_nothing_and_describes_every_row(bank, data):
    do_import(data / "mturk_queries_bank.csv")
    before = dump(bank)
    plan = preview_import(data / "queries_bank.csv", bank, "csv")
    assert plan.ok and dump(bank) == before
    assert [(r.line, r.label, r.answer, r.status) for r in plan.rows][:2] == [
        (2, "card_arrival", "train", "new"),
        (3, "card_arrival", "test", "new"),
    ]
    preview = preview_report(plan)
    assert preview.status == "preview" and preview.added["queries"] == 5
    plan = preview_import(data / "mturk_queries_bank.csv", bank, "mturk")
    assert plan.already_imported is not None and preview_report(plan).status == "already imported"
    plan = preview_import(data / "mturk_tags_bank.csv", bank, "mturk")
    statuses = {r.status for r in plan.rows}
    assert statuses == {"new"} and len(plan.rows) == 35
    assert json.dumps(preview_report(plan).to_dict())  # JSON-ready


def test_labels_import_creates_and_extends_a_domain(data, tmp_path):
    assert not paths.domain_db_path("helpdesk").exists()
    report = do_import(data / "labels_helpdesk.csv", "helpdesk", "csv")
    assert report.added["labels"] == 3 and report.kind == "labels"
    with KnowledgeBase.open("helpdesk") as kb:
        labels = {label.key: label for label in kb.labels()}
        assert kb.get_meta()["title"] == "helpdesk"
    assert len(labels["reset_password"].answers) == 2  # the second row added an answer
    report = do_import(data / "labels_helpdesk.jsonl", "helpdesk", "csv")
    assert report.added["labels"] == 1 and report.skipped["labels_unchanged"] == 1
    # a query import into the new domain, matched by label name
    queries = tmp_path / "q.csv"
    queries.write_text("label,text\nReset password,cannot log in\nOrder a new laptop,laptop broken\n", "utf-8")
    assert do_import(queries, "helpdesk", "csv").added["queries"] == 2
    # extending: a new answer for an existing label is an update
    more = tmp_path / "more.csv"
    more.write_text("label,answer\nreset_password,Passwords expire every 90 days.\n", "utf-8")
    report = do_import(more, "helpdesk", "csv", kind="labels")
    assert report.updated["labels"] == 1 and report.added["labels"] == 0


def test_a_failed_labels_import_creates_no_domain(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("label,name\nreset_password,Reset\nreset-password,Reset the password\n!!!,x\n", "utf-8")
    with pytest.raises(ValidationError) as caught:
        do_import(path, "newdomain", "csv")
    messages = [p.message for p in caught.value.problems]
    assert any("was given the name 'Reset' on line 2" in m for m in messages)
    assert any("has no letters or digits" in m for m in messages)
    assert not paths.domain_db_path("newdomain").exists()


def test_queries_need_an_existing_domain_with_labels(data, tmp_path):
    with pytest.raises(DomainNotFoundError, match="does not exist"):
        do_import(data / "queries_bank.csv", "nosuchdomain", "csv")
    KnowledgeBase.create("empty").close()
    with pytest.raises(ValidationError, match="has no labels yet"):
        do_import(data / "queries_bank.csv", "empty", "csv")


def test_custom_templates(bank, data, tmp_path):
    templates = tmp_path / "bank_templates.json"
    templates.write_text(
        json.dumps(
            {"rules": [{"match": ".*", "binary": "Does your question concern {tag}?", "choice": "Which {tag}?"}]}
        ),
        encoding="utf-8",
    )
    report = do_import(data / "tags_bank.jsonl", fmt="csv", templates=templates)
    texts = {q["tag"]: q["text"] for q in report.new_questions}
    assert texts == {"delivery time": "Does your question concern delivery time?", "currency": "Which currency?"}


def test_resolve_tags_prefers_existing_questions_and_never_merges_them():
    existing = ["lost card", "has_wing_color::blue", "adress", "address"]
    raw = {"Lost Cards": 2, "HAS wing color blue": 1, "address": 1, "stolen cards": 1, "Stolen card": 3, "x!": 1}
    resolution = resolve_tags(raw, existing)
    assert resolution.target["Lost Cards"] == "lost card"
    assert resolution.target["HAS wing color blue"] == "has_wing_color::blue"
    assert resolution.target["address"] == "address"
    assert resolution.target["stolen cards"] == resolution.target["Stolen card"] == "stolen card"
    assert "x!" in resolution.target and resolution.new == ["stolen card", "x"]
    reasons = {m["tag"]: m["reason"] for m in resolution.merges}
    assert reasons == {
        "lost card": "same words",
        "has_wing_color::blue": "normalised",
        "stolen card": "same words",
        "x": "normalised",
    }


def test_two_spellings_in_one_task_collapse_to_one_answer(bank, tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text(
        "HITId,AssignmentId,WorkerId,Input.label,Input.tag_1,Input.tag_2,Input.tag_3,Answer.selected\n"
        "H1,A1,W1,lost_or_stolen_card,lost card,Lost cards,top up,Lost cards\n"
        "H1,A2,W2,lost_or_stolen_card,lost card,Lost cards,top up,none of the above\n",
        encoding="utf-8",
    )
    plan = preview_import(path, bank, "mturk")
    assert [r.status for r in plan.rows] == ["new", "duplicate", "new", "new", "duplicate", "new"]
    report = do_import(path)
    assert report.skipped["duplicates"] == 2
    with KnowledgeBase.open(bank) as kb:
        answers = dict(
            kb.db.execute(
                "SELECT a.worker, a.answer FROM annotations a JOIN questions q ON q.id = a.question_id "
                "WHERE q.tag = 'lost card' AND a.source = 'crowd:mturk'"
            )
        )
    assert answers == {"W1": "yes", "W2": "no"}  # W1 ticked one spelling: 'yes' wins over the other's 'no'


def test_an_unknown_default_split_is_refused_before_anything_is_read_or_written(bank, data):
    before = dump(bank)
    with pytest.raises(ConfigError, match="unknown split 'holdout'"):
        do_import(data / "mturk_queries_bank.csv", bank, default_split="holdout")
    with pytest.raises(ConfigError, match="unknown split 'holdout'"):
        preview_import(data / "mturk_queries_bank.csv", bank, "mturk", default_split="holdout")
    assert dump(bank) == before
