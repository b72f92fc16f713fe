"""The policy page: the authority ladder in force for a session (docs/policy.md).

Its policy files and any refused one, the hard denies (shipped and added), the policy's
allow and deny rules with the file each comes from, the registered clients and their
grants, the timeouts, and the session's breaker. ``x`` closes an open breaker (the human
decides, as answering one of its inputs would).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from cctui.core.api import CoreApi
from cctui.core.policy import SHIPPED_HARD_DENY
from cctui.core.policy.view import PolicyView
from cctui.errors import CctuiError
from cctui.tui.keymap import bindings, key_line
from cctui.tui.modal import Modal


def _home(text: str) -> str:
    home = str(Path.home())
    return "~" + text[len(home) :] if text.startswith(home + "/") else text


class PolicyScreen(Modal[None]):
    """The policy in force for one session (or, with none, for a directory)."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("PolicyScreen")

    def __init__(self, manager: CoreApi, directory: Path, session_id: str | None) -> None:
        super().__init__()
        self._manager = manager
        self.directory = directory
        self.session_id = session_id
        self.view: PolicyView | None = None
        """What was read last (None until the first read)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content.styled("Policy in force", "bold"), id="title")
            where = _home(str(self.directory))
            if self.session_id:
                where += f" · session {self.session_id[:8]}"
            yield Static(Content.styled(where, "$text-muted"), id="where")
            with VerticalScroll(id="body"):
                yield Static(id="policy")
            yield Static(key_line([("x", "close the breaker"), ("esc", "close")]), id="keys")

    def on_mount(self) -> None:
        self.query_one("#body").focus()
        self.load()

    @work(exclusive=True, group="policy", exit_on_error=False)
    async def load(self) -> None:
        """Read the policy in force (the core reads its files off the loop) and redraw."""
        try:
            self.view = await self._manager.policy_view(self.directory, self.session_id)
        except CctuiError as exc:
            self.query_one("#policy", Static).update(Content.styled(exc.message, "$text-error"))
            return
        self.query_one("#policy", Static).update(render(self.view))

    @work(group="policy-breaker", exit_on_error=False)
    async def action_reset_breaker(self) -> None:
        if self.session_id is None:
            return
        try:
            await self._manager.close_breaker(self.session_id)
        except CctuiError as exc:
            self.notify(exc.message, title="The breaker stays open", severity="error")
            return
        self.notify("The breaker is closed: automated decisions count again from zero.")
        self.load()

    def action_close(self) -> None:
        self.dismiss(None)


def _head(text: str) -> Content:
    return Content.styled(text, "bold $accent")


def _row(label: str, value: str, style: str = "") -> Content:
    # A client's name may be longer than the column: it then keeps a space before its value.
    cell = f"  {label:<9}" if len(label) < 9 else f"  {label} "
    return Content.assemble((cell, style or "$text-muted"), value)


def render(view: PolicyView) -> Content:
    """The page's text: every line is plain text (rules, paths and reasons are never
    markup)."""
    force, policy = view.force, view.force.policy
    lines: list[Content] = [_head("Files")]
    for source in force.sources:
        lines.append(Content("  " + _home(source)))
    if not force.sources:
        lines.append(
            Content.styled(
                "  none: the shipped hard denies and the default authority only", "$text-muted"
            )
        )
    for problem in force.problems:
        lines.append(
            Content.styled(f"  refused, the last good one holds: {problem}", "$text-warning")
        )
    lines += [Content(""), _head("Rules (Claude Code's own decide first, see R)")]
    for rule in policy.rules.deny:
        lines.append(_row("deny", f"{rule}  ({_home(force.origin(rule))})", "bold $error"))
    for rule in policy.rules.allow:
        lines.append(_row("allow", f"{rule}  ({_home(force.origin(rule))})", "bold $success"))
    if not policy.rules.allow and not policy.rules.deny:
        lines.append(
            Content.styled("  none: every ask goes on to the delegates and you", "$text-muted")
        )
    judge = policy.judge
    lines += [Content(""), _head("Judge (a small model; may allow only as a class below)")]
    if not judge.enabled:
        lines.append(Content.styled("  off ([judge] enabled = false)", "$text-muted"))
    else:
        lines.append(_row("model", f"{judge.model}; no answer in {judge.timeout_s:g} s: you"))
        for name, cls in judge.classes.items():
            lines.append(_row(name, f"{cls.description}  ({', '.join(cls.rules)})"))
        if not judge.classes:
            lines.append(Content.styled("  no classes: it allows nothing", "$text-muted"))
    lines += [Content(""), _head("Delegates (MCP clients)")]
    lines.append(
        Content.styled(
            "  any client: the sessions it created; the shared token grants nothing more",
            "$text-muted",
        )
    )
    names = sorted({*(r.name for r in view.clients), *policy.clients})
    for name in names:
        record = next((r for r in view.clients if r.name == name), None)
        grant = policy.clients.get(name)
        parts = []
        for g in (record.grant if record else None, grant):
            if g is None:
                continue
            if g.projects:
                parts.append("projects " + ", ".join(_home(p) for p in g.projects))
            if g.rules:
                parts.append("may allow " + ", ".join(g.rules))
            parts += [
                w
                for w, on in (
                    ("plans", g.plans),
                    ("questions", g.questions),
                    ("persists rules", g.persist_rules),
                )
                if on
            ]
        token = "own token" if record else "no token registered"
        lines.append(_row(name, f"{token}; " + ("; ".join(parts) or "its own sessions")))
    lines += [Content(""), _head("Timeouts (a timeout never allows)")]
    lines.append(_row("delegate", f"{policy.timeouts.delegate_s:g} s, then the human"))
    lines.append(_row("human", f"{view.human_s:g} s, then denied"))
    b = policy.breaker
    lines += [Content(""), _head("Breaker")]
    lines.append(
        _row(
            "limits",
            f"{b.max_allows} automated allows in {b.window_s:g} s, or {b.deny_streak} "
            "denials in a row: the human decides",
        )
    )
    if view.breaker is not None:
        state = view.breaker
        if state.open_reason:
            lines.append(_row("now", f"OPEN: {state.open_reason}", "bold $warning"))
        else:
            lines.append(
                _row(
                    "now",
                    f"closed: {len(state.allows)} automated allows in the window, "
                    f"{state.deny_streak} denials in a row",
                )
            )
    lines += [
        Content(""),
        _head(
            "Hard denies (nothing below the human overrides them; the CLI refuses the rules too)"
        ),
    ]
    hard = policy.hard_deny
    for rule in hard.rules:
        lines.append(_row("deny", f"{rule}  ({_home(force.origin(rule))})", "bold $error"))
    if hard.writes_outside_project:
        lines.append(_row("deny", "writes outside the session's directory", "bold $error"))
    if hard.protected_branches:
        lines.append(
            _row(
                "deny",
                "git push to " + ", ".join(hard.protected_branches) + ", and any force push",
                "bold $error",
            )
        )
    lines.append(_row("shipped", "  ".join(SHIPPED_HARD_DENY), "bold $error"))
    return Content("\n").join(lines)
