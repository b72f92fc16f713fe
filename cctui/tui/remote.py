"""Other machines' sessions as the TUI sees them: rows, pending inputs and events, by key.

A remote session is known here by a key, ``HOST/SESSION-ID`` (a host name has no ``/``, a
session id is a UUID), so it never meets a local session of the same id; its pending inputs
are the host's records with the session id replaced by that key, so the inbox, the modal and
``describe_session`` take them as they take local ones. Answers go back to the host with the
input's id (``Host.respond``). Everything here reads what the hosts last saw: nothing waits
on a host.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime

from cctui.core import Decision, PendingInput, SessionEvent
from cctui.core.catalog import CatalogEntry
from cctui.core.session.buffer import Page
from cctui.errors import CctuiError
from cctui.history.models import SearchHit, TranscriptPage, UsageReport
from cctui.remote.hosts import Host, Hosts
from cctui.remote.models import Answered, HostStatus
from cctui.tui import format as fmt
from cctui.tui.rows import SessionRow

HUMAN_ROUTES = frozenset({"human", "nobody"})
"""A host's input routed to these waits for a person: it pops here (first answer wins, the
host's own window may pop it too). ``client``: an MCP client there is asked first."""


def host_line(status: HostStatus) -> str:
    """A host in the status bar: ``⇄ devbox`` online, ``⊘ gpu offline 2m`` (since last seen)."""
    if status.state == "online":
        return f"⇄ {status.name}"
    if status.state == "connecting":
        return f"⇄ {status.name}…"
    seen = f" {fmt.age(status.last_seen)}" if status.last_seen else ""
    return f"⊘ {status.name} {status.state}{seen}"


def key_of(host: str, session_id: str) -> str:
    """The list's key for a host's session."""
    return f"{host}/{session_id}"


class RemoteView:
    """Every host's sessions, inputs and events, keyed for the TUI."""

    def __init__(self, hosts: Hosts | None) -> None:
        self.hosts = hosts
        self._where: dict[str, tuple[Host, str]] = {}
        """Key -> (host, session id on it), for every remote row ever listed."""
        self._inputs: dict[str, tuple[Host, str]] = {}
        """Input id -> (host, key) of every remote pending input seen."""

    def __bool__(self) -> bool:
        return bool(self.hosts)

    @property
    def names(self) -> list[str]:
        return self.hosts.names if self.hosts else []

    def all(self) -> list[Host]:
        return list(self.hosts) if self.hosts else []

    def host(self, name: str) -> Host | None:
        return next((h for h in self.all() if h.name == name), None)

    def locate(self, key: str) -> tuple[Host, str] | None:
        """(host, session id there) of a remote row's key; None for a local session."""
        return self._where.get(key)

    def rows(self, host: Host | None = None) -> list[SessionRow]:
        """The rows of ``host`` (default: every host), as last seen."""
        rows: list[SessionRow] = []
        for h in [host] if host is not None else self.all():
            waiting = h.waiting_since()
            offline = h.last_seen if not h.online else None
            for entry in h.sessions():
                rows.append(self._row(h, entry, waiting.get(entry.session_id), offline))
        return rows

    def _row(
        self,
        host: Host,
        entry: CatalogEntry,
        waiting: datetime | None,
        offline: datetime | None,
    ) -> SessionRow:
        key = key_of(host.name, entry.session_id)
        self._where[key] = (host, entry.session_id)
        row = SessionRow.from_entry(entry, waiting_since=waiting)
        return row.on_host(key, host.name, host.rank, offline_since=offline)

    def keys_of(self, host: Host) -> set[str]:
        """Every key of ``host`` listed so far."""
        return {k for k, (h, _) in self._where.items() if h is host}

    def pending(self) -> list[PendingInput]:
        """Every host's open inputs, keyed, routed to the human here when a person is asked."""
        out: list[PendingInput] = []
        for host in self.all():
            for item in host.pending():
                out.append(self.keyed(host, item))
        return out

    def keyed(self, host: Host, item: PendingInput) -> PendingInput:
        """A host's input as the TUI takes it (its session's key; its route here)."""
        key = key_of(host.name, item.session_id)
        self._where.setdefault(key, (host, item.session_id))
        self._inputs[item.id] = (host, key)
        route = "human" if item.route in HUMAN_ROUTES else item.route
        return item.model_copy(update={"session_id": key, "route": route})

    def owns_input(self, input_id: str) -> bool:
        return input_id in self._inputs

    def input_key(self, input_id: str) -> str | None:
        found = self._inputs.get(input_id)
        return found[1] if found is not None else None

    async def respond(self, input_id: str, decision: Decision) -> Answered:
        """Send the answer to the input's host (see ``Host.respond``)."""
        host, key = self._inputs[input_id]
        _, session_id = self._where[key]
        return await host.respond(session_id, input_id, decision)

    def decided_by(self, host: Host, session_id: str, input_id: str) -> str:
        """Who answered ``input_id`` there, from its followed events (else ``NAME``)."""
        for event in reversed(host.events(session_id)):
            if event.kind == "input_resolved" and event.input_id == input_id:
                return f"{event.decided_by} on {host.name}"
        return host.name

    def events(self, key: str, since: int = 0, limit: int | None = None) -> Page[SessionEvent]:
        """The remote session's followed events after ``since`` (as ``manager.events``)."""
        found = self._where.get(key)
        events = found[0].events(found[1]) if found is not None else []
        after = [e for e in events if e.seq > since]
        if limit is not None:
            after = after[:limit]
        oldest = events[0].seq if events else 0
        return Page(
            events=after,
            next_seq=after[-1].seq if after else since,
            missed=bool(since and events and oldest > since + 1),
            oldest_seq=oldest,
        )

    async def transcript(self, key: str, offset: int, limit: int) -> TranscriptPage:
        """A page of a remote session's transcript, read there (``claude_get_transcript``).

        Raises:
            CctuiError: not a remote row's key, its host is not online, or it has none.
        """
        found = self._where.get(key)
        if found is None:
            raise CctuiError(f"{key} is not a session of a host")
        return await found[0].transcript(found[1], offset=offset, limit=limit)

    async def search(
        self, query: str, *, limit: int
    ) -> AsyncIterator[tuple[str, list[SearchHit] | CctuiError]]:
        """Every host's hits for ``query``, a host at a time as each answers (keyed)."""
        if not self.hosts:
            return
        async for host, answer in self.hosts.fan_out(lambda h: h.search(query, limit=limit)):
            if isinstance(answer, CctuiError):
                yield host.name, answer
                continue
            hits = []
            for hit in answer:
                key = key_of(host.name, hit.session_id)
                self._where.setdefault(key, (host, hit.session_id))
                hits.append(hit.model_copy(update={"session_id": key}))
            yield host.name, hits

    async def usage(
        self, period: str = "model"
    ) -> AsyncIterator[tuple[str, UsageReport | CctuiError]]:
        """Every host's usage report, a host at a time as each answers."""
        if not self.hosts:
            return
        async for host, answer in self.hosts.fan_out(lambda h: h.usage(period)):
            yield host.name, answer
