"""claude_search_transcripts and claude_usage through a real MCP client (in memory)."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from cctui.config import Settings
from cctui.core import SessionManager
from cctui.history import HistoryIndex
from cctui.mcp_server.server import build_server
from cctui.services import Services
from tests.fakes.fake_driver import FakeDriverFactory
from tests.fakes.settings import make_settings
from tests.history import make_lines as mk
from tests.history.conftest import SAMPLES, TRANSCRIPTS, WRITE_ID, add_transcript
from tests.mcp.conftest import call, client, error_body


@pytest.fixture
def settings(tmp_path: Path, project: Path) -> Settings:
    home = tmp_path / "claude"
    for sid in TRANSCRIPTS:
        add_transcript(home, sid)
    shutil.copyfile(SAMPLES / "history.jsonl", home / "history.jsonl")
    return make_settings(tmp_path, default_cwd=project, cache_dir=tmp_path / "cache")


@pytest.fixture
async def manager(settings: Settings, factory: FakeDriverFactory) -> AsyncIterator[SessionManager]:
    m = SessionManager(settings, driver_factory=factory)
    await m.start()
    yield m
    await m.shutdown()


async def test_a_word_in_the_middle_of_a_200_kb_tool_result_is_found(
    manager: SessionManager, settings: Settings
) -> None:
    mk.plant(settings.claude_config_dir)
    async with client(build_server(manager, settings)) as c:
        out = await call(c, "claude_search_transcripts", query=mk.PLANTED)
        assert [h["sessionId"] for h in out["hits"]] == [mk.PLANTED_SID]
        assert f"«{mk.PLANTED}»" in out["hits"][0]["snippet"]


async def test_search_finds_a_session_by_what_was_said(
    manager: SessionManager, settings: Settings
) -> None:
    async with client(build_server(manager, settings)) as c:
        out = await call(c, "claude_search_transcripts", query="hello.txt")
        assert out["total"] == 1 and out["nextCursor"] is None
        hit = out["hits"][0]
        assert hit["sessionId"] == WRITE_ID and hit["project"] == "proj"
        assert hit["role"] == "tool" and "«hello.txt»" in hit["snippet"]
        assert hit["messageUuid"] and hit["timestamp"].startswith("2026-11-22")
        assert hit["score"] > 0

        sentence = await call(
            c, "claude_search_transcripts", query="which session wrote the hello file?"
        )
        assert sentence["loose"] and sentence["hits"][0]["sessionId"] == WRITE_ID

        paged = await call(c, "claude_search_transcripts", query="hello", limit=1)
        assert paged["total"] >= 2 and paged["nextCursor"] == "1"
        page2 = await call(
            c, "claude_search_transcripts", query="hello", limit=1, cursor=paged["nextCursor"]
        )
        assert page2["hits"][0]["sessionId"] != paged["hits"][0]["sessionId"]

        only_users = await call(c, "claude_search_transcripts", query="hello", role="user")
        assert {h["role"] for h in only_users["hits"]} == {"user"}


async def test_bad_queries_are_structured_errors(
    manager: SessionManager, settings: Settings
) -> None:
    async with client(build_server(manager, settings)) as c:
        for args in (
            {"query": "project:proj"},
            {"query": "x", "since": "the other day"},
            {"query": "x", "cursor": "not-a-cursor"},
        ):
            result = await c.call_tool("claude_search_transcripts", args)
            body = error_body(result)
            assert body["code"] in ("bad_query", "validation_error"), body
            assert body["suggestion"]
        for query in ['"', "AND", "NEAR(", "a:b:c", "*"]:
            result = await c.call_tool("claude_search_transcripts", {"query": query})
            assert not result.is_error or error_body(result)["code"] == "bad_query"


async def test_usage_counts_each_reply_once_and_prices_it(
    manager: SessionManager, settings: Settings
) -> None:
    async with client(build_server(manager, settings)) as c:
        daily = await call(c, "claude_usage")
        assert len(daily["lines"]) == 1  # every sample reply is from 2026-11-22 (UTC)
        assert daily["total"]["tokens"]["replies"] == 10
        # genai-prices' rate for claude-opus-5-5 agrees with the CLI's own cost-state totals.
        sessions = await call(c, "claude_usage", period="session")
        by_id = {line["key"]: line for line in sessions["lines"]}
        assert by_id[WRITE_ID]["costUsd"] == pytest.approx(0.057272, abs=1e-6)
        assert by_id[WRITE_ID]["label"] == "PLEASE_WRITE a file"
        split = await call(c, "claude_usage", period="monthly", groupBy="model")
        assert {line["group"] for line in split["lines"]} == {"claude-opus-5-5"}
        assert split["pricing"].startswith("genai-prices")
        result = await c.call_tool("claude_usage", {"period": "session", "groupBy": "model"})
        assert error_body(result)["code"] == "bad_query"


async def test_the_tools_read_the_tuis_index_when_it_has_one(
    manager: SessionManager, settings: Settings
) -> None:
    index = HistoryIndex.from_settings(settings)
    index.refresh()
    services = Services.build(settings, manager, history=index)
    async with client(build_server(manager, settings, services=services)) as c:
        out = await call(c, "claude_search_transcripts", query="PLEASE_WRITE")
        assert [h["sessionId"] for h in out["hits"]] == [WRITE_ID]
        listed = await call(c, "claude_list_sessions")
        costs = {s["sessionId"]: s["costUsd"] for s in listed["sessions"]}
        assert costs[WRITE_ID] == pytest.approx(0.057272, abs=1e-6)
    index.close()
