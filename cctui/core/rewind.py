"""Rewinding a session's files to how they were just before one of its prompts.

Claude Code does the work: with file checkpointing on, it keeps a copy of every file its
edit tools (Write, Edit, NotebookEdit) change, taken before each prompt, and answers the
control request ``rewind_files`` for a prompt's uuid (``claude/sdk_driver.py`` says how
that request is reached). This module aims it: a prompt by index or id, the checks that
give a clear reason instead of the CLI's terse one, a dry run before every real run (the
real run's answer names no files), and the event the pane and event readers see.

Only files go back. The conversation does not: Claude still remembers its later edits,
and Bash's changes (and anything else outside the edit tools) are not tracked.
"""

from __future__ import annotations

import os
import uuid
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from cctui.claude.frames import RewindAnswer
from cctui.core.session.events import FilesRewoundEvent
from cctui.core.session.models import PromptMark
from cctui.errors import RewindUnavailable, SessionNotReady, ValidationFailed

if TYPE_CHECKING:
    from cctui.core.session.session import Session

NOT_ENABLED = "File rewinding is not enabled."
"""The CLI's answer when its checkpointing gate is off (CLI 2.1.332)."""
DISABLE_VAR = "CLAUDE_CODE_DISABLE_FILE_CHECKPOINTING"
"""Turns Claude Code's file checkpointing off whatever the SDK asks for."""
NO_CHECKPOINT = "No file checkpoint found for this message."
"""The CLI's answer for an id it kept no checkpoint for (CLI 2.1.332)."""


class RewindResult(BaseModel):
    """What a rewind of a session's files did, or (a dry run) would do."""

    model_config = ConfigDict(defer_build=True)

    session_id: str
    prompt_id: str
    """The user message id the files were put back to (just before it was sent)."""
    prompt: PromptMark | None = None
    """That prompt, when cctui sent it (its index and text)."""
    dry_run: bool
    rewound: bool = False
    """Files were put back (never on a dry run)."""
    files: tuple[str, ...] = ()
    """The files that change (absolute paths, as Claude Code lists them)."""
    insertions: int = 0
    """Lines the rewind adds back."""
    deletions: int = 0
    """Lines the rewind removes."""
    skipped_links: int = 0
    """Symbolic links Claude Code left alone (a real run only)."""


class Target(BaseModel):
    """The prompt a rewind is aimed at."""

    model_config = ConfigDict(defer_build=True)

    prompt_id: str
    prompt: PromptMark | None = None

    @property
    def label(self) -> str:
        """How messages name it."""
        if self.prompt is None:
            return f"user message {self.prompt_id}"
        return f"prompt {self.prompt.index} ({self.prompt.text!r})"


def target(session: Session, prompt_id: str | None, prompt_index: int | None) -> Target:
    """The prompt to rewind to, given exactly one of its id or its index.

    Raises:
        ValidationFailed: neither or both given, an index out of range, an id not a UUID.
        RewindUnavailable: the session was started without file checkpointing.
    """
    if (prompt_id is None) == (prompt_index is None):
        raise ValidationFailed(
            "Give exactly one of userMessageId and promptIndex.",
            suggestion="promptIndex counts the session's prompts from 0.",
        )
    prompts = session.state.prompts
    if prompt_index is not None:
        mark = prompts.at(prompt_index)
        if mark is None:
            have = (
                f"it has {len(prompts)} (0-{len(prompts) - 1})"
                if len(prompts)
                else "cctui has sent it none"
            )
            raise ValidationFailed(
                f"Session {session.id} has no prompt {prompt_index}: {have}.",
                suggestion="promptIndex counts the prompts cctui sent the session, from 0.",
            )
        found = Target(prompt_id=mark.id, prompt=mark)
    else:
        assert prompt_id is not None
        try:
            prompt_id = str(uuid.UUID(prompt_id))
        except ValueError:
            raise ValidationFailed(f"userMessageId {prompt_id!r} is not a UUID.") from None
        found = Target(prompt_id=prompt_id, prompt=prompts.find(prompt_id))
    if not session.config.file_checkpointing:
        raise RewindUnavailable(
            f"Session {session.id} was started without file checkpointing, so Claude Code "
            "kept no copies of its files to put back.",
            suggestion="Sessions started with file_checkpointing on (cctui's default) can be "
            "rewound; this one cannot.",
        )
    return found


async def run(session: Session, aim: Target, *, dry_run: bool, by: str) -> RewindResult:
    """Ask the session's live process: always a dry run first, then (unless ``dry_run``) the
    rewind itself, and publish it.

    Raises:
        RewindUnavailable: Claude Code has no checkpoint for it, or refused.
        SessionNotReady: a turn is running (a real run only), or no process is alive.
    """
    process = session.process
    if not dry_run and session.turns.busy:
        raise SessionNotReady(
            f"Session {session.id} is running a turn, so its files are still changing.",
            suggestion="Interrupt it or wait until it is idle, then rewind.",
        )
    preview = await process.rewind_files(aim.prompt_id, dry_run=True)
    _check(session, aim, preview)
    result = RewindResult(
        session_id=session.id,
        prompt_id=aim.prompt_id,
        prompt=aim.prompt,
        dry_run=dry_run,
        files=preview.files_changed,
        insertions=preview.insertions,
        deletions=preview.deletions,
    )
    if dry_run:
        return result
    answer = await process.rewind_files(aim.prompt_id, dry_run=False)
    _check(session, aim, answer)
    session.publish(
        FilesRewoundEvent(
            session_id=session.id,
            prompt_id=aim.prompt_id,
            prompt_index=aim.prompt.index if aim.prompt else None,
            files=result.files,
            insertions=result.insertions,
            deletions=result.deletions,
            by=by,
        )
    )
    return result.model_copy(update={"rewound": True, "skipped_links": answer.skipped_links})


def _check(session: Session, aim: Target, answer: RewindAnswer) -> None:
    """Raise ``RewindUnavailable`` with a reason a person can act on, unless it can rewind."""
    if answer.can_rewind:
        return
    error = (answer.error or "no reason given").removeprefix("Failed to rewind: ")
    if error == NOT_ENABLED:
        why = (
            f"{DISABLE_VAR} is set in cctui's environment, and Claude Code honours it"
            if os.environ.get(DISABLE_VAR)
            else "Claude Code says file rewinding is not enabled"
        )
        raise RewindUnavailable(
            f"Session {session.id}'s process keeps no file checkpoints: {why}.",
            suggestion=f"Start cctui without {DISABLE_VAR} (a launch prefix may set it too).",
        )
    if error == NO_CHECKPOINT:
        mark = aim.prompt
        if mark is None:
            why = "it is not a prompt cctui sent this session, and Claude Code kept none for it"
        elif not mark.accepted:
            why = (
                "Claude Code never took that prompt in (it was still queued, or the process "
                "ended first), so it made no checkpoint"
            )
        else:
            why = "Claude Code kept none for it"
        raise RewindUnavailable(
            f"No file checkpoint for {aim.label} of session {session.id}: {why}.",
            suggestion="Pick another prompt (promptIndex counts from 0).",
        )
    raise RewindUnavailable(
        f"Claude Code cannot rewind session {session.id} to {aim.label}: {error}"
    )
