"""What the mode and model tools return (camelCase on the wire)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from cctui.core import LiveSetting
from cctui.core.steering import SettingChange
from cctui.mcp_server.schemas.common import Out
from cctui.mcp_server.schemas.sessions import SessionOut


class ModelOut(Out):
    """A model the CLI offers."""

    value: str
    """What ``claude_set_model`` takes."""
    display_name: str
    description: str = ""


class SettingOut(Out):
    """``claude_set_permission_mode`` / ``claude_set_model``: what changed and when it applies."""

    session_id: str
    setting: LiveSetting
    value: str | None
    """The new mode, or model (null: the CLI's default model)."""
    previous: str | None = None
    applies: Literal["now", "next_start"]
    """``now``: the live claude process took it (a mode is confirmed by claude; a model is
    used from its next API request, also mid-turn); ``next_start``: no process runs, the
    session resumes with it (``claude_send_message``, the TUI, a restart of cctui)."""
    note: str
    """What happened, in one sentence."""
    session: SessionOut
    models: list[ModelOut] = Field(default_factory=list)
    """For ``claude_set_model``: the models claude offers."""

    @classmethod
    def of(cls, change: SettingChange, models: list[ModelOut] | None = None) -> SettingOut:
        """Build from the core's record."""
        return cls(
            session_id=change.session.session_id,
            setting=change.setting,
            value=change.value,
            previous=change.previous,
            applies=change.applies,
            note=change.note,
            session=SessionOut.of(change.session),
            models=models or [],
        )
