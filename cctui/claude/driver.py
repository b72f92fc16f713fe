"""The driver contract: one running ``claude`` process, seen as frames and permission asks."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from cctui.claude.frames import (
    Frame,
    LaunchSpec,
    ModelOption,
    PermissionHandler,
    PermissionModeName,
    RewindAnswer,
    ToolGuard,
)


class Driver(Protocol):
    """One CLI process. ``connect`` and ``close`` must run in the same task (the SDK's rule)."""

    async def connect(self) -> None:
        """Start the process; raises ``CliNotFound`` if the binary is missing or broken."""

    async def send(self, text: str, prompt_id: str | None = None) -> None:
        """Queue a user message; the CLI runs queued messages as separate turns.

        ``prompt_id`` (a fresh UUID) becomes the message's uuid: the CLI keeps it, and it
        names the prompt's file checkpoint.
        """

    async def interrupt(self) -> None:
        """Stop the current turn with the control request; the process lives on."""

    async def set_permission_mode(self, mode: PermissionModeName) -> None:
        """The control request ``set_permission_mode`` (also mid-turn).

        Raises:
            SettingRefused: the CLI refused it (its own words).
        """

    async def set_model(self, model: str | None) -> None:
        """The control request ``set_model``; None goes back to the default model. The next
        API request uses it, also mid-turn.

        Raises:
            SettingRefused: the CLI refused it (its own words).
        """

    @property
    def models(self) -> tuple[ModelOption, ...]:
        """The models the CLI offers (known once connected; empty before)."""
        ...

    async def rewind_files(self, prompt_id: str, *, dry_run: bool) -> RewindAnswer:
        """Put the files back as they were just before the prompt ``prompt_id`` (needs
        ``LaunchSpec.file_checkpointing``); a dry run only says what would change. A refusal
        is an answer with ``can_rewind`` false and the CLI's reason, not an exception."""
        ...

    def frames(self) -> AsyncIterator[Frame]:
        """Every frame until the process ends; the last one is ``ProcessExited``."""
        ...

    async def close(self, grace_s: float = 2.0) -> None:
        """End the process: terminate, then kill after ``grace_s``. Idempotent."""

    @property
    def pid(self) -> int | None:
        """The CLI's pid once known."""
        ...


class DriverFactory(Protocol):
    """Builds a driver; the core gets one injected (real in the app, fake in unit tests).
    ``on_permission`` answers the CLI's asks; ``on_tool`` checks every tool call before it
    runs, in every permission mode (None: no check)."""

    def __call__(
        self,
        spec: LaunchSpec,
        on_permission: PermissionHandler,
        on_tool: ToolGuard | None = None,
    ) -> Driver: ...


def ClaudeDriver(  # noqa: N802
    spec: LaunchSpec, on_permission: PermissionHandler, on_tool: ToolGuard | None = None
) -> Driver:
    """The real driver over claude-agent-sdk (implemented in ``cctui.claude.sdk_driver``)."""
    from cctui.claude.sdk_driver import SdkDriver

    return SdkDriver(spec, on_permission, on_tool)
