"""A window attached to the cctui that owns this machine's sessions: ``CoreApi`` over MCP.

``cctui`` started while an owner runs (a window left in the background, ``serve --http``,
``bridge --start``'s) opens a window on that owner's sessions instead of owning any: the TUI
is the same, built on this second implementation of ``cctui.core.api.CoreApi``. Underneath
is the hosts' follower (``hosts.Host``) over a ``client.CctuiClient`` that runs ``cctui
bridge`` (the owner's own MCP tools, its bearer token, 127.0.0.1; no new protocol): the list
of the owner's sessions, each live session's events paged by seq (mirrored here into a ring
the panes read, as from an in-process core), and its pending inputs. While attached, the
window counts as the owner's human (``cctui_attach_window``, called again before its lease
runs out), so an input that falls back to the human pops here, in every attached window; the
first answer wins there.

What this window cannot do yet raises ``NotAvailableAttached``, which the TUI shows: nothing
is silently ignored. Quitting the window leaves every session with the owner.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import logging
import os
import sys
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NoReturn

from cctui.config import HostConfig, Settings
from cctui.core import (
    AssistantTextEvent,
    Decision,
    PendingInput,
    SessionConfig,
    SessionEvent,
    SessionInfo,
    StatusChanged,
    launch,
    rules,
)
from cctui.core.calls import decode_result, encode_call
from cctui.core.catalog import CatalogEntry
from cctui.core.dispatch import Dispatcher, DispatchRequest, MissedRule, Schedule
from cctui.core.dispatch.board import DispatchBoard, ScheduleChanges
from cctui.core.metrics import MetricsSnapshot
from cctui.core.policy.view import PolicyView
from cctui.core.session.buffer import EventBuffer, Page
from cctui.core.session.inputs import Resolution
from cctui.core.session.models import DispatchView
from cctui.core.session.states import LIVE, SessionStatus
from cctui.core.watch import Listener
from cctui.core.worktrees import Action, FinishResult, WorktreeRequest
from cctui.errors import CctuiError, SessionNotFound
from cctui.owner import CALL_TOOL, Owner, window_key
from cctui.pids import pid_running
from cctui.remote.client import LOCATION_VARS, CctuiClient
from cctui.remote.hosts import Host, HostChange
from cctui.remote.models import client_name
from cctui.remote.verbs import VerbCalls

log = logging.getLogger(__name__)

HOLD_S = 20.0
"""Each ``cctui_attach_window`` call holds this long; the next one follows at once."""
STOPPING_GRACE_S = 8.0
"""A dropped link is reported after this long if the owner's process still runs: a stopped
owner ends its sessions (seconds) after its link drops, and is then said to be stopped."""
LISTED_WAIT_S = 5.0
"""A session started from here is waited for this long to appear in the owner's list."""


class NotAvailableAttached(CctuiError):
    """Something an attached window cannot do yet."""

    code = "not_available_attached"


def _unavailable(what: str) -> NoReturn:
    raise NotAvailableAttached(
        f"{what} is not available in a window attached to a background cctui yet",
        suggestion="`cctui stop`, then `cctui`, gives a window that owns the sessions again "
        "(ending them)",
    )


class _Humans:
    """The owner counts this window as its human through the lease, not here."""

    def attach_human(self) -> Callable[[], None]:
        return lambda: None


