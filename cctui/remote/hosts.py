"""Each configured host's link, kept up on its own, and what was last seen there.

A ``Host`` runs one task: connect (the host's command), then follow — by push: one
``cctui_follow`` call held open, which the host answers when one of its sessions changes
(events, inputs, state; cctui's own tools, no new protocol), its whole list read on
connecting and now and then; from a cctui that predates it, by polling each live session's
``claude_get_status`` every ``FOLLOW_EVERY_S``. When the link fails or drops, the host keeps
its last rows, says ``offline`` with when it was last seen, and tries again with a growing
pause. Nothing here waits on a host for local work: readers get what was last seen, at once.

An answer carries its input's id. Sent while the link is down, it is refused at once (not
delivered). Lost in flight (the link dropped before the host confirmed it), it is sent again
with the same id when the link is back: the host applies the first answer to an input only,
so it is applied once, or reported as answered by someone else, or as no longer waiting.

No MCP here: the link is any ``Link`` (``client.CctuiClient`` is the real one), so the TUI
reads hosts without importing the MCP stack.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol, TypeVar

from cctui.config import HostConfig
from cctui.core import Decision, PendingInput, SessionEvent
from cctui.core.calls import decode_result, encode_call
from cctui.core.catalog import CatalogEntry
from cctui.core.session.states import LIVE, SessionStatus
from cctui.errors import CctuiError
from cctui.history.models import SearchHit, TranscriptPage, UsageReport
from cctui.owner import CALL_TOOL
from cctui.remote.models import (
    Answered,
    ConnectFailed,
    Followed,
    HostClaude,
    HostState,
    HostStatus,
    HostUnreachable,
    NotDelivered,
    RemoteError,
    StatusPage,
)

log = logging.getLogger(__name__)

FOLLOW_HOLD_S = 25.0
"""One follow call is held open this long when nothing changes there (then asked again)."""
FOLLOW_SETTLE_MS = 200
"""A follow answer waits this long after the first change, so streamed text goes in a few
answers a second, not one per delta."""
LIST_PUSHED_EVERY_S = 30.0
"""Followed by push, a host's newest list page is read again this often: Claude Code
sessions run there outside its cctui (a terminal's ``claude``) send no events."""
LIST_ALL_EVERY_S = 300.0
"""Its whole list (every past session) is read on connecting and again this often."""
LIST_EVERY_S = 3.0
"""Followed by polling (a host's cctui that predates ``cctui_follow``), how often its list's
newest page is read again (new sessions, titles, costs)."""
FOLLOW_EVERY_S = 1.0
"""Followed by polling, how often each live session there is asked for its new events."""
LIST_LIMIT = 200
"""The newest page of a host's list, read between whole readings."""
LIST_PAGE = 1000
LIST_PAGES = 50
"""A whole listing is read in pages of ``LIST_PAGE``, at most ``LIST_PAGES`` of them."""
FIRST_RETRY_S = 1.0
MAX_RETRY_S = 30.0
"""A dropped link is tried again after 1 s, then twice as long each time, up to this."""
FIX_RETRY_S = 60.0
"""A host whose cctui is missing or incompatible is tried again this often (a person is
installing or upgrading it)."""
EVENTS_KEPT = 300
"""Events kept per remote session, for its pane."""
REACH_WAIT_S = 20.0
"""A call for a host not connected yet waits this long for its first connection."""
ACTING_TOOLS = frozenset({"claude_create_session", "claude_send_message", "claude_respond"})
"""Calls after which the host is looked at again at once."""
FANOUT_TIMEOUT_S = 30.0
"""A host's search or usage answer is given up on after this long."""
CLAUDE_KEPT_S = 600.0
"""A host's ``claude_health`` answer is reused this long on one connection (a new connection
asks again, when next needed: its cctui may have restarted with another ``claude``). Its
login check is kept a minute by the host's own cctui."""
CLAUDE_WAIT_S = 20.0
"""How long a take-over waits for that answer before it runs the host's ``claude`` by name."""


class Link(Protocol):
    """One connection to a host's cctui (``client.CctuiClient``)."""

    version: str | None
    tools: frozenset[str]
    closed: bool

    async def connect(self) -> None: ...
    async def close(self) -> None: ...
    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]: ...
    async def health(self) -> dict[str, Any]: ...
    async def list_sessions(self, *, limit: int = ..., offset: int = ...) -> list[CatalogEntry]: ...
    async def follow(
        self, cursors: Mapping[str, tuple[str, int]], *, timeout_ms: int = ..., settle_ms: int = ...
    ) -> list[Followed]: ...
    async def transcript(
        self, session_id: str, *, offset: int = ..., limit: int = ...
    ) -> TranscriptPage: ...
    async def status(
        self, session_id: str, *, since_seq: int = ..., limit: int = ...
    ) -> StatusPage: ...
    async def respond(self, session_id: str, input_id: str, decision: Decision) -> Answered: ...
    async def create(
        self,
        prompt: str | None,
        *,
        cwd: str | None = ...,
        model: str | None = ...,
        permission_mode: str | None = ...,
        title: str | None = ...,
    ) -> str: ...
    async def send(self, session_id: str, text: str) -> None: ...
    async def interrupt(self, session_id: str) -> None: ...
    async def kill(self, session_id: str) -> None: ...
    async def search(self, query: str, *, limit: int = ...) -> list[SearchHit]: ...
    async def usage(self, period: str = ..., *, since: str | None = ...) -> UsageReport: ...


