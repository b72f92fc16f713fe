"""A scriptable stand-in for the real ``claude`` driver (no process, no network).

``FakeDriver`` implements ``cctui.claude.driver.Driver``: every message sent to it runs a
*turn* made of scripted steps. A turn always starts with an ``Init`` frame and ends with a
``TurnResult`` (cumulative cost, like the CLI), unless a step crashes the "process".

Quick use::

    from tests.fakes.fake_driver import fake_driver_factory, text, tool, DEFAULT_SCRIPT

    factory = fake_driver_factory()                 # DEFAULT_SCRIPT (see below)
    manager = SessionManager(settings, driver_factory=factory)
    ...
    factory.drivers[-1].sent                        # messages the session sent
    factory.drivers[-1].answers                     # PermissionAnswers it got back

A script is either a callable ``(message) -> list[Step]`` or a mapping whose keys are
matched as case-insensitive *substrings* of the message, in order; the key ``"*"`` is the
fallback. Without a match the turn echoes the message (``"Echo: <message>"``).

Steps (build them with the helpers):

- ``text("Hello")`` streams the text as ``TextDelta`` chunks, then an ``AssistantText``;
- ``tool("Write", {"file_path": "a.txt", "content": "x"})`` emits a ``ToolCall``, runs the
  session's check (``on_tool``, the real driver's PreToolUse hook: a refusal ends it as a
  hook error), asks for
  permission (``ask=False`` skips the ask, as for an allowed tool), then emits the
  ``ToolOutcome`` (``output`` on allow, the deny message on deny);
- ``plan("# Plan\\n...")`` is an ExitPlanMode tool call carrying the plan;
- ``question("Which color?", ["Red", "Blue"])`` is an AskUserQuestion tool call;
- ``sleep(seconds)`` pauses (an interrupt cuts it short);
- ``fail("API Error: 400")`` makes this turn's result ``is_error`` with that text;
- ``crash("killed")`` ends the process with ``ProcessExited(error=...)`` mid-turn;
- ``exit_clean()`` ends the process cleanly after the turn (exit code 0);
- ``emit(frame)`` yields any frame verbatim.

``DEFAULT_SCRIPT`` reacts to keywords in the message: ``write`` (Write permission),
``bash`` (Bash permission), ``plan`` (plan review), ``ask`` (a question), ``slow``
(5 s of streaming, interruptible), ``crash``, ``error`` (an API-error result); anything
else is echoed. Good enough to build demo and snapshot apps quickly.

Live changes behave like the CLI's control requests: ``set_permission_mode`` answers with a
``ModeChanged`` frame (and refuses ``bypassPermissions`` unless the process was launched
with it, in the CLI's words), ``set_model`` is refused for a name in ``REFUSED_MODELS``;
every later turn's ``Init`` carries the new mode and model (``mode_changes`` and
``model_changes`` record them).

File checkpoints: with ``spec.file_checkpointing`` every message sent with a prompt id is
echoed as ``PromptAccepted`` when its turn starts, and ``rewind_files`` answers as the CLI
does (not enabled / no checkpoint for an id it never took in / ``rewind_changes`` for one
it did: ``rewind_changes``, one file by default); ``rewinds`` records the calls.

Interrupts behave like the CLI's control request: the running step is cancelled (a pending
permission callback too), and the turn ends with an ``error_during_execution`` result;
queued messages then run as their own turns.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import subprocess
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from cctui.claude.frames import (
    AssistantText,
    Frame,
    Init,
    LaunchSpec,
    ModeChanged,
    ModelOption,
    PermissionAnswer,
    PermissionAsk,
    PermissionHandler,
    PermissionModeName,
    ProcessExited,
    PromptAccepted,
    RewindAnswer,
    TextDelta,
    ToolAbout,
    ToolCall,
    ToolGuard,
    ToolOutcome,
    TurnResult,
)
from cctui.errors import CliNotFound, SettingRefused

# --------------------------------------------------------------------------- steps


@dataclass(frozen=True)
class Text:
    """Stream ``text`` in ``chunk``-sized deltas, ``delay`` seconds apart."""

    text: str
    chunk: int = 8
    delay: float = 0.0


@dataclass(frozen=True)
class Tool:
    """A tool call, optionally gated by a permission ask."""

    name: str
    input: dict[str, Any]
    ask: bool = True
    output: str = "ok"
    description: str | None = None
    suggestions: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Sleep:
    """Pause the turn."""

    seconds: float


@dataclass(frozen=True)
class Hold:
    """Pause the turn until the test sets ``until`` (a condition, not a length of time)."""

    until: asyncio.Event


@dataclass(frozen=True)
class Fail:
    """Make this turn's result an error (like an API 400)."""

    message: str


