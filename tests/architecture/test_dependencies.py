"""Every third-party package the shipped code imports is declared in pyproject.toml: those imported when a
module loads in [project].dependencies, those imported only inside a function (optional features) there or
in an extra. Import names map to distributions through the installed metadata
(``importlib.metadata.packages_distributions``: ``sklearn`` -> scikit-learn, ``PySide6`` ->
PySide6-Essentials); a package that is not installed is looked up under its import name."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from functools import cache
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ("assistant", "models", "crowdsourcing", "gui")


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared() -> tuple[set[str], set[str]]:
    """(distributions in [project].dependencies, distributions in any extra), normalised."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]

    def names(requirements: list[str]) -> set[str]:
        return {_normalise(re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", r.strip()).group(0)) for r in requirements}

    extras = set().union(*(names(r) for r in project.get("optional-dependencies", {}).values()))
    return names(project["dependencies"]), extras


def _third_party_imports() -> dict[str, dict[str, bool]]:
    """{top-level import name: {file: imported when the module loads}} over the shipped packages."""
    found: dict[str, dict[str, bool]] = {}
    for package in SHIPPED:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in tree.body:
                _collect(node, str(path.relative_to(ROOT)), eager=True, found=found)
    return found


def _collect(node: ast.AST, where: str, eager: bool, found: dict[str, dict[str, bool]]) -> None:
    modules: list[str] = []
    if isinstance(node, ast.Import):
        modules = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        modules = [node.module]
    for module in modules:
        top = module.split(".")[0]
        if top not in sys.stdlib_module_names and top not in SHIPPED and top != "__future__":
            found.setdefault(top, {})[where] = found.get(top, {}).get(where, False) or eager
    lazy = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Try)  # a try: the import may fail
    for child in ast.iter_child_nodes(node):
        _collect(child, where, eager and not lazy, found)


@cache
def _installed() -> dict[str, list[str]]:
    return packages_distributions()  # reads every installed distribution's file list: once


def _distributions(top: str) -> set[str]:
    return {_normalise(d) for d in _installed().get(top, [top])}


def test_every_third_party_import_is_declared():
    required, extras = _declared()
    problems = []
    for top, files in sorted(_third_party_imports().items()):
        dists = _distributions(top)
        eager = sorted(f for f, at_load in files.items() if at_load)
        if eager and not dists & required:
            problems.append(f"{top} ({', '.join(dists)}) is imported when {eager[0]} loads: declare it in dependencies")
        elif not dists & (required | extras):
            problems.append(
                f"{top} ({', '.join(dists)}) is imported by {sorted(files)[0]}: declare it (an extra if optional)"
            )
    assert not problems, "\n".join(problems)


def test_the_check_sees_imports_and_their_distributions():
    imports = _third_party_imports()
    assert imports["numpy"]["assistant/clarification/belief.py"] is True
    assert "scikit-learn" in _distributions("sklearn") and "pyside6-essentials" in _distributions("PySide6")
    required, _ = _declared()
    assert {"numpy", "torch", "click"} <= required
