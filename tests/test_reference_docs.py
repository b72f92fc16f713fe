"""The reference pages are held to the code they describe: every MCP tool the server lists
has a row in docs/mcp-tools.md, and every key of the TUI's one key table is in docs/tui.md.
A tool or key added without its documentation fails here, not in a newcomer's hands."""

from __future__ import annotations

import re
from pathlib import Path

from cctui.core import SessionManager
from cctui.mcp_server.server import build_server
from cctui.tui.keymap import SECTIONS, Key, display
from tests.fakes.settings import make_settings
from tests.mcp.conftest import client

ROOT = Path(__file__).resolve().parent.parent
_SPAN = re.compile(r"`([^`\n]+)`")


def _spans(page: str) -> set[str]:
    return set(_SPAN.findall((ROOT / "docs" / page).read_text(encoding="utf-8")))


async def test_every_listed_tool_is_in_the_tools_page(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    manager = SessionManager(settings)
    async with client(build_server(manager, settings)) as c:
        listed = {t.name for t in (await c.list_tools()).tools}
    await manager.shutdown()
    documented = _spans("mcp-tools.md")
    assert sorted(listed - documented) == []


def test_every_key_of_the_key_table_is_in_the_tui_page() -> None:
    documented = _spans("tui.md")
    missing = []
    for section in SECTIONS:
        for line in section.lines:
            if not isinstance(line, Key):
                continue
            for key in line.keys.split(","):
                if display(key) not in documented:
                    missing.append(f"{display(key)} ({line.help}, {section.title})")
    assert missing == []
