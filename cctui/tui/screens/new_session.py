"""The new-session form: template, prompt, directory, worktree, the sessions it runs after,
model, permission mode."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, get_args

from textual import events, on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from cctui.config import SessionTemplate
from cctui.core import PermissionModeName, SessionConfig
from cctui.fs import git
from cctui.tui.keymap import bindings
from cctui.tui.modal import Modal
from cctui.tui.screens.after_picker import AfterCandidate, AfterChoice, AfterPicker
from cctui.tui.widgets.ticks import TickBox

SPARE_AFTER_S = 0.3
"""How long the form is on screen before it says its session is likely (``Likely``: the app
starts its process then). The CLI's start takes a core for ~0.5 s: begun with the form, it
made the form appear ~80 ms later on a two-core machine, and a form closed at once (a look, a
change of mind) need not cost one. The prompt's first character says it at once (a pasted
prompt may be sent sooner)."""

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
    template: str | None = None
    """The config template chosen; what the form shows (prompt, model, mode) wins over it."""
    worktree: bool | str = False
    """Start in a new git worktree: True (a name from the prompt) or the name typed."""
    host: str | None = None
    """Start it on this ``[[hosts]]`` machine (None: this one); ``config.cwd`` is then a
    path there, ``.`` for its cctui's default directory."""
    after: AfterChoice = field(default_factory=AfterChoice)
    """The sessions it waits for (all must end well) and what of theirs its prompt gets."""