class AttachedCore(VerbCalls):
    """``CoreApi`` for a window attached to the owner of this machine's sessions."""

    def __init__(self, settings: Settings, owner: Owner) -> None:
        self.settings = settings
        self.owner = owner
        # The bridge must find this machine's owner: this process's locations go with it
        # (the hosts' client leaves them out, for other machines).
        here = [f"{k}={os.environ[k]}" for k in LOCATION_VARS if k in os.environ]
        argv = ["env", *here, sys.executable, "-m", "cctui", "bridge"]
        self._host = Host(
            HostConfig(name="owner", command=argv),
            self._link,
            me=f"mcp:{client_name()}",
        )
        self._host.subscribe(self._changed)
        self.decisions = _Humans()
        self._problems: list[str] = []
        self._listeners: list[Listener] = []
        self._buffers: dict[str, EventBuffer[SessionEvent]] = {}
        self._mirrored: dict[str, tuple[str, int]] = {}
        """Session id -> (the owner's epoch, the last owner seq copied into the ring)."""
        self._lease: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._created: dict[str, SessionInfo] = {}
        """Sessions started from this window that the owner has not listed yet."""
        self._client: CctuiClient | None = None
        """The link the follower made last (the lease calls through it too)."""
        self.owner_stopped = False
        """The owner's process has ended (``cctui stop``, or it exited): the link did not
        merely drop. Nothing is tried again: its sessions ended with it."""

    def _link(self, config: HostConfig) -> CctuiClient:
        self._client = CctuiClient(config.name, list(config.argv))
        return self._client

    # -- life --------------------------------------------------------------------------------

    async def start(self) -> None:
        """Connect (in the background: the window draws at once) and hold the lease."""
        self._host.start()
        loop = asyncio.get_running_loop()
        self._lease = loop.create_task(self._hold(), name="attach-lease")

    async def _hold(self) -> None:
        while True:
            link = self._client
            if link is None or link.closed or not self._host.online:
                await asyncio.sleep(0.2)
                continue
            try:
                await link.call("cctui_attach_window", windowKey=self._key(), holdSeconds=HOLD_S)
            except CctuiError as exc:
                log.info("attach lease: %s", exc.message)
                await asyncio.sleep(1.0)

    async def shutdown(self) -> None:
        """Leave: the sessions stay with the owner."""
        for task in (self._lease, *self._tasks):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        await self._host.stop()

    def banner(self) -> str:
        """The line under the list of an attached window: whose sessions it shows, and what
        ``q`` does; once the owner stopped, that its sessions ended with it."""
        self._down_why()  # notices a stopped owner (see _check_owner)
        if self.owner_stopped:
            return f"⇄ owner pid {self.owner.pid} stopped · its sessions ended · q closes"
        return f"⇄ attached to pid {self.owner.pid} · q leaves them running"

    def status_line(self) -> str:
        """The attached banner, for the status bar."""
        self._down_why()
        if self.owner_stopped:
            return "⇄ owner stopped"
        state = "attached" if self._host.state == "online" else self._host.state
        return f"⇄ {state}"

    @property
    def dispatch(self) -> Dispatcher:
        # The owner's dispatcher object stays there: the t page reads it through
        # dispatch_board and the queue_* / schedule_* calls.
        _unavailable("The owner's dispatcher object")

    @property
    def problems(self) -> builtins.list[str]:
        problems = list(self._problems)
        if self._down_why() and self._host.problem:
            problems.append(f"the owner cctui: {self._host.problem}")
        return problems

    def _down_why(self) -> bool:
        """True when the link is down for a reason to report (not the owner stopping): a
        stopping owner drops the link while it ends its sessions, before its process ends,
        so a fresh drop is not reported for ``STOPPING_GRACE_S`` while the pid still runs."""
        if self._host.state == "online" or self.owner_stopped:
            return False
        if self._check_owner():
            return False
        seen = self._host.last_seen
        fresh = seen is not None and datetime.now(UTC) - seen < timedelta(seconds=STOPPING_GRACE_S)
        return not fresh

    # -- what the owner said -----------------------------------------------------------------

    def _changed(self, change: HostChange) -> None:
        if self._host.state != "online" and not self.owner_stopped:
            self._check_owner()
        for note in change.notes:
            self._problems.append(note)
        for sid in change.sessions:
            mirrored = self._mirror(sid)
            for event in mirrored:
                self._publish(event)
            entry = self._host.entry(sid)
            online = self._host.state == "online" and not self.owner_stopped
            if not mirrored and online and entry is not None and entry.started_by_cctui:
                # Its row changed with no event of its own (the owner's list, first read at
                # attach, says its dispatch note, its mode): the list draws it again, as for
                # the dispatcher's same-status change. Not kept in its ring: no new output.
                # (Offline, the row is the last one seen: ``_ended_with_owner`` says the rest.)
                self._publish(
                    StatusChanged(session_id=sid, status=entry.status, previous=entry.status)
                )

    def _check_owner(self) -> bool:
        """The link is down: say whether the owner itself ended (it runs on this machine, so
        its pid tells), rather than report a dropped link and reconnect forever; True then."""
        if self.owner_stopped:
            return True
        if pid_running(self.owner.pid):
            return False
        self.owner_stopped = True
        self._problems.append(
            f"The owner cctui (pid {self.owner.pid}) was stopped (`cctui stop`, or it exited), "
            "and its sessions ended with it. This window shows what it saw last: q closes it; "
            "`cctui` again starts a window that owns the sessions."
        )
        task = asyncio.get_running_loop().create_task(self._host.stop())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        self._ended_with_owner()
        return True

    def _ended_with_owner(self) -> None:
        """Every session the owner ran live ended with it: say so as a status change, so
        the list and the live count stop showing them running (no event comes from the
        owner any more to move them)."""
        for entry in self._host.sessions():
            if not entry.started_by_cctui or entry.status not in LIVE:
                continue
            sid = entry.session_id
            ended = StatusChanged(
                session_id=sid, status=SessionStatus.INTERRUPTED, previous=entry.status, ended=True
            )
            self._publish(self._ring(sid).append(ended))

    def _ring(self, session_id: str) -> EventBuffer[SessionEvent]:
        """The session's ring of events here, made on first use."""
        buffer = self._buffers.get(session_id)
        if buffer is None:
            buffer = self._buffers[session_id] = EventBuffer(self.settings.event_buffer_size)
        return buffer

    def _mirror(self, session_id: str) -> builtins.list[SessionEvent]:
        """Copy the owner's new events of a session into its ring here; the stored copies."""
        return self._store(session_id, self._host.events(session_id))

    def _store(
        self, session_id: str, events: builtins.list[SessionEvent]
    ) -> builtins.list[SessionEvent]:
        """Put the owner's events after the last one copied into the session's ring here."""
        if not events:
            return []
        epoch, last = self._mirrored.get(session_id, ("", 0))
        buffer = self._ring(session_id)
        stored: builtins.list[SessionEvent] = []
        for event in events:
            seq = getattr(event, "seq", 0)
            if seq <= last:
                continue
            key = f"text:{event.message_id}" if isinstance(event, AssistantTextEvent) else None
            stored.append(buffer.append(event, merge_key=key))
            last = seq
        self._mirrored[session_id] = (epoch, last)
        return stored

    def _publish(self, event: SessionEvent) -> None:
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("listener failed")

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    # -- reading -----------------------------------------------------------------------------

    def _info(self, entry: CatalogEntry) -> SessionInfo:
        sid = entry.session_id
        buffer = self._buffers.get(sid)
        status = entry.status
        if self.owner_stopped and status in LIVE:
            status = SessionStatus.INTERRUPTED  # ended with the owner, as it last said
        return SessionInfo(
            session_id=sid,
            status=status,
            config=SessionConfig(cwd=Path(entry.cwd or "/"), title=entry.title),
            created_at=entry.created_at or entry.last_activity,
            last_activity=entry.last_activity,
            title=entry.title,
            total_cost_usd=entry.total_cost_usd or 0.0,
            pid=None if self.owner_stopped else entry.pid,
            is_active=entry.is_active and not self.owner_stopped,
            last_seq=buffer.last_seq if buffer is not None else 0,
            pending_input_ids=tuple(p.id for p in self._host.pending(sid)),
            has_past=entry.has_past,
            model=entry.model,
            permission_mode=entry.permission_mode,
            dispatch=DispatchView(note=entry.dispatch_note) if entry.dispatch_note else None,
        )

    def get(self, session_id: str) -> SessionInfo:
        entry = self._host.entry(session_id)
        if entry is not None and entry.started_by_cctui:
            self._created.pop(session_id, None)
            return self._info(entry)
        created = self._created.get(session_id)
        if created is None:
            raise SessionNotFound(f"Session {session_id} is not one the owner cctui runs.")
        return created

    def list(self, *, active_only: bool = False) -> builtins.list[SessionInfo]:
        listed = [
            self._info(e)
            for e in self._host.sessions()
            if e.started_by_cctui and (not active_only or e.status in LIVE)
        ]
        seen = {info.session_id for info in listed}
        for sid in [sid for sid in self._created if sid in seen]:
            del self._created[sid]
        return [*listed, *self._created.values()]

    def events(
        self, session_id: str, since: int = 0, limit: int | None = None
    ) -> Page[SessionEvent]:
        buffer = self._buffers.get(session_id)
        if buffer is None:
            self._mirror(session_id)
            buffer = self._buffers.get(session_id)
        if buffer is None:
            return Page(events=[], next_seq=since, missed=False, oldest_seq=0)
        return buffer.since(since, limit)

    def pending(self, session_id: str | None = None) -> builtins.list[PendingInput]:
        return self._host.pending(session_id)

    @property
    def spare_ids(self) -> frozenset[str]:
        return frozenset()

    # -- acting ------------------------------------------------------------------------------

    def default_config(self, cwd: Path | str | None = None, **fields: Any) -> SessionConfig:
        # The same settings and projects as the owner's (one machine, one config): the
        # owner's own function, run here, so the form's config is the one it would build.
        return launch.default_config(self.settings, cwd, **fields)

    async def create(
        self,
        prompt: str | None,
        config: SessionConfig,
        *,
        session_id: str | None = None,
        worktree: WorktreeRequest = None,
        listed: Callable[[str], None] | None = None,
        dispatch: DispatchRequest | None = None,
    ) -> SessionInfo:
        sid = session_id or str(uuid.uuid4())
        stamp = datetime.now(UTC)
        # Listed here at once, as the in-process core does, until the owner's list has it.
        self._created[sid] = SessionInfo(
            session_id=sid,
            status=SessionStatus.STARTING,
            config=config,
            created_at=stamp,
            last_activity=stamp,
            title=config.title or (prompt or "")[:80],
        )
        if listed is not None:
            listed(sid)
        try:
            info: SessionInfo = await self._call(
                "create",
                prompt=prompt,
                config=config,
                session_id=sid,
                worktree=worktree,
                dispatch=dispatch,
            )
        except CctuiError:
            self._created.pop(sid, None)
            raise
        self._created[sid] = info
        self._host.poke()
        for _ in range(int(LISTED_WAIT_S / 0.1)):  # the owner lists it at its next look
            if self._host.entry(sid) is not None:
                break
            await asyncio.sleep(0.1)
        return info

    def prewarm(self, config: SessionConfig) -> None:
        return  # an optimisation of the in-process core: nothing to show either way

    async def discard_spare(self) -> None:
        return

    async def send(self, session_id: str, text: str) -> SessionInfo:
        await self._host.send(session_id, text)
        return self.get(session_id)

    async def interrupt(self, session_id: str, wait_s: float = 0.0) -> SessionInfo:
        await self._host.interrupt(session_id)
        return self.get(session_id)

    async def end(self, session_id: str) -> SessionInfo:
        await self._host.kill(session_id)
        return self.get(session_id)

    async def kill(self, session_id: str, *, force: bool = False) -> SessionInfo:
        await self._host.kill(session_id)
        return self.get(session_id)

    def respond(
        self,
        input_id: str,
        decision: Decision,
        decided_by: str,
        *,
        session_id: str | None = None,
    ) -> Resolution:
        pending = {p.id: p for p in self._host.pending()}.get(input_id)
        sid = session_id or (pending.session_id if pending is not None else None)
        if sid is None:
            raise SessionNotFound(f"Input {input_id} is no longer waiting at the owner.")
        task = asyncio.get_running_loop().create_task(self._answer(sid, input_id, decision))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return Resolution(input_id=input_id, decision=decision, decided_by=decided_by)

    def _key(self) -> str:
        return window_key(self.settings.state_dir) or ""

    async def _answer(self, session_id: str, input_id: str, decision: Decision) -> None:
        """The human's answer (not a delegate's): ``cctui_answer_as_window``."""
        link = self._client
        try:
            if link is None or link.closed or not self._host.online:
                raise CctuiError("the owner cctui is not reachable; nothing was sent")
            await link.call(
                "cctui_answer_as_window",
                windowKey=self._key(),
                sessionId=session_id,
                inputId=input_id,
                decision=decision.model_dump(mode="json", exclude_none=True),
            )
        except CctuiError as exc:
            self._problems.append(f"Your answer: {exc.message}")
        self._host.poke()

    # -- the owner's core, one call at a time (``cctui.core.calls``) -------------------------

    async def _call(self, method: str, **arguments: Any) -> Any:
        """Run ``method`` on the owner's core, as this window (the owner's human)."""
        link = self._client
        if self.owner_stopped:
            raise CctuiError(
                f"The owner cctui (pid {self.owner.pid}) was stopped; nothing was done.",
                suggestion="q closes this window; `cctui` again starts one that owns the sessions",
            )
        if link is None or link.closed or not self._host.online:
            raise CctuiError(
                "The owner cctui is not reachable right now; nothing was done.",
                suggestion="the banner says when the window is attached again",
            )
        out = await link.call(
            CALL_TOOL,
            windowKey=self._key(),
            method=method,
            arguments=encode_call(method, arguments),
        )
        return decode_result(method, out.get("result"))

    async def interactive_command(
        self, session_id: str, cwd: Path | None
    ) -> tuple[builtins.list[str], Path]:
        argv, where = await self._call("interactive_command", session_id=session_id, cwd=cwd)
        return list(argv), Path(where)

    async def fork(
        self, session_id: str, prompt: str | None = None, *, worktree: WorktreeRequest = None
    ) -> SessionInfo:
        info = await super().fork(session_id, prompt, worktree=worktree)
        self._created[info.session_id] = info
        self._host.poke()
        return info

    async def finish_worktree(
        self, session_id: str, action: Action, *, force: bool = False
    ) -> FinishResult:
        done = await super().finish_worktree(session_id, action, force=force)
        self._host.poke()
        return done

    async def rules_for(self, directory: Path) -> rules.RulesInForce:
        found: rules.RulesInForce = await self._call("rules_for", directory=directory)
        return found

    async def remove_rule(
        self,
        directory: Path,
        rule: str,
        *,
        source: rules.RuleSource,
        behavior: rules.Behavior | None = None,
        by: str,
    ) -> rules.RuleChange:
        change: rules.RuleChange = await self._call(
            "remove_rule",
            directory=directory,
            rule=rule,
            source=source,
            behavior=behavior,
            by=by,
        )
        return change

    async def read_metrics(self) -> MetricsSnapshot:
        snapshot: MetricsSnapshot = await self._call("read_metrics")
        return snapshot

    async def policy_view(self, directory: Path, session_id: str | None) -> PolicyView:
        view: PolicyView = await self._call(
            "policy_view", directory=directory, session_id=session_id
        )
        return view

    async def close_breaker(self, session_id: str) -> None:
        await self._call("close_breaker", session_id=session_id)

    # -- the queue and schedules -----------------------------------------------------------

    async def dispatch_board(self) -> DispatchBoard:
        board: DispatchBoard = await self._call("dispatch_board")
        return board

    async def queue_move(self, session_id: str, position: int) -> int:
        at: int = await self._call("queue_move", session_id=session_id, position=position)
        return at

    async def queue_start_now(self, session_id: str) -> None:
        await self._call("queue_start_now", session_id=session_id)

    async def queue_cancel(self, session_id: str, *, by: str) -> None:
        await self._call("queue_cancel", session_id=session_id, by=by)

    async def schedule_add(
        self,
        name: str,
        when: str,
        prompt: str,
        config: SessionConfig,
        *,
        worktree: bool | str | None = None,
        missed: MissedRule = "once",
        priority: int = 0,
    ) -> Schedule:
        schedule: Schedule = await self._call(
            "schedule_add",
            name=name,
            when=when,
            prompt=prompt,
            config=config,
            worktree=worktree,
            missed=missed,
            priority=priority,
        )
        return schedule

    async def schedule_edit(self, ref: str, changes: ScheduleChanges) -> Schedule:
        schedule: Schedule = await self._call("schedule_edit", ref=ref, changes=changes)
        return schedule

    async def schedule_delete(self, ref: str) -> Schedule:
        schedule: Schedule = await self._call("schedule_delete", ref=ref)
        return schedule

    async def schedule_run_now(self, ref: str) -> SessionInfo:
        info: SessionInfo = await self._call("schedule_run_now", ref=ref)
        return info
