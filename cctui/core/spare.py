"""A ``claude`` process started before its first prompt, while someone fills in the form.

Spawning the CLI and the SDK's initialize take about half a second before the first prompt
can go out (issue 15: most of what a new session's reply trails bare ``claude -p`` by). The
TUI's new-session form knows where and how the session will most likely start the moment it
opens; a person then takes seconds to write the prompt. So ``warm`` starts that process at
once, unlisted, and ``create`` takes it when the form's answer launches the same way (same
directory, model, mode, tools, environment: the launch spec but for the session id). Anything
else (another directory, a template, a worktree) ends it and starts afresh, as before.

A spare is a real session whose events and registry saves are held back (``_Held``) until it
is taken, so nothing shows it in a list; the CLI writes no transcript before a prompt, and its
``sessions/<pid>.json`` is hidden by id (``ids``) until then. Other processes read that file
too (``cctui sessions``, another cctui, ``cctui serve``), so the id is also published in the
state directory (``spare_records``) for as long as it is hidden here. It is ended when the
form is cancelled, when it is not the one asked for, and at shutdown: no child outlives
cctui.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cctui.claude.driver import DriverFactory
from cctui.claude.frames import LaunchSpec, PermissionDenied
from cctui.config import Settings
from cctui.core import launch, spare_records
from cctui.core.audit import AuditLog
from cctui.core.session.events import SessionEvent
from cctui.core.session.host import SessionDecisions, SessionHost
from cctui.core.session.models import SessionConfig
from cctui.core.session.session import Session
from cctui.errors import CctuiError

log = logging.getLogger(__name__)


class _Held:
    """The manager as a spare sees it: its events are held back and its saves dropped until
    it is taken, then the events go out in order (a list, the metrics and an MCP watcher see
    the session start as any other does)."""

    def __init__(self, host: SessionHost) -> None:
        self._host = host
        self.settings: Settings = host.settings
        self.decisions: SessionDecisions = host.decisions
        self.audit: AuditLog = host.audit
        self.driver_factory: DriverFactory = host.driver_factory
        self.kill_grace_s: float = host.kill_grace_s
        self._held: list[SessionEvent] | None = []
        """Events not yet published (a spawn's few status changes); None once released."""

    def release(self) -> None:
        """Publish what was held, and everything from now on."""
        held, self._held = self._held or [], None
        for event in held:
            self._host.publish(event)

    def publish(self, event: SessionEvent) -> None:
        if self._held is None:
            self._host.publish(event)
        else:
            self._held.append(event)

    def save(self, session_id: str) -> None:
        if self._held is None:
            self._host.save(session_id)

    def keep(self, task: asyncio.Task[Any]) -> None:
        self._host.keep(task)

    def refused_by_cli(
        self,
        session_id: str,
        denial: PermissionDenied,
        tool_input: dict[str, Any],
        breaker: str | None,
    ) -> None:
        self._host.refused_by_cli(session_id, denial, tool_input, breaker)


@dataclass
class _Warm:
    session: Session
    spec: LaunchSpec
    host: _Held
    started: asyncio.Task[None]
    """Spawning and connecting; done once the process can take a prompt (or failed)."""


@dataclass(frozen=True)
class Claimed:
    """A spare taken by ``create``: tracked from now on, its process maybe still starting."""

    session: Session
    spec: LaunchSpec
    """How its process was launched (a fresh start for the same session uses it again)."""
    release: Callable[[], None]
    """Publishes the events held back so far, and every later one."""
    started: asyncio.Task[None]
    """Spawning and connecting; the process is up once it is done and ``alive``."""


class Spare:
    """At most one warm, unlisted process, for the next ``create``."""

    def __init__(self, host: SessionHost) -> None:
        self._host = host
        self._warm: _Warm | None = None
        self._ending: set[str] = set()
        """Ids of spares being ended: hidden until their process is gone."""

    @property
    def ids(self) -> frozenset[str]:
        """The session ids of the warm process and of those being ended: no list shows them
        (a spare is taken, or its process ends, before its id leaves this set)."""
        warm = self._warm
        return frozenset(self._ending if warm is None else {*self._ending, warm.session.id})

    def warm(self, config: SessionConfig) -> None:
        """Start a process for ``config`` in the background unless one launching the same
        way is warm already (one launching otherwise is ended). Nothing happens when it
        cannot start (a missing directory or launch prefix): ``create`` says why then."""
        settings = self._host.settings
        current = self._warm
        try:
            launch.check_cwd(config.cwd)
            if current is not None:
                same = launch.launch_spec(settings, config, session_id=current.session.id)
                if same == current.spec:
                    return
                self._detach()
                self._end(current)
            sid = str(uuid.uuid4())
            spec = launch.launch_spec(settings, config, session_id=sid)
        except CctuiError:
            return
        self._publish(sid)  # before the CLI writes its sessions/<pid>.json
        held = _Held(self._host)
        session = Session(held, sid, config)
        started = asyncio.create_task(session.process.start(spec, None), name=f"spare-{sid}")
        # A failed spawn is not an error anyone waits for: create() starts afresh then.
        started.add_done_callback(_swallow)
        self._warm = _Warm(session, spec, held, started)

    def claim(self, config: SessionConfig) -> Claimed | None:
        """The warm session, if it launches as ``config`` would and its start has not failed
        (its config becomes ``config``); it is no longer hidden, so the caller tracks it now,
        publishes its held events (``Claimed.release``) and waits for ``Claimed.started``
        before the first prompt. Otherwise the spare is ended and the caller starts afresh
        (``None``)."""
        warm = self._detach()
        if warm is None:
            return None
        try:
            spec = launch.launch_spec(self._host.settings, config, session_id=warm.session.id)
        except CctuiError:
            spec = None
        failed = warm.started.done() and not warm.session.process.alive
        if spec != warm.spec or failed:
            self._end(warm)
            return None
        session = warm.session
        session.config = config
        session.title = config.title
        session.created_at = datetime.now(UTC)
        self._withdraw(session.id)
        return Claimed(session, warm.spec, warm.host.release, warm.started)

    async def discard(self) -> None:
        """End the warm process, if any, and wait for it to go."""
        warm = self._detach()
        if warm is not None:
            self._ending.add(warm.session.id)
            await self._stop(warm)

    def _detach(self) -> _Warm | None:
        warm, self._warm = self._warm, None
        return warm

    def _end(self, warm: _Warm) -> None:
        self._ending.add(warm.session.id)
        self._host.keep(asyncio.create_task(self._stop(warm)))

    async def _stop(self, warm: _Warm) -> None:
        """End ``warm``'s process (its id is in ``_ending`` until then)."""
        sid, process = warm.session.id, warm.session.process
        if not process.busy:
            # Its start has not begun (or is over): cancelled now, it never spawns anything.
            warm.started.cancel()
        try:
            # A process still connecting is ended by its owner task once connected (or the
            # owner is cancelled when it hangs there: Process.stop).
            await process.stop()
        except Exception:
            log.exception("ending the spare claude process failed")
        finally:
            self._ending.discard(sid)
            self._withdraw(sid)

    def _publish(self, session_id: str) -> None:
        try:
            spare_records.publish(self._host.settings.state_dir, session_id)
        except OSError:  # other processes list the spare then; this one still hides it
            log.warning("could not publish spare %s", session_id, exc_info=True)

    def _withdraw(self, session_id: str) -> None:
        spare_records.withdraw(self._host.settings.state_dir, session_id)


def _swallow(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.info("a spare claude process did not start: %s", task.exception())
