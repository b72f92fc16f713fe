"""Snapshots of every screen over the fake driver (``pytest --snapshot-update`` refreshes)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.snapshot_apps.demo import SIZE, demo_app, ready

pytestmark = pytest.mark.usefixtures("demo_root")

SCENARIOS = {
    "main": "the main screen: history and live sessions, a finished turn in the pane",
    "empty": "no sessions anywhere and no ~/.claude: what to do next",
    "bash": "a Bash permission shows the command as code",
    "edit": "an Edit permission shows a coloured diff",
    "plan": "a plan review renders the plan as markdown",
    "question": "a question with single- and multi-select options and free text",
    "inbox": "the inbox lists every pending input across sessions",
    "help": "the help page lists every key",
    "new": "the new-session form with a prompt typed",
    "metrics": "the metrics page: totals, MCP tools with latency percentiles, sessions",
    "projects": "the projects view: registered projects, their sessions, last access",
    "confirm": "a confirmation an MCP client needs (a file exists: overwrite, append, cancel)",
    "waiting": "waiting rows say for how long (waiting 3m)",
    "peek": "space on a waiting row: the request to answer, the last reply, a reply line",
    "project_form": "the projects page registers a directory (the current one by default)",
    "project_remove": "removing a project asks first and says what stays",
    "diff": "the diff page: changed files with +/- counts, each file's diff in colour",
    "finish": "finishing a worktree: its state, and a discard listing what it would lose",
    "model": "the model picker (M) over a live session, its model marked",
    "rules": "the rules page (R): user, project and local rules with their files",
    "policy": "the policy page (L): hard denies, rules, delegates, timeouts, the breaker",
    "steer": "a session switched to plan mode and opus: the pane's lines and header",
    "rewind": "r on a prompt: the files a rewind would put back (the dry run), y or esc",
    "starting": "enter in the new-session form: the new session's prompt while claude starts",
    "tool_open": "enter on a tool call: its input and result below its line",
    "quit": "q while a session waits: keep the sessions in the background, end them, or stay",
    "hosts": "devbox's rows after this machine's, labelled; gpu offline, greyed, last seen 2m;"
    " a devbox session's output in the pane",
    "hosts_approval": "a permission on devbox pops here as a local one does",
    "attached": "a window attached to another cctui: the banner under the list",
    "hundred": "rows grouped by project (a worktree under its checkout), waiting, finished",
}


# The plan and question modals' snapshots flaked on the integration run (the list drawn
# behind the modal differed between runs); their content is asserted by the Pilot tests in
# test_pending_inputs.py until the demo app draws that list deterministically.
_FLAKY: set[str] = set()


@pytest.mark.parametrize(
    "scenario",
    [
        pytest.param(s, marks=pytest.mark.skip(reason="nondeterministic backdrop; see _FLAKY"))
        if s in _FLAKY
        else s
        for s in SCENARIOS
    ],
)
def test_snapshot(snap_compare: Any, scenario: str) -> None:
    """Each screen looks as it did when the snapshot was reviewed."""
    assert snap_compare(demo_app(scenario), terminal_size=SIZE, run_before=ready(scenario))


SMALL = (80, 24)
"""The smallest terminal cctui promises to work in (issue 39, item 8)."""
SMALL_SCENARIOS = (
    *("main", "new", "bash", "help", "peek", "hundred", "archived"),
    *("diff", "rules", "metrics", "projects", "finish", "inbox", "policy", "quit", "question"),
    *("hosts", "attached"),
)


@pytest.mark.parametrize("scenario", SMALL_SCENARIOS)
def test_snapshot_at_80x24(snap_compare: Any, scenario: str) -> None:
    """The same screens at 80x24: every field, key line and button on screen."""
    assert snap_compare(demo_app(scenario), terminal_size=SMALL, run_before=ready(scenario))