MakeLink = Callable[[HostConfig], Link]
"""A new, unconnected link to a host (the composition root passes ``CctuiClient``'s)."""


@dataclass(frozen=True, kw_only=True)
class HostChange:
    """Something changed on a host: its rows or state, and what a reader must not miss."""

    host: str
    requested: tuple[PendingInput, ...] = ()
    """Pending inputs seen there for the first time."""
    resolved: tuple[str, ...] = ()
    """Input ids no longer waiting there (answered by anyone, timed out, withdrawn)."""
    sessions: tuple[str, ...] = ()
    """Sessions whose events or row changed."""
    notes: tuple[str, ...] = ()
    """Things to tell the person (an answer's fate after the link came back)."""


Listener = Callable[[HostChange], None]


class Host:
    """One host: its link's supervisor and its last-seen sessions, events and inputs."""

    def __init__(
        self,
        config: HostConfig,
        make_link: MakeLink,
        *,
        me: str,
        rank: int = 1,
        listener: Listener | None = None,
    ) -> None:
        self.config = config
        self.name = config.name
        self.rank = rank
        """Its place among hosts, from 1 (this machine is 0): the list's order."""
        self._make_link = make_link
        self._me = me
        """``mcp:<this cctui's client name>``: how the host names answers from here."""
        self._listeners: list[Listener] = [listener] if listener else []
        self._link: Link | None = None
        self.state: HostState = "connecting"
        self.problem: str | None = None
        self.fix: str | None = None
        self.version: str | None = None
        self._claude: HostClaude | None = None
        """Its last ``claude_health`` answer (``claude``), None until something needed it."""
        self._claude_on = 0
        self._connections = 0
        """Connections made so far; ``_claude_on``: the one that answered ``_claude`` (on a
        newer one it is asked again)."""
        self.last_seen: datetime | None = None
        self._entries: dict[str, CatalogEntry] = {}
        self._pending: dict[str, PendingInput] = {}
        self._seq: dict[str, tuple[str, int]] = {}
        """Session id -> (epoch, next seq to read from)."""
        self._events: dict[str, deque[SessionEvent]] = {}
        self._in_doubt: dict[str, tuple[str, Decision]] = {}
        """Answers lost in flight: input id -> (session id, decision), sent again on reconnect."""
        self._poke = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.retry_at: datetime | None = None
        """When the next connection attempt is due (while down)."""

    # -- what readers see (never waits on the host) ------------------------------------------

    @property
    def online(self) -> bool:
        return self._link is not None and self.state == "online"

    def sessions(self) -> list[CatalogEntry]:
        """Its sessions as last seen (still there while it is offline)."""
        return list(self._entries.values())

    def entry(self, session_id: str) -> CatalogEntry | None:
        return self._entries.get(session_id)

    def pending(self, session_id: str | None = None) -> list[PendingInput]:
        """Its open pending inputs as last seen, oldest first."""
        items = [p for p in self._pending.values() if session_id in (None, p.session_id)]
        return sorted(items, key=lambda p: p.created_at)

    def events(self, session_id: str) -> list[SessionEvent]:
        """The session's events followed from here (its last ``EVENTS_KEPT``)."""
        return list(self._events.get(session_id, ()))

    def waiting_since(self) -> dict[str, datetime]:
        """Session id -> when its oldest open input was asked."""
        since: dict[str, datetime] = {}
        for p in self._pending.values():
            if p.session_id not in since or p.created_at < since[p.session_id]:
                since[p.session_id] = p.created_at
        return since

    def status(self) -> HostStatus:
        """Its state, version and counts, as ``cctui hosts`` prints them."""
        entries = self._entries.values()
        return HostStatus(
            name=self.name,
            state=self.state,
            version=self.version,
            problem=self.problem,
            fix=self.fix,
            last_seen=self.last_seen,
            sessions=len(entries),
            live=sum(1 for e in entries if e.is_active),
            pending=len(self._pending),
        )

    @property
    def claude_path(self) -> str | None:
        """The ``claude`` its cctui drives, as it last said (None: not asked yet, or none)."""
        return self._claude.path if self._claude is not None else None

    async def claude(self, *, within: float = CLAUDE_WAIT_S) -> HostClaude | None:
        """What its cctui says of the ``claude`` it drives (``claude_health``: the path a
        take-over runs there, whether it can run), asked the first time it is needed on a
        connection and then reused for ``CLAUDE_KEPT_S`` (its ``asked_at`` says how old it
        is). Not asked on connecting: it runs ``claude --version`` and ``claude auth
        status`` there. The last answer, however old, when the link is down or does not
        answer within ``within``; None when it never answered."""
        known, link = self._claude, self._link
        if link is None or link.closed:
            return known
        now = datetime.now(UTC)
        on = self._connections
        if known is not None and self._claude_on == on and known.age_s(now) < CLAUDE_KEPT_S:
            return known
        try:
            async with asyncio.timeout(within):
                out = await link.health()
        except (CctuiError, TimeoutError) as exc:
            log.info("host %s: claude_health not answered (%s)", self.name, exc)
            return known
        path = out.get("path")
        self._claude = HostClaude(
            path=str(path) if path else None,
            ok=bool(out.get("ok")),
            problem=out.get("problem") or None,
            asked_at=datetime.now(UTC),
        )
        self._claude_on = on
        return self._claude

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _emit(self, change: HostChange) -> None:
        for listener in list(self._listeners):
            try:
                listener(change)
            except Exception:
                log.exception("host listener failed")

    # -- the link's life ---------------------------------------------------------------------

    def start(self) -> None:
        """Keep the link up in the background until ``stop``."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(
                self.run(), name=f"host {self.name}"
            )

    async def stop(self) -> None:
        """End the link and its command. A later :meth:`call` connects again (a window that
        went to the background closed its links; its MCP tools' ``host`` calls go on)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.state == "online":  # the link is gone: not "online" with no link
            self.state = "connecting"

    def poke(self) -> None:
        """Look again now (a session was just started or answered there; or retry now)."""
        self._poke.set()

    async def run(self) -> None:
        """Connect, follow, and after a failure wait (growing) and connect again; forever."""
        delay = FIRST_RETRY_S
        while True:
            link = self._make_link(self.config)
            try:
                await link.connect()
            except ConnectFailed as exc:
                self._down(exc.state, exc.message, exc.suggestion)
                pause = FIX_RETRY_S if exc.state != "offline" else delay
                delay = min(delay * 2, MAX_RETRY_S)
                await self._pause(pause)
                continue
            try:
                self._link = link
                self._up(link)
                delay = FIRST_RETRY_S
                await self._follow(link)
            except HostUnreachable as exc:
                self._down("offline", exc.message, None)
            except CctuiError as exc:  # the host refused something the loop needs
                self._down("offline", exc.message, exc.suggestion)
            finally:
                self._link = None
                await link.close()
            await self._pause(delay)
            delay = min(delay * 2, MAX_RETRY_S)

    async def _pause(self, seconds: float) -> None:
        self.retry_at = datetime.now(UTC) + timedelta(seconds=seconds)
        self._poke.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._poke.wait(), seconds)
        self.retry_at = None

    def _up(self, link: Link) -> None:
        self.state, self.problem, self.fix = "online", None, None
        self.version = link.version
        self._connections += 1
        self.last_seen = datetime.now(UTC)
        log.info("host %s: connected (cctui %s)", self.name, link.version)
        self._emit(HostChange(host=self.name, sessions=tuple(self._entries)))

    def _down(self, state: HostState, problem: str, fix: str | None) -> None:
        if (self.state, self.problem) != (state, problem):
            log.info("host %s: %s (%s)", self.name, state, problem)
        self.state, self.problem, self.fix = state, problem, fix
        self._emit(HostChange(host=self.name, sessions=tuple(self._entries)))

    async def _follow(self, link: Link) -> None:
        """Keep up with the host until the link drops: by push (``Link.follow``, one call
        held open that answers when a session there changes), else, from a cctui that
        predates it, by polling each live session every ``FOLLOW_EVERY_S``. The list is read
        whole on connecting and every ``LIST_ALL_EVERY_S``, its newest page in between."""
        loop = asyncio.get_running_loop()
        await self._resend(link)
        await self._list(link, complete=True)
        push = True
        next_all = loop.time() + LIST_ALL_EVERY_S
        next_list = loop.time() + LIST_PUSHED_EVERY_S
        while True:
            if link.closed:
                raise HostUnreachable(self.name, "the link dropped")
            if push:
                hold = max(0.0, min(FOLLOW_HOLD_S, next_list - loop.time()))
                try:
                    await self._pushed(link, hold)
                except RemoteError as exc:
                    if isinstance(exc, HostUnreachable) or exc.code != "unknown_tool":
                        raise
                    log.info("host %s: its cctui %s follows by polling", self.name, link.version)
                    push, next_list = False, loop.time()
                    continue
            else:
                await self._look(link, listing=False)
            now = loop.time()
            if now >= next_list or (not push and self._poke.is_set()):
                await self._list(link, complete=now >= next_all)
                next_list = now + (LIST_PUSHED_EVERY_S if push else LIST_EVERY_S)
                if now >= next_all:
                    next_all = now + LIST_ALL_EVERY_S
            self._poke.clear()
            if not push:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._poke.wait(), FOLLOW_EVERY_S)

    def _followed(self) -> list[str]:
        """The sessions whose events are read: live ones, and any with an open input."""
        return [
            sid
            for sid, e in self._entries.items()
            if e.status in LIVE or any(p.session_id == sid for p in self._pending.values())
        ]

    async def _pushed(self, link: Link, hold: float) -> None:
        """One follow answer: whatever changed there, or nothing after ``hold``."""
        cursors = {sid: self._seq.get(sid, ("", 0)) for sid in self._followed()}
        found = await link.follow(cursors, timeout_ms=int(hold * 1000), settle_ms=FOLLOW_SETTLE_MS)
        changed: set[str] = set()
        requested: list[PendingInput] = []
        resolved: list[str] = []
        for item in found:
            sid = item.session_id
            if item.page is None:  # forgotten there
                self._seq.pop(sid, None)
                for input_id in [k for k, p in self._pending.items() if p.session_id == sid]:
                    del self._pending[input_id]
                    resolved.append(input_id)
                continue
            if item.entry is not None:
                entry = item.entry.model_copy(update={"pending_inputs": len(item.page.pending)})
                if self._entries.get(sid) != entry:
                    self._entries[sid] = entry
                    changed.add(sid)
            if item.page.missed:
                self._events.pop(sid, None)  # read afresh: what it holds replaces ours
            changed |= self._absorb(item.page, requested, resolved)
        self._seen(changed, requested, resolved)

    def _seen(self, changed: set[str], requested: list[PendingInput], resolved: list[str]) -> None:
        """A look answered: note when, and tell the listeners what changed."""
        self.last_seen = datetime.now(UTC)
        if changed or requested or resolved:
            self._emit(
                HostChange(
                    host=self.name,
                    requested=tuple(requested),
                    resolved=tuple(resolved),
                    sessions=tuple(changed),
                )
            )

    async def _list(self, link: Link, *, complete: bool) -> None:
        """Read its session list: whole (page by page), or its newest page."""
        entries: list[CatalogEntry] = []
        size = LIST_PAGE if complete else LIST_LIMIT
        for _ in range(LIST_PAGES if complete else 1):
            page = await link.list_sessions(limit=size, offset=len(entries))
            entries += page
            if len(page) < size:
                break
        changed = self._listed(entries, complete=complete)
        self.last_seen = datetime.now(UTC)
        if changed:
            self._emit(HostChange(host=self.name, sessions=tuple(changed)))

    async def _look(self, link: Link, *, listing: bool) -> None:
        """One poll: the list (``listing``, whole), then each followed session's new page."""
        changed: set[str] = set()
        if listing:
            await self._list(link, complete=True)
        pages = await asyncio.gather(*(self._page(link, sid) for sid in self._followed()))
        requested: list[PendingInput] = []
        resolved: list[str] = []
        for page in pages:
            changed |= self._absorb(page, requested, resolved)
        self._seen(changed, requested, resolved)

    async def look_once(self, within: float = FANOUT_TIMEOUT_S) -> None:
        """Connect, look once (sessions, pending inputs), and disconnect: ``cctui hosts``."""
        link = self._make_link(self.config)
        try:
            async with asyncio.timeout(within):
                await link.connect()
                self._link = link
                self._up(link)
                await self._list(link, complete=True)
                try:
                    await self._pushed(link, 0.0)
                except RemoteError as exc:
                    if isinstance(exc, HostUnreachable) or exc.code != "unknown_tool":
                        raise
                    await self._look(link, listing=False)
        except ConnectFailed as exc:
            self._down(exc.state, exc.message, exc.suggestion)
        except CctuiError as exc:
            self._down("offline", exc.message, exc.suggestion)
        except TimeoutError:
            self._down("offline", f"{self.name}: no answer in {within:.0f} s", None)
        finally:
            self._link = None
            await link.close()

    async def _page(self, link: Link, session_id: str) -> StatusPage:
        epoch, since = self._seq.get(session_id, ("", 0))
        page = await link.status(session_id, since_seq=since)
        if page.missed or (epoch and page.epoch != epoch):
            # Its cctui restarted or the buffer moved on: read what it still holds, afresh.
            self._events.pop(session_id, None)
            if since:
                page = await link.status(session_id, since_seq=0)
        return page

    def _listed(self, entries: Sequence[CatalogEntry], *, complete: bool = True) -> set[str]:
        """Take a listing: ``complete``, it replaces what was listed (a session gone there
        goes here); else (its newest page) it updates those and keeps the older ones."""
        fresh: dict[str, CatalogEntry] = {}
        for e in entries:
            count = sum(1 for p in self._pending.values() if p.session_id == e.session_id)
            fresh[e.session_id] = e.model_copy(update={"pending_inputs": count})
        changed = {sid for sid, e in fresh.items() if self._entries.get(sid) != e}
        if not complete:
            fresh |= {sid: e for sid, e in self._entries.items() if sid not in fresh}
        changed |= set(self._entries) - set(fresh)
        for sid in set(self._entries) - set(fresh):
            self._seq.pop(sid, None)
            self._events.pop(sid, None)
        self._entries = fresh
        return changed

    def _absorb(
        self, page: StatusPage, requested: list[PendingInput], resolved: list[str]
    ) -> set[str]:
        sid = page.session_id
        changed: set[str] = set()
        if page.events:
            kept = self._events.setdefault(sid, deque(maxlen=EVENTS_KEPT))
            kept.extend(page.events)
            changed.add(sid)
        self._seq[sid] = (page.epoch, page.next_seq)
        now = {p.id: p for p in page.pending}
        before = {k for k, p in self._pending.items() if p.session_id == sid}
        for input_id in before - set(now):
            del self._pending[input_id]
            resolved.append(input_id)
        for input_id, p in now.items():
            if input_id not in self._pending:
                requested.append(p)
            self._pending[input_id] = p
        entry = self._entries.get(sid)
        if entry is not None:
            status = SessionStatus(page.state) if page.state else entry.status
            updated = entry.model_copy(update={"status": status, "pending_inputs": len(now)})
            if updated != entry:
                self._entries[sid] = updated
                changed.add(sid)
        if before != set(now):
            changed.add(sid)
        return changed

    # -- acting there ------------------------------------------------------------------------

    def _needed(self) -> Link:
        link = self._link
        if link is None or not self.online:
            raise HostUnreachable(
                self.name,
                f"{self.name} is {self.state}" + (f" ({self.problem})" if self.problem else ""),
                suggestion="it reconnects on its own; try again once it is online",
            )
        return link

    async def respond(self, session_id: str, input_id: str, decision: Decision) -> Answered:
        """Answer one of its pending inputs, by id.

        Raises:
            NotDelivered: the link is down (nothing was sent), or dropped before the host
                confirmed (it is sent again, same id, when the link is back; the notes of a
                ``HostChange`` say what became of it).
            RemoteError: the host refused it (answered elsewhere first, no longer waiting).
        """
        try:
            link = self._needed()
        except HostUnreachable as exc:
            raise NotDelivered(
                self.name,
                f"answer not delivered: {exc.message.removeprefix(self.name + ': ')}",
                suggestion="answer again once it is back; until its timeout denies it, the "
                "request still waits there",
            ) from None
        try:
            answered = await link.respond(session_id, input_id, decision)
        except HostUnreachable:
            self._in_doubt[input_id] = (session_id, decision)
            raise NotDelivered(
                self.name,
                "answer not confirmed: the link dropped while it was on its way",
                suggestion="it is sent again with the same id once the host is back: "
                "applied there once, or reported as answered by someone else",
            ) from None
        self._forget_input(input_id)
        return answered

    def _forget_input(self, input_id: str) -> None:
        item = self._pending.pop(input_id, None)
        if item is not None:
            self._emit(
                HostChange(host=self.name, resolved=(input_id,), sessions=(item.session_id,))
            )
        self.poke()

    async def _resend(self, link: Link) -> None:
        notes: list[str] = []
        settled: list[str] = []
        for input_id, (session_id, decision) in list(self._in_doubt.items()):
            try:
                await link.respond(session_id, input_id, decision)
                notes.append(f"{self.name}: your answer to {input_id} was delivered once back")
            except RemoteError as exc:
                if isinstance(exc, HostUnreachable):
                    raise
                mine = (f"by {self._me}", f"by tui:{self._me.removeprefix('mcp:')}")
                if exc.code == "input_already_answered" and any(m in exc.message for m in mine):
                    notes.append(f"{self.name}: your answer to {input_id} had arrived")
                else:
                    notes.append(f"{self.name}: your answer to {input_id} was not delivered: "
                                 f"{exc.message.removeprefix(self.name + ': ')}")  # fmt: skip
            del self._in_doubt[input_id]
            self._pending.pop(input_id, None)  # answered, by this or someone; or gone
            settled.append(input_id)
        if notes:
            self._emit(HostChange(host=self.name, notes=tuple(notes), resolved=tuple(settled)))

    async def call(
        self, tool: str, arguments: Mapping[str, Any], *, within: float = REACH_WAIT_S
    ) -> dict[str, Any]:
        """Call one of cctui's tools there, as it is: an MCP client of this cctui named this
        host (``host`` on ``claude_create_session`` ...). A host not followed yet is
        connected to first, waited for ``within`` at most.

        Raises:
            HostUnreachable: it is not online (why: its state and problem).
            RemoteError: its cctui refused the call (its own code and message).
        """
        self.start()
        if self.state == "connecting":
            reached = asyncio.Event()
            stop = self.subscribe(lambda _change: reached.set())
            try:
                async with asyncio.timeout(within):
                    while self.state == "connecting":
                        reached.clear()
                        await reached.wait()
            except TimeoutError:
                pass
            finally:
                stop()
        answer = tool == "claude_respond"
        try:
            link = self._needed()
        except HostUnreachable as exc:
            if not answer:
                raise
            raise NotDelivered(
                self.name,
                f"answer not delivered: {exc.message.removeprefix(self.name + ': ')}",
                suggestion="answer again once it is back; until its timeout denies it, the "
                "request still waits there",
            ) from None
        try:
            out = await link.call(tool, **arguments)
        except HostUnreachable:
            if not answer:
                raise
            raise NotDelivered(
                self.name,
                "answer not confirmed: the link dropped while it was on its way",
                suggestion="claude_get_status with this host once it is back says whether it "
                "was applied; answering again is safe: an input takes one answer, a second is "
                "refused, never applied twice",
            ) from None
        if tool in ACTING_TOOLS:
            self.poke()
        return out

    async def create(
        self,
        prompt: str | None,
        *,
        cwd: str | None = None,
        model: str | None = None,
        permission_mode: str | None = None,
        title: str | None = None,
    ) -> str:
        """Start a session there; its id (listed here at the next look, which comes now)."""
        sid = await self._needed().create(
            prompt, cwd=cwd, model=model, permission_mode=permission_mode, title=title
        )
        self.poke()
        return sid

    async def send(self, session_id: str, text: str) -> None:
        await self._needed().send(session_id, text)
        self.poke()

    async def interrupt(self, session_id: str) -> None:
        await self._needed().interrupt(session_id)
        self.poke()

    async def kill(self, session_id: str) -> None:
        await self._needed().kill(session_id)
        self.poke()

    async def core_call(self, method: str, **arguments: Any) -> Any:
        """One ``CoreApi`` call (a session's diff, finish, fork, rewind, mode, model) run on
        the host's core, as that machine's human: its ``cctui_window_call``, which the
        bridge there (``bridge --window``, the default command) vouches for with its own
        window key. The arguments and result are typed by the Protocol (``core.calls``).

        Raises:
            HostUnreachable: the link is down.
            RemoteError: the host refused it; ``not_on_host`` when it cannot run such calls
                (a cctui older than this one, or a command without ``--window``).
        """
        link = self._needed()
        try:
            out = await link.call(
                CALL_TOOL,
                windowKey="",  # the bridge there puts in its machine's key
                via=self._me.removeprefix("mcp:"),  # by tui:cctui@HERE in its audit log
                method=method,
                arguments=encode_call(method, arguments),
            )
        except HostUnreachable:
            raise
        except RemoteError as exc:
            if exc.code == "unknown_tool" or "window key" in exc.message:
                old = exc.code == "unknown_tool"
                raise RemoteError(
                    self.name,
                    (
                        f"its cctui ({link.version}) is older than this one and cannot "
                        "do this for a window on another machine"
                        if old
                        else "its cctui did not take this window as its human (the host's "
                        "command lacks --window), so it keeps this to its own window"
                    ),
                    code="not_on_host",
                    suggestion=(
                        f"upgrade cctui on {self.name}"
                        if old
                        else "end the host's command with `cctui bridge --start --window` "
                        "(the default command does)"
                    ),
                ) from None
            raise
        self.poke()
        return decode_result(method, out.get("result"))

    async def transcript(
        self, session_id: str, *, offset: int = 0, limit: int = 50
    ) -> TranscriptPage:
        """A page of a session's past conversation there, read from its transcript."""
        return await self._needed().transcript(session_id, offset=offset, limit=limit)

    async def search(self, query: str, *, limit: int = 20) -> list[SearchHit]:
        link = self._needed()
        if "claude_search_transcripts" not in link.tools:
            raise RemoteError(self.name, "its cctui does not serve transcript search")
        return await link.search(query, limit=limit)

    async def usage(self, period: str = "daily", *, since: str | None = None) -> UsageReport:
        link = self._needed()
        if "claude_usage" not in link.tools:
            raise RemoteError(self.name, "its cctui does not serve usage reports")
        return await link.usage(period, since=since)


