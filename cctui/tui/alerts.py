"""The app's notifications: what needs the person now, handed to the policy, sent by the sinks.

Once a second the app calls ``Alerts.tick``: every request routed to the human (``waiting``)
and every session finished unseen (``finished``, or ``failed`` when it ended in an error)
becomes an ``Alert`` saying which session, why and what it asks; ``NotifyPolicy`` picks the
ones to send; ``Sinks`` sends them. ``z`` mutes the selected session's project for an hour.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from cctui import status
from cctui.core import PendingInput
from cctui.errors import CctuiError
from cctui.fs.atomic import write_atomic
from cctui.tui import clock
from cctui.tui import format as fmt
from cctui.tui.notify import Sinks
from cctui.tui.notify_policy import Alert, NotifyPolicy

if TYPE_CHECKING:
    from cctui.tui.app import CctuiApp

log = logging.getLogger(__name__)


def asks(pending: PendingInput) -> str:
    """What a request asks, in a line: the tool and its command, the question, the plan."""
    if pending.kind == "user_question" and pending.questions:
        return pending.questions[0].question
    if pending.kind == "plan_review":
        return "a plan to review: " + fmt.one_line(pending.plan or "", 80)
    if pending.kind == "confirmation":
        return f"a confirmation ({pending.tool_name})"
    detail = pending.description or fmt.one_line(str(pending.tool_input), 80)
    return f"permission for {pending.tool_name}: {detail}"


class Alerts:
    """Composed into the app: builds the alerts, asks the policy, sends through the sinks."""

    def __init__(self, app: CctuiApp, *, now: Callable[[], datetime] = clock.now) -> None:
        self._app = app
        settings = app.settings.notify
        self.policy = NotifyPolicy(settings, now)
        self.sinks = Sinks(settings, write_terminal=self._write)
        self._summary = ""
        """``summary.json``'s text as last written."""

    def _write(self, text: str) -> None:
        app = self._app
        if app.takeover.running is not None:
            return  # the terminal is Claude Code's now: no bytes of cctui's go into it
        if not app.is_headless and app._driver is not None:
            app._driver.write(text)

    def on_screen(self) -> str | None:
        """The session the person is looking at: the pane's (nothing over it), a peek's or
        a pending input's; none while the terminal has lost the focus (when it says so)."""
        app = self._app
        if not app.app_focus:
            return None
        modal = app.inbox.modal
        if modal is not None and app.screen is modal:
            return modal.pending.session_id
        screen_id = getattr(app.screen, "session_id", None)
        if isinstance(screen_id, str):  # a peek
            return screen_id
        if app.main_screen_on_top():
            return app.main.pane.session_id
        return None

    def current(self) -> list[Alert]:
        """Every reason to tell the person something, as it holds now."""
        app = self._app
        main = app.main
        out: list[Alert] = []
        oldest: dict[str, PendingInput] = {}
        for pending in app.manager.pending():
            held = oldest.get(pending.session_id)
            if pending.route == "human" and (held is None or pending.created_at < held.created_at):
                oldest[pending.session_id] = pending
        for sid, pending in oldest.items():
            out.append(self._alert(sid, "waiting", pending.created_at, asks(pending)))
        for sid, at in main.attention.unseen.items():
            row = main.sessions.row(sid)
            failed = row is not None and row.status == "error"
            out.append(self._alert(sid, "failed" if failed else "finished", at, self._said(sid)))
        return out

    def _alert(self, sid: str, reason: str, since: datetime, what: str) -> Alert:
        row = self._app.main.sessions.row(sid)
        return Alert(
            session_id=sid,
            reason=reason,  # type: ignore[arg-type]
            since=since,
            project=row.group if row is not None else "",
            session=self._app.describe_session(sid),
            asks=fmt.one_line(what, 160),
        )

    def _said(self, session_id: str) -> str:
        """A finished session's last words (its result), else its title."""
        try:
            info = self._app.manager.get(session_id)
        except CctuiError:
            row = self._app.main.sessions.row(session_id)
            return row.title if row is not None else ""
        return info.last_result or info.title or ""

    def tick(self) -> list[Alert]:
        """Send what is due now; what was sent."""
        due = self.policy.due(self.current(), self.on_screen())
        for alert in due:
            self.sinks.send(alert)
        return due

    def publish_summary(self) -> None:
        """Keep ``summary.json`` (``cctui status --tmux``) in step: written atomically when
        a count changed, never on a tick that changed nothing."""
        waiting = working = done = 0
        for row in self._app.main.sessions.all_rows():
            if row.status == "waiting_for_input":
                waiting += 1
            elif row.status in ("running", "starting"):
                working += 1
            elif row.unseen:
                done += 1
        text = status.summary_json(pid=os.getpid(), waiting=waiting, working=working, done=done)
        if text == self._summary:
            return
        path = self._app.settings.state_dir / status.SUMMARY_FILE
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, text)
        except OSError as exc:
            log.warning("status summary not written: %s", exc.strerror)
            return
        self._summary = text

    def remove_summary(self) -> None:
        """cctui is ending: ``cctui status`` says so (another cctui's file is left alone)."""
        path = self._app.settings.state_dir / status.SUMMARY_FILE
        data = status.read(path.parent)
        if data is not None and data.get("pid") == os.getpid():
            with contextlib.suppress(OSError):
                path.unlink()

    def toggle_mute(self, project: str) -> datetime | None:
        """Mute ``project`` for an hour, or unmute it; when the mute ends (None: unmuted)."""
        if self.policy.muted_until(project) is not None:
            self.policy.unmute(project)
            return None
        return self.policy.mute(project)
