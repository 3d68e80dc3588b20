"""How the house reads (issue 38): functions over 60 lines, project imports inside functions, modules over 450
lines, and ``Any`` aliases standing for a project type, counted with ``ast`` over the project's packages.

Run: python -m benchmarks.house [--root DIR] [--list]  (DIR: a checkout, e.g. a worktree of another commit;
default this one). Prints one JSON object, then a one-line summary; ``--list`` adds the long functions.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

PACKAGES = ("assistant", "models", "crowdsourcing", "gui", "benchmarks")
PROJECT = {*PACKAGES, "tests"}
LONG_FUNCTION = 60
LONG_MODULE = 450


def _is_project(module: str | None) -> bool:
    return module is not None and module.split(".", 1)[0] in PROJECT


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]


def _inner_imports(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Project imports in ``function``'s own body (a nested function's count as its own)."""
    count, todo = 0, list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        if isinstance(node, ast.Import):
            count += sum(_is_project(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and _is_project(node.module):
            count += 1
        todo.extend(ast.iter_child_nodes(node))
    return count


def _any_aliases(tree: ast.Module) -> list[str]:
    """Module-level ``Name = Any`` assignments (a project type erased for the checker)."""
    return [
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id == "Any"
        for target in node.targets
        if isinstance(target, ast.Name)
    ]


def count(root: Path) -> dict:
    long_functions, inner, any_aliases, long_modules, files = [], 0, [], [], 0
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            files += 1
            text = path.read_text(encoding="utf-8")
            tree = ast.parse(text, filename=str(path))
            where = str(path.relative_to(root))
            if len(text.splitlines()) > LONG_MODULE:
                long_modules.append(where)
            any_aliases += [f"{where}:{name}" for name in _any_aliases(tree)]
            for function in _functions(tree):
                inner += _inner_imports(function)
                lines = (function.end_lineno or function.lineno) - function.lineno + 1
                if lines > LONG_FUNCTION:
                    long_functions.append((lines, f"{where}:{function.name}"))
    long_functions.sort(reverse=True)
    return {
        "root": str(root),
        "files": files,
        "functions_over_60_lines": len(long_functions),
        "longest": [f"{name} ({lines})" for lines, name in long_functions],
        "project_imports_inside_functions": inner,
        "modules_over_450_lines": long_modules,
        "any_aliases": any_aliases,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--list", action="store_true", help="list every function over 60 lines")
    args = parser.parse_args(argv)
    result = count(args.root.resolve())
    if not args.list:
        result["longest"] = result["longest"][:8]
    json.dump(result, sys.stdout, indent=1)
    print(
        f"\n{result['files']} files: {result['functions_over_60_lines']} functions over {LONG_FUNCTION} lines, "
        f"{result['project_imports_inside_functions']} project imports inside functions, "
        f"{len(result['modules_over_450_lines'])} modules over {LONG_MODULE} lines, "
        f"{len(result['any_aliases'])} Any aliases"
    )


if __name__ == "__main__":
    main()
