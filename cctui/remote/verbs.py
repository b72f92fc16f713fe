"""``SessionVerbs`` run on another cctui's core: one call each, by name (``core.calls``).

A window attached to this machine's owner and a host's link both reach a core they do not
hold through its internal ``cctui_window_call`` tool: the method's name and its arguments
typed by the ``CoreApi`` Protocol itself, the owner's ``SessionManager`` running it. This
class turns each verb into that one call; a subclass says how a call goes
(:meth:`VerbCalls._call`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from cctui.claude.frames import ModelOption
from cctui.core import SessionInfo, steering
from cctui.core.diffs import SessionDiff
from cctui.core.rewind import RewindResult
from cctui.core.worktrees import Action, FinishPreview, FinishResult, WorktreeRequest


class VerbCalls:
    """The session verbs of ``CoreApi`` (``SessionVerbs``) as calls of another core."""

    async def _call(self, method: str, **arguments: Any) -> Any:
        """Run ``method`` on the other core; its decoded result."""
        raise NotImplementedError

    async def fork(
        self, session_id: str, prompt: str | None = None, *, worktree: WorktreeRequest = None
    ) -> SessionInfo:
        info: SessionInfo = await self._call(
            "fork", session_id=session_id, prompt=prompt, worktree=worktree
        )
        return info

    async def cycle_permission_mode(self, session_id: str) -> steering.SettingChange:
        change: steering.SettingChange = await self._call(
            "cycle_permission_mode", session_id=session_id
        )
        return change

    async def set_model(self, session_id: str, model: str | None) -> steering.SettingChange:
        change: steering.SettingChange = await self._call(
            "set_model", session_id=session_id, model=model
        )
        return change

    async def model_options(self, session_id: str | None = None) -> tuple[ModelOption, ...]:
        return tuple(await self._call("model_options", session_id=session_id))

    async def rewind_files(
        self,
        session_id: str,
        *,
        prompt_id: str | None = None,
        prompt_index: int | None = None,
        dry_run: bool = False,
        by: str,
    ) -> RewindResult:
        result: RewindResult = await self._call(
            "rewind_files",
            session_id=session_id,
            prompt_id=prompt_id,
            prompt_index=prompt_index,
            dry_run=dry_run,
            by=by,
        )
        return result

    async def diff(
        self,
        session_id: str,
        *,
        path: str | None = None,
        patch: bool = True,
        max_bytes: int | None = None,
    ) -> SessionDiff:
        found: SessionDiff = await self._call(
            "diff", session_id=session_id, path=path, patch=patch, max_bytes=max_bytes
        )
        return found

    async def finish_preview(self, session_id: str) -> FinishPreview:
        preview: FinishPreview = await self._call("finish_preview", session_id=session_id)
        return preview

    async def finish_worktree(
        self, session_id: str, action: Action, *, force: bool = False
    ) -> FinishResult:
        done: FinishResult = await self._call(
            "finish_worktree", session_id=session_id, action=action, force=force
        )
        return done


class HostVerbs(VerbCalls):
    """A host's session verbs: each one ``Host.core_call`` on that host's core."""

    def __init__(self, call: Callable[..., Awaitable[Any]]) -> None:
        self._run = call

    async def _call(self, method: str, **arguments: Any) -> Any:
        return await self._run(method, **arguments)
