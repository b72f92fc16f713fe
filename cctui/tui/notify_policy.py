"""When a notification goes out: only when it matters (plain logic, no Textual, a clock given).

Each tick the app hands over what needs the person now (``Alert``: a session waiting for an
answer, finished unseen, failed) and which session is on screen; ``NotifyPolicy.due`` returns
the ones to send: of a reason the config asks for, held for ``delay_s`` (answered or looked
at sooner: nothing), not for the session on screen, not for a muted project, and in quiet
hours only the urgent ones. Each goes out once; a new request or a new turn is a new alert.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from cctui.config import NotifyReason, NotifySettings, quiet_window

MUTE_FOR = timedelta(hours=1)
"""How long ``z`` mutes a project."""


@dataclass(frozen=True)
class Alert:
    """One reason to tell the person about one session."""

    session_id: str
    reason: NotifyReason
    since: datetime
    """When the reason began (the request asked, the turn ended): with the session and the
    reason, what makes it one alert."""
    project: str
    """The project group it belongs to (what ``z`` mutes)."""
    session: str
    """Which session, in words (its project and title)."""
    asks: str
    """What it asks (the tool and command, the question), or its last words."""

    @property
    def key(self) -> tuple[str, str, datetime]:
        return self.session_id, self.reason, self.since

    @property
    def headline(self) -> str:
        """The reason in words, for a notification's title."""
        return {
            "waiting": "waits for you",
            "finished": "finished",
            "failed": "failed",
        }[self.reason]


class NotifyPolicy:
    """Decides which alerts to send, remembering what went out and which projects are muted."""

    def __init__(self, settings: NotifySettings, clock: Callable[[], datetime]) -> None:
        self.settings = settings
        self._clock = clock
        self._sent: set[tuple[str, str, datetime]] = set()
        self._muted: dict[str, datetime] = {}
        """Project -> muted until."""
        self._quiet = quiet_window(settings.quiet_hours) if settings.quiet_hours else None

    def mute(self, project: str) -> datetime:
        """Mute ``project`` for an hour; when it ends."""
        until = self._muted[project] = self._clock() + MUTE_FOR
        return until

    def unmute(self, project: str) -> None:
        self._muted.pop(project, None)

    def muted_until(self, project: str) -> datetime | None:
        """When the project's mute ends (None: not muted)."""
        until = self._muted.get(project)
        if until is not None and until <= self._clock():
            del self._muted[project]
            return None
        return until

    def quiet(self) -> bool:
        """Now is inside the quiet hours."""
        if self._quiet is None:
            return False
        start, end = self._quiet
        now = self._clock().astimezone()
        minute = now.hour * 60 + now.minute
        if start <= end:
            return start <= minute < end
        return minute >= start or minute < end  # the window wraps midnight

    def due(self, alerts: Iterable[Alert], on_screen: str | None) -> list[Alert]:
        """The alerts to send now, each once. ``alerts``: every reason that holds now (one
        that stops holding is forgotten: it never goes out late); ``on_screen``: the session
        the person is looking at."""
        now = self._clock()
        current = list(alerts)
        self._sent &= {a.key for a in current}
        wanted = self.settings.reasons
        delay = timedelta(seconds=self.settings.delay_s)
        quiet = self.quiet()
        out: list[Alert] = []
        for alert in current:
            if alert.key in self._sent or alert.reason not in wanted:
                continue
            if alert.session_id == on_screen:
                # Seen as it happened: it is not news later either.
                self._sent.add(alert.key)
                continue
            if now - alert.since < delay:
                continue
            self._sent.add(alert.key)
            # Held back by a mute or quiet hours, it is dropped, not sent late in a burst
            # (the list still shows it).
            if self.muted_until(alert.project) is not None:
                continue
            if quiet and alert.reason not in self.settings.urgent:
                continue
            out.append(alert)
        return out
