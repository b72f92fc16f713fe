"""The `cctui` command: clear errors instead of tracebacks, and the scripting commands."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import call_cctui, cctui_env, run_cctui


def _run(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The command in this process (``call_cctui``): what it decides, without paying a
    Python start each time; ``test_the_real_command`` runs it as processes."""
    return call_cctui(cctui_env(tmp_path, **env), *args)


def test_version(tmp_path: Path) -> None:
    out = run_cctui(cctui_env(tmp_path), "--version")  # the real `python -m cctui`
    assert out.returncode == 0
    assert out.stdout.startswith("cctui ")


@pytest.mark.slow  # three Python starts: the in-process tests below decide the same things
def test_the_real_command(tmp_path: Path) -> None:
    """As processes: a bad value is one clear line and exit 2, a command's logs go to the
    state dir and never to the terminal, and ``sessions --json`` prints JSON on stdout."""
    bad = run_cctui(cctui_env(tmp_path, MAX_SESSIONS="many"), "sessions")
    assert bad.returncode == 2 and "MAX_SESSIONS" in bad.stderr
    assert "Traceback" not in bad.stderr
    quiet = run_cctui(cctui_env(tmp_path), "mcp-config")
    assert quiet.returncode == 1 and quiet.stdout == ""
    assert "no running cctui" in quiet.stderr
    assert (tmp_path / ".local" / "state" / "cctui" / "cctui.log").exists()
    listed = run_cctui(cctui_env(tmp_path), "sessions", "--json")
    assert listed.returncode == 0 and json.loads(listed.stdout) == []


def test_bad_environment_value_is_one_clear_line(tmp_path: Path) -> None:
    out = _run(tmp_path, "sessions", MAX_SESSIONS="many")
    assert out.returncode == 2
    assert "MAX_SESSIONS" in out.stderr
    assert "Traceback" not in out.stderr


