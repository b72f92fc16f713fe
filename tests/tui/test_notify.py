"""Notifications only when it matters (``NotifyPolicy``, a fake clock) and the sinks that
deliver them: the terminal's sequences through tmux, a command, ntfy (a fake on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from pydantic import ValidationError

from cctui.config import NotifySettings
from cctui.tui.notify import Sinks, desktop_notification
from cctui.tui.notify_policy import Alert, NotifyPolicy

T0 = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


def _alert(reason: str = "waiting", sid: str = "s1", project: str = "/p", **kw: object) -> Alert:
    return Alert(
        session_id=sid,
        reason=reason,  # type: ignore[arg-type]
        since=kw.pop("since", T0),  # type: ignore[arg-type]
        project=project,
        session="api · fix the test",
        asks="permission for Bash: npm test",
    )


def test_an_alert_goes_out_once_after_the_delay_unless_it_stopped_holding() -> None:
    clock = Clock()
    policy = NotifyPolicy(NotifySettings(delay_s=10), clock)
    assert policy.due([_alert()], on_screen=None) == []  # not yet
    clock.now += timedelta(seconds=10)
    assert policy.due([_alert()], on_screen=None) == [_alert()]
    clock.now += timedelta(seconds=10)
    assert policy.due([_alert()], on_screen=None) == []  # once
    # Answered within the delay: nothing, ever.
    later = _alert(sid="s2", since=clock.now)
    assert policy.due([later], on_screen=None) == []
    clock.now += timedelta(seconds=5)
    assert policy.due([], on_screen=None) == []
    clock.now += timedelta(seconds=60)
    assert policy.due([], on_screen=None) == []
    # A new request of the same session is a new alert.
    again = _alert(since=clock.now)
    clock.now += timedelta(seconds=10)
    assert policy.due([again], on_screen=None) == [again]


def test_not_for_the_session_on_screen_nor_a_reason_not_asked_for() -> None:
    clock = Clock()
    policy = NotifyPolicy(NotifySettings(delay_s=0, reasons=("waiting", "failed")), clock)
    assert policy.due([_alert(sid="s1")], on_screen="s1") == []
    assert policy.due([_alert(sid="s1")], on_screen=None) == []  # seen as it came
    assert policy.due([_alert("finished", sid="s2")], on_screen=None) == []
    assert policy.due([_alert("failed", sid="s3")], on_screen=None) == [_alert("failed", sid="s3")]


def test_quiet_hours_let_only_urgent_reasons_through(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    clock = Clock()
    clock.now = datetime(2026, 11, 28, 23, 30, tzinfo=UTC)  # inside 22:00-07:00
    settings = NotifySettings(delay_s=0, quiet_hours="22:00-07:00", urgent=("waiting",))
    policy = NotifyPolicy(settings, clock)
    assert policy.quiet()
    since = clock.now
    sent = policy.due([_alert(since=since), _alert("finished", sid="s2", since=since)], None)
    assert [a.reason for a in sent] == ["waiting"]
    clock.now = datetime(2026, 11, 29, 7, 0, tzinfo=UTC)
    assert not policy.quiet()
    # Held back, it is dropped, not sent in a burst in the morning.
    assert policy.due([_alert("finished", sid="s2", since=since)], None) == []


def test_a_muted_project_is_quiet_for_an_hour() -> None:
    clock = Clock()
    policy = NotifyPolicy(NotifySettings(delay_s=0), clock)
    until = policy.mute("/p")
    assert until == T0 + timedelta(hours=1)
    assert policy.due([_alert(project="/p")], None) == []
    assert policy.due([_alert(sid="s2", project="/q")], None) == [_alert(sid="s2", project="/q")]
    clock.now += timedelta(hours=1, seconds=1)
    assert policy.muted_until("/p") is None
    fresh = _alert(sid="s3", project="/p", since=clock.now)
    assert policy.due([fresh], None) == [fresh]


def test_bad_notify_settings_are_refused_with_the_reason() -> None:
    with pytest.raises(ValidationError, match="HH:MM-HH:MM"):
        NotifySettings(quiet_hours="late")
    with pytest.raises(ValidationError, match="ntfy_url"):
        NotifySettings(sinks=("ntfy",))
    with pytest.raises(ValidationError, match="command"):
        NotifySettings(sinks=("command",))


def test_the_terminal_sequences_pass_through_tmux() -> None:
    plain = desktop_notification("cctui", "api; waits\x07")
    assert plain.startswith("\x1b]9;cctui: api  waits")  # ';' and BEL cannot end it early
    assert "\x1b]777;notify;cctui;" in plain and "\x1b]99;;" in plain
    wrapped = desktop_notification("cctui", "x", tmux=True)
    assert wrapped.count("\x1bPtmux;") == 3
    assert "\x1b\x1b]9;" in wrapped  # the ESC inside doubled


async def test_the_terminal_sink_rings_and_says_which_session_and_what() -> None:
    written: list[str] = []
    sinks = Sinks(NotifySettings(), write_terminal=written.append, env={"TMUX": "/tmp/x,1,0"})
    sinks.send(_alert())
    (text,) = written
    assert text.startswith("\a\x1bPtmux;")
    assert "api · fix the test" in text and "waits for you: permission for Bash" in text


async def test_the_command_sink_gets_session_reason_and_ask(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    script = (
        "import json, os, sys; json.dump({'argv': sys.argv[1:], 'reason': "
        f"os.environ['CCTUI_NOTIFY_REASON']}}, open({str(out)!r}, 'w'))"
    )
    settings = NotifySettings(sinks=("command",), command=(sys.executable, "-c", script))
    sinks = Sinks(settings, env={})
    sinks.send(_alert())
    for _ in range(200):
        if out.exists() and not sinks._tasks:
            break
        await asyncio.sleep(0.05)
    data = json.loads(out.read_text())
    assert data == {
        "argv": ["api · fix the test", "waiting", "permission for Bash: npm test"],
        "reason": "waiting",
    }


@pytest.fixture
def ntfy() -> Iterator[tuple[str, list[dict[str, object]]]]:
    """A fake ntfy on 127.0.0.1: records each POST."""
    got: list[dict[str, object]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers["Content-Length"])
            got.append(
                {
                    "path": self.path,
                    "title": self.headers["Title"],
                    "priority": self.headers["Priority"],
                    "body": self.rfile.read(length).decode(),
                }
            )
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/cctui-topic", got
    server.shutdown()
    server.server_close()


async def test_the_ntfy_sink_posts_title_priority_and_the_ask(
    ntfy: tuple[str, list[dict[str, object]]],
) -> None:
    url, got = ntfy
    sinks = Sinks(NotifySettings(sinks=("ntfy",), ntfy_url=url), env={})
    sinks.send(_alert())
    for _ in range(200):
        if got and not sinks._tasks:
            break
        await asyncio.sleep(0.05)
    assert got == [
        {
            "path": "/cctui-topic",
            "title": "cctui: api · fix the test waits for you",
            "priority": "high",
            "body": "permission for Bash: npm test",
        }
    ]