@dataclass(frozen=True)
class Crash:
    """The process dies mid-turn."""

    message: str = "claude was killed"
    exit_code: int = -9


@dataclass(frozen=True)
class ExitClean:
    """The process exits with code 0 after this turn."""


@dataclass(frozen=True)
class Emit:
    """Yield this frame as is."""

    frame: Frame


Step = Text | Tool | Sleep | Hold | Fail | Crash | ExitClean | Emit
Script = Mapping[str, Sequence[Step]] | Callable[[str], Sequence[Step]]


def text(value: str, chunk: int = 8, delay: float = 0.0) -> Text:
    """Assistant text streamed in chunks."""
    return Text(value, chunk, delay)


def tool(
    name: str,
    input: dict[str, Any],
    *,
    ask: bool = True,
    output: str = "ok",
    description: str | None = None,
    suggestions: tuple[dict[str, Any], ...] = (),
) -> Tool:
    """A tool call (asks permission unless ``ask=False``)."""
    return Tool(name, input, ask, output, description, suggestions)


def plan(markdown: str) -> Tool:
    """An ExitPlanMode call carrying the plan (what a 2.1.197-style CLI sends)."""
    return Tool(
        "ExitPlanMode",
        {"plan": markdown},
        output="User has approved exiting plan mode. You can now proceed.",
    )


def question(q: str, options: Sequence[str], header: str = "Choice") -> Tool:
    """An AskUserQuestion call with one single-select question."""
    return Tool(
        "AskUserQuestion",
        {
            "questions": [
                {
                    "question": q,
                    "header": header,
                    "multiSelect": False,
                    "options": [{"label": o, "description": ""} for o in options],
                }
            ]
        },
        output="answered",
    )


def sleep(seconds: float) -> Sleep:
    """Pause (cut short by an interrupt)."""
    return Sleep(seconds)


def hold(until: asyncio.Event) -> Hold:
    """Pause the turn until ``until`` is set."""
    return Hold(until)


def fail(message: str = "API Error: 400 fake") -> Fail:
    """An API-error result for this turn."""
    return Fail(message)


def crash(message: str = "claude was killed (SIGKILL)", exit_code: int = -9) -> Crash:
    """The process dies mid-turn."""
    return Crash(message, exit_code)


def exit_clean() -> ExitClean:
    """The process ends cleanly after the turn."""
    return ExitClean()


def emit(frame: Frame) -> Emit:
    """A raw frame."""
    return Emit(frame)


DEFAULT_SCRIPT: dict[str, list[Step]] = {
    "crash": [text("Starting..."), crash()],
    "error": [fail("API Error: 400 fake 400")],
    "slow": [text("Working slowly " * 10, chunk=6, delay=0.1), sleep(5), text("done")],
    "write": [
        text("I'll write the file."),
        tool(
            "Write",
            {"file_path": "hello.txt", "content": "hi\n"},
            description="hello.txt",
            output="File created successfully",
            suggestions=({"type": "setMode", "mode": "acceptEdits", "destination": "session"},),
        ),
        text("Wrote hello.txt."),
    ],
    "bash": [
        text("Running a command."),
        tool(
            "Bash",
            {"command": "echo hi", "description": "Say hi"},
            description="Say hi",
            output="hi",
        ),
        text("Ran it."),
    ],
    "plan": [
        text("Here is my plan."),
        plan("# Plan\n\n1. Read the code\n2. Change it\n3. Test it\n"),
        text("Proceeding with the plan."),
    ],
    "ask": [
        question("Which color do you prefer?", ["Red", "Blue"], header="Color"),
        text("Thanks for answering."),
    ],
}


DEFAULT_REWIND = RewindAnswer(
    can_rewind=True, files_changed=("hello.txt",), insertions=0, deletions=1
)
"""What a dry run to a prompt the fake took in answers, unless told otherwise."""

# --------------------------------------------------------------------------- driver

_pids = itertools.count(41000)

FAKE_MODELS = (
    ModelOption("default", "Default (recommended)", "Use the default model"),
    ModelOption("opus", "Opus", "Best for complex tasks"),
    ModelOption("sonnet", "Sonnet", "Fast and capable"),
    ModelOption("haiku", "Haiku", "Fastest"),
)
"""What the fake offers in place of the CLI's initialize ``models[]``."""
REFUSED_MODELS = frozenset({"no-such-model"})
"""Models ``set_model`` refuses (as the CLI refuses one it cannot validate)."""
BYPASS_REFUSAL = (
    "Cannot set permission mode to bypassPermissions because the session was not launched "
    "with --dangerously-skip-permissions"
)
"""The CLI's words (2.1.332) when a session not launched for it is switched to bypass."""


