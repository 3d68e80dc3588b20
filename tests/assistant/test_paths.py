"""assistant.paths.write_output_file: a file named with --out (--json, --csv, --plot, --layout) is written only if it is new or a
regular file; a FIFO, a device, a folder or a symbolic link (dangling or not) is refused with one error line
and left as it was; an existing file keeps its mode."""

from __future__ import annotations

import os
import stat
import threading

import pytest
from click.testing import CliRunner

from assistant.cli import main
from assistant.errors import ConfigError
from assistant.paths import write_output_file
from benchmarks.reliability.environment import build_crowd_domain

pytestmark = pytest.mark.reliability

COMMANDS = {
    "export tasks": ("export", "tasks", "--domain", "bank", "--out"),
    "export unanswered": ("export", "unanswered", "--domain", "bank", "--out"),
    "learn suggest": ("learn", "suggest", "bank", "--out"),
    "export tasks --layout": ("export", "tasks", "--domain", "bank", "--out", "{ok}", "--layout"),
    "evaluate --json": ("evaluate", "bank", "--json"),
}


def run(argv: list[str], timeout: float = 60.0):
    """The command through click's runner in a thread: a write that blocks on a FIFO shows as a hang."""
    box = {}
    thread = threading.Thread(target=lambda: box.update(result=CliRunner().invoke(main, argv)), daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        os.close(os.open(argv[-1], os.O_RDONLY | os.O_NONBLOCK))  # let a writer blocked on the FIFO go
        pytest.fail(f"{' '.join(argv)} blocked on {argv[-1]}")
    return box["result"]


def target(tmp_path, kind: str):
    """The path an output option is given: ``kind`` of thing, with a secret file that must stay as it was."""
    (tmp_path / "secret.txt").write_text("keep me\n")
    where = tmp_path / f"{kind.replace(' ', '-')}.csv"
    if kind == "fifo":
        os.mkfifo(where)
    elif kind == "device":
        return private_null(tmp_path)
    elif kind == "symlink":
        where.symlink_to(tmp_path / "secret.txt")
    elif kind == "dangling symlink":
        where.symlink_to(tmp_path / "created-through-the-link.csv")
    else:
        where.mkdir()
    return where


def private_null(tmp_path):
    """A device node of our own (the null device's numbers): never the real /dev/null, which code without the
    fix, run as root, would replace with a regular file for the whole machine."""
    node = tmp_path / "null.csv"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, AttributeError):
        pytest.skip("making a device node needs root")
    return node


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("kind", ["fifo", "device", "symlink", "dangling symlink", "folder"])
def test_an_output_that_is_not_a_regular_file_or_a_new_path_is_refused(tmp_path, command, kind):
    build_crowd_domain("bank")
    where = target(tmp_path, kind)
    before = os.lstat(where)
    argv = [a.format(ok=tmp_path / "ok.csv") for a in COMMANDS[command]] + [str(where)]
    result = run(argv)
    assert result.exit_code == 2, result.output
    assert sum(line.lower().startswith("error:") for line in result.stderr.splitlines()) == 1, result.stderr
    assert str(where) in result.stderr  # refused for what it is, before any work
    after = os.lstat(where)
    assert (stat.S_IFMT(after.st_mode), after.st_ino) == (stat.S_IFMT(before.st_mode), before.st_ino)
    assert (tmp_path / "secret.txt").read_text() == "keep me\n"
    assert not (tmp_path / "created-through-the-link.csv").exists()


def test_an_existing_file_keeps_its_mode(tmp_path):
    build_crowd_domain("bank")
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "tasks.csv"
    out.write_text("old\n")
    out.chmod(0o600)
    result = CliRunner().invoke(main, ["export", "tasks", "--domain", "bank", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o600 and out.read_text().startswith("label")
    assert sorted(p.name for p in out.parent.iterdir()) == ["tasks.csv"]  # no temporary file left


def test_a_new_file_gets_the_usual_mode_and_a_failed_write_replaces_nothing(tmp_path):
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "new.json"
    write_output_file(out, lambda tmp: tmp.write_text("{}"))
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask

    def fail(tmp):
        tmp.write_text("half")
        raise OSError(28, "No space left on device")

    with pytest.raises(ConfigError) as caught:
        write_output_file(out, fail, "--json")
    assert "nothing was replaced" in str(caught.value) and out.read_text() == "{}"
    assert sorted(p.name for p in out.parent.iterdir()) == ["new.json"]


def test_a_symbolic_link_put_in_place_during_the_work_is_not_followed(tmp_path):
    out, secret = tmp_path / "out.json", tmp_path / "secret.txt"
    secret.write_text("keep me\n")

    def swap_in_a_link(tmp):
        tmp.write_text("{}")
        out.symlink_to(secret)  # another program, between the check and the rename

    with pytest.raises(ConfigError):
        write_output_file(out, swap_in_a_link, "--json")
    assert out.is_symlink() and secret.read_text() == "keep me\n"


@pytest.mark.parametrize("name", ["desk\n", "desk\r\n", "\ndesk", "desk\n.db", "Desk"])
def test_a_domain_name_with_a_newline_is_refused(name):
    """Issue 41: "$" matched before a trailing newline, so `domain create 'desk\\n'` wrote domains/desk\\n.db."""
    from assistant.errors import ConfigError
    from assistant.paths import check_domain_name

    with pytest.raises(ConfigError, match="invalid domain name"):
        check_domain_name(name)
