"""The diff page (``d``): what a session changed against its own base, file by file.

Left, the changed files with their ``+/−`` counts; right, each file's diff with syntax
colour, unified, or side by side on a wide terminal (``s`` switches). The base is the
session's own (``core.diffs``): never the default branch.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from cctui.core import SessionDiff
from cctui.errors import CctuiError
from cctui.tui import diff_render
from cctui.tui.keymap import bindings
from cctui.tui.widgets.footer import KeyFooter

SPLIT_MIN_WIDTH = 150
"""From this many columns the diff is drawn side by side (until ``s`` says otherwise)."""

Fetch = Callable[[], Awaitable[SessionDiff]]


class DiffScreen(Screen[None]):
    """One session's changes."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("DiffScreen")

    def __init__(self, title: str, fetch: Fetch) -> None:
        super().__init__()
        self._title = title
        self._fetch = fetch
        self._diff: SessionDiff | None = None
        self._split: bool | None = None
        """None: by the width; True/False: as ``s`` last set it."""
        self.drawn = False
        """The diff has been read and drawn at least once."""

    def compose(self) -> ComposeResult:
        with Vertical(id="diff-page"):
            yield Static(Content.styled(f"Diff · {self._title}", "bold"), id="diff-title")
            yield Static(Content.styled("reading the work tree…", "$text-muted"), id="diff-base")
            with Horizontal(id="diff-body"):
                yield OptionList(id="diff-files")
                yield VerticalScroll(id="diff-text")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.reload()

    @property
    def split(self) -> bool:
        return self._split if self._split is not None else self.size.width >= SPLIT_MIN_WIDTH

    @work(exclusive=True, exit_on_error=False)
    async def reload(self) -> None:
        """Compute the diff again and redraw."""
        try:
            self._diff = await self._fetch()
        except CctuiError as exc:
            self.query_one("#diff-base", Static).update(Content.styled(exc.message, "$text-error"))
            return
        await self._draw()

    async def action_toggle_split(self) -> None:
        self._split = not self.split
        await self._draw()

    def action_close(self) -> None:
        self.dismiss(None)

    def _summary(self, diff: SessionDiff) -> Content:
        n = len(diff.files)
        counts = Content.assemble(
            (f"{n} file{'s' if n != 1 else ''} ", "bold"),
            (f"+{diff.added} ", "bold $text-success"),
            (f"\u2212{diff.removed}", "bold $text-error"),
        )
        sha = (diff.base or "?")[:8]
        if diff.source == "transcript":
            base = "files its edit tools wrote (no git)"
        elif diff.base is None:
            base = "against its files when it started (no commit then)"
        elif diff.base_kind == "merge-base":
            base = f"against the merge-base {sha} with {diff.base_ref}"
        else:
            base = f"against {sha}, HEAD when it started"
        where = Content.styled(f"  {base} · {diff.root}", "$text-muted")
        parts: list[Content | str] = [counts, where]
        if diff.note:
            parts += ["\n", Content.styled(diff.note, "$text-warning")]
        return Content.assemble(*parts)

    async def _draw(self) -> None:
        diff = self._diff
        if diff is None:
            return
        self.query_one("#diff-base", Static).update(self._summary(diff))
        files = self.query_one("#diff-files", OptionList)
        files.clear_options()
        for i, f in enumerate(diff.files):
            counts = "bin" if f.added is None else f"+{f.added} \u2212{f.removed}"
            label = Content.assemble(
                (f"{f.status} ", "bold"), f.path, (f"  {counts}", "$text-muted")
            )
            files.add_option(Option(label, id=f"f{i}"))
        body = self.query_one("#diff-text", VerticalScroll)
        await body.remove_children()
        patches = {p.path: p for p in diff_render.split_files(diff.patch or "")}
        draw = diff_render.split if self.split else diff_render.unified
        widgets: list[Static] = []
        for i, f in enumerate(diff.files):
            widgets.append(
                Static(
                    Content.assemble((f"{f.status} {f.path}", "bold reverse")),
                    classes="file-head",
                    id=f"head-f{i}",
                )
            )
            patch = patches.get(f.path)
            if patch is not None:
                widgets.append(Static(draw(patch), classes="file-diff"))
            elif f.path in diff.cut:
                left_out = "(left out: the whole diff is too big)"
                widgets.append(Static(Content.styled(left_out, "$text-muted")))
        if not diff.files:
            widgets.append(Static(Content.styled("No changes against the base.", "$text-muted")))
        await body.mount_all(widgets)
        self.drawn = True

    @on(OptionList.OptionHighlighted, "#diff-files")
    def _jump(self, event: OptionList.OptionHighlighted) -> None:
        target = self.query(f"#head-{event.option_id}")
        if target:
            self.query_one("#diff-text", VerticalScroll).scroll_to_widget(target.first(), top=True)
