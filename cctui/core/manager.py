"""SessionManager: the one object both front ends talk to.

All methods run on the app's event loop. Sessions live in ``session.py``; this module
keeps the table of sessions, the limits, the registry, the audit log and the subscribers.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import logging
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from cctui.claude.driver import ClaudeDriver, DriverFactory
from cctui.claude.frames import LaunchSpec
from cctui.claude.transcripts import find_session
from cctui.config import Settings
from cctui.core.audit import AuditLog
from cctui.core.buffer import Page
from cctui.core.events import InputRequestedEvent, SessionEvent, UserMessageEvent
from cctui.core.models import SessionConfig, SessionInfo, SessionRecord, ToolUseSummary
from cctui.core.pending import Decision, PendingInput, PendingInputs, Resolution
from cctui.core.registry import Registry
from cctui.core.session import Session
from cctui.core.states import SessionStatus
from cctui.errors import (
    InputNotFound,
    SessionLimitReached,
    SessionNotFound,
    SessionNotReady,
    ValidationFailed,
)

log = logging.getLogger(__name__)
S = SessionStatus

Listener = Callable[[SessionEvent], None]
"""Called synchronously on the loop for every event of every session. Must not block."""

InputRouter = Callable[[PendingInput], str | None]
"""Consulted when an input opens, before it is published: return a client label to ask
that MCP client first (route ``client``), or None to leave it to the human (route ``human``)."""

_TITLE_MAX = 80
# Registry writes are batched: a turn's status changes cost one write, later.
_SAVE_DELAY_S = 0.2
# A session still spawning when a message arrives: how long send() waits for it.
_STARTING_WAIT_S = 30.0


class WaitOutcome(BaseModel):
    """Why ``wait`` returned."""

    reason: Literal["input_needed", "turn_ended", "timeout", "session_ended"]
    session: SessionInfo
    pending: list[PendingInput]


class SessionManager:
    """Creates, drives and tracks sessions; owns pending inputs, the registry and the audit log."""

    def __init__(self, settings: Settings, driver_factory: DriverFactory | None = None) -> None:
        """``driver_factory`` defaults to the real claude-agent-sdk driver."""
        self.settings = settings
        self.driver_factory: DriverFactory = driver_factory or ClaudeDriver
        self.pending_inputs = PendingInputs()
        self.audit = AuditLog(settings.state_dir)
        self.registry = Registry(settings.state_dir)
        self.kill_grace_s = 2.0
        """SIGTERM -> SIGKILL grace when ending a process."""
        self._sessions: dict[str, Session] = {}
        self._listeners: list[Listener] = []
        self._router: InputRouter | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loaded = False
        self._shutting_down = False
        self._dirty: set[str] = set()
        self._flush_handle: asyncio.TimerHandle | None = None

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Load the registry (sessions from earlier runs become listed and resumable)."""
        self._load()

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        for sid, rec in self.registry.load().items():
            if sid in self._sessions:
                continue
            # No process survives a restart: a live status on disk means cctui died.
            if rec.status == S.IDLE:
                rec = rec.model_copy(update={"status": S.COMPLETED})
            elif rec.status in (S.STARTING, S.RUNNING, S.WAITING_FOR_INPUT):
                rec = rec.model_copy(update={"status": S.INTERRUPTED})
            self._sessions[sid] = Session(self, sid, rec.config, record=rec)

    async def shutdown(self) -> None:
        """End every process (no child outlives cctui), withdraw pending inputs, save.

        Processes are terminated directly and concurrently (not the SDK's 5 s stdin
        grace); an idle session ends ``completed``, a busy one ``interrupted``.
        """
        self._shutting_down = True
        busy = [s for s in self._sessions.values() if s.process.busy]
        if busy:
            await asyncio.gather(*(s.process.stop() for s in busy), return_exceptions=True)
        for sid in {i.session_id for i in self.pending_inputs.list()}:
            session = self._sessions.get(sid)
            if session is not None:
                session.desk.withdraw("session-ended")
            else:
                self.pending_inputs.withdraw_session(sid)
        for task in list(self._tasks):
            task.cancel()
        self._save_all()

    # ------------------------------------------------------------------ SessionHost

    def publish(self, event: SessionEvent) -> None:
        """Fan an event out to every subscriber (a failing listener is logged, not fatal)."""
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("event listener %r failed", listener)

    def save(self, session: Session) -> None:
        """Persist one session's record soon (writes are coalesced off the turn's path)."""
        self._dirty.add(session.id)
        if self._flush_handle is None:
            self._flush_handle = asyncio.get_running_loop().call_later(_SAVE_DELAY_S,
                                                                       self.flush)

    def flush(self) -> None:
        """Write every changed record now."""
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        dirty, self._dirty = self._dirty, set()
        records = [self._sessions[sid].record() for sid in dirty if sid in self._sessions]
        if records:
            try:
                self.registry.save(records)
            except OSError:
                log.exception("cannot save the session registry")

    def _save_all(self) -> None:
        self._dirty.update(self._sessions)
        self.flush()

    def route(self, item: PendingInput) -> PendingInput:
        """Ask the installed router who should answer ``item`` first."""
        if self._router is None:
            return item
        try:
            label = self._router(item)
        except Exception:
            log.exception("input router failed; routing to the human")
            label = None
        if label is None:
            return item
        return item.model_copy(update={"route": "client", "route_label": label})

    def keep(self, task: asyncio.Task[Any]) -> None:
        """Hold a background task until it finishes."""
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------------ commands

    def default_config(self, cwd: Path | None = None, **fields: Any) -> SessionConfig:
        """A SessionConfig with the settings' defaults (cwd, permission mode, tools)."""
        base: dict[str, Any] = {
            "cwd": cwd or self.settings.default_cwd or Path.cwd(),
            "permission_mode": self.settings.default_permission_mode,
            "allowed_tools": self.settings.allowed_tools,
        }
        return SessionConfig(**(base | fields))

    async def create(
        self, prompt: str | None, config: SessionConfig, *, session_id: str | None = None
    ) -> SessionInfo:
        """Start a process; returns once it is connected, with the (pre-assigned) session id.

        The first prompt is queued at once; the turn runs in the background.

        Raises:
            SessionLimitReached, CliNotFound, ValidationFailed (e.g. cwd missing).
        """
        self._load()
        self._check_cwd(config.cwd)
        if session_id is not None:
            try:
                session_id = str(uuid.UUID(session_id))
            except ValueError:
                raise ValidationFailed(f"session id {session_id!r} is not a UUID.") from None
            if session_id in self._sessions:
                raise ValidationFailed(f"session id {session_id} is already in use.",
                                       suggestion="Send to it instead, or omit the id.")
        self._check_limit()
        sid = session_id or str(uuid.uuid4())
        if config.title is None and prompt:
            config = config.model_copy(update={"title": _title(prompt)})
        session = Session(self, sid, config)
        self._sessions[sid] = session
        try:
            await session.process.start(self._spec(config, session_id=sid), prompt)
        except BaseException:
            self._sessions.pop(sid, None)
            self._dirty.discard(sid)
            raise
        return session.info()

    async def send(self, session_id: str, text: str) -> SessionInfo:
        """Send a message; an ended or unknown-but-on-disk session is resumed first.

        Raises:
            SessionNotFound, SessionLimitReached.
        """
        session = self._session_or_transcript(session_id)
        if session.process.busy and not session.process.alive:
            # Still spawning (or just ending): wait for it to settle.
            await session.process.settled(_STARTING_WAIT_S)
        if session.process.alive:
            session.publish(UserMessageEvent(session_id=session.id, text=text))
            await session.process.send(text)
            return session.info()
        if session.process.busy:
            raise SessionNotReady(f"Session {session_id} is still starting; try again.")
        self._check_cwd(session.config.cwd)
        self._check_limit()
        if session.title is None:
            session.title = _title(text)
        await session.process.start(self._spec(session.config, resume=session.id), text)
        return session.info()

    async def interrupt(self, session_id: str) -> SessionInfo:
        """Stop the current turn (control request); the process stays alive."""
        session = self._session(session_id)
        await session.process.interrupt()
        return session.info()

    async def kill(self, session_id: str) -> SessionInfo:
        """End the process (terminate, then kill); the session stays resumable.

        A killed session ends ``interrupted``.
        """
        session = self._session(session_id)
        await session.process.stop(S.INTERRUPTED)
        return session.info()

    async def fork(self, session_id: str, prompt: str | None = None) -> SessionInfo:
        """A new session with this one's history, under a new id."""
        source = self._session_or_transcript(session_id)
        self._check_cwd(source.config.cwd)
        self._check_limit()
        new_id = str(uuid.uuid4())
        base = source.title or session_id[:8]
        config = source.config.model_copy(update={"title": f"{base} (fork)"})
        record = SessionRecord(session_id=new_id, config=config, created_at=_now(),
                               last_activity=_now(), title=config.title,
                               status=S.STARTING, forked_from=source.id)
        session = Session(self, new_id, config, record=record)
        self._sessions[new_id] = session
        spec = self._spec(config, resume=source.id, fork=True, session_id=new_id)
        try:
            await session.process.start(spec, prompt)
        except BaseException:
            self._sessions.pop(new_id, None)
            raise
        return session.info()

    # ------------------------------------------------------------------ queries

    def get(self, session_id: str) -> SessionInfo:
        """Snapshot of a session cctui knows (live or registered). Raises SessionNotFound."""
        return self._session(session_id).info()

    def list(self, *, active_only: bool = False) -> list[SessionInfo]:
        """cctui's sessions (live and registered), newest activity first."""
        self._load()
        infos = [s.info() for s in self._sessions.values() if s.active or not active_only]
        return sorted(infos, key=lambda i: i.last_activity, reverse=True)

    def events(
        self, session_id: str, since: int = 0, limit: int | None = None
    ) -> Page[SessionEvent]:
        """Buffered events after ``since``; ``missed`` tells a reader it fell behind."""
        return self._session(session_id).buffer.since(since, limit)

    def tool_uses(self, session_id: str) -> builtins.list[ToolUseSummary]:
        """The session's tool calls (running / completed / denied / failed), oldest first."""
        return self._session(session_id).translator.tool_summaries()

    def pending(self, session_id: str | None = None) -> builtins.list[PendingInput]:
        """Open inputs, oldest first."""
        return self.pending_inputs.list(session_id)

    def respond(self, input_id: str, decision: Decision, decided_by: str) -> Resolution:
        """Answer a pending input; first answer wins. Audited.

        Raises:
            InputNotFound, InputAlreadyAnswered.
        """
        try:
            item = self.pending_inputs.get(input_id)
        except InputNotFound:
            return self.pending_inputs.resolve(input_id, decision, decided_by)  # raises
        session = self._sessions.get(item.session_id)
        if session is None:
            return self.pending_inputs.resolve(input_id, decision, decided_by)
        return session.desk.resolve(input_id, decision, decided_by)

    def route_to_human(self, input_id: str) -> PendingInput:
        """A client could not decide (declined/cancelled elicitation): hand it to the human.

        Publishes the input again (``InputRequestedEvent`` with route ``human``).
        """
        item = self.pending_inputs.get(input_id)
        if item.route == "human":
            return item
        item = item.model_copy(update={"route": "human", "route_label": None})
        self.pending_inputs.update(item)
        session = self._sessions.get(item.session_id)
        if session is not None:
            session.publish(InputRequestedEvent(session_id=item.session_id, input=item))
        return item

    def set_input_router(self, router: InputRouter | None) -> None:
        """Install the MCP server's router (see ``InputRouter``)."""
        self._router = router

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Receive every event; returns the unsubscribe function."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(listener)

        return unsubscribe

    async def wait(self, session_id: str, timeout_s: float) -> WaitOutcome:
        """Return when the session needs input, its turn ends, it ends, or the timeout passes."""
        session = self._session(session_id)

        def check() -> Literal["input_needed", "turn_ended", "session_ended"] | None:
            if self.pending_inputs.list(session_id):
                return "input_needed"
            if not session.process.alive and session.status != S.STARTING:
                return "session_ended"
            if session.process.alive and session.outstanding == 0:
                return "turn_ended"
            return None

        reason = check()
        if reason is None:
            done: asyncio.Future[Literal["input_needed", "turn_ended", "session_ended"]] = \
                asyncio.get_running_loop().create_future()

            def listener(event: SessionEvent) -> None:
                if event.session_id == session_id and not done.done():
                    found = check()
                    if found is not None:
                        done.set_result(found)

            unsubscribe = self.subscribe(listener)
            try:
                reason = await asyncio.wait_for(done, timeout_s)
            except TimeoutError:
                reason = check() or "timeout"  # type: ignore[assignment]
            finally:
                unsubscribe()
        return WaitOutcome(reason=reason, session=session.info(),
                           pending=self.pending_inputs.list(session_id))

    def audit_tool_call(self, client: str, tool: str, arguments: dict[str, object]) -> None:
        """Record an MCP tool call in the audit log (secrets redacted)."""
        self.audit.tool_call(client, tool, arguments)

    # ------------------------------------------------------------------ helpers

    def _session(self, session_id: str) -> Session:
        self._load()
        session = self._sessions.get(session_id)
        if session is None:
            raise SessionNotFound(f"No session has id {session_id!r}.",
                                  suggestion="claude_list_sessions lists the known ids.")
        return session

    def _session_or_transcript(self, session_id: str) -> Session:
        self._load()
        session = self._sessions.get(session_id)
        if session is not None:
            return session
        found = find_session(session_id, self.settings.claude_config_dir)
        if found is None:
            raise SessionNotFound(
                f"No session has id {session_id!r} (not started by cctui, no transcript "
                f"under {self.settings.claude_config_dir}).",
                suggestion="claude_list_sessions lists the known ids.")
        config = self.default_config(found.cwd, title=found.title)
        record = SessionRecord(session_id=session_id, config=config, created_at=_now(),
                               last_activity=_now(), title=found.title, status=S.COMPLETED)
        session = Session(self, session_id, config, record=record)
        self._sessions[session_id] = session
        return session

    def _check_cwd(self, cwd: Path) -> None:
        if not cwd.is_dir():
            raise ValidationFailed(f"working directory {cwd} does not exist.",
                                   suggestion="Pass an existing directory.")

    def _check_limit(self) -> None:
        if self._shutting_down:
            raise SessionNotReady("cctui is shutting down.")
        live = sum(1 for s in self._sessions.values() if s.process.busy)
        if live >= self.settings.max_sessions:
            raise SessionLimitReached(
                f"{live} sessions are running; MAX_SESSIONS is {self.settings.max_sessions}.",
                suggestion="Kill an idle session or raise MAX_SESSIONS.")

    def _spec(self, config: SessionConfig, **launch: Any) -> LaunchSpec:
        allowed = tuple(dict.fromkeys((*self.settings.allowed_tools, *config.allowed_tools)))
        return LaunchSpec(
            cwd=config.cwd, model=config.model,
            permission_mode="bypassPermissions" if config.skip_permissions
            else config.permission_mode,
            allowed_tools=allowed, disallowed_tools=config.disallowed_tools,
            max_turns=config.max_turns, max_budget_usd=config.max_budget_usd,
            append_system_prompt=config.append_system_prompt,
            skip_permissions=config.skip_permissions,
            cli_path=self.settings.claude_code_path, launch_prefix=config.launch_prefix,
            **launch)


def _title(prompt: str) -> str:
    line = " ".join(prompt.split())
    return line if len(line) <= _TITLE_MAX else line[: _TITLE_MAX - 1] + "…"


def _now() -> datetime:
    return datetime.now(UTC)
