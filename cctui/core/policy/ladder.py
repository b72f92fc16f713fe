"""The authority ladder: every input a session asks for passes rung by rung until one
decides; a deny always wins, and the human (the last rung) can always override.

1. **Rules.** The CLI's own allow/deny/ask rules decide first inside the CLI (cctui sees
   only what they left open). Then cctui's policy: a hard deny refuses whatever anyone
   below the human says; the policy's deny rules refuse; its allow rules allow, unless the
   session's breaker is open (then the human decides).
2. **Auto mode** is the CLI's own rung: a session in ``auto`` mode decides inside the CLI
   and only its refusals are seen (``core.automode``).
3. **Delegates.** An MCP client's answer counts only within its authority: the sessions it
   created, and what its grant adds (``authorize``). Beyond that the answer is not applied
   and the input goes to the human, with the reason.
4. **The human** at the TUI decides anything still open; the permission timeout denies.

The breaker counts each session's automated decisions: more than ``max_allows`` allows in
``window_s``, or ``deny_streak`` denials in a row, and every decision of that session goes to
the human until the human answers one.

Pure logic over the policy store: no I/O but the policy files' stat and resolving the
symbolic links of a path an edit tool would write; no events. The desk and ``Decisions``
act on its verdicts.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cctui.core.policy.clients import ClientRegistry
from cctui.core.policy.load import InForce, PolicyStore
from cctui.core.policy.model import ClientGrant, Policy
from cctui.core.policy.patterns import (
    EDIT_TOOLS,
    Pattern,
    PatternError,
    absolute,
    call_path,
    command_parts,
    inside,
)
from cctui.core.policy.verdict import Rung, Verdict

OWN_SESSION = "own session"
"""A delegate's basis when it answers a session it created (its default authority)."""
_FORCE = frozenset({"-f", "--force", "--force-with-lease", "--force-if-includes", "--mirror"})


@dataclass
class BreakerState:
    """One session's automated decisions, for the breaker."""

    allows: deque[float] = field(default_factory=deque)
    """When each automated allow happened (monotonic), within the window."""
    deny_streak: int = 0
    open_reason: str | None = None
    """Why the breaker is open (decisions go to the human), or None."""


@dataclass(frozen=True)
class Grantee:
    """Who answers: a client label, whether its token registered it, and its grant."""

    label: str
    registered: bool
    grant: ClientGrant | None


