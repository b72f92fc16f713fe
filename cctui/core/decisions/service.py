"""Decisions: the one object that holds every pending input and answers it.

The manager holds one (``SessionManager.decisions``); each session is given its desk by it
(``desk``), built on its parts. Front ends list open inputs (``pending``), answer them
(``respond``), ask the human to confirm something (``confirm``), and say whether a human is
watching (``attach_human``); the router decides who is asked first.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from cctui import paths
from cctui.config import Settings
from cctui.core.audit import AuditLog
from cctui.core.decisions import confirmations, grants
from cctui.core.decisions.allowances import call_detail, call_key
from cctui.core.decisions.desk import InputDesk
from cctui.core.decisions.pending import PendingInputs
from cctui.core.decisions.requests import check_answers
from cctui.core.decisions.routing import Router
from cctui.core.policy import ClientRegistry, Ladder, PolicyStore, Verdict
from cctui.core.session.events import SessionEvent, ToolUseEvent
from cctui.core.session.host import Desk
from cctui.core.session.inputs import Decision, PendingInput, Resolution
from cctui.core.session.session_state import SessionState
from cctui.errors import BeyondAuthority, CctuiError, InputNotFound, ValidationFailed


class Decisions:
    """Open inputs of every session (and cctui's own confirmations), their routes, answers."""

    def __init__(
        self,
        settings: Settings,
        audit: AuditLog,
        publish: Callable[[SessionEvent], None],
        *,
        find_session: Callable[[str], object],
        desk_of: Callable[[str], Desk | None],
    ) -> None:
        """``publish`` fans an event out (for confirmations, which belong to no session);
        ``find_session`` raises ``SessionNotFound`` for an unknown id; ``desk_of`` is the
        desk of a session this process knows, if any."""
        self._settings = settings
        self._audit = audit
        self._publish = publish
        self._find_session = find_session
        self._desk_of = desk_of
        self.inputs = PendingInputs()
        """The registry: every open input, answered once."""
        self._humans = 0
        self.ladder = Ladder(
            PolicyStore(settings.policy_file, settings.state_dir),
            ClientRegistry(settings.state_dir),
            home=str(paths.home()),
            plans=settings.claude_config_dir / "plans",
        )
        """The policy's rules rung, the delegates' authority and the breaker."""
        self.router = Router(
            self.inputs,
            self._republish,
            humans=lambda: self.human_attached,
            answer=lambda input_id, decision, by: self.respond(input_id, decision, by),
            may_answer=self._may_answer,
        )
        """Who is asked about each input, by which channel, until when."""
        self._tasks: set[asyncio.Task[Any]] = set()

    def desk(
        self,
        state: SessionState,
        *,
        tools: Mapping[str, ToolUseEvent],
        alive: Callable[[], bool],
        on_denied: Callable[[str], None],
        cwd: Path,
    ) -> InputDesk:
        """A new desk for the session whose shared state is ``state`` (the session is given
        it: the session machinery does not import the decisions)."""
        return InputDesk(
            state,
            inputs=self.inputs,
            router=self.router,
            audit=self._audit,
            settings=self._settings,
            tools=tools,
            alive=alive,
            on_denied=on_denied,
            cwd=cwd,
            ladder=self.ladder,
        )

    def pending(self, session_id: str | None = None) -> builtins.list[PendingInput]:
        """Open inputs, oldest first."""
        return self.inputs.list(session_id)

    def respond(
        self,
        input_id: str,
        decision: Decision,
        decided_by: str,
        *,
        session_id: str | None = None,
    ) -> Resolution:
        """Answer a pending input; first answer wins. Audited.

        With ``session_id``, the input must belong to that session (a caller naming both
        must not answer another session's question by a mixed-up id).

        Raises:
            SessionNotFound, InputNotFound, InputAlreadyAnswered, ValidationFailed.
        """
        if session_id is not None:
            self._find_session(session_id)
        try:
            item = self.inputs.get(input_id)
        except InputNotFound:
            return self.inputs.resolve(input_id, decision, decided_by)  # raises
        if session_id is not None and item.session_id != session_id:
            raise ValidationFailed(
                f"Input {input_id} belongs to another session, not {session_id}.",
                suggestion="Use the sessionId listed with the input in claude_get_status.",
            )
        decision = check_answers(item, decision)
        desk = self._desk_of(item.session_id)
        why = None
        if decided_by.startswith("mcp:") and item.kind != "confirmation":
            why = self._authorize(item, decision, decided_by.removeprefix("mcp:"), desk)
        if desk is None:
            return self.inputs.resolve(input_id, decision, decided_by, why)
        return desk.resolve(input_id, decision, decided_by, why)

    def _authorize(
        self, item: PendingInput, decision: Decision, label: str, desk: Desk | None
    ) -> Verdict:
        """The delegate's verdict on its own answer; beyond its authority, the input goes
        up to the human (the inbox says why), the refusal is audited, and the client is
        told.

        Raises:
            BeyondAuthority: the answer was not applied.
        """
        verdict = self.ladder.authorize(
            label,
            session_id=item.session_id,
            kind=item.kind,
            tool=item.tool_name,
            tool_input=item.tool_input,
            behavior=decision.behavior,
            creator=self.router.creator(item.session_id),
            cwd=desk.cwd if desk is not None else None,
        )
        if verdict.behavior != "escalate":
            return verdict
        self.router.gave_up(item.id)  # this client is not asked about it again
        with contextlib.suppress(CctuiError):
            self.router.to_human(item.id, verdict.reason)
        self._audit.decision(
            session_id=item.session_id,
            input_id=item.id,
            tool=item.tool_name,
            kind=item.kind,
            decision="escalated",
            decided_by=f"mcp:{label}",
            message=f"answer {decision.behavior!r} not applied",
            detail=call_detail(item.tool_name, item.tool_input),
            why=verdict,
        )
        raise BeyondAuthority(
            f"Your answer ({decision.behavior}) to {item.id} was not applied: {verdict.reason}. "
            "It now waits for the human at cctui.",
            suggestion="Answer only the sessions you created, or ask the user to grant this "
            "client more (cctui clients add NAME; [clients.NAME] in the policy).",
        )

    def _may_answer(self, item: PendingInput, label: str) -> bool:
        """Whether client ``label`` may be asked about ``item`` at all (its scope and the
        input's kind; the answer itself is checked again when it comes)."""
        desk = self._desk_of(item.session_id)
        verdict = self.ladder.authorize(
            label,
            session_id=item.session_id,
            kind=item.kind,
            tool=item.tool_name,
            tool_input=item.tool_input,
            behavior="deny",
            creator=self.router.creator(item.session_id),
            cwd=desk.cwd if desk is not None else None,
        )
        return verdict.behavior != "escalate"

    def respond_as_client(
        self,
        input_id: str,
        decision: Decision,
        client: str,
        *,
        session_id: str | None = None,
    ) -> tuple[Resolution, grants.ProjectGrant | None]:
        """An MCP client's answer (``decided_by`` ``mcp:<client>``). A request to always
        allow in the project is honoured only as ``grants`` says (the configuration, or the
        human's confirmation); otherwise it is allowed for the session, and the grant says
        why.

        Raises:
            SessionNotFound, InputNotFound, InputAlreadyAnswered, ValidationFailed.
        """
        decided_by = f"mcp:{client}"
        if not (decision.for_project and decision.behavior == "allow"):
            return self.respond(input_id, decision, decided_by, session_id=session_id), None
        item = self.inputs.get(input_id)
        grant = grants.plan(
            item,
            may_persist=self._settings.mcp_may_persist_rules or self.ladder.may_persist(client),
            human=self.human_attached,
            client=client,
        )
        if grant.status != "sent":
            decision = decision.model_copy(update={"for_project": False, "always": True})
        resolution = self.respond(input_id, decision, decided_by, session_id=session_id)
        if grant.status == "awaiting_confirmation":
            task = asyncio.get_running_loop().create_task(
                grants.confirm_and_write(
                    grant, item, client=client, confirm=self.confirm, audit=self._audit
                )
            )
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return resolution, grant

    async def confirm(
        self,
        subject: str,
        title: str,
        message: str,
        choices: tuple[str, ...],
        *,
        cancel: str = "cancel",
        timeout_s: float | None = None,
    ) -> tuple[str, str]:
        """Ask whoever decides to pick one of ``choices`` (see ``confirmations``).

        Returns ``(choice, decided_by)``; ``cancel`` when the permission timeout passes.
        """
        timeout = self._settings.permission_timeout_ms / 1000 if timeout_s is None else timeout_s
        return await confirmations.ask(
            self.inputs,
            self._publish,
            self._audit,
            subject=subject,
            title=title,
            message=message,
            choices=choices,
            cancel=cancel,
            timeout_s=timeout,
        )

    def preapprove(self, session_id: str, tool: str, tool_input: dict[str, Any], by: str) -> None:
        """The human allowed this exact call once (``automode``): its next ask is allowed."""
        desk = self._desk_of(session_id)
        if desk is not None:
            desk.allowed_once[call_key(tool, tool_input)] = by

    def withdraw_all(self) -> None:
        """cctui is shutting down: close every open input without an answer."""
        for sid in {i.session_id for i in self.inputs.list()}:
            desk = self._desk_of(sid)
            if desk is not None:
                desk.withdraw("session-ended")
            else:
                self.inputs.withdraw_session(sid)

    def attach_human(self) -> Callable[[], None]:
        """A front end with a human at it (the TUI) shows inputs; returns the detach function.

        Without one, nobody could answer a confirmation, so callers fail fast instead.
        Inputs that waited for nobody (no human was attached: a cctui in the background)
        go to the human now, announced again, so a window attached later pops them.
        """
        self._humans += 1
        for item in self.inputs.list():
            if item.route == "nobody":
                with contextlib.suppress(CctuiError):  # answered meanwhile
                    self.router.to_human(item.id)
        detached = False

        def detach() -> None:
            nonlocal detached
            if not detached:
                detached = True
                self._humans -= 1

        return detach

    @property
    def human_attached(self) -> bool:
        """Some front end shows pending inputs to a human."""
        return self._humans > 0

    def _republish(self, item: PendingInput) -> None:
        """Announce an input again in its session (the route changed)."""
        desk = self._desk_of(item.session_id)
        if desk is not None:
            desk.announce(item)
