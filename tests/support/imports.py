"""Which heavy packages a `clarify` command imports (issue 33): the command runs in a fresh interpreter (a test
process has them loaded already), as `clarify` would, and reports its exit code and the modules of ``heavy`` it
loaded. tests/assistant/cli/test_light_commands.py and test_serving_imports.py use it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Runs `clarify ARGS`, then prints {"code": exit code, "heavy": the modules of ``heavy`` loaded} on stderr.
PROBE = """
import json, sys
from assistant.cli.root import main
try:
    main(args=sys.argv[1:], prog_name="clarify")
except SystemExit as exit:
    code = exit.code
else:
    code = 0
heavy = [m for m in {heavy!r} if m in sys.modules]
print(json.dumps({{"code": code, "heavy": heavy}}), file=sys.stderr)
"""


def heavy_imports(
    args: list[str], heavy: tuple[str, ...], home: Path | None = None, lines: str = ""
) -> tuple[dict, str]:
    """({"code", "heavy", "stderr"}, what it printed) of `clarify ARGS` with ``lines`` on stdin (``home``: CLARIFY_HOME)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if home is not None:
        env["CLARIFY_HOME"] = str(home)
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=heavy), *args],
        cwd=ROOT,
        env=env,
        input=lines,
        capture_output=True,
        text=True,
        timeout=120,
    )
    *said, last = done.stderr.strip().splitlines()
    return {**json.loads(last), "stderr": "\n".join(said)}, done.stdout