class Ladder:
    """The rules rung, the delegates' authority and the breaker (see the module docstring)."""

    def __init__(
        self,
        store: PolicyStore,
        clients: ClientRegistry | None = None,
        *,
        home: str,
        plans: Path | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``plans``: Claude Code's plans directory (``<config dir>/plans``): plan mode writes
        the session's plan there, outside every project, and that is not a write outside
        the project."""
        self.store = store
        self.clients = clients
        self._home = home.rstrip("/") or "/"
        self._writable = () if plans is None else (absolute(str(plans), cwd="/", home=self._home),)
        self._clock = clock
        self._breakers: dict[str, BreakerState] = {}
        self._patterns: dict[str, Pattern | None] = {}

    # -- the rules rung ---------------------------------------------------------------------

    def in_force(self, cwd: Path | None) -> InForce:
        """The policy for a session in ``cwd``."""
        return self.store.in_force(cwd)

    def screen(
        self,
        session_id: str,
        kind: str,
        tool: str,
        tool_input: Mapping[str, Any],
        cwd: Path,
        force: InForce | None = None,
    ) -> Verdict | None:
        """The rules rung on a new input: deny (hard or policy), allow, escalate (the breaker
        is open), or None (the next rung decides). ``force``: the policy, if read already."""
        force = force or self.in_force(cwd)
        if kind != "permission":
            return None
        refused = self.refusal(force, tool, tool_input, cwd)
        if refused is not None:
            return refused
        rule = self.first_match(force.policy.rules.allow, tool, tool_input, cwd)
        if rule is None:
            return None
        opened = self.breaker_open(session_id, force.policy)
        if opened is not None:
            return Verdict(
                behavior="escalate",
                rung="breaker",
                basis=rule,
                reason=f"the breaker is open ({opened}): the human decides",
            )
        return Verdict(
            behavior="allow",
            rung="policy",
            basis=rule,
            source=force.origin(rule),
            reason=f"allowed by the policy rule {rule}",
        )

    def refusal(
        self,
        force: InForce,
        tool: str,
        tool_input: Mapping[str, Any],
        cwd: Path,
        *,
        writes_outside: bool = True,
    ) -> Verdict | None:
        """What refuses this call whoever would allow it: a hard deny, else a policy deny
        rule (a deny always wins). Also checked before every tool call runs, in every
        permission mode (the session's ``PreToolUse`` hook: ``InputDesk.guard``), there
        without ``writes_outside`` (the CLI checks that itself: ``cli_blocks_writes_outside``)."""
        hard = self.hard_denied(force, tool, tool_input, cwd, writes_outside=writes_outside)
        if hard is not None:
            return hard
        rule = self.first_match(force.policy.rules.deny, tool, tool_input, cwd, deny=True)
        if rule is None:
            return None
        return Verdict(
            behavior="deny",
            rung="policy",
            basis=rule,
            source=force.origin(rule),
            reason=f"denied by the policy rule {rule}",
        )

    def first_match(
        self,
        rules: Sequence[str],
        tool: str,
        tool_input: Mapping[str, Any],
        cwd: Path | None,
        *,
        deny: bool = False,
    ) -> str | None:
        """The first of ``rules`` that covers the call (``deny``: a compound command is
        covered when any part is), or None."""
        here = str(cwd or "/")
        for rule in rules:
            pattern = self._pattern(rule)
            if pattern and pattern.matches(tool, tool_input, cwd=here, home=self._home, deny=deny):
                return rule
        return None

    def hard_denied(
        self,
        force: InForce,
        tool: str,
        tool_input: Mapping[str, Any],
        cwd: Path,
        *,
        writes_outside: bool = True,
    ) -> Verdict | None:
        """A hard deny for this call (the shipped list, the policy's, writes outside the
        project unless ``writes_outside`` is false, pushes to protected branches), or None."""
        home = self._home
        rule = self.first_match(force.policy.hard_deny_rules, tool, tool_input, cwd, deny=True)
        if rule is not None:
            return Verdict(
                behavior="deny",
                rung="hard-deny",
                basis=rule,
                source=force.origin(rule),
                reason=f"hard deny {rule}: nothing below the human may allow it",
            )
        hard = force.policy.hard_deny
        if writes_outside and hard.writes_outside_project and tool in EDIT_TOOLS:
            path = call_path(tool_input)
            if path is not None:
                target = absolute(path, cwd=str(cwd), home=home)
                project = absolute(str(cwd), cwd="/", home=home)
                if all(_outside(target, place) for place in (project, *self._writable)):
                    return Verdict(
                        behavior="deny",
                        rung="hard-deny",
                        basis="writes outside the project",
                        source="hard_deny.writes_outside_project",
                        reason=f"hard deny: {tool} of {target} is outside the project {cwd}",
                    )
        if tool == "Bash" and isinstance(command := tool_input.get("command"), str):
            pushed = _protected_push(command, hard.protected_branches)
            if pushed is not None:
                return Verdict(
                    behavior="deny",
                    rung="hard-deny",
                    basis=pushed,
                    source="hard_deny.protected_branches",
                    reason=f"hard deny: {pushed} (protected branches: "
                    f"{', '.join(hard.protected_branches) or 'none'})",
                )
        return None

    def cli_deny_rules(self, cwd: Path | None) -> tuple[str, ...]:
        """The hard denies as Claude Code deny rules, passed to a session's CLI at launch
        (``LaunchSpec.deny_rules``): the CLI then refuses them itself in every mode, also
        where it would not ask cctui (its own allow rules, acceptEdits, bypassPermissions,
        auto mode). ``writes_outside_project`` has no rule form: see
        ``cli_blocks_writes_outside``."""
        policy = self.in_force(cwd).policy
        return (*policy.hard_deny_rules, *push_rules(policy.hard_deny.protected_branches))

    def cli_blocks_writes_outside(self, cwd: Path | None) -> bool:
        """Whether a session's CLI is launched with ``permissions.
        blockWritesOutsideWorkingDirectories`` (``hard_deny.writes_outside_project``): the
        CLI then refuses Write, Edit and NotebookEdit outside its working directories in
        every mode, following links, and lets through the files it keeps for the session
        (plan files, scratchpad, this project's auto-memory), which a check of cctui's own
        would have to guess (bundled CLI 2.1.332)."""
        return self.in_force(cwd).policy.hard_deny.writes_outside_project

    # -- the delegates' rung ----------------------------------------------------------------

    def grantee(self, label: str) -> Grantee:
        """``label`` as the ladder knows it: a registered client (its token said so: the MCP
        side only labels a caller with a registered name when its token matched) with its
        grant (the registry's and the policy's merged), or a shared-token client."""
        record = self.clients.get(label) if self.clients is not None else None
        if record is None:
            return Grantee(label, False, None)
        policy_grant = self.store.in_force(None).policy.clients.get(label)
        return Grantee(label, True, _merge_grants(record.grant, policy_grant))

    def authorize(
        self,
        label: str,
        *,
        session_id: str,
        kind: str,
        tool: str,
        tool_input: Mapping[str, Any],
        behavior: str,
        creator: str | None,
        cwd: Path | None,
    ) -> Verdict:
        """Whether client ``label`` may give this answer: a ``delegate`` verdict with the
        answer's behavior and its basis (``own session``, ``grant: …``), or an ``escalate``
        verdict saying why not (the answer is then not applied)."""
        who = self.grantee(label)
        force = self.in_force(cwd)

        def refuse(reason: str, rung: Rung = "delegate") -> Verdict:
            return Verdict(behavior="escalate", rung=rung, client=label, reason=reason)

        if behavior == "allow" and kind == "permission" and cwd is not None:
            hard = self.hard_denied(force, tool, tool_input, cwd)
            if hard is not None:
                return refuse(f"{label} may not allow it: {hard.reason}", "hard-deny")
        opened = self.breaker_open(session_id, force.policy)
        if opened is not None:
            return refuse(f"the breaker is open for this session ({opened}); the human decides")
        own = creator is not None and creator == label
        grant = who.grant
        scoped = own or (grant is not None and _covers(grant, cwd))
        if not scoped:
            made = f"created by {creator}" if creator else "not created by an MCP client"
            extra = (
                ""
                if who.registered
                else " (a client with the shared token may answer only the sessions it "
                "created; cctui clients add gives one its own token and grants)"
            )
            return refuse(
                f"{label} may not answer session {session_id[:8]}: it is {made}, and no grant "
                f"of {label} covers {cwd or 'it'}{extra}"
            )
        if kind == "plan_review" and not own and not (grant and grant.plans):
            return refuse(
                f"{label} may not answer plans of sessions it did not create (grant: plans)"
            )
        if kind == "user_question" and not own and not (grant and grant.questions):
            return refuse(
                f"{label} may not answer questions of sessions it did not create (grant: questions)"
            )
        basis = OWN_SESSION if own else "grant: " + ", ".join(grant.projects if grant else ())
        if kind == "permission" and behavior == "allow" and grant is not None and grant.rules:
            matched = self.first_match(grant.rules, tool, tool_input, cwd)
            if matched is None:
                return refuse(
                    f"{label}'s grant allows only {', '.join(grant.rules)}; this {tool} call "
                    "is not one of them"
                )
            basis = f"grant: {matched}"
        return Verdict(
            behavior="allow" if behavior == "allow" else "deny",
            rung="delegate",
            basis=basis,
            client=label,
            reason=f"{behavior} by {label} ({basis})",
        )

    def may_persist(self, label: str) -> bool:
        """Whether client ``label``'s grant lets it write project rules at once."""
        grant = self.grantee(label).grant
        return grant is not None and grant.persist_rules

    # -- the breaker ------------------------------------------------------------------------

    def breaker_open(self, session_id: str, policy: Policy | None = None) -> str | None:
        """Why the session's breaker is open (its decisions go to the human), or None."""
        state = self._breakers.get(session_id)
        return state.open_reason if state is not None else None

    def count(self, session_id: str, verdict: Verdict, policy: Policy) -> None:
        """Count an automated decision (a policy rule, any delegate's answer, auto mode's
        refusal); may open the breaker. A client's allow of a session it created counts
        towards ``max_allows`` (a driver approving its own work in a loop is what the
        breaker is for), its denials do not count towards ``deny_streak`` (a driver saying
        no is the seeds' flow, not drift). Hard denies are not counted: they are the policy
        working."""
        if verdict.rung not in ("policy", "delegate", "auto-mode", "judge"):
            return
        if verdict.basis == OWN_SESSION and verdict.behavior != "allow":
            return
        state = self._breakers.setdefault(session_id, BreakerState())
        limits = policy.breaker
        if verdict.behavior == "allow":
            now = self._clock()
            state.deny_streak = 0
            state.allows.append(now)
            while state.allows and state.allows[0] < now - limits.window_s:
                state.allows.popleft()
            if len(state.allows) >= limits.max_allows and state.open_reason is None:
                state.open_reason = (
                    f"{len(state.allows)} automated allows within {limits.window_s:g} s"
                )
        elif verdict.behavior == "deny":
            state.deny_streak += 1
            if state.deny_streak >= limits.deny_streak and state.open_reason is None:
                state.open_reason = f"{state.deny_streak} automated denials in a row"

    def human_answered(self, session_id: str) -> None:
        """The human decided one of the session's inputs: the breaker closes again."""
        self._breakers.pop(session_id, None)

    def breaker(self, session_id: str) -> BreakerState:
        """The session's breaker (a fresh, closed one if it has none)."""
        return self._breakers.get(session_id) or BreakerState()

    def _pattern(self, rule: str) -> Pattern | None:
        if rule not in self._patterns:
            try:
                self._patterns[rule] = Pattern.parse(rule)
            except PatternError:
                self._patterns[rule] = None  # validated at load: unreachable in practice
        return self._patterns[rule]


def _outside(target: str, project: str) -> bool:
    """Whether writing ``target`` (absolute, ``..`` folded) lands outside ``project``: by
    its path, or through a symbolic link inside the project that leads out of it (the
    file, or a directory on the way, resolved as the system would)."""
    if not inside(target, project):
        return True
    return not inside(os.path.realpath(target), os.path.realpath(project))


def _covers(grant: ClientGrant, cwd: Path | None) -> bool:
    if "*" in grant.projects:
        return True
    if cwd is None:
        return False
    here = str(cwd)
    return any(
        inside(here, absolute(str(Path(p).expanduser()), cwd="/", home="/"))
        for p in grant.projects
        if p
    )


def _merge_grants(a: ClientGrant, b: ClientGrant | None) -> ClientGrant:
    if b is None:
        return a
    return ClientGrant(
        projects=tuple(dict.fromkeys((*a.projects, *b.projects))),
        rules=tuple(dict.fromkeys((*a.rules, *b.rules))),
        plans=a.plans or b.plans,
        questions=a.questions or b.questions,
        persist_rules=a.persist_rules or b.persist_rules,
    )


def push_rules(protected: Sequence[str]) -> tuple[str, ...]:
    """``hard_deny.protected_branches`` as Claude Code deny rules: a push naming a protected
    branch (``origin main``, ``HEAD:main``, ``+main``, ``refs/heads/main``) and any force
    push. Broader than ``_protected_push`` in one way only (``-f…`` anywhere after ``push``),
    and narrower in one: ``git -C dir push`` is not covered, which cctui's own check still
    sees when the CLI asks."""
    rules = [
        f"Bash(git push {arg})"
        for arg in ("--force*", "* --force*", "-f*", "* -f*", "--mirror*", "* --mirror*")
    ]
    for branch in protected:
        if not branch or any(c in branch for c in "()*\n"):
            continue  # not writable as a rule; cctui's own check still refuses it
        for arg in (f"* {branch}", f"* {branch} *", f"*:{branch}", f"*:{branch} *"):
            rules.append(f"Bash(git push {arg})")
        rules += [f"Bash(git push * +{branch}*)", f"Bash(git push *refs/heads/{branch}*)"]
    return tuple(rules)


def _protected_push(command: str, protected: tuple[str, ...]) -> str | None:
    """``git push`` to a protected branch (or any force push): how, in words; else None."""
    for words in command_parts(command):
        if "git" not in words[:3] or "push" not in words:
            continue
        args = words[words.index("push") + 1 :]
        if any(
            a in _FORCE or (a.startswith("-") and not a.startswith("--") and "f" in a[1:])
            for a in args
        ):
            return "a force push"
        for arg in args:
            if arg.startswith("-"):
                continue
            target = arg.lstrip("+").split(":")[-1].removeprefix("refs/heads/")
            if target in protected:
                return f"a push to {target}"
    return None
