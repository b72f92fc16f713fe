"""Where a notification goes: the terminal's own, the desktop, ntfy, or any command.

``NotifyPolicy`` (``notify_policy.py``) decides when; this module only delivers. Every sink
says which session, why, and what it asks. Nothing here may block the loop or outlive cctui:
the desktop and command sinks are child processes given a few seconds, then killed; ntfy is
one POST in a thread with a timeout. A sink that fails is logged (the URL redacted) and the
others still go out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import shutil
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from cctui.config import NotifySettings
from cctui.redact import redact_text
from cctui.tui.notify_policy import Alert

log = logging.getLogger(__name__)

_UNSAFE = re.compile(r"[\x00-\x1f\x7f;]")

CHILD_TIMEOUT_S = 10.0
"""A desktop or command sink still running after this long is killed."""
NTFY_TIMEOUT_S = 5.0


def _clean(text: str, limit: int = 120) -> str:
    # A control character or ';' in a prompt would end the escape sequence early.
    return _UNSAFE.sub(" ", text)[:limit].strip()


def desktop_notification(title: str, body: str, *, tmux: bool = False) -> str:
    """OSC 9 (iTerm2, Ghostty, Windows Terminal…), OSC 777 (rxvt, foot, WezTerm, Ghostty…) and
    OSC 99 (kitty) in one go; ``tmux``: each wrapped so tmux passes it to the terminal
    (``allow-passthrough on``).

    Terminals ignore the sequences they do not know, so sending all of them reaches the most.
    """
    t, b = _clean(title, 40), _clean(body)
    sequences = [f"\x1b]9;{t}: {b}\x07", f"\x1b]777;notify;{t};{b}\x07", f"\x1b]99;;{t}: {b}\x1b\\"]
    if tmux:
        sequences = [passthrough(s) for s in sequences]
    return "".join(sequences)


def passthrough(sequence: str) -> str:
    """``sequence`` wrapped in tmux's DCS passthrough (every ESC inside doubled)."""
    return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"


def title_of(alert: Alert) -> str:
    """``cctui: api · fix the test waits for you``."""
    return f"cctui: {alert.session} {alert.headline}"


class Sinks:
    """Sends an alert to every configured sink."""

    def __init__(
        self,
        settings: NotifySettings,
        *,
        write_terminal: Callable[[str], None] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        """``write_terminal(text)`` puts bytes on the terminal (the app's driver), or None
        when there is no terminal to write to."""
        self.settings = settings
        self._write = write_terminal
        self._env = dict(os.environ if env is None else env)
        self._tasks: set[asyncio.Task[None]] = set()
        self.sent: list[tuple[str, Alert]] = []
        """(sink, alert) for every delivery tried, newest last (tests read it)."""

    def send(self, alert: Alert) -> None:
        """Deliver ``alert`` to every sink, in the background."""
        for sink in self.settings.sinks:
            self.sent.append((sink, alert))
            if sink == "terminal":
                self._terminal(alert)
            elif sink == "desktop":
                self._spawn(self._desktop(alert))
            elif sink == "ntfy":
                self._spawn(self._ntfy(alert))
            elif sink == "command":
                self._spawn(self._command(alert))
        del self.sent[:-100]

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        """Cancel what is still being delivered (its child processes are killed)."""
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task

    def _terminal(self, alert: Alert) -> None:
        write = self._write
        if write is None:
            return
        body = f"{alert.headline}: {alert.asks}" if alert.asks else alert.headline
        sequence = desktop_notification(
            f"cctui {alert.session}"[:40], body, tmux=bool(self._env.get("TMUX"))
        )
        write("\a" + sequence)

    async def _desktop(self, alert: Alert) -> None:
        program = shutil.which("notify-send", path=self._env.get("PATH"))
        if program is None:
            log.info("desktop notification skipped: notify-send is not installed")
            return
        urgency = "critical" if alert.reason == "waiting" else "normal"
        await self._run([program, "-a", "cctui", "-u", urgency, title_of(alert), alert.asks], {})

    async def _command(self, alert: Alert) -> None:
        env = {
            "CCTUI_NOTIFY_SESSION_ID": alert.session_id,
            "CCTUI_NOTIFY_SESSION": alert.session,
            "CCTUI_NOTIFY_REASON": alert.reason,
            "CCTUI_NOTIFY_ASKS": alert.asks,
            "CCTUI_NOTIFY_PROJECT": alert.project,
        }
        argv = [*self.settings.command, alert.session, alert.reason, alert.asks]
        await self._run(argv, env)

    async def _run(self, argv: list[str], extra_env: dict[str, str]) -> None:
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
                env={**self._env, **extra_env},
            )
        except OSError as exc:
            log.warning("notification command %s failed to start: %s", argv[0], exc.strerror)
            return
        try:
            await asyncio.wait_for(process.wait(), CHILD_TIMEOUT_S)
        except (TimeoutError, asyncio.CancelledError):
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
            raise
        if process.returncode:
            log.warning("notification command %s exited with %s", argv[0], process.returncode)

    async def _ntfy(self, alert: Alert) -> None:
        url = self.settings.ntfy_url
        if not url:
            return
        try:
            await asyncio.to_thread(_post_ntfy, url, alert)
        except Exception as exc:  # a sink that fails must not take the others down
            log.warning("ntfy notification failed: %s", redact_text(f"{exc}", (url,)))


def _post_ntfy(url: str, alert: Alert) -> None:
    """One POST of ntfy's plain form: the body is the message, headers the rest."""
    headers = {
        "Title": _header(title_of(alert)),
        "Priority": "high" if alert.reason == "waiting" else "default",
        "Tags": {"waiting": "bell", "finished": "white_check_mark", "failed": "x"}[alert.reason],
    }
    import urllib.request  # here: ~8 ms of import the first frame need not pay (ntfy only)

    body = (alert.asks or alert.headline).encode("utf-8")
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=NTFY_TIMEOUT_S) as response:
        response.read()


def _header(text: str) -> str:
    # HTTP headers are Latin-1 and one line; ntfy reads UTF-8 titles sent RFC 2047-free as
    # "?" otherwise, so anything else is replaced.
    return _clean(text, 200).encode("latin-1", "replace").decode("latin-1")
