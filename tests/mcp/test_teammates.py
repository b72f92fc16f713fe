"""Seed 004's teammate verbs: a message to one session of a team by its teammate name, and
the shutdown handshake (asked, answered in the teammate's reply, its process ended only on
approve), through an in-memory MCP client over a FakeDriver-backed manager."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from cctui.core import SessionManager
from cctui.mcp_server.server import CctuiMCPServer
from tests.fakes.fake_driver import FakeDriverFactory, fail, fake_driver_factory, sleep, text
from tests.mcp.conftest import call, client, error_body


@pytest.fixture
def factory() -> FakeDriverFactory:
    return fake_driver_factory(
        {
            "wrap-up-now": [text("Saved my notes.\nSHUTDOWN: approve")],
            "tests-are-green": [text("SHUTDOWN: reject - the suite is still running")],
            "say-nothing": [text("Working on it.")],
            "take-your-time": [sleep(5), text("SHUTDOWN: approve")],
            "break-it": [fail()],
            "*": [],
        }
    )


async def _team(c: Any) -> dict[str, str]:
    ids = {}
    for name in ("alice", "bob"):
        made = await call(c, "claude_create_session", prompt=f"hi {name}", team="red",
                          teammate=name)  # fmt: skip
        ids[name] = made["sessionId"]
        await call(c, "claude_wait", sessionId=made["sessionId"], timeoutMs=10_000)
    return ids


async def test_a_message_reaches_the_teammate_by_name_only(
    server: CctuiMCPServer, manager: SessionManager, factory: FakeDriverFactory
) -> None:
    async with client(server) as c:
        ids = await _team(c)
        sent = await call(
            c, "claude_send_to_teammate", team="RED", teammate="Bob", message="hello bob"
        )
        assert sent["delivered"] is True and sent["sessionId"] == ids["bob"]
        missing = error_body(
            await c.call_tool(
                "claude_send_to_teammate", {"team": "red", "teammate": "zed", "message": "x"}
            )
        )
        assert missing["code"] == "teammate_not_found" and "alice, bob" in missing["message"]
    bob = next(d for d in factory.drivers if "hi bob" in d.sent[0])
    alice = next(d for d in factory.drivers if "hi alice" in d.sent[0])
    assert "hello bob" in bob.sent and "hello bob" not in alice.sent


@pytest.mark.parametrize(
    ("reason", "outcome", "why", "alive"),
    [
        ("wrap-up-now", "approved", None, False),
        ("tests-are-green", "rejected", "the suite is still running", True),
        ("say-nothing", "no_answer", "its reply had no SHUTDOWN: line", True),
    ],
)
async def test_the_shutdown_handshake(
    server: CctuiMCPServer,
    manager: SessionManager,
    factory: FakeDriverFactory,
    reason: str,
    outcome: str,
    why: str | None,
    alive: bool,
) -> None:
    async with client(server) as c:
        ids = await _team(c)
        answer = await call(c, "claude_request_shutdown", team="red", teammate="alice",
                            reason=reason)  # fmt: skip
        assert (answer["outcome"], answer["reason"]) == (outcome, why), answer
        assert answer["sessionId"] == ids["alice"]
        assert manager.get(ids["alice"]).is_active is alive
        assert manager.get(ids["bob"]).is_active  # nobody else is touched
        asked = next(d for d in factory.drivers if "hi alice" in d.sent[0]).sent[-1]
        assert "asks you to shut down: " + reason in asked and "SHUTDOWN: approve" in asked
        if not alive:  # ended, not gone: a later message resumes it
            again = await call(c, "claude_request_shutdown", team="red", teammate="alice")
            assert again["outcome"] == "already_ended"


async def test_a_teammate_that_does_not_answer_in_time_keeps_running(
    server: CctuiMCPServer, manager: SessionManager
) -> None:
    async with client(server) as c:
        ids = await _team(c)
        answer = await call(c, "claude_request_shutdown", team="red", teammate="bob",
                            reason="take-your-time", timeoutMs=1000)  # fmt: skip
    assert answer["outcome"] == "no_answer" and "within 1 s" in answer["reason"]
    assert manager.get(ids["bob"]).is_active


async def test_a_teammate_going_idle_is_told_to_the_client_in_the_seed_words(
    server: CctuiMCPServer, manager: SessionManager
) -> None:
    """Seed 004's ``notifyIdle``: a team member whose turn ended sends a notice naming it,
    its team and why; a session in no team sends none (the seed returns)."""
    told: list[Any] = []
    three = asyncio.Event()

    async def logged(params: Any) -> None:
        told.append(params)
        if len(told) == 3:
            three.set()

    async with client(server, mode="legacy", logging_callback=logged) as c:
        alone = await call(c, "claude_create_session", prompt="hi nobody")
        await call(c, "claude_wait", sessionId=alone["sessionId"], timeoutMs=10_000)
        ids = await _team(c)  # alice and bob, each waited for
        await call(c, "claude_send_message", sessionId=ids["bob"], message="again", wait=True)
        # Each notice is a message of its own, which may come after the wait's answer.
        await asyncio.wait_for(three.wait(), 30)  # the bound only turns a hang into a failure
    notices = [p.data for p in told if p.logger == "teammates"]
    assert [(n["teammate_name"], n["reason"]) for n in notices] == [
        ("alice", "completed"),
        ("bob", "completed"),
        ("bob", "completed"),
    ]
    bob = notices[-1]
    assert set(bob) == {"type", "session_id", "team_name", "teammate_name", "reason", "timestamp"}
    assert bob["type"] == "idle_notification" and bob["team_name"] == "red"
    assert bob["session_id"] == ids["bob"] and bob["timestamp"].endswith("Z")
    assert alone["sessionId"] not in {n["session_id"] for n in notices}


async def test_an_idle_notice_says_how_the_turn_ended(server: CctuiMCPServer) -> None:
    """``reason``: ``interrupted`` for a turn stopped midway, ``failed`` for one that ended
    in an error; the teammate waits for work either way."""
    told: list[dict[str, Any]] = []
    four = asyncio.Event()

    async def logged(params: Any) -> None:
        if params.logger == "teammates":
            told.append(params.data)
            if len(told) == 4:
                four.set()

    async with client(server, mode="legacy", logging_callback=logged) as c:
        ids = await _team(c)  # two notices: alice's and bob's first turns
        await call(c, "claude_send_message", sessionId=ids["alice"], message="take-your-time")
        await call(c, "claude_interrupt", sessionId=ids["alice"])
        await call(c, "claude_send_message", sessionId=ids["bob"], message="break-it", wait=True)
        await asyncio.wait_for(four.wait(), 30)  # the bound only turns a hang into a failure
    later = {(n["teammate_name"], n["reason"]) for n in told[2:]}
    assert later == {("alice", "interrupted"), ("bob", "failed")}, told
