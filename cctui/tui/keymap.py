"""Every key cctui binds, in one table: the bindings, the help page and the palette come from it.

A ``Key`` says where it works (the class names in ``bind``, each with the action it runs
there), how the footer labels it, what the help page says and, for the app's own keys, how
the command palette offers it. The table is in help-page order, which is also the order of
each screen's bindings (and so of the footer). A ``Note`` is a help line for a key cctui does
not bind itself (a table's ``enter``, Textual's ``ctrl+p``).

Adding a key: one ``Key`` here and the ``action_*`` it names; ``tests/tui/test_keymap.py``
checks that every key is bound, on the help page and, for the app's keys, in the palette.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from textual.binding import Binding, BindingType
from textual.content import Content

APP = "CctuiApp"
"""The owner of app-wide keys (they work on every screen that does not bind them itself)."""


@dataclass(frozen=True)
class Command:
    """How the command palette offers an app key."""

    title: str
    help: str


@dataclass(frozen=True)
class Key:
    """One key: the classes that bind it, and how the footer, help page and palette name it."""

    keys: str
    """Textual key names, comma-separated (``"escape,q"``); the help page shows the first."""
    help: str
    """What the help page says it does."""
    bind: Mapping[str, str]
    """Class name -> the action the key runs there (``"quick('allow')"`` passes arguments)."""
    label: str = ""
    """The footer's word for it."""
    show: bool = True
    """In the footer."""
    priority: bool = False
    """Before the focused widget's own bindings (Textual's ``priority``)."""
    command: Command | None = None
    """The palette entry; every key of the app has one."""
    shown_as: str = ""
    """How the help page writes it, when not as its first key (``1-9``)."""

    @property
    def shown(self) -> str:
        """The key as the help page and the palette write it."""
        return self.shown_as or display(self.keys.split(",")[0])

    def actions(self, owner: str) -> list[tuple[str, str]]:
        """(keys, action) of its bindings on ``owner``: an action naming ``{key}`` is bound
        once per key, with the key put in (``choose({key})`` on ``1,2`` binds ``choose(1)``
        and ``choose(2)``); any other once for all its keys."""
        action = self.bind[owner]
        if "{key}" not in action:
            return [(self.keys, action)]
        return [(key, action.format(key=key)) for key in self.keys.split(",")]


@dataclass(frozen=True)
class Note:
    """A help line for a key that a widget handles itself (not bound by cctui)."""

    shown: str
    help: str


@dataclass(frozen=True)
class Section:
    """A group of keys on the help page."""

    title: str
    column: int
    """0: the left column, 1: the right (the help page stacks them when the terminal is too
    narrow for both, and scrolls when they are taller than it)."""
    lines: tuple[Key | Note, ...] = field(default=())


_SHOWN = {
    "question_mark": "?",
    "slash": "/",
    "escape": "esc",
    "delete": "del",
    "right_square_bracket": "]",
    "right_curly_bracket": "}",
}


def display(key: str) -> str:
    """How one Textual key name is written for people (``question_mark`` -> ``?``)."""
    return _SHOWN.get(key, key)


