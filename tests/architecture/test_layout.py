"""The house rules of docs/architecture.md, read from the code's imports (every import statement, also those
inside functions): layers point one way, rooms import only the rooms below them, and no two files import
each other, directly or around a circle, package inits included."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("assistant", "models", "crowdsourcing", "gui")
FOUNDATION = {"assistant", "assistant.errors", "assistant.progress", "assistant.paths", "assistant.settings"}

# Which rooms each room may import (besides itself and the foundation). A room is a top-level package, or a
# first-level module/package of assistant/.
ALLOWED: dict[str, set[str]] = {
    "models": set(),
    "assistant.errors": {"models"},
    "assistant.progress": set(),
    "assistant.paths": {"models"},  # models.files: the one atomic write, for files the person names
    "assistant.settings": set(),
    "assistant": set(),
    "assistant.store": {"models"},  # models.files.atomic_write: the one atomic file write
    "assistant.text": {"assistant.store", "models"},
    "assistant.priors": {"assistant.store", "assistant.text", "models"},
    "assistant.induction": {"assistant.store", "assistant.text", "models"},
    "assistant.clarification": {"assistant.store", "assistant.text", "assistant.priors", "models"},
    "assistant.simulation": {"assistant.store", "assistant.text", "assistant.clarification"},
    "assistant.ranking": {"assistant.store", "assistant.text", "models"},
    "assistant.summarization": {"assistant.store", "assistant.text", "assistant.ranking", "models"},
    "assistant.learning": {
        "assistant.store",
        "assistant.text",
        "assistant.priors",
        "assistant.ranking",
        "assistant.simulation",
        "assistant.training",
        "models",
    },
    "assistant.training": {
        "assistant.store",
        "assistant.text",
        "assistant.priors",
        "assistant.clarification",
        "assistant.simulation",
        "models",
    },
    "assistant.evaluation": {
        "assistant.store",
        "assistant.text",
        "assistant.priors",
        "assistant.clarification",
        "assistant.simulation",
        "assistant.ranking",
        "assistant.summarization",
        "assistant.learning",
        "assistant.training",
        "models",
    },
    "assistant.app": {"*assistant", "crowdsourcing", "models"},
    "assistant.cli": {"assistant.app"},
    # where a domain's data comes from: own-FAQ readers, the bundled data sets' adapters, the file primitives
    "assistant.sources": {"assistant.store", "assistant.text", "assistant.induction", "models"},
    "crowdsourcing": {"assistant.store", "assistant.text", "assistant.induction", "assistant.sources", "models"},
    "gui": {"assistant.app"},
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every project module ``path`` imports (``from assistant import paths`` counts as assistant.paths)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] in PACKAGES}


def _room(module: str) -> str:
    parts = module.split(".")
    return f"assistant.{parts[1]}" if parts[0] == "assistant" and len(parts) > 1 else parts[0]


def _source_files() -> dict[str, Path]:
    files = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            files[_module_name(path)] = path
    return files


FILES = _source_files()
GRAPH = {module: {name for name in _imports(path) if name in FILES} for module, path in FILES.items()}


def _room_allows(room: str, target: str) -> bool:
    allowed = ALLOWED.get(room)
    if allowed is None:
        pytest.fail(f"room {room!r} has no rule: add it to ALLOWED and describe it in docs/architecture.md")
    if target == room or target in FOUNDATION or (target.startswith("models.errors") and room.startswith("assistant")):
        return True
    return target in allowed or ("*assistant" in allowed and target.startswith("assistant"))


def test_every_import_stays_within_the_rooms_it_may_use():
    broken = []
    for module, targets in GRAPH.items():
        room = _room(module)
        for target in sorted(targets):
            target_room = _room(target)
            if not _room_allows(room, target_room):
                broken.append(f"{module} imports {target} ({room} may not use {target_room})")
    assert not broken, "\n".join(broken)


def test_models_imports_nothing_of_the_project():
    assert not {t for m, ts in GRAPH.items() if m.startswith("models") for t in ts if not t.startswith("models")}


def test_only_app_and_cli_reach_crowdsourcing_or_gui():
    offenders = [
        f"{m} -> {t}"
        for m, ts in GRAPH.items()
        if m.startswith("assistant") and _room(m) not in ("assistant.app", "assistant.cli")
        for t in ts
        if t.startswith(("crowdsourcing", "gui"))
    ]
    assert not offenders, offenders


def test_the_ranker_is_a_library():
    offenders = [
        f"{m} -> {t}"
        for m, ts in GRAPH.items()
        if m.startswith("assistant.ranking")
        for t in ts
        if _room(t) in ("assistant.clarification", "assistant.summarization", "assistant.app", "assistant.learning")
    ]
    assert not offenders, offenders


def test_no_import_circles_between_files():
    """Package inits included: ``from package import x`` is an import of the package's __init__ (as
    ``_imports`` reads it), so an __init__ may import its own modules (it is then the package's face) only
    while none of them imports it back; inside a package, modules import each other by their full names."""
    edges = defaultdict(set)
    for module, targets in GRAPH.items():
        for target in targets:
            if target != module:
                edges[module].add(target)
    index, low, stack, on_stack, circles = {}, {}, [], set(), []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in edges[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                item = stack.pop()
                on_stack.discard(item)
                component.append(item)
                if item == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in sorted(FILES):
        if module not in index:
            visit(module)
    assert not circles, circles


def test_modules_stay_small_enough_to_read_in_one_sitting():
    long = {m: n for m, p in FILES.items() if (n := len(p.read_text(encoding="utf-8").splitlines())) > 450}
    assert not long, long


def test_sql_runs_only_in_the_store():
    """store/ is the one room that speaks SQL (docs/architecture.md): everything else asks the KnowledgeBase."""
    speaking = sorted(
        m
        for m, p in FILES.items()
        if not m.startswith("assistant.store")
        and ("SELECT " in (text := p.read_text(encoding="utf-8")) or ".execute(" in text)
    )
    assert not speaking, f"SQL outside assistant/store: {speaking}"


# The wings of assistant/app/ (docs/architecture.md) and the wings each may import besides itself: the
# session needs only the DomainModels Protocol, so it imports no other wing (not the lifecycle's registry,
# which would pull in torch, SRU and MiniLM); the models' lifecycle knows nothing of desks or research.
WINGS: dict[str, set[str]] = {
    "session": set(),
    "lifecycle": set(),
    "desk": {"session", "lifecycle"},
    "research": {"session", "lifecycle", "desk"},
}
# The GUI modules of a conversation (its pages, the snapshot they render, the controller that drives it): of
# assistant/app/ they may import the session wing only
CONVERSATION_PAGES = (
    "gui.pages.ask",
    "gui.pages.compare",
    "gui.pages.history",
    "gui.snapshot",
    "gui.controller",
)


def _wing(module: str) -> str | None:
    """The wing of assistant/app/ that ``module`` is in (None: outside app/, or app/'s own __init__)."""
    parts = module.split(".")
    return parts[2] if parts[:2] == ["assistant", "app"] and len(parts) > 2 else None


# assistant/app/choices.py: the names the command line offers (domains, formats, systems), gathered from light
# modules so that `clarify --help` and a refused argument load no model (issue 33); it defines nothing itself
APP_FACES = {"assistant.app.choices"}


def test_every_module_of_app_is_in_a_wing():
    outside = sorted(
        m for m in FILES if m.startswith("assistant.app.") and _wing(m) not in WINGS and m not in APP_FACES
    )
    assert not outside, f"modules of assistant/app/ outside the wings {sorted(WINGS)}: {outside}"


def test_wings_import_only_the_wings_they_may_use():
    broken = [
        f"{m} -> {t}"
        for m, ts in GRAPH.items()
        if (wing := _wing(m)) in WINGS
        for t in ts
        if (other := _wing(t)) is not None and other != wing and other not in WINGS[wing]
    ]
    assert not broken, "\n".join(broken)


def test_the_session_reaches_no_lifecycle_wing():
    """Named apart from the table above: the seam that leaked (session_records imported check_pace from the
    registry), followed through every import of the wing, not only its direct ones."""
    seen, todo = set(), [m for m in FILES if _wing(m) == "session"]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(GRAPH.get(module, ()))
    assert not sorted(m for m in seen if _wing(m) == "lifecycle")


@pytest.mark.parametrize("page", CONVERSATION_PAGES)
def test_conversation_pages_import_only_the_session_wing(page):
    assert page in FILES, f"{page} is gone: update CONVERSATION_PAGES"
    found = sorted(t for t in GRAPH[page] if t.startswith("assistant.app") and _wing(t) != "session")
    assert not found, f"{page} imports {found}: of assistant/app/ it may use the session wing only"


def test_every_package_says_what_it_holds():
    """A package's docstring is its door sign: more than its own name ("app", "priors")."""
    bare = []
    for module, path in FILES.items():
        if path.name != "__init__.py":
            continue
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        if len(doc.split()) < 5 or doc.strip(" .").lower() == module.split(".")[-1]:
            bare.append(module)
    assert not bare, f"packages whose docstring says nothing: {sorted(bare)}"
