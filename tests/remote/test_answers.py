"""An answer lost in flight is sent again, with its id, when the link is back: applied once,
or reported as answered by someone else. A scripted link plays the host (the host's
first-answer-wins registry is the real one's rule, tested in tests/core)."""

from __future__ import annotations

from typing import Any

import pytest

from cctui.config import HostConfig
from cctui.core import Decision, PendingInput
from cctui.core.catalog import CatalogEntry
from cctui.remote import hosts as hosts_module
from cctui.remote.hosts import Host
from cctui.remote.models import Answered, HostUnreachable, NotDelivered, RemoteError, StatusPage
from tests.remote.conftest import Heard

ME = "mcp:cctui@here"


class Registry:
    """The host's side: open inputs, answered once, the first answer wins."""

    def __init__(self) -> None:
        self.open = {"in_1": PendingInput(id="in_1", session_id="s1", kind="permission",
                                          tool_name="Write", tool_input={})}  # fmt: skip
        self.answered: dict[str, str] = {}
        self.applied: list[tuple[str, str]] = []

    def respond(self, input_id: str, by: str) -> Answered:
        if input_id in self.answered:
            first = self.answered[input_id]
            message = f"Input {input_id} was already answered (allow) by {first}."
            raise RemoteError("box", message, code="input_already_answered")
        self.open.pop(input_id)
        self.answered[input_id] = by
        self.applied.append((input_id, by))
        return Answered(input_id=input_id, decided_by=by, state="running")


class ScriptedLink:
    version: str | None = "9"
    tools = frozenset({"claude_respond"})

    def __init__(self, registry: Registry, drop_after_applying: bool) -> None:
        self.registry = registry
        self.drop = drop_after_applying
        self.closed = False

    async def connect(self) -> None: ...

    async def close(self) -> None:
        self.closed = True

    async def list_sessions(self, **_: Any) -> list[CatalogEntry]:
        return [CatalogEntry(session_id="s1", status="waiting_for_input", is_active=True,
                             last_activity="2026-11-28T00:00:00Z")]  # fmt: skip

    async def follow(self, *_: Any, **__: Any) -> list[Any]:
        raise RemoteError("box", "no such tool", code="unknown_tool")  # it polls instead

    async def status(self, session_id: str, **_: Any) -> StatusPage:
        return StatusPage(session_id=session_id, state="waiting_for_input",
                          pending=list(self.registry.open.values()))  # fmt: skip

    async def respond(self, session_id: str, input_id: str, decision: Decision) -> Answered:
        answered = self.registry.respond(input_id, ME)
        if self.drop:  # applied there, but the link broke before the reply came back
            self.closed = True
            raise HostUnreachable("box", "the link dropped during claude_respond")
        return answered


async def test_an_answer_lost_in_flight_is_applied_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hosts_module, "FIRST_RETRY_S", 0.01)
    monkeypatch.setattr(hosts_module, "FOLLOW_EVERY_S", 0.01)
    registry = Registry()
    links: list[ScriptedLink] = []

    def make_link(_config: HostConfig) -> ScriptedLink:
        links.append(ScriptedLink(registry, drop_after_applying=not links))
        return links[-1]

    host = Host(HostConfig(name="box"), make_link, me=ME)  # type: ignore[arg-type]
    heard = Heard()
    host.subscribe(heard)
    host.start()
    try:
        await heard.until(host.pending, within=10)
        with pytest.raises(NotDelivered) as lost:
            await host.respond("s1", "in_1", Decision(behavior="allow"))
        assert "not confirmed" in lost.value.message
        await heard.until(lambda: any(c.notes for c in heard.changes), within=10)
        assert [n for c in heard.changes for n in c.notes] == [
            "box: your answer to in_1 had arrived"
        ]
        assert registry.applied == [("in_1", ME)]  # once, never twice
        assert len(links) == 2 and not host.pending()
    finally:
        await host.stop()


async def test_the_resent_answer_reports_who_was_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hosts_module, "FIRST_RETRY_S", 0.01)
    monkeypatch.setattr(hosts_module, "FOLLOW_EVERY_S", 0.01)
    registry = Registry()
    links: list[ScriptedLink] = []

    class Lost(ScriptedLink):
        async def respond(self, session_id: str, input_id: str, decision: Decision) -> Answered:
            self.closed = True  # never reached the host; meanwhile its own window answers
            registry.open.pop(input_id)
            registry.answered[input_id] = "tui"
            raise HostUnreachable("box", "the link dropped during claude_respond")

    def make_link(_config: HostConfig) -> ScriptedLink:
        links.append((Lost if not links else ScriptedLink)(registry, drop_after_applying=False))
        return links[-1]

    host = Host(HostConfig(name="box"), make_link, me=ME)  # type: ignore[arg-type]
    heard = Heard()
    host.subscribe(heard)
    host.start()
    try:
        await heard.until(host.pending, within=10)
        with pytest.raises(NotDelivered):
            await host.respond("s1", "in_1", Decision(behavior="allow"))
        await heard.until(lambda: any(c.notes for c in heard.changes), within=10)
        [note] = [n for c in heard.changes for n in c.notes]
        assert note.startswith("box: your answer to in_1 was not delivered:")
        assert "by tui" in note and registry.applied == []
    finally:
        await host.stop()