SECTIONS: tuple[Section, ...] = (
    Section(
        "Sessions",
        0,
        (
            Key(
                "n",
                "new session",
                {APP: "new_session"},
                "New",
                command=Command("New session", "Start a Claude Code session"),
            ),
            Key(
                "a",
                "inbox: every pending input, every session",
                {APP: "inbox"},
                "Inbox",
                command=Command("Inbox", "Every pending input, every session"),
            ),
            Note("enter", "open the session, then type a message"),
            # -- the list's cursor, as in lazygit, k9s, vim and less --
            Key("j", "down the list (↓ too)", {"SessionList": "cursor_down"}, "Down", show=False),
            Key("k", "up the list (↑ too)", {"SessionList": "cursor_up"}, "Up", show=False),
            Key("g,home", "first row (home too)", {"SessionList": "scroll_top"}, "Top", show=False),
            Key(
                "G,end",
                "last row (end too)",
                {"SessionList": "scroll_bottom"},
                "Bottom",
                show=False,
            ),
            # -- a hundred sessions (issue 39): what needs you, in a list that stays put --
            Key(
                "right_square_bracket",
                "next that needs you, this project: waiting, then finished",
                {APP: "next_needing(False)"},
                "Next",
                command=Command(
                    "Next session that needs you (this project)",
                    "Waiting for an answer first, then finished and not seen",
                ),
            ),
            Key(
                "right_curly_bracket",
                "next that needs you, every project",
                {APP: "next_needing(True)"},
                "Next anywhere",
                show=False,
                command=Command(
                    "Next session that needs you (every project)",
                    "Waiting for an answer first, then finished and not seen",
                ),
            ),
            Key(
                "z",
                "mute notifications from its project for an hour",
                {APP: "mute_project"},
                "Mute",
                show=False,
                command=Command(
                    "Mute project for an hour", "No notifications from it for an hour (z undoes)"
                ),
            ),
            Key(
                "e",
                "archive: hide it (status:archived lists; e brings back)",
                {APP: "archive"},
                "Archive",
                show=False,
                command=Command(
                    "Archive session", "Hide it from the list; nothing is deleted (e undoes)"
                ),
            ),
            # -- from the list without opening a session (issue 18) --
            Key(
                "space",
                "peek: what it waits for (answer it), last reply, reply",
                {APP: "peek"},
                "Peek",
                command=Command("Peek at session", "What it waits for, its last reply; reply"),
            ),
            Key(
                "o",
                "open it in Claude Code itself; back here when it exits",
                {APP: "take_over"},
                "Claude Code",
                command=Command("Open in Claude Code", "claude --resume in this terminal"),
            ),
            Key(
                "i",
                "interrupt the current turn",
                {APP: "interrupt"},
                "Interrupt",
                command=Command("Interrupt session", "Stop the current turn"),
            ),
            Key(
                # Not k: that is "up" in every other terminal tool (issue 39).
                "ctrl+k",
                "kill its process (asks while a turn runs)",
                {APP: "kill"},
                "Kill",
                show=False,
                command=Command("Kill session", "End the session's process (resumable)"),
            ),
            Key(
                "d",
                "diff: what it changed, against its own base",
                {APP: "diff"},
                "Diff",
                command=Command("Session diff", "What the session changed (files, +/−)"),
            ),
            Key(
                "f",
                "finish its worktree: merge, keep or discard",
                {APP: "finish"},
                "Finish",
                show=False,
                command=Command("Finish worktree", "Merge, keep or discard its worktree"),
            ),
            Key(
                "w",
                "fork it into a new git worktree (asks)",
                {APP: "fork_worktree"},
                "Fork",
                show=False,
                command=Command(
                    "Fork into a worktree", "A copy of the session, in its own worktree"
                ),
            ),
            Key(
                "shift+tab",
                "permission mode: default → acceptEdits → plan → auto",
                # The main screen's own: elsewhere shift+tab moves the focus back.
                {APP: "cycle_mode", "MainScreen": "cycle_mode"},
                "Mode",
                command=Command("Cycle permission mode", "default → acceptEdits → plan → auto"),
            ),
            Key(
                "M",
                "model: pick the session's model",
                {APP: "pick_model"},
                "Model",
                command=Command("Pick model", "Switch the session's model"),
            ),
            Key(
                "R",
                "permission rules for the session's project",
                {APP: "rules"},
                "Rules",
                command=Command("Permission rules", "Allow and deny rules in force; remove one"),
            ),
            Key(
                "L",
                "policy in force: hard denies, rules, delegates, breaker",
                {APP: "policy"},
                "Policy",
                command=Command(
                    "Policy in force", "Who may approve what for the session (the ladder)"
                ),
            ),
            Key(
                "slash",
                "filter: words, project:, status:live|waiting…",
                {APP: "filter"},
                "Filter",
                command=Command("Filter sessions", "By text, project:, status:"),
            ),
            Key(
                "s",
                "search every transcript; enter opens a hit",
                {APP: "search"},
                "Search",
                show=False,
                command=Command("Search transcripts", "Find a past session by what was said"),
            ),
            Key(
                "u",
                "usage and cost: days, models, sessions",
                {APP: "usage"},
                "Usage",
                show=False,
                command=Command("Usage and cost", "Tokens and cost of every session"),
            ),
            Key(
                "t",
                "queue and schedules: reorder, start, pause, run",
                {APP: "dispatch"},
                "Queue",
                show=False,
                command=Command("Queue and schedules", "Queued sessions, schedules; reorder, run"),
            ),
            Key(
                "p",
                "projects (enter filters the list to one)",
                {APP: "projects"},
                "Projects",
                show=False,
                command=Command("Projects", "Registered projects, filter by one"),
            ),
            Note("tab", "list → output → message line"),
            Key(
                "escape",
                "leave the message line / clear the filter",
                {"MessageInput": "leave", "FilterInput": "clear"},
                "Back to list",
                show=False,
            ),
        ),
    ),
    Section(
        "Output",
        0,
        (
            Key(
                "enter",
                "on a tool call: show its input and result",
                {"ToolCall": "toggle_call"},
                "Details",
                show=False,
            ),
            Key(
                "r",
                "on a prompt: put files back as before it (asks)",
                {"PromptBlock": "rewind"},
                "Rewind files",
            ),
            Note("▲", "an 'earlier' line: press it or scroll up"),
        ),
    ),
    Section(
        "App",
        0,
        (
            Note("ctrl+p", "command palette"),
            Key(
                "m",
                "metrics: sessions, MCP tool calls, latency",
                {APP: "metrics"},
                "Metrics",
                show=False,
                command=Command("Metrics", "Sessions, MCP calls, latency"),
            ),
            Key(
                "question_mark",
                "this help",
                {APP: "help"},
                "Help",
                command=Command("Keys", "Every key on one page"),
            ),
            Key(
                "escape,question_mark,q",
                "close this page (? and q too)",
                {"HelpScreen": "close"},
                "Close",
            ),
            Key("escape", "close the search", {"SearchScreen": "close"}, "Close"),
            Key(
                "escape,u,q",
                "close the usage page (u and q too)",
                {"UsageScreen": "close"},
                "Close",
            ),
            Key(
                "q",
                "quit (asks first if a session is working)",
                {APP: "quit"},
                "Quit",
                command=Command(
                    "Quit", "Quit; working sessions are kept in the background or ended"
                ),
            ),
        ),
    ),
    Section(
        "Pending inputs",
        1,
        (
            Key(
                "y",
                "allow · approve a plan · send answers",
                {
                    "PendingInputScreen": "allow",
                    "InboxScreen": "quick('allow')",
                    "PeekAsk": "allow",
                },
                "Allow",
            ),
            Key(
                "n",
                "deny, with an optional reason",
                {"PendingInputScreen": "deny", "InboxScreen": "quick('deny')", "PeekAsk": "deny"},
                "Deny",
            ),
            Key(
                "A",
                "allow for the session (the modal says what)",
                {"PendingInputScreen": "allow_always", "PeekAsk": "allow_always"},
                "Allow for session",
            ),
            Key(
                "1,2,3,4,5,6,7,8,9",
                "an option of a question; 1 allow, 2 for session, 3 deny",
                {"PendingInputScreen": "choose({key})", "PeekAsk": "choose({key})"},
                "Choose",
                show=False,
                shown_as="1-9",
            ),
            Key(
                "P",
                "always allow in this project (shows rule, file)",
                {"PendingInputScreen": "allow_project"},
                "Allow in project",
            ),
            Key(
                "escape",
                "later (it stays in the inbox) · back from a reason",
                {"DecisionModal": "later", "ReasonInput": "cancel"},
                "Later",
            ),
            Key(
                "enter",
                "in the inbox or a peek: open the request",
                {"InboxScreen": "open", "PeekAsk": "open"},
                "Open",
                priority=True,
            ),
            Key("escape,a", "in the inbox: close (a too)", {"InboxScreen": "close"}, "Close"),
            Note("", "y/n wait a moment after a request shows"),
        ),
    ),
    Section(
        "New session form",
        1,
        (
            Key(
                "ctrl+s",
                "start (enter in the prompt too)",
                {"NewSessionScreen": "submit"},
                "Start",
                priority=True,
            ),
            Key(
                "ctrl+t",
                "the sessions it runs after (After…): ids or prefixes, or tick them",
                {"NewSessionScreen": "pick_after"},
                "After",
                priority=True,
            ),
            Key(
                "ctrl+s",
                "in the After picker: done (enter ticks the ids typed)",
                {"AfterPicker": "done"},
                "Done",
                priority=True,
            ),
            Key(
                "escape",
                "cancel (a project's form, the model picker, the After picker too)",
                {
                    "NewSessionScreen": "cancel",
                    "ProjectForm": "cancel",
                    "ModelScreen": "cancel",
                    "AfterPicker": "cancel",
                },
                "Cancel",
            ),
            Note("enter", "model picker: use the highlighted one"),
        ),
    ),
    Section(
        "Diff page",
        1,
        (
            Key("s", "unified / side by side", {"DiffScreen": "toggle_split"}, "Split"),
            Key(
                "escape,q,d",
                "close (q and d too); d again reads it anew",
                {"DiffScreen": "close"},
                "Close",
            ),
        ),
    ),
    Section(
        "Confirmations (rewind, o, ctrl+k, w, x, a rule)",
        1,
        (
            Key(
                "y",
                "yes: files back · end and open · kill · fork · remove",
                {"RewindScreen": "confirm", "AskScreen": "yes", "RemoveRuleScreen": "confirm"},
                "Yes",
            ),
            Key(
                "escape,n",
                "no, cancel (n too)",
                {"RewindScreen": "cancel", "AskScreen": "no", "RemoveRuleScreen": "cancel"},
                "Cancel",
            ),
        ),
    ),
    Section(
        "Queue and schedules page",
        1,
        (
            Key("K", "move the queued session up", {"DispatchScreen": "move(-1)"}, "Up"),
            Key("J", "move it down", {"DispatchScreen": "move(1)"}, "Down", show=False),
            Key("s", "start it now, over the limit", {"DispatchScreen": "start_now"}, "Start now"),
            Key(
                "x,delete",
                "cancel it · delete the schedule",
                {"DispatchScreen": "remove"},
                "Cancel/delete",
            ),
            Key("n", "new schedule", {"DispatchScreen": "new"}, "New"),
            Key("e", "edit the schedule", {"DispatchScreen": "edit"}, "Edit"),
            Key("space", "pause or resume it", {"DispatchScreen": "pause"}, "Pause"),
            Key("r", "run it now", {"DispatchScreen": "run_now"}, "Run now"),
            Key("tab", "queue ↔ schedules", {"DispatchScreen": "switch"}, "Table", show=False),
            Key("escape,t,q", "close (t and q too)", {"DispatchScreen": "close"}, "Close"),
            Key(
                "ctrl+s",
                "in the schedule form: save (enter too)",
                {"ScheduleForm": "save"},
                "Save",
                priority=True,
            ),
            Key("escape", "in the schedule form: cancel", {"ScheduleForm": "cancel"}, "Cancel"),
        ),
    ),
    Section(
        "Projects page",
        1,
        (
            Key(
                "enter",
                "show the project's sessions",
                {"ProjectsScreen": "choose"},
                "Filter sessions",
                show=False,
            ),
            Key("escape,p", "close (p too)", {"ProjectsScreen": "close"}, "Close"),
            Key("n", "register a directory", {"ProjectsScreen": "register"}, "Register"),
            Key("r", "rename", {"ProjectsScreen": "rename"}, "Rename"),
            Key("x,delete", "remove from the registry", {"ProjectsScreen": "remove"}, "Remove"),
        ),
    ),
    Section(
        "Rules page",
        1,
        (
            Key(
                "d,delete",
                "remove the highlighted rule (asks first)",
                {"RulesScreen": "remove"},
                "Remove",
            ),
            Key("escape,R", "close (R too)", {"RulesScreen": "close"}, "Close"),
        ),
    ),
    Section(
        "Policy page",
        1,
        (
            Key(
                "x",
                "close the session's breaker (automated decisions count again)",
                {"PolicyScreen": "reset_breaker"},
                "Close breaker",
            ),
            Key("escape,L", "close (L too)", {"PolicyScreen": "close"}, "Close"),
        ),
    ),
    Section(
        "Metrics page",
        0,
        (
            Key(
                "escape,m,q",
                "close (m, q too); it refreshes every 2 s",
                {"MetricsScreen": "close"},
                "Close",
            ),
        ),
    ),
    Section(
        "Peek (space on a row)",
        0,
        (
            Note("y n A 1-9", "answer its request; other keys start a reply"),
            Key("escape", "close", {"PeekScreen": "close"}, "Close"),
        ),
    ),
    Section(
        "Quit while sessions work",
        1,
        (
            Key("b", "keep them running, headless", {"QuitScreen": "background"}, "Keep"),
            Key("e", "end them, then quit", {"QuitScreen": "end"}, "End"),
            Key("escape", "stay", {"QuitScreen": "stay"}, "Stay"),
        ),
    ),
)
"""The help page, top to bottom, left column first."""