class FakeDriver:
    """A scripted ``Driver``. Records what it was sent and answered for assertions."""

    usage: ClassVar[dict[str, Any]] = {}
    """The token usage each turn's result reports (none by default, as a CLI may do)."""

    def __init__(
        self,
        spec: LaunchSpec,
        on_permission: PermissionHandler,
        script: Script | None = None,
        *,
        on_tool: ToolGuard | None = None,
        cost_per_turn: float = 0.01,
        connect_error: Exception | None = None,
        connect_delay: float = 0.0,
        connect_gate: asyncio.Event | None = None,
        rewind_changes: RewindAnswer | None = None,
    ) -> None:
        self.spec = spec
        self.on_permission = on_permission
        self.on_tool = on_tool
        """The session's check before every tool call (the real driver's PreToolUse hook)."""
        self.script: Script = DEFAULT_SCRIPT if script is None else script
        self.cost_per_turn = cost_per_turn
        self.connect_error = connect_error
        self.connect_delay = connect_delay
        self.connect_gate = connect_gate
        """Set: the process starts only once it is set (a test looks at "starting" as long
        as it needs, however loaded the machine, then lets it start)."""
        if spec.resume and not spec.fork:
            self.session_id = spec.resume
        else:
            self.session_id = spec.session_id or str(uuid.uuid4())
        self.sent: list[str] = []
        """Every message sent, in order."""
        self.asks: list[PermissionAsk] = []
        """Every permission ask the driver made."""
        self.answers: list[PermissionAnswer] = []
        """Every answer it got back (same order as ``asks``)."""
        self.interrupts = 0
        self.mode: str = (
            "bypassPermissions" if spec.skip_permissions else spec.permission_mode or "default"
        )
        """The current permission mode (changed by ``set_permission_mode``)."""
        self.model: str | None = spec.model
        """The current model (changed by ``set_model``)."""
        self.mode_changes: list[str] = []
        self.model_changes: list[str | None] = []
        self.rewind_changes = rewind_changes or DEFAULT_REWIND
        """What a dry run to a checkpointed prompt answers."""
        self.rewinds: list[tuple[str, bool]] = []
        """Every ``rewind_files`` call: (prompt id, dry run)."""
        self.accepted: list[str] = []
        """Prompt ids this process took in (echoed as ``PromptAccepted``)."""
        self.connected = False
        self.closed = False
        self._pid = next(_pids)
        self._inbox: asyncio.Queue[tuple[str, str | None]] = asyncio.Queue()
        self._out: asyncio.Queue[Frame] = asyncio.Queue()
        self._runner: asyncio.Task[None] | None = None
        self._turn: asyncio.Task[None] | None = None
        self._cost = 0.0
        self._msg_ids = itertools.count(1)
        self._tool_ids = itertools.count(1)
        self._exited = False

    # -- Driver protocol

    async def connect(self) -> None:
        """Start the fake process (or raise the configured error)."""
        if self.connect_delay:
            await asyncio.sleep(self.connect_delay)
        if self.connect_gate is not None:
            await self.connect_gate.wait()
        if self.connect_error is not None:
            raise self.connect_error
        if self.spec.worktree is not None:
            await asyncio.to_thread(_make_worktree, self.spec.cwd, self.spec.worktree)
        self.connected = True
        self._runner = asyncio.create_task(self._run(), name=f"fake-claude-{self._pid}")

    async def send(self, text: str, prompt_id: str | None = None) -> None:
        """Queue a message; it runs as its own turn."""
        if self._exited:
            raise CliNotFound("the fake claude process has exited")
        self.sent.append(text)
        self._inbox.put_nowait((text, prompt_id))

    async def rewind_files(self, prompt_id: str, *, dry_run: bool) -> RewindAnswer:
        """Answer as the CLI does (see the module doc); nothing on disk changes."""
        self.rewinds.append((prompt_id, dry_run))
        if not self.spec.file_checkpointing:
            return RewindAnswer(can_rewind=False, error="File rewinding is not enabled.")
        if prompt_id not in self.accepted:
            return RewindAnswer(
                can_rewind=False, error="No file checkpoint found for this message."
            )
        if dry_run:
            return self.rewind_changes
        return RewindAnswer(can_rewind=True)

    async def interrupt(self) -> None:
        """Cancel the running turn, if any."""
        self.interrupts += 1
        if self._turn is not None and not self._turn.done():
            self._turn.cancel()

    async def set_permission_mode(self, mode: PermissionModeName) -> None:
        """Switch mode now (also mid-turn) and confirm it with a ``ModeChanged`` frame."""
        if mode == "bypassPermissions" and not (
            self.spec.skip_permissions or self.spec.permission_mode == "bypassPermissions"
        ):
            raise SettingRefused(BYPASS_REFUSAL)
        self.mode = mode
        self.mode_changes.append(mode)
        self._out.put_nowait(ModeChanged(mode))

    async def set_model(self, model: str | None) -> None:
        """Switch model for the next turn; names in ``REFUSED_MODELS`` are refused."""
        if model in REFUSED_MODELS:
            raise SettingRefused(f"Model {model!r} not found")
        self.model = model
        self.model_changes.append(model)

    @property
    def models(self) -> tuple[ModelOption, ...]:
        """``FAKE_MODELS`` once connected."""
        return FAKE_MODELS if self.connected else ()

    async def frames(self) -> AsyncIterator[Frame]:
        """Frames until ``ProcessExited``."""
        while True:
            frame = await self._out.get()
            yield frame
            if isinstance(frame, ProcessExited):
                return

    async def close(self, grace_s: float = 2.0) -> None:
        """Stop the fake process; the frame stream ends with a clean ``ProcessExited``."""
        self.closed = True
        if self._runner is not None and not self._runner.done():
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._runner
        self._exit(ProcessExited(exit_code=0))

    @property
    def pid(self) -> int | None:
        """A made-up pid (never a real process)."""
        return self._pid if self.connected else None

    # -- internals

    def _exit(self, frame: ProcessExited) -> None:
        if not self._exited:
            self._exited = True
            self._out.put_nowait(frame)

    def _steps_for(self, message: str) -> Sequence[Step]:
        if callable(self.script):
            return self.script(message)
        lowered = message.lower()
        for key, steps in self.script.items():
            if key != "*" and key.lower() in lowered:
                return steps
        if "*" in self.script:
            return self.script["*"]
        return [text(f"Echo: {message}")]

    async def _run(self) -> None:
        while True:
            message, prompt_id = await self._inbox.get()
            state: dict[str, Any] = {"error": None, "exit": False, "crash": None}
            if prompt_id is not None and self.spec.file_checkpointing:
                self.accepted.append(prompt_id)
                self._out.put_nowait(PromptAccepted(prompt_id))
            self._out.put_nowait(
                Init(
                    session_id=self.session_id,
                    model=self.model,
                    cwd=str(self.spec.cwd),
                    permission_mode=self.mode,
                )
            )
            self._turn = asyncio.create_task(self._play(self._steps_for(message), state))
            interrupted = False
            try:
                await asyncio.shield(self._turn)
            except asyncio.CancelledError:
                if not self._turn.cancelled():
                    # The runner itself is being cancelled (close()).
                    self._turn.cancel()
                    raise
                interrupted = True
            if state["crash"] is not None:
                crash_step: Crash = state["crash"]
                self._exit(ProcessExited(exit_code=crash_step.exit_code, error=crash_step.message))
                return
            self._cost += self.cost_per_turn
            error: str | None = state["error"]
            self._out.put_nowait(
                TurnResult(
                    session_id=self.session_id,
                    is_error=interrupted or error is not None,
                    subtype="error_during_execution" if interrupted else "success",
                    result=None if interrupted else (error or state.get("last_text")),
                    num_turns=1,
                    duration_ms=1,
                    total_cost_usd=round(self._cost, 6),
                    terminal_reason="aborted_streaming" if interrupted else "completed",
                    usage=dict(self.usage),
                )
            )
            if state["exit"]:
                self._exit(ProcessExited(exit_code=0))
                return

    async def _play(self, steps: Sequence[Step], state: dict[str, Any]) -> None:
        for step in steps:
            if isinstance(step, Text):
                mid = f"msg_fake_{self._pid}_{next(self._msg_ids)}"
                for i in range(0, len(step.text), max(step.chunk, 1)):
                    self._out.put_nowait(TextDelta(mid, step.text[i : i + step.chunk]))
                    await asyncio.sleep(step.delay)
                self._out.put_nowait(AssistantText(mid, step.text))
                state["last_text"] = step.text
            elif isinstance(step, Tool):
                await self._play_tool(step)
            elif isinstance(step, Sleep):
                await asyncio.sleep(step.seconds)
            elif isinstance(step, Hold):
                await step.until.wait()
            elif isinstance(step, Fail):
                state["error"] = step.message
            elif isinstance(step, Crash):
                state["crash"] = step
                return
            elif isinstance(step, ExitClean):
                state["exit"] = True
            else:
                self._out.put_nowait(step.frame)
            await asyncio.sleep(0)

    async def _play_tool(self, step: Tool) -> None:
        mid = f"msg_fake_{self._pid}_{next(self._msg_ids)}"
        tid = f"toolu_fake_{self._pid}_{next(self._tool_ids)}"
        self._out.put_nowait(ToolCall(mid, tid, step.name, dict(step.input)))
        if self.on_tool is not None:
            # As the CLI: the PreToolUse hook runs first, in every mode, asked or not.
            refused = await self.on_tool(ToolAbout(step.name, dict(step.input), tid))
            if refused is not None:
                hook_error = f"PreToolUse:{step.name} hook error: {refused}"
                self._out.put_nowait(ToolOutcome(tid, hook_error, is_error=True))
                return
        if not step.ask:
            self._out.put_nowait(ToolOutcome(tid, step.output, is_error=False))
            return
        # The CLI strips ExitPlanMode's plan from the permission input (2.1.330).
        ask_input = {} if step.name == "ExitPlanMode" else dict(step.input)
        ask = PermissionAsk(
            tool_name=step.name,
            input=ask_input,
            tool_use_id=tid,
            description=step.description,
            suggestions=step.suggestions,
        )
        self.asks.append(ask)
        answer = await self.on_permission(ask)
        self.answers.append(answer)
        if answer.allow:
            out = step.output
            if step.name == "AskUserQuestion" and answer.updated_input:
                answers = answer.updated_input.get("answers", {})
                out = "Your questions have been answered: " + ", ".join(
                    f'"{k}"="{v}"' for k, v in answers.items()
                )
            self._out.put_nowait(ToolOutcome(tid, out, is_error=False))
        else:
            self._out.put_nowait(ToolOutcome(tid, answer.message or "Denied", is_error=True))


