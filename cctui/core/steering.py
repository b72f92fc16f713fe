"""Steering a session: its permission mode and model, live or for its next start.

A live session changes through the CLI's own control requests (``set_permission_mode``,
``set_model``), also in the middle of a turn. The mode is confirmed by the CLI's status frame
(``ModeChanged``), which the translator applies; the model has no such frame, so the
control response is the confirmation and the next API request the proof. Either way the
session's config keeps the change, so a resume (by a message, the TUI or a restart of cctui)
starts with the mode and model the session had last. An ended session takes the change for
its next start.

What the CLI refuses is passed on in its own words; ``bypassPermissions`` is explained, since
the CLI allows it only for a process launched for it (claude-agent-sdk-python#251).
"""

from __future__ import annotations

import asyncio
from typing import Literal

from pydantic import BaseModel, ConfigDict

from cctui.claude.frames import PERMISSION_MODES, ModelOption, PermissionModeName
from cctui.core.session.events import LiveSetting, SettingChangedEvent
from cctui.core.session.models import SessionInfo
from cctui.core.session.session import Session
from cctui.errors import SettingRefused, ValidationFailed

MODE_CYCLE: tuple[PermissionModeName, ...] = ("default", "acceptEdits", "plan", "auto")
"""What ``shift+tab`` steps through, as in Claude Code's own TUI (``bypassPermissions`` too
for a session launched with it); ``auto`` hands permissions to the CLI's classifier, whose
refusals come to the inbox (docs/auto-mode.md)."""

BYPASS_HELP = (
    "bypassPermissions is possible only for a session started with it (the TUI's "
    "'skip permissions', MCP dangerouslySkipPermissions): claude refuses to switch a session "
    "launched without it (claude-agent-sdk-python#251). Start a new session that way, or "
    "use acceptEdits."
)

CONFIRM_S = 2.0
"""How long a live mode switch waits for the CLI's status frame after its reply."""

FALLBACK_MODELS = (
    ModelOption("default", "Default", "The CLI's default model"),
    ModelOption("opus", "Opus", "Claude Opus, latest"),
    ModelOption("sonnet", "Sonnet", "Claude Sonnet, latest"),
    ModelOption("haiku", "Haiku", "Claude Haiku, latest"),
)
"""Offered before any claude process has said which models it knows."""


class SettingChange(BaseModel):
    """What a change of mode or model did."""

    model_config = ConfigDict(defer_build=True)

    session: SessionInfo
    """The session right after the change."""
    setting: LiveSetting
    value: str | None
    """The new mode, or model (None: the CLI's default)."""
    previous: str | None
    applies: Literal["now", "next_start"]
    """``now``: the live process took it; ``next_start``: none runs, the next resume uses it."""
    note: str
    """One sentence for a person: what happened and when it takes effect."""


def next_mode(current: str, *, bypass_allowed: bool) -> PermissionModeName:
    """The mode after ``current`` in ``MODE_CYCLE`` (a mode outside it goes to ``default``)."""
    cycle = (*MODE_CYCLE, "bypassPermissions") if bypass_allowed else MODE_CYCLE
    if current not in cycle:
        return "default"
    return cycle[(cycle.index(current) + 1) % len(cycle)]


def bypass_allowed(session: Session) -> bool:
    """The session's process is (or will be) launched so that the CLI allows bypass."""
    return session.config.skip_permissions


def check_mode(mode: str) -> PermissionModeName:
    """``mode`` if the CLI knows it.

    Raises:
        ValidationFailed: naming the modes.
    """
    if mode not in PERMISSION_MODES:
        raise ValidationFailed(
            f"{mode!r} is not a permission mode.",
            suggestion="Use one of: " + ", ".join(PERMISSION_MODES) + ".",
        )
    return mode


async def set_permission_mode(session: Session, mode: str) -> SettingChange:
    """Switch the session's permission mode (live: through the CLI; ended: next start).

    Raises:
        ValidationFailed: an unknown mode. SettingRefused: the CLI (or, for an ended
            session, cctui on its behalf) refused it; the message says why.
    """
    wanted = check_mode(mode)
    state = session.state
    previous = state.permission_mode
    if session.process.alive:
        confirmed = state.expect_mode(wanted)
        try:
            await session.process.set_permission_mode(wanted)
            # The CLI confirms with a status frame (the translator applies it). Waiting for
            # it keeps quick switches in order: a late frame cannot undo a later switch.
            await asyncio.wait_for(confirmed, CONFIRM_S)
        except SettingRefused as exc:
            raise SettingRefused(
                exc.message,
                suggestion=BYPASS_HELP if wanted == "bypassPermissions" else exc.suggestion,
            ) from None
        except TimeoutError:
            state.change_mode(wanted)  # no frame (yet): the CLI's reply stands in
        finally:
            confirmed.cancel()
        note = f"Permission mode is now {wanted} (claude confirmed it)."
        applies: Literal["now", "next_start"] = "now"
    else:
        if wanted == "bypassPermissions" and not bypass_allowed(session):
            raise SettingRefused(
                "claude would refuse bypassPermissions for this session.", suggestion=BYPASS_HELP
            )
        state.change_mode(wanted, applies="next_start")
        note = f"No claude process runs; the session resumes in {wanted}."
        applies = "next_start"
    return SettingChange(
        session=session.info(),
        setting="permission_mode",
        value=wanted,
        previous=previous,
        applies=applies,
        note=note,
    )


async def set_model(session: Session, model: str | None) -> SettingChange:
    """Switch the session's model (None or ``default``: the CLI's default).

    Raises:
        SettingRefused: the CLI refused the name (it checks it with the API).
    """
    name = (model or "").strip() or None
    if name == "default":
        name = None
    previous = session.config.model
    if session.process.alive:
        await session.process.set_model(name)
        applies: Literal["now", "next_start"] = "now"
        note = f"Model is now {name or 'the default'}; claude uses it from its next request."
    else:
        applies = "next_start"
        note = f"No claude process runs; the session resumes with {name or 'the default model'}."
    session.choose_model(name)
    session.publish(
        SettingChangedEvent(
            session_id=session.id, setting="model", value=name, previous=previous, applies=applies
        )
    )
    session.state.save()
    return SettingChange(
        session=session.info(),
        setting="model",
        value=name,
        previous=previous,
        applies=applies,
        note=note,
    )
