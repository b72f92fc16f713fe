"""The merged session list (cctui's sessions + Claude Code's files) and transcript pages."""

from __future__ import annotations

import contextlib
import logging
from typing import Literal

from pydantic import ValidationError

from cctui.config import Settings
from cctui.core import LIVE, SessionManager, SessionStatus
from cctui.core.catalog import CatalogEntry, CatalogQuery, build_catalog, query_catalog
from cctui.errors import CctuiError, ValidationFailed
from cctui.history import HistoryIndex, aread_transcript
from cctui.mcp_server.schemas.history import (
    SessionListEntry,
    SessionListOut,
    TranscriptMessage,
    TranscriptOut,
)
from cctui.mcp_server.schemas.sessions import seed_status

log = logging.getLogger(__name__)


class HistoryView:
    """Keeps one incremental ``HistoryIndex`` for the server's lifetime.

    Under the TUI the index is the TUI's own (``index``), kept live by its watcher: the list
    tool and the session list read the same index, and this view does not refresh it (a
    refresh here would take the changes the watcher reports to the TUI). ``cctui serve``
    has no watcher: the view owns an index and refreshes it on each call.
    """

    def __init__(
        self, settings: Settings, manager: SessionManager, index: HistoryIndex | None = None
    ) -> None:
        self._settings = settings
        self._manager = manager
        self._index = index
        self._live = index is not None

    async def _index_ready(self) -> HistoryIndex | None:
        if self._live:
            return self._index
        try:
            if self._index is None:
                self._index = HistoryIndex.from_settings(self._settings)
            await self._index.arefresh()
            return self._index
        except Exception:  # an unreadable history must not hide cctui's own sessions
            log.warning("history index unavailable", exc_info=True)
            return None

    async def list(
        self,
        project: str | None,
        status: str | None,
        team: str | None,
        text: str | None,
        limit: int,
        offset: int = 0,
    ) -> SessionListOut:
        """Merged, filtered, newest first: the same catalog the TUI and `cctui sessions` show."""
        index = await self._index_ready()
        own = self._manager.list()
        entries = build_catalog(index if index is not None else [], own)
        try:
            query = CatalogQuery(
                project=project, status=status, team=team, text=text, limit=limit, offset=offset
            )
        except ValidationError as exc:
            raise ValidationFailed(
                str(exc.errors()[0]["msg"]),
                suggestion="status is e.g. running, idle, completed, live or past",
            ) from None
        page = query_catalog(entries, query, index.problems if index is not None else None)
        models = {s.session_id: s.config.model for s in own}
        # Seed 002: isActive means *this server* has a process for it (a session running in
        # someone's terminal is not; sending to it would start a second process).
        mine = {s.session_id for s in own if s.is_active}
        rows = [self._row(e, models.get(e.session_id), e.session_id in mine) for e in page.entries]
        return SessionListOut(
            sessions=rows,
            total=page.total,
            truncated=page.truncated,
            next_offset=offset + len(rows) if page.truncated else None,
            total_count=page.total,
            filtered_count=len(rows),
        )

    @staticmethod
    def _row(e: CatalogEntry, model: str | None, is_active: bool) -> SessionListEntry:
        if e.status == SessionStatus.ERROR:
            status: Literal["active", "inactive", "error"] = "error"
        else:
            status = "active" if e.status in LIVE else "inactive"
        return SessionListEntry(
            session_id=e.session_id,
            project_directory=e.cwd,
            display_text=e.title,
            timestamp=e.last_activity.isoformat(),
            is_active=is_active,
            active_status=seed_status(e.status) if is_active else None,
            status=status,
            state=str(e.status),
            team=e.team,
            cost_usd=e.total_cost_usd,
            cwd=e.cwd,
            created_at=(e.created_at or e.last_activity).isoformat(),
            last_active=e.last_activity.isoformat(),
            pid=e.pid,
            model=model,
            team_name=e.team,
            teammate=e.teammate,
            teammate_name=e.teammate,
        )

    async def transcript(self, session_id: str, offset: int, limit: int) -> TranscriptOut:
        """One page of any session's conversation."""
        cwd = None
        with contextlib.suppress(CctuiError):
            cwd = str(self._manager.get(session_id).config.cwd)
        page = await aread_transcript(
            self._settings.claude_config_dir, session_id, offset=offset, limit=limit, cwd=cwd
        )
        messages = []
        for m in page.messages:
            parts = [m.text] if m.text else []
            parts += [f"[tool {c.name}] {c.input_preview}" for c in m.tool_calls]
            parts += [
                f"[result{' error' if r.is_error else ''}] {r.preview}" for r in m.tool_results
            ]
            messages.append(
                TranscriptMessage(
                    index=m.index,
                    role=m.role,
                    text="\n".join(parts),
                    timestamp=m.timestamp.isoformat() if m.timestamp else None,
                )
            )
        end = page.offset + len(page.messages)
        return TranscriptOut(
            session_id=session_id,
            messages=messages,
            offset=page.offset,
            total=page.total,
            next_offset=end if page.has_more else None,
        )