T = TypeVar("T")


class Hosts:
    """Every configured host, in the config's order."""

    def __init__(self, configs: Iterable[HostConfig], make_link: MakeLink, *, me: str) -> None:
        self._hosts = {
            c.name: Host(c, make_link, me=me, rank=i) for i, c in enumerate(configs, start=1)
        }

    def __iter__(self) -> Iterator[Host]:
        return iter(self._hosts.values())

    def __len__(self) -> int:
        return len(self._hosts)

    def __bool__(self) -> bool:
        return bool(self._hosts)

    @property
    def names(self) -> list[str]:
        return list(self._hosts)

    def get(self, name: str) -> Host:
        host = self._hosts.get(name)
        if host is None:
            raise CctuiError(
                f"no host named {name!r}",
                suggestion="hosts are [[hosts]] entries in the config: "
                + (", ".join(self._hosts) or "none configured"),
            )
        return host

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """``listener`` hears every host's changes (on the loop, from the host's task)."""
        stops = [h.subscribe(listener) for h in self._hosts.values()]

        def unsubscribe() -> None:
            for stop in stops:
                stop()

        return unsubscribe

    def start(self) -> None:
        for host in self._hosts.values():
            host.start()

    async def stop(self) -> None:
        await asyncio.gather(*(h.stop() for h in self._hosts.values()))

    async def look_once(self, within: float = FANOUT_TIMEOUT_S) -> None:
        """Every host looked at once, at the same time (``cctui hosts``)."""
        await asyncio.gather(*(h.look_once(within) for h in self._hosts.values()))

    def statuses(self) -> list[HostStatus]:
        return [h.status() for h in self._hosts.values()]

    def pending(self) -> list[tuple[Host, PendingInput]]:
        """Every host's open pending inputs, as last seen."""
        return [(h, p) for h in self._hosts.values() for p in h.pending()]

    async def fan_out(
        self, ask: Callable[[Host], Awaitable[T]]
    ) -> AsyncIterator[tuple[Host, T | CctuiError]]:
        """Ask every host at once; each answer as it arrives (a slow host holds up none of
        the others; one that takes longer than ``FANOUT_TIMEOUT_S`` is given up on)."""

        async def one(host: Host) -> tuple[Host, T | CctuiError]:
            try:
                result = await asyncio.wait_for(ask(host), FANOUT_TIMEOUT_S)
            except TimeoutError:
                return host, RemoteError(host.name, f"no answer in {FANOUT_TIMEOUT_S:.0f} s")
            except CctuiError as exc:
                return host, exc
            return host, result

        tasks = [asyncio.ensure_future(one(h)) for h in self._hosts.values()]
        try:
            for next_done in asyncio.as_completed(tasks):
                yield await next_done
        finally:
            for task in tasks:
                task.cancel()