KEYS: tuple[Key, ...] = tuple(
    line for section in SECTIONS for line in section.lines if isinstance(line, Key)
)
"""Every key cctui binds."""


def bindings(owner: str) -> list[BindingType]:
    """The ``BINDINGS`` of the class named ``owner``, in table order."""
    return [
        Binding(keys, action, key.label, show=key.show, priority=key.priority)
        for key in KEYS
        if owner in key.bind
        for keys, action in key.actions(owner)
    ]


def commands() -> list[tuple[Command, str, str]]:
    """The palette's entries: (command, the key as shown, the app action it runs)."""
    return [(k.command, k.shown, k.bind[APP]) for k in KEYS if k.command is not None]


def key_line(pairs: list[tuple[str, str]], *, queued: int = 0, held: bool = False) -> Content:
    """The key line at the foot of a modal: `` y  allow   n  deny ``, then who else waits;
    ``held``: ``esc`` leaves those in the inbox too (the pending inputs' modals)."""
    parts: list[Content | str] = []
    for key, label in pairs:
        parts += [Content.styled(f" {key} ", "bold reverse $text-accent"), f" {label}   "]
    if queued:
        also = " (esc leaves them in the inbox: a)" if held else ""
        parts.append(Content.styled(f"+{queued} more waiting{also}", "$text-warning"))
    return Content.assemble(*parts)
