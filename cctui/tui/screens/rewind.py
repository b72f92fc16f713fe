"""The rewind confirmation: which files go back (from the dry run), then ``y`` or ``esc``.

Opened by ``r`` on a prompt in the pane, after the core's dry run said what would change;
``y`` makes the app run the rewind, ``esc`` (or ``n``) leaves the files as they are.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from cctui.core import RewindResult
from cctui.tui import format as fmt
from cctui.tui.keymap import bindings, key_line
from cctui.tui.modal import Modal

WARNING = (
    "Only files Claude wrote with its edit tools go back, whole: later edits to them are "
    "overwritten. What Bash changed stays. The conversation is not rewound: tell Claude."
)


def shown_path(path: str, cwd: Path | None) -> str:
    """``path`` relative to the session's directory when it is inside it."""
    if cwd is not None:
        try:
            return str(Path(path).relative_to(cwd))
        except ValueError:
            pass
    return path


class RewindScreen(Modal[bool]):
    """Shows what a rewind would change; dismisses with True to go ahead."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("RewindScreen")

    ARM_DELAY_S: ClassVar[float] = 0.4
    """Keys are ignored this long after it appears: a 'y' typed a moment earlier must not
    overwrite files nobody has looked at."""

    def __init__(self, preview: RewindResult, *, context: str, cwd: Path | None) -> None:
        super().__init__()
        self.preview = preview
        self.context = context
        """Which session, in words."""
        self.cwd = cwd
        self._armed_at = 0.0

    def compose(self) -> ComposeResult:
        p = self.preview
        mark = p.prompt
        where = "that prompt" if mark is None else f"prompt {mark.index}"
        with Vertical(id="dialog"):
            yield Static(
                Content.assemble(
                    ("↶ ", "$text-warning"), (f"Rewind files to before {where}", "bold")
                ),
                id="title",
            )
            yield Static(Content.styled(self.context, "$text-muted"), id="context")
            if mark is not None:
                yield Static(
                    Content.assemble(("❯ ", "bold $text-primary"), fmt.one_line(mark.text, 200)),
                    id="prompt",
                )
            yield Static(self._summary(), id="summary")
            with VerticalScroll(id="files"):
                for path in p.files:
                    yield Static(Content(shown_path(path, self.cwd)), classes="file")
            yield Static(Content.styled(WARNING, "$text-muted"), id="warning")
            yield Static(key_line([("y", "rewind"), ("esc", "cancel")]), id="keys")

    def _summary(self) -> Content:
        p = self.preview
        if not p.files:
            return Content("Claude Code lists no file that would change.")
        count = f"{len(p.files)} file{'s' if len(p.files) != 1 else ''} will change"
        return Content.assemble(
            (count, "bold"),
            "  ",
            (f"+{p.insertions}", "$text-success"),
            " ",
            (f"−{p.deletions}", "$text-error"),
            (" lines", "$text-muted"),
        )

    def on_mount(self) -> None:
        self._armed_at = time.monotonic() + self.ARM_DELAY_S

    def action_confirm(self) -> None:
        if time.monotonic() >= self._armed_at:
            self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
