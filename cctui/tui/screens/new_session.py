"""The new-session form: prompt, directory, model, permission mode."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, get_args

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from cctui.claude.frames import PermissionModeName
from cctui.core import SessionConfig

MODELS = ("sonnet", "opus", "haiku")
"""Aliases the CLI resolves to the current model of each family."""

_MODE_HELP = {
    "default": "ask before edits and commands",
    "acceptEdits": "edit files freely, ask for commands",
    "plan": "plan first, ask to approve the plan",
    "bypassPermissions": "never ask (dangerous)",
    "dontAsk": "deny anything not pre-approved",
    "auto": "let the CLI decide",
}


@dataclass(frozen=True)
class NewSessionRequest:
    """What the form produced: the first prompt and how to start the session."""

    prompt: str
    config: SessionConfig


class NewSessionScreen(ModalScreen[NewSessionRequest | None]):
    """Collects a prompt and settings; ``enter`` in the prompt or ``ctrl+s`` starts."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "submit", "Start", priority=True),
    ]

    def __init__(self, *, cwd: Path, permission_mode: str = "default") -> None:
        super().__init__()
        self._cwd = cwd
        self._mode = permission_mode

    def compose(self) -> ComposeResult:
        modes: tuple[str, ...] = get_args(PermissionModeName)
        with Vertical(id="dialog"):
            yield Static(Content.styled("New session", "bold"), id="title")
            yield Label("Prompt")
            yield Input(placeholder="What should Claude do?", id="prompt")
            yield Label("Directory")
            yield Input(str(self._cwd), id="cwd")
            with Horizontal(id="selects"):
                with Vertical():
                    yield Label("Model")
                    yield Select(
                        [(m, m) for m in MODELS], prompt="CLI default", allow_blank=True, id="model"
                    )
                with Vertical():
                    yield Label("Permission mode")
                    yield Select(
                        [(f"{m}  ({_MODE_HELP.get(m, '')})", m) for m in modes],
                        value=self._mode if self._mode in modes else "default",
                        allow_blank=False,
                        id="mode",
                    )
            yield Static("", id="error")
            with Horizontal(id="buttons"):
                yield Button("Start", variant="primary", id="start")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#prompt", Input).focus()

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted)
    @on(Button.Pressed, "#start")
    def action_submit(self) -> None:
        prompt = self.query_one("#prompt", Input).value.strip()
        raw_cwd = self.query_one("#cwd", Input).value.strip() or str(self._cwd)
        cwd = Path(raw_cwd).expanduser()
        error = self.query_one("#error", Static)
        if not prompt:
            error.update(Content.styled("Write a prompt first.", "$text-error"))
            self.query_one("#prompt", Input).focus()
            return
        if not cwd.is_dir():
            error.update(Content.styled(f"No such directory: {cwd}", "$text-error"))
            self.query_one("#cwd", Input).focus()
            return
        model = self.query_one("#model", Select).value
        mode = self.query_one("#mode", Select).value
        config = SessionConfig(
            cwd=cwd.resolve(),
            model=model if isinstance(model, str) else None,
            permission_mode=mode if isinstance(mode, str) else "default",
        )
        self.dismiss(NewSessionRequest(prompt, config))