def _make_worktree(cwd: Path, name: str) -> None:
    """What ``claude --worktree <name>`` does at start (its defaults, baseRef head): a new
    branch ``worktree-<name>`` from HEAD at ``<main work tree>/.claude/worktrees/<name>``."""
    top = (
        subprocess.run(
            ["git", "-C", str(cwd), "worktree", "list", "--porcelain"],
            capture_output=True,
            text=True,
            check=True,
        )
        .stdout.split("\n", 1)[0]
        .removeprefix("worktree ")
    )
    slug = name.replace("/", "+")
    path = Path(top) / ".claude" / "worktrees" / slug
    subprocess.run(
        ["git", "-C", str(cwd), "worktree", "add", "-q", "-b", f"worktree-{slug}", str(path)],
        capture_output=True,
        check=True,
    )


@dataclass
class FakeDriverFactory:
    """A ``DriverFactory`` that builds ``FakeDriver``s and keeps them for inspection."""

    script: Script | None = None
    cost_per_turn: float = 0.01
    connect_error: Exception | None = None
    connect_delay: float = 0.0
    connect_gate: asyncio.Event | None = None
    rewind_changes: RewindAnswer | None = None
    drivers: list[FakeDriver] = field(default_factory=list)
    """Every driver built, oldest first (one per process: resume makes a new one)."""

    def __call__(
        self,
        spec: LaunchSpec,
        on_permission: PermissionHandler,
        on_tool: ToolGuard | None = None,
    ) -> FakeDriver:
        driver = FakeDriver(
            spec,
            on_permission,
            self.script,
            on_tool=on_tool,
            cost_per_turn=self.cost_per_turn,
            connect_error=self.connect_error,
            connect_delay=self.connect_delay,
            connect_gate=self.connect_gate,
            rewind_changes=self.rewind_changes,
        )
        self.drivers.append(driver)
        return driver

    @property
    def specs(self) -> list[LaunchSpec]:
        """The launch specs, one per process started."""
        return [d.spec for d in self.drivers]

    def of(self, session_id: str) -> FakeDriver:
        """The newest driver started for ``session_id`` (the TUI's form also starts one
        ahead of the prompt, which a session takes only when it launches the same way)."""
        return next(
            d for d in reversed(self.drivers) if session_id in (d.spec.session_id, d.spec.resume)
        )


def fake_driver_factory(script: Script | None = None, **kwargs: Any) -> FakeDriverFactory:
    """A factory for ``SessionManager(settings, driver_factory=...)``; see the module doc."""
    return FakeDriverFactory(script=script, **kwargs)