def test_bad_config_file_names_file_and_key(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text("permission_timeout_ms = -1\n")
    out = _run(tmp_path, "sessions", "--config", str(config))
    assert out.returncode == 2
    assert str(config) in out.stderr and "permission_timeout_ms" in out.stderr


def test_mcp_config_without_a_running_server_says_so(tmp_path: Path) -> None:
    out = _run(tmp_path, "mcp-config")
    assert out.returncode == 1
    assert "no running cctui" in out.stderr


@pytest.mark.process  # runs the printed stdio command, a Python start
def test_mcp_config_prints_client_setup_of_the_owner(tmp_path: Path) -> None:
    from cctui.owner import OwnerLock

    state = tmp_path / ".local" / "state" / "cctui"
    state.mkdir(parents=True)
    (state / "token").write_text("tok123\n")
    lock = OwnerLock.acquire(state, "serve")
    assert lock is not None
    try:
        listening = _run(tmp_path, "mcp-config")  # owned, but not listening yet
        assert listening.returncode == 1
        assert "does not listen yet" in listening.stderr
        lock.publish(url="http://127.0.0.1:5555/mcp")
        out = _run(tmp_path, "mcp-config")
    finally:
        lock.release()
    assert out.returncode == 0
    assert "claude mcp add --transport http cctui http://127.0.0.1:5555/mcp" in out.stdout
    assert "Bearer tok123" in out.stdout
    # Claude Desktop starts a stdio server without the shell's PATH or the venv: the
    # command is this cctui by its absolute path, and runs as printed.
    stdio = out.stdout.split("# stdio-only clients")[1]
    server = json.loads(stdio[stdio.index("{") :])["mcpServers"]["cctui"]
    assert Path(server["command"]).is_absolute() and server["args"][-1] == "bridge"
    ran = subprocess.run(
        [server["command"], *server["args"][:-1], "--version"],
        capture_output=True,
        text=True,
        env={"HOME": str(tmp_path)},
        timeout=60,
    )
    assert ran.returncode == 0 and ran.stdout.startswith("cctui "), ran.stderr


def test_a_server_file_nobody_owns_is_not_a_running_cctui(tmp_path: Path) -> None:
    """A server.json left by a killed cctui (or a pid that was reused) names nobody."""
    state = tmp_path / ".local" / "state" / "cctui"
    state.mkdir(parents=True)
    (state / "server.json").write_text(
        json.dumps({"url": "http://127.0.0.1:5555/mcp", "token": "tok123", "pid": os.getpid()})
    )
    out = _run(tmp_path, "mcp-config")
    assert out.returncode == 1
    assert "no running cctui" in out.stderr
    stopped = _run(tmp_path, "stop")
    assert stopped.returncode == 0
    assert "nothing to stop" in stopped.stderr


def test_logs_go_to_the_state_dir_not_the_terminal(tmp_path: Path) -> None:
    out = _run(tmp_path, "mcp-config")
    assert out.stdout == ""
    assert (tmp_path / ".local" / "state" / "cctui" / "cctui.log").exists()


def test_sessions_on_a_machine_without_claude_is_an_empty_list(tmp_path: Path) -> None:
    out = _run(tmp_path, "sessions", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == []


def test_sessions_lists_a_transcript_and_skips_corrupt_lines(tmp_path: Path) -> None:
    sid = "0b0c7c1e-1111-4222-8333-444455556666"
    project = tmp_path / ".claude" / "projects" / "-work-demo"
    project.mkdir(parents=True)
    line = {
        "type": "user",
        "sessionId": sid,
        "cwd": "/work/demo",
        "timestamp": "2026-11-20T10:00:00.000Z",
        "uuid": "u1",
        "message": {"role": "user", "content": "fix the flaky test"},
    }
    (project / f"{sid}.jsonl").write_text(json.dumps(line) + "\n{not json\n")
    (tmp_path / ".claude" / "history.jsonl").write_text("garbage\n")
    out = _run(tmp_path, "sessions", "--json")
    assert out.returncode == 0, out.stderr
    [entry] = json.loads(out.stdout)
    assert entry["session_id"] == sid
    assert entry["title"] == "fix the flaky test"
    text = _run(tmp_path, "sessions", "--status", "past")
    assert sid in text.stdout


def test_an_unreadable_registry_is_set_aside_not_a_traceback(tmp_path: Path) -> None:
    state = tmp_path / ".local" / "state" / "cctui"
    state.mkdir(parents=True)
    (state / "sessions.json").write_bytes(b'{"version": 1, "sessions": [\xff]}')
    out = _run(tmp_path, "sessions", "--json")
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert json.loads(out.stdout) == []
    assert list(state.glob("sessions.json.bad-*"))
    assert "unreadable" in (state / "cctui.log").read_text()


def test_an_option_before_the_command_name_is_kept() -> None:
    """``cctui --tools menu serve`` used to serve the full profile: the subcommand's own
    default replaced what was given before its name."""
    from cctui.cli import _parser

    for argv in (["--tools", "menu", "serve", "--stdio"], ["serve", "--stdio", "--tools", "menu"]):
        args = _parser().parse_args(argv)
        assert (args.command, args.tools_profile, args.transport) == ("serve", "menu", "stdio")
    args = _parser().parse_args(["--port", "0", "sessions", "--json"])
    assert (args.http_port, args.json, args.config) == (0, True, None)


def test_json_lists_are_written_as_pydantic_cores_encoder_writes_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``cctui sessions --json`` writes with orjson (a third of pydantic-core's CPU at 20,000
    rows); the bytes must stay pydantic-core's, whatever the text or the values."""
    import io
    import sys
    from datetime import UTC, datetime, timedelta, timezone
    from pathlib import Path

    from pydantic_core import to_json

    from cctui.cli import _write_json
    from cctui.core.session.states import SessionStatus

    awkward = ['a\x00b\x1f\x7f"\\/\n\t\r\b\f', "\u2028\u2029", "é😀\U0010ffff", ""]
    rows: list[dict[str, object]] = [
        {"text": text, "n": n, "when": when, "status": SessionStatus.IDLE, "none": None,
         "sources": frozenset({"transcript"}), "tags": ("a", "b"), "path": Path("/w/x y"),
         "empty": [], "nested": {"a": {}}}
        for text in awkward
        for n in (1e-7, 1e21, 0.1 + 0.2, -0.0, 2**63 - 1, 1.4906545)
        for when in (datetime(2026, 1, 1, tzinfo=UTC),
                     datetime(2026, 1, 1, 1, 2, 3, 500, tzinfo=timezone(timedelta(hours=2))),
                     datetime(2026, 1, 1, 1, 2, 3, 748000))
    ]  # fmt: skip
    written = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(written, encoding="utf-8"))
    _write_json(rows)
    assert written.getvalue() == to_json(rows, indent=2) + b"\n"
    assert len(rows) == 72
