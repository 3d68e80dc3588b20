"""`evaluate --json` with the out-of-scope table (issue 41): the table is written beside the IC report from
memory; the file at the path is never read back (a link swapped in there gave a traceback, or read another
file), and a link is refused in one line like any output path."""

from __future__ import annotations

import json
import os

import pytest

import assistant.cli.out_of_scope as oos_cli
from assistant.errors import ConfigError

pytestmark = pytest.mark.reliability

TABLE = {"rows": [{"system": "ours", "f1": 0.5}]}


@pytest.fixture
def table(monkeypatch):
    monkeypatch.setattr(oos_cli, "out_of_scope_table", lambda *args: TABLE)  # the figures are not the point here


def test_the_table_is_written_beside_the_report_from_memory(table, tmp_path):
    out = tmp_path / "report.json"
    out.write_text("not JSON: whatever is there now is replaced, not read")
    oos_cli.run_out_of_scope(None, None, 0, 0.0, str(out), alone=False, beside={"rows": [1], "meta": {}})
    assert json.loads(out.read_text()) == {"rows": [1], "meta": {}, "out_of_scope": TABLE}


def test_a_link_swapped_in_at_the_path_is_refused_and_never_read(table, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("precious, and not JSON")
    out = tmp_path / "report.json"
    os.symlink(outside, out)
    with pytest.raises(ConfigError, match="symbolic link"):
        oos_cli.run_out_of_scope(None, None, 0, 0.0, str(out), alone=False, beside={"rows": []})
    assert outside.read_text() == "precious, and not JSON" and out.is_symlink()
