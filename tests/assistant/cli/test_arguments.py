"""The command line's arguments: bad arguments end with one error line and exit code 2 (never a
traceback, never after the work), and queries a conversation cannot use are refused before anything is
saved. The cases come from the reliability probe's corpus (benchmarks.reliability.arguments)."""

from __future__ import annotations

import pytest

from assistant.app.session.session import Session, SessionConfig
from assistant.errors import ClarifyError
from assistant.store import KnowledgeBase
from benchmarks.reliability.arguments import Case, bad_argument_cases, run_case
from benchmarks.reliability.environment import build_crowd_domain
from tests.support.tiny import TinyAgents

pytestmark = pytest.mark.reliability


@pytest.fixture
def corpus(tmp_path):
    build_crowd_domain("bank")
    return {case.name: case for case in bad_argument_cases(tmp_path / "work", "bank")}


def assert_one_line_error(case: Case) -> None:
    outcome = run_case(case, timeout=120)
    assert outcome.ok, outcome.problem
    assert outcome.exit_code == 2 and outcome.error_lines == 1


@pytest.mark.parametrize(
    "name",
    [
        "import --alpha nan",
        "import --alpha inf",
        "import csv json-huge-int",  # JSON integers over 4,300 digits
        "import csv field-over-128k",
        "import csv dev-zero",
        "import csv fifo",
        "import --templates bad-format",
        "import --templates backtracking",
        "evaluate --systems ,",
        "evaluate --json missing folder",
        "evaluate --csv a folder",
        "evaluate --queries latin-1",
        "evaluate --queries utf-16",
        "evaluate --queries field-over-128k",
        "rank evaluate --t nan",
        "rank demo --threshold inf",
    ],
)
def test_bad_arguments_give_one_error_line_and_exit_2(corpus, name):
    assert_one_line_error(corpus[name])


def test_outputs_are_checked_before_the_work(corpus, monkeypatch):
    """--json into a missing folder used to be found only after the whole evaluation had run: now the models are
    never even loaded (how long the refusal takes: benchmarks/bench_responsiveness.py)."""
    import assistant.app.lifecycle.registry

    loaded: list[str] = []
    monkeypatch.setattr(assistant.app.lifecycle.registry, "ModelRegistry", lambda name, **_: loaded.append(name))
    outcome = run_case(corpus["evaluate --json missing folder"])
    assert outcome.exit_code == 2 and outcome.error_lines == 1 and loaded == []


@pytest.mark.parametrize("query", ["?!? ...", "   ", "\u2028", "card " * 2_000_000])
def test_a_query_a_conversation_cannot_use_saves_nothing(query):
    agents = TinyAgents()
    with pytest.raises(ClarifyError) as caught:
        Session.start(agents, query, SessionConfig())
    assert "\n" not in str(caught.value)
    with KnowledgeBase.open("tiny") as kb:
        assert Session.saved(kb) == []


DESK_CASES = [
    "domain create --from empty",
    "domain create --from missing",
    "domain create --from /dev/zero",
    "domain create --title 100,000",
    "domain create --title a line break",
    "domain create field-over-128k",
    "domain create markdown nested 12",
    "domain create markdown nested 5000",
    "domain update missing domain",
    "domain create a bundled name",
    "domain create without a name",
    "learn sessions --seed 10**20",
    "learn sessions --min 0",
    "learn suggest --out a folder",
    "cold-start evaluate --json a folder",
    "cold-start evaluate --episodes 0",
    "inbox unknown domain",
    "unknown command",
    "unknown option",
]


@pytest.mark.parametrize("name", DESK_CASES)
def test_a_desks_bad_files_and_arguments_are_refused_on_one_line(corpus, name):
    """Issue 34: click's own refusals too are one 'error:' line (no usage block), and nothing is created."""
    from assistant import paths

    outcome = run_case(corpus[name], timeout=120)
    assert outcome.ok, outcome.problem
    assert outcome.exit_code == 2 and outcome.error_lines == 1
    assert not paths.domain_db_path("desk_x").exists()


def test_learn_sessions_refuses_a_seed_before_any_work(corpus, monkeypatch):
    """A seed numpy cannot take was found after 192 s of learning, with the sessions stored: now before."""
    import assistant.app.desk.learning

    started: list[str] = []
    monkeypatch.setattr(assistant.app.desk.learning, "learn_from_use_job", lambda *args: started.append("job"))
    outcome = run_case(corpus["learn sessions --seed 10**20"])
    assert outcome.exit_code == 2 and started == []


def test_the_current_folder_never_becomes_a_faq(corpus, tmp_path, monkeypatch):
    """`--from ""` read the current folder as help articles: a private notes.txt became an entry."""
    from click.testing import CliRunner

    from assistant.cli import main

    (tmp_path / "notes.txt").write_text("My bank PIN\n1234\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for argv in (
        ["domain", "create", "desk_y", "--from", ""],
        ["domain", "create", "desk_y", "--from", " ", "--check"],
    ):
        result = CliRunner().invoke(main, argv)
        assert result.exit_code == 2 and "path is empty" in result.stderr and "1234" not in result.output
    from assistant import paths

    assert not paths.domain_db_path("desk_y").exists()
