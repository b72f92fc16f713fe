"""The merged session list (cctui's sessions + Claude Code's files), transcript pages, search
over every transcript and usage reports: all from the one persisted history index."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Literal

import anyio.to_thread
from pydantic import ValidationError

from cctui.config import Settings
from cctui.core import LIVE, SessionManager, SessionStatus
from cctui.core.archive import ARCHIVE_FILE, read_archived
from cctui.core.catalog import CatalogEntry, CatalogQuery, build_catalog, query_catalog
from cctui.errors import CctuiError, ValidationFailed
from cctui.history import HistoryIndex, aread_transcript
from cctui.history.models import UsageRow
from cctui.mcp_server.schemas.history import (
    SearchTranscriptsOut,
    SessionListEntry,
    SessionListOut,
    TranscriptHit,
    TranscriptMessage,
    TranscriptOut,
    UsageLine,
    UsageOut,
    UsageTokens,
)
from cctui.mcp_server.schemas.sessions import seed_status
from cctui.timestamps import iso_z, iso_z_or_none

log = logging.getLogger(__name__)


class HistoryView:
    """Keeps one incremental ``HistoryIndex`` for the server's lifetime.

    Under the TUI the index is the TUI's own (``index``), kept live by its watcher: the list
    tool and the session list read the same index, and this view does not refresh it (a
    refresh here would take the changes the watcher reports to the TUI). ``cctui serve``
    has no watcher: the view owns an index; the first call loads what the index file knows
    and starts bringing it up to date in the background (waiting ``FIRST_BUILD_WAIT`` for it
    at most; answers meanwhile carry the build's progress), later calls refresh it (a stat
    sweep when nothing changed).
    """

    FIRST_BUILD_WAIT = 5.0

    def __init__(
        self, settings: Settings, manager: SessionManager, index: HistoryIndex | None = None
    ) -> None:
        self._settings = settings
        self._manager = manager
        self._index = index
        self._live = index is not None
        self._build: asyncio.Task[None] | None = None

    async def _index_ready(self) -> HistoryIndex | None:
        if self._live:
            return self._index
        try:
            if self._index is None:
                self._index = HistoryIndex.from_settings(self._settings)
            if self._build is None:
                await self._index.aload()
                self._build = asyncio.create_task(self._run_build(self._index))
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(self._build), self.FIRST_BUILD_WAIT)
            elif self._build.done():
                await self._index.arefresh()
            return self._index
        except Exception:  # an unreadable history must not hide cctui's own sessions
            log.warning("history index unavailable", exc_info=True)
            return None

    async def entries(self) -> tuple[list[CatalogEntry], dict[str, str | None]]:
        """Every session, merged and newest first, unfiltered; and each of cctui's own
        sessions' model (seed 004's list_sessions filters and counts these itself)."""
        index = await self._index_ready()
        own = self._manager.list()
        entries = build_catalog(index if index is not None else [], own, self._manager.spare_ids)
        return list(entries), {s.session_id: s.config.model for s in own}

    @staticmethod
    async def _run_build(index: HistoryIndex) -> None:
        try:
            async for _ in index.build_steps():
                pass
        except Exception:
            log.warning("history index build failed", exc_info=True)

    async def _searchable(self) -> HistoryIndex:
        index = await self._index_ready()
        if index is None:
            raise CctuiError(
                "the history index cannot be opened (see cctui's log)",
                suggestion="`cctui index --rebuild` recreates it",
            )
        return index

    async def search(
        self,
        query: str,
        *,
        project: str | None,
        since: str | None,
        until: str | None,
        role: str | None,
        limit: int,
        cursor: str | None,
    ) -> SearchTranscriptsOut:
        """Full-text search over every transcript; one hit per session, best first."""
        index = await self._searchable()
        try:
            offset = int(cursor) if cursor else 0
        except ValueError:
            raise ValidationFailed(
                f"cursor {cursor!r} is not one this tool returned",
                suggestion="pass nextCursor from the previous page, or no cursor",
            ) from None
        result = await anyio.to_thread.run_sync(
            lambda: index.search(
                query, limit=limit, offset=max(0, offset), project=project, since=since,
                until=until, role=role,
            )
        )  # fmt: skip
        hits = [
            TranscriptHit(
                session_id=h.session_id,
                project=h.project_name,
                cwd=h.cwd,
                title=h.title,
                timestamp=iso_z_or_none(h.timestamp),
                role=h.role,
                message_uuid=h.message_uuid,
                snippet=_marked(h.snippet, h.highlights),
                score=h.score,
                matches=h.matches,
                matched_words=h.matched_words,
                clipped=h.clipped,
                sidechain=h.sidechain,
            )
            for h in result.hits
        ]
        return SearchTranscriptsOut(
            hits=hits,
            total=result.total,
            exact=result.exact,
            next_cursor=result.next_cursor,
            loose=result.loose,
            capped=result.capped,
            indexing=index.progress.describe() or None,
        )

    async def usage(
        self,
        period: str,
        *,
        since: str | None,
        until: str | None,
        project: str | None,
        group_by: str | None,
    ) -> UsageOut:
        """Tokens and cost from the index, by period (and group)."""
        index = await self._searchable()
        report = await anyio.to_thread.run_sync(
            lambda: index.usage(
                period, since=since, until=until, project=project, group_by=group_by
            )
        )
        return UsageOut(
            period=report.period,
            group_by=report.group_by,
            lines=[_line(r) for r in report.rows],
            total=_line(report.total),
            pricing=report.pricing,
            indexing=index.progress.describe() or None,
        )

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
        # The TUI's archive (``e``) hides a session here too; ``status:archived`` lists them.
        archived = read_archived(self._settings.state_dir / ARCHIVE_FILE)
        entries = build_catalog(
            index if index is not None else [], own, self._manager.spare_ids, archived
        )
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
        rows = [self.row(e, models.get(e.session_id), e.session_id in mine) for e in page.entries]
        return SessionListOut(
            sessions=rows,
            total=page.total,
            truncated=page.truncated,
            next_offset=offset + len(rows) if page.truncated else None,
            total_count=page.total,
            filtered_count=len(rows),
        )

    @staticmethod
    def row(e: CatalogEntry, model: str | None, is_active: bool) -> SessionListEntry:
        """One session as ``claude_list_sessions`` lists it."""
        if e.status == SessionStatus.ERROR:
            status: Literal["active", "inactive", "error"] = "error"
        else:
            status = "active" if e.status in LIVE else "inactive"
        return SessionListEntry(
            session_id=e.session_id,
            project_directory=e.cwd,
            display_text=e.title,
            timestamp=iso_z(e.last_activity),
            is_active=is_active,
            started_by_cctui=e.started_by_cctui,
            active_status=seed_status(e.status) if is_active else None,
            status=status,
            state=str(e.status),
            team=e.team,
            cost_usd=e.total_cost_usd,
            cwd=e.cwd,
            created_at=iso_z(e.created_at or e.last_activity),
            last_active=iso_z(e.last_activity),
            pid=e.pid,
            model=model,
            model_in_use=e.model,
            permission_mode=e.permission_mode,
            dispatch_note=e.dispatch_note,
            team_name=e.team,
            teammate=e.teammate,
            teammate_name=e.teammate,
            has_past=e.has_past,
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
                    timestamp=iso_z_or_none(m.timestamp),
                    data=m.model_dump(mode="json"),
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


def _marked(text: str, spans: list[tuple[int, int]]) -> str:
    """The snippet with each matched span between « and »."""
    out: list[str] = []
    pos = 0
    for a, b in spans:
        out += [text[pos:a], "«", text[a:b], "»"]
        pos = b
    out.append(text[pos:])
    return "".join(out)


def _line(r: UsageRow) -> UsageLine:
    t = r.tokens
    return UsageLine(
        key=r.key,
        group=r.group,
        label=r.label,
        start=iso_z_or_none(r.start),
        end=iso_z_or_none(r.end),
        active=r.active,
        tokens=UsageTokens(
            input=t.input,
            output=t.output,
            cache_write_5m=t.cache_write_5m,
            cache_write_1h=t.cache_write_1h,
            cache_read=t.cache_read,
            total=t.total,
            replies=t.replies,
        ),
        cost_usd=r.cost_usd,
        unpriced_replies=r.unpriced_replies,
        models=r.models,
        sessions=r.sessions,
    )
