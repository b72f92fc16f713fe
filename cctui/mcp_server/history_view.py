"""The merged session list (cctui's sessions + Claude Code's files) and transcript pages."""

from __future__ import annotations

import contextlib
from pathlib import Path

from cctui.config import Settings
from cctui.core import SessionInfo, SessionManager
from cctui.errors import CctuiError
from cctui.history import HistoryIndex, SessionSummary, aread_transcript
from cctui.mcp_server.schemas import (
    SessionListEntry,
    SessionListOut,
    TranscriptMessage,
    TranscriptOut,
)


def _same_dir(a: str | None, b: str) -> bool:
    if not a:
        return False
    with contextlib.suppress(OSError):
        return Path(a).resolve() == Path(b).expanduser().resolve()
    return a == b


class HistoryView:
    """Keeps one incremental ``HistoryIndex`` for the server's lifetime."""

    def __init__(self, settings: Settings, manager: SessionManager) -> None:
        self._settings = settings
        self._manager = manager
        self._index: HistoryIndex | None = None

    async def _disk(self) -> list[SessionSummary]:
        try:
            if self._index is None:
                self._index = HistoryIndex.from_settings(self._settings)
            await self._index.arefresh()
            return self._index.sessions()
        except CctuiError:
            raise
        except Exception:  # an unreadable history must not hide cctui's own sessions
            return []

    async def list(self, project: str | None, status: str | None, team: str | None,
                   text: str | None, limit: int) -> SessionListOut:
        """Merged, filtered, newest first."""
        ours: dict[str, SessionInfo] = {s.session_id: s for s in self._manager.list()}
        rows: dict[str, tuple[float, SessionListEntry, str]] = {}
        for s in await self._disk():
            rows[s.session_id] = (s.last_activity.timestamp(), SessionListEntry(
                session_id=s.session_id, project_directory=s.cwd, display_text=s.title,
                timestamp=s.last_activity.isoformat(), is_active=s.is_running,
                status="running" if s.is_running else "stored", cost_usd=s.total_cost_usd,
            ), f"{s.title or ''} {s.first_prompt or ''}")
        for sid, info in ours.items():
            rows[sid] = (info.last_activity.timestamp(), SessionListEntry(
                session_id=sid, project_directory=str(info.config.cwd),
                display_text=info.title, timestamp=info.last_activity.isoformat(),
                is_active=info.is_active, status=str(info.status), team=info.config.team,
                cost_usd=info.total_cost_usd,
            ), f"{info.title or ''}")
        picked = []
        for _, row, haystack in sorted(rows.values(), key=lambda r: r[0], reverse=True):
            if project and not _same_dir(row.project_directory, project):
                continue
            if status and row.status != status:
                continue
            if team and row.team != team:
                continue
            if text and text.lower() not in haystack.lower():
                continue
            picked.append(row)
        return SessionListOut(sessions=picked[:limit], total=len(picked),
                              truncated=len(picked) > limit)

    async def transcript(self, session_id: str, offset: int, limit: int) -> TranscriptOut:
        """One page of any session's conversation."""
        cwd = None
        with contextlib.suppress(CctuiError):
            cwd = str(self._manager.get(session_id).config.cwd)
        page = await aread_transcript(self._settings.claude_config_dir, session_id,
                                      offset=offset, limit=limit, cwd=cwd)
        messages = []
        for m in page.messages:
            parts = [m.text] if m.text else []
            parts += [f"[tool {c.name}] {c.input_preview}" for c in m.tool_calls]
            parts += [f"[result{' error' if r.is_error else ''}] {r.preview}"
                      for r in m.tool_results]
            messages.append(TranscriptMessage(
                index=m.index, role=m.role, text="\n".join(parts),
                timestamp=m.timestamp.isoformat() if m.timestamp else None))
        end = page.offset + len(page.messages)
        return TranscriptOut(session_id=session_id, messages=messages, offset=page.offset,
                             total=page.total, next_offset=end if page.has_more else None)