class NewSessionScreen(Modal[NewSessionRequest | None]):
    """Collects a prompt and settings; ``enter`` in the prompt or ``ctrl+s`` starts."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("NewSessionScreen")

    class Likely(Message):
        """The session is likely to be started: the form has been open ``SPARE_AFTER_S`` or
        its prompt is being written (posted once per form)."""

        def __init__(self, form: NewSessionScreen) -> None:
            super().__init__()
            self.form = form
            """The form that will start it."""

    def __init__(
        self,
        *,
        cwd: Path,
        permission_mode: str = "default",
        templates: Mapping[str, SessionTemplate] | None = None,
        hosts: Sequence[str] = (),
        host: str | None = None,
        after_candidates: Sequence[AfterCandidate] = (),
    ) -> None:
        super().__init__()
        self._after_candidates = list(after_candidates)
        """This machine's sessions a new one may run after (``AfterPicker`` lists them)."""
        self._after = AfterChoice()
        self._cwd = cwd
        self._hosts = list(hosts)
        """Other machines a session may start on (the Machine field shows with any)."""
        self._host = host if host in self._hosts else None
        """The machine the form opens on (the selected row's)."""
        modes: tuple[str, ...] = get_args(PermissionModeName)
        self._mode = permission_mode if permission_mode in modes else "default"
        """The mode the form opens with (one it offers)."""
        self._templates = dict(templates or {})
        self._template_prompt = ""
        """The prompt the chosen template filled in (replaced when another is chosen)."""
        self._likely = False
        """``Likely`` was posted."""

    def compose(self) -> ComposeResult:
        modes: tuple[str, ...] = get_args(PermissionModeName)
        models = list(MODELS)
        models += sorted({t.model for t in self._templates.values() if t.model} - set(models))
        with Vertical(id="dialog"):
            yield Static(Content.styled("New session", "bold"), id="title")
            if self._templates:
                yield Label("Template")
                yield Select(
                    [
                        (f"{name}  ({t.description})" if t.description else name, name)
                        for name, t in sorted(self._templates.items())
                    ],
                    prompt="none",
                    allow_blank=True,
                    id="template",
                )
            yield Label("Prompt")
            yield Input(placeholder="What should Claude do?", id="prompt")
            if self._hosts:
                # The machine beside the directory: a path means something on one machine.
                yield Label("Machine and directory")
                with Horizontal(id="where"):
                    yield Select(
                        [(name, name) for name in self._hosts],
                        prompt="this machine",
                        allow_blank=True,
                        value=self._host if self._host is not None else Select.NULL,
                        id="host",
                    )
                    yield Input(str(self._cwd), id="cwd")
            else:
                yield Label("Directory")
                yield Input(str(self._cwd), id="cwd")
            with Horizontal(id="worktree-row"):
                yield TickBox("Own git worktree", id="worktree")
                yield Input(
                    placeholder="name (optional): branch worktree-<name>",
                    id="worktree-name",
                    disabled=True,
                )
            with Horizontal(id="after-row"):
                yield Button("After…", id="pick-after", compact=True)
                yield Static(self._after_note(), id="after-note")
            with Horizontal(id="selects"):
                with Vertical():
                    yield Label("Model")
                    yield Select(
                        [(m, m) for m in models], prompt="CLI default", allow_blank=True, id="model"
                    )
                with Vertical():
                    yield Label("Permission mode")
                    yield Select(
                        [(f"{m}  ({_MODE_HELP.get(m, '')})", m) for m in modes],
                        value=self._mode,
                        allow_blank=False,
                        id="mode",
                    )

            yield Static("", id="error")
            with Horizontal(id="buttons"):
                yield Button("Start", variant="primary", id="start")
                yield Button("Cancel", id="cancel")

    SHORT_ROWS = 34
    """Below this many rows the form drops its blank lines (``-short`` in its stylesheet)."""

    def on_resize(self, event: events.Resize) -> None:
        self._shorten(event.size.height < self.SHORT_ROWS)

    def _shorten(self, short: bool) -> None:
        """A short terminal: no blank lines, and the worktree row on one line (the After row
        took the line it gives back), so Start and Cancel stay on screen at 80x24."""
        self.set_class(short, "-short")
        self.query_one("#worktree", Checkbox).compact = short
        self.query_one("#worktree-name", Input).compact = short

    def on_mount(self) -> None:
        self._shorten(self.app.size.height < self.SHORT_ROWS)
        self.query_one("#prompt", Input).focus()
        # Timed from the first paint: the form is drawn before anything starts.
        self.call_after_refresh(self.set_timer, SPARE_AFTER_S, self._likely_now)

    @on(Input.Changed, "#prompt")
    def _writing(self, event: Input.Changed) -> None:
        if event.value:
            self._likely_now()

    def _likely_now(self) -> None:
        if not self._likely:
            self._likely = True
            self.post_message(self.Likely(self))

    @property
    def initial(self) -> NewSessionRequest:
        """The answer the form gives when only a prompt is written (no template, model or
        worktree; the directory and mode it opened with), prompt left empty."""
        return NewSessionRequest(
            "", SessionConfig(cwd=self._cwd.expanduser().resolve(), permission_mode=self._mode)
        )

    @on(Select.Changed, "#template")
    def _template_chosen(self, event: Select.Changed) -> None:
        """Fill the form from the template; the user can still change every field."""
        template = self._templates.get(event.value) if isinstance(event.value, str) else None
        prompt = self.query_one("#prompt", Input)
        if prompt.value in ("", self._template_prompt):
            self._template_prompt = template.prompt or "" if template else ""
            prompt.value = self._template_prompt
        if template is not None and template.model:
            self.query_one("#model", Select).value = template.model
        if template is not None and template.permission_mode:
            self.query_one("#mode", Select).value = template.permission_mode

    @on(Select.Changed, "#host")
    def _host_chosen(self, event: Select.Changed) -> None:
        """Another machine's paths are its own: the directory is left to it unless typed."""
        cwd = self.query_one("#cwd", Input)
        if isinstance(event.value, str):
            if cwd.value == str(self._cwd) and event.value != self._host:
                cwd.value = ""  # this machine's directory; a host's row's is kept
            cwd.placeholder = f"a directory on {event.value} (empty: its default)"
        elif not cwd.value:
            cwd.value = str(self._cwd)

    def _after_note(self) -> Content:
        labels = {c.session_id: c.name for c in self._after_candidates}
        if not self._after.after:
            return Content.styled(
                "none · ctrl+t: wait for other sessions to end first", "$text-muted"
            )
        return Content.styled(self._after.describe(labels), "$text-accent")

    @on(Button.Pressed, "#pick-after")
    def action_pick_after(self) -> None:
        """Choose the sessions it runs after (typed by id or prefix, or ticked)."""
        self.app.push_screen(AfterPicker(self._after_candidates, self._after), self._after_chosen)

    def _after_chosen(self, choice: AfterChoice | None) -> None:
        if choice is not None:
            self._after = choice
            self.query_one("#after-note", Static).update(self._after_note())
        self.query_one("#prompt", Input).focus()

    @on(Checkbox.Changed, "#worktree")
    def _worktree_toggled(self, event: Checkbox.Changed) -> None:
        self.query_one("#worktree-name", Input).disabled = not event.value

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted)
    @on(Button.Pressed, "#start")
    def action_submit(self) -> None:
        prompt = self.query_one("#prompt", Input).value.strip()
        error = self.query_one("#error", Static)
        if not prompt:
            error.update(Content.styled("Write a prompt first.", "$text-error"))
            self.query_one("#prompt", Input).focus()
            return
        host = self.query("#host").first(Select).value if self._hosts else None
        if isinstance(host, str):
            self._submit_remote(prompt, host)
            return
        raw_cwd = self.query_one("#cwd", Input).value.strip() or str(self._cwd)
        cwd = Path(raw_cwd).expanduser()
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
        chosen = self.query("#template").first(Select).value if self._templates else None
        template = chosen if isinstance(chosen, str) else None
        worktree: bool | str = False
        if self.query_one("#worktree", Checkbox).value:
            # Said here, the form still open: once closed, the prompt was lost with it.
            if git.toplevel(cwd) is None:
                error.update(
                    Content.styled(
                        f"{cwd} is not in a git repository: a worktree needs one (untick "
                        "Own git worktree, or pick a directory in git).",
                        "$text-error",
                    )
                )
                self.query_one("#cwd", Input).focus()
                return
            worktree = self.query_one("#worktree-name", Input).value.strip() or True
        self.dismiss(NewSessionRequest(prompt, config, template, worktree, after=self._after))

    def _submit_remote(self, prompt: str, host: str) -> None:
        """A session on ``host``: its directory is checked there, not here."""
        if self._after.after:
            self.query_one("#error", Static).update(
                Content.styled(
                    f"After: the sessions listed are this machine's; one on {host} waits "
                    "only for its own (start it from there, or over MCP).",
                    "$text-error",
                )
            )
            return
        if self.query_one("#worktree", Checkbox).value:
            self.query_one("#error", Static).update(
                Content.styled(
                    f"A worktree of its own is started from {host}'s cctui; here, only on "
                    "this machine.",
                    "$text-error",
                )
            )
            return
        raw = self.query_one("#cwd", Input).value.strip()
        model = self.query_one("#model", Select).value
        mode = self.query_one("#mode", Select).value
        config = SessionConfig(
            cwd=Path(raw or "."),
            model=model if isinstance(model, str) else None,
            permission_mode=mode if isinstance(mode, str) else "default",
        )
        self.dismiss(NewSessionRequest(prompt, config, host=host))
