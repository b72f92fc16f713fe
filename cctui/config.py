"""One frozen Settings model: the TOML file, then the environment, then flags.

The environment keeps the seeds' variable names (``PERMISSION_TIMEOUT_MS`` and friends) so a
setup written for any of them works unchanged.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from cctui import paths
from cctui.errors import ConfigError

PermissionMode = Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"]
ToolsProfile = Literal["full", "sessions", "projects", "menu"]
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]

DEFAULT_HTTP_PORT = 47823

_LOG_LEVEL_WORDS = {
    "TRACE": "DEBUG",
    "DEBUG": "DEBUG",
    "VERBOSE": "DEBUG",
    "INFO": "INFO",
    "NOTICE": "INFO",
    "WARN": "WARNING",
    "WARNING": "WARNING",
    "ERROR": "ERROR",
    "ERR": "ERROR",
    "FATAL": "ERROR",
    "CRITICAL": "ERROR",
}
"""Every spelling the seeds (and common loggers) use, mapped onto Python's levels: seed
002 documents ``debug, info, warn, error``; seed 004's ``MCP_LOG_LEVEL`` the same words."""


def log_level(raw: str) -> str:
    """A log level in any of the seeds' spellings, as one of ``LogLevel`` (unknown words are
    returned upper-cased, for the model's own error)."""
    word = raw.strip().upper()
    return _LOG_LEVEL_WORDS.get(word, word)


LaunchPrefix = tuple[Annotated[str, Field(min_length=1)], ...]
"""Command words run before ``claude`` (``["doppler", "run", "--"]``): a list, never a shell
string, so nothing in it is ever interpreted by a shell."""


class SessionTemplate(BaseModel):
    """A named preset for new sessions (``[templates.NAME]`` in the config file).

    Fields left out keep the usual defaults; what a caller passes explicitly wins.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    description: str | None = None
    """One line for menus and error messages."""
    prompt: str | None = None
    """The first message, when the caller gives none."""
    model: str | None = None
    permission_mode: PermissionMode | None = None
    allowed_tools: tuple[str, ...] | None = None
    """Tools that run without asking (added to the config's ``allowed_tools``)."""
    max_turns: int | None = Field(default=None, ge=1)
    system_prompt: str | None = None
    """Appended to Claude Code's system prompt."""
    launch_prefix: LaunchPrefix | None = None
    """Overrides the project's or the default launch prefix."""


class ToolGroups(BaseModel):
    """Per-group switches (``[tools]`` in the config file); a group is served when the profile
    includes it and its switch is on. ``claude_health`` is always served."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sessions: bool = True
    """Session tools: create, send, wait, respond, query, list, transcript, ..."""
    projects: bool = True
    """Project tools (seed 000): register, read, write, invoke, checkpoints, resources, prompts."""
    review: bool = True
    """The review menu (seed 001): judge review, proposal check, security audit, conflicts."""


PROFILE_GROUPS: dict[str, frozenset[str]] = {
    "full": frozenset({"sessions", "projects", "review"}),
    "sessions": frozenset({"sessions"}),
    "projects": frozenset({"projects"}),
    "menu": frozenset({"review"}),
}
"""The tool groups each ``--tools`` profile serves (before the ``[tools]`` switches)."""


NotifyReason = Literal["waiting", "finished", "failed"]
NotifySink = Literal["terminal", "desktop", "ntfy", "command"]


class NotifySettings(BaseModel):
    """When and where cctui tells you a session needs you (``[notify]`` in the config file).

    A notification goes out for a reason (a session waits for your answer, finished a turn
    you have not seen, failed), once, after ``delay_s`` if it still holds then, and never for
    the session on screen. Quiet hours hold back every reason but the ``urgent`` ones; ``z``
    in the TUI mutes a project for an hour.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    reasons: tuple[NotifyReason, ...] = ("waiting", "finished", "failed")
    """What is worth a notification: ``waiting`` (a permission, plan or question for you),
    ``finished`` (a turn ended while you looked elsewhere), ``failed`` (it ended in an error)."""
    delay_s: float = Field(default=10.0, ge=0)
    """Only once the reason has held this long (answered or looked at before: nothing)."""
    quiet_hours: str | None = None
    """``"22:00-07:00"`` (local time; may wrap midnight): only ``urgent`` reasons then."""
    urgent: tuple[NotifyReason, ...] = ("waiting",)
    """Reasons that go out during quiet hours too."""
    sinks: tuple[NotifySink, ...] = ("terminal",)
    """Where: ``terminal`` (the bell and OSC 9/777/99, through tmux), ``desktop``
    (``notify-send``, when installed), ``ntfy`` (POST to ``ntfy_url``), ``command``."""
    ntfy_url: str | None = None
    """An ntfy topic URL (``https://ntfy.sh/my-topic``) for the ``ntfy`` sink."""
    command: tuple[str, ...] = ()
    """Argv of the ``command`` sink (never through a shell); it gets the session, reason, and
    what it asks in ``CCTUI_NOTIFY_*`` environment variables and as its last three words."""

    @field_validator("quiet_hours")
    @classmethod
    def _hours(cls, value: str | None) -> str | None:
        if value is not None:
            quiet_window(value)  # raises ValueError with the reason
        return value

    @model_validator(mode="after")
    def _sinks_configured(self) -> NotifySettings:
        if "ntfy" in self.sinks and not self.ntfy_url:
            raise ValueError("the ntfy sink needs ntfy_url (the topic's URL)")
        if "command" in self.sinks and not self.command:
            raise ValueError("the command sink needs command (its argv, a list)")
        return self


def quiet_window(text: str) -> tuple[int, int]:
    """``"22:00-07:00"`` -> (start, end) in minutes after midnight.

    Raises:
        ValueError: not two ``HH:MM`` times joined by ``-``.
    """
    try:
        start, end = (part.strip() for part in text.split("-"))
        minutes = []
        for part in (start, end):
            hours, mins = part.split(":")
            h, m = int(hours), int(mins)
            if not (0 <= h < 24 and 0 <= m < 60):
                raise ValueError
            minutes.append(h * 60 + m)
    except ValueError:
        raise ValueError(
            f"quiet_hours {text!r}: write it as HH:MM-HH:MM, e.g. 22:00-07:00"
        ) from None
    return minutes[0], minutes[1]


class ModelPrice(BaseModel):
    """A model's price in USD per million tokens (``[prices."model-id"]`` in the config file).

    Overrides genai-prices for that exact model id; unset cache rates follow Anthropic's
    ratios to the input price (5-minute write 1.25x, 1-hour write 2x, read 0.1x).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cache_write_5m: float | None = Field(default=None, ge=0)
    cache_write_1h: float | None = Field(default=None, ge=0)
    cache_read: float | None = Field(default=None, ge=0)


HOST_NAME = r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$"
"""A host's name: what ``ssh`` takes (``box``, ``me@box.lan``) and the list's label."""


class HostConfig(BaseModel):
    """Another machine whose cctui this one shows (``[[hosts]]`` in the config file).

    Only ``command`` reaches it; nothing of this machine's token, state or environment
    locations goes along (SSH does the authentication).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: Annotated[str, Field(pattern=HOST_NAME)]
    """The label on its rows, ``host:NAME`` in the filter, and ``ssh``'s destination by
    default."""
    command: tuple[Annotated[str, Field(min_length=1)], ...] | None = Field(
        default=None, min_length=1
    )
    """The argv that runs its cctui's MCP on stdio (a list, never a shell string); default
    ``["ssh", NAME, "cctui", "bridge", "--start", "--window"]`` (``--window``: its
    permissions are answered from here as its human, not as an MCP client)."""

    @property
    def argv(self) -> tuple[str, ...]:
        """``command``, or the default ``ssh NAME cctui bridge --start --window``."""
        return self.command or ("ssh", self.name, "cctui", "bridge", "--start", "--window")


class Settings(BaseModel):
    """Everything cctui reads at start-up. Passed explicitly; never a global."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    claude_code_path: Path | None = None
    """The ``claude`` binary; ``None`` uses the one bundled with claude-agent-sdk."""
    permission_timeout_ms: int = Field(default=300_000, gt=0)
    """An unanswered permission, plan review or question is denied after this long."""
    max_sessions: int = Field(default=10, ge=1)
    """Working sessions at most (starting or running a turn; one waiting on a human, idle
    or paused holds no slot): a new session past it is queued (``docs/dispatch.md``)."""
    project_max_sessions: dict[str, int] = Field(default_factory=dict)
    """Per project (its label, its directory's name or its path): working sessions at most;
    past it a new session of that project is queued (``[project_max_sessions] api = 1``)."""
    usage_limit_resume: bool = True
    """At the usage limit's reset, send each session paused by it ``usage_limit_continue``;
    off, they stay as they are (idle) and only the queue and schedules wait."""
    usage_limit_continue: str = (
        "Your usage limit has reset. Continue the task you were working on when the limit "
        "was reached; do not repeat work that is already complete."
    )
    """The message that continues a session paused at the usage limit."""
    log_level: LogLevel = "INFO"
    """Level of cctui's log file (never the terminal, never stdout)."""
    event_buffer_size: int = Field(default=500, ge=10)
    """Events kept per session in the ring buffer that ``sinceSeq`` readers page through."""
    default_cwd: Path | None = None
    """Working directory for sessions created without one; ``None`` means cctui's cwd."""
    max_execution_time_ms: int | None = Field(default=None, gt=0)
    """A turn running longer than this is interrupted; ``None`` means no limit."""
    max_message_chars: int = Field(default=100_000, ge=1)
    """The longest prompt or message an MCP client may send (seed 004's
    ``MAX_MESSAGE_SIZE``, 100,000 characters); a longer one is refused whole, never cut.
    The TUI's own prompts are not limited."""
    max_session_duration_ms: int | None = Field(default=None, gt=0)
    """A claude process alive longer than this is ended, and its session says why (seed
    004's ``MAX_SESSION_DURATION``); ``None`` means no limit."""
    backup_enabled: bool = False
    """Keep the previous session registry as ``sessions.json.bak`` before each rewrite
    (seed 004's ``BACKUP_ENABLED``)."""
    doppler_project: str | None = None
    """Seed 004's ``DOPPLER_PROJECT``: the Doppler project its ``start_session`` wraps a
    session in (``doppler run --project P --config C --``) when the call names none."""
    doppler_config: str | None = None
    """Seed 004's ``DOPPLER_CONFIG``: the Doppler config for that wrapping (default ``dev``)."""
    default_permission_mode: PermissionMode | None = None
    """Permission mode for sessions created without one; ``None`` (the default) passes no
    ``--permission-mode``, so the CLI's own configured mode (``settings.json``
    ``permissions.defaultMode``) applies, as seed 002 asks."""
    allowed_tools: tuple[str, ...] = ()
    """Tools pre-approved for every session cctui starts (e.g. ``Read``, ``Grep``)."""
    http_host: Literal["127.0.0.1"] = "127.0.0.1"
    """The MCP HTTP server binds loopback only."""
    http_port: int = Field(default=DEFAULT_HTTP_PORT, ge=0, le=65535)
    """The MCP HTTP server's port; 0 picks any free port (the URL goes to server.json)."""
    tools_profile: ToolsProfile = "full"
    """Which MCP tools the server exposes: full | sessions | projects | menu."""
    compat_tools: bool = True
    """List the seeds' tool names (seed 004's ``start_session`` ... ``stream_output``) in
    ``tools/list`` too; they are callable either way. On by default: an LLM host offers its
    model only the tools it lists, and a client checks a tool's output only against a
    listed schema. ``compat_tools = false`` (or ``--tools full,nocompat``) hides them, for a
    client whose model should not see each session verb twice."""
    tools: ToolGroups = Field(default_factory=ToolGroups)
    """Switch tool groups off in the config file, e.g. ``[tools] sessions = false``."""
    allowed_roots: tuple[Path, ...] = ()
    """Directories MCP clients may start sessions in (``claude_create_session``,
    ``claude_query``, ``invoke_claude_code``, seed 004's start and resume), each with
    everything below it; empty (the default) allows any directory. The TUI is not bound."""
    review_roots: tuple[Path, ...] = ()
    """Directories the review tools may read and write in, besides registered projects;
    empty means ``default_cwd`` (or cctui's cwd)."""
    launch_prefix: LaunchPrefix = ()
    """Run before ``claude`` for every session (e.g. to inject secrets); none by default."""
    project_launch_prefixes: dict[Path, LaunchPrefix] = Field(default_factory=dict)
    """Per project directory: a session whose cwd is inside it uses this prefix instead."""
    templates: dict[str, SessionTemplate] = Field(default_factory=dict)
    """Named session presets (``[templates.review]``), for ``template`` and the TUI form."""
    file_checkpointing: bool = True
    """Sessions cctui starts keep file checkpoints (Claude Code's copies of the files its edit
    tools change, before each prompt), so their files can be rewound; each session records
    whether it had them, and a resume keeps that."""
    claude_config_dir: Path
    """Claude Code's directory (``$CLAUDE_CONFIG_DIR`` or ``~/.claude``)."""
    state_dir: Path
    """cctui's own state: server.json, registry, audit log, log file."""
    cache_dir: Path | None = None
    """cctui's rebuildable caches (the history index): ``$XDG_CACHE_HOME/cctui``; ``None``
    (a Settings built by hand) means ``<state_dir>/cache``."""
    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    """Per model id, prices that override genai-prices' (``[prices."claude-x"] input = 3``)."""
    index_thinking: bool = False
    """The history index also holds assistant thinking blocks (off: they are not searchable;
    changing it rebuilds the index)."""
    mcp_may_persist_rules: bool = False
    """An MCP client's ``allowForProject`` is written to the project's settings at once;
    off, it waits for the human at the TUI to confirm it (and applies to the session only
    when nobody can)."""
    on_quit: Literal["ask", "background", "end"] = "ask"
    """What ``q`` does while a session has a turn in flight: ``ask`` (a modal: keep them
    running in the background, end them, or cancel), ``background`` or ``end`` at once.
    With nothing in flight cctui just exits. A closed terminal always keeps them."""
    background_idle_exit_s: float = Field(default=60.0, ge=0)
    """A window left running in the background exits by itself once no session has had a
    turn in flight, no input has waited and no window has been attached for this long."""
    policy_file: Path | None = None
    """The user's policy (docs/policy.md): ``$XDG_CONFIG_HOME/cctui/policy.toml`` when read
    by ``load_settings``; ``None`` (a Settings built by hand) reads none, so only the shipped
    hard denies and the default authority apply."""
    projects_config: Path | None = None
    """The project registry (seed 000); ``None`` means ``<claude_config_dir>/projects.json``,
    i.e. ``~/.claude/projects.json`` unless ``CLAUDE_CONFIG_DIR`` moves it."""
    hosts: tuple[HostConfig, ...] = ()
    """Other machines shown in the same window (``[[hosts]]``), in the list's order."""

    @field_validator("hosts", mode="after")
    @classmethod
    def _unique_hosts(cls, value: tuple[HostConfig, ...]) -> tuple[HostConfig, ...]:
        names = [h.name for h in value]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"host names must be unique; {', '.join(twice)} is given twice")
        return value

    notify: NotifySettings = Field(default_factory=NotifySettings)
    """When and where the TUI tells you a session needs you (``[notify]``)."""

    @model_validator(mode="before")
    @classmethod
    def _profile_words(cls, data: Any) -> Any:
        # "full,compat": a profile plus the word that lists the seeds' tool names.
        if isinstance(data, dict) and isinstance(data.get("tools_profile"), str):
            profile, compat = parse_profile(data["tools_profile"])
            data = {**data, "tools_profile": profile}
            if compat is not None:
                data["compat_tools"] = compat
        return data

    @field_validator("log_level", mode="before")
    @classmethod
    def _level(cls, value: object) -> object:
        # Any source (env, TOML, flag) may say "warn" or "info": seed 002's own words.
        return log_level(value) if isinstance(value, str) else value

    @field_validator("projects_config", mode="after")
    @classmethod
    def _expand(cls, value: Path | None) -> Path | None:
        # Clients configure it as "~/.claude/projects.json" (JSON args are not shell-expanded).
        return value.expanduser() if value is not None else None

    @property
    def projects_file(self) -> Path:
        """The project registry file."""
        return self.projects_config or self.claude_config_dir / "projects.json"

    @property
    def tool_groups(self) -> frozenset[str]:
        """The tool groups served: the profile's, minus those switched off in ``[tools]``."""
        switches = self.tools.model_dump()
        return frozenset(g for g in PROFILE_GROUPS[self.tools_profile] if switches.get(g, True))

    @property
    def review_root_dirs(self) -> tuple[Path, ...]:
        """``review_roots``, or the default working directory when none is configured."""
        return self.review_roots or (self.default_cwd or Path.cwd(),)

    @property
    def index_file(self) -> Path:
        """The history index (SQLite; mode 0600 in a 0700 directory: it holds transcript text)."""
        return (self.cache_dir or self.state_dir / "cache") / "index.sqlite"

    @property
    def log_file(self) -> Path:
        """cctui's log file."""
        return self.state_dir / "cctui.log"

    @property
    def server_file(self) -> Path:
        """Where the running server publishes its URL, token and pid (mode 0600)."""
        return self.state_dir / "server.json"


def parse_profile(raw: str) -> tuple[str, bool | None]:
    """``--tools`` words: one profile and optionally ``compat`` or ``nocompat``
    (``full,nocompat``), in any order; ``compat`` alone means ``full,compat``. Returns
    (profile, compat), compat ``None`` when neither word is given; an unknown profile is
    returned as is for the model to refuse by name."""
    words = [w.strip().lower() for w in raw.split(",") if w.strip()]
    compat = True if "compat" in words else False if "nocompat" in words else None
    rest = [w for w in words if w not in ("compat", "nocompat")]
    if len(rest) > 1:
        return ",".join(rest), compat
    return (rest[0] if rest else "full"), compat


# Environment variable -> settings field. The names are the seeds' own; where two seeds
# name one setting (MAX_SESSIONS, seed 004's MAX_CONCURRENT_SESSIONS), the later wins.
ENV_VARS: dict[str, str] = {
    "CLAUDE_CODE_PATH": "claude_code_path",
    "PERMISSION_TIMEOUT_MS": "permission_timeout_ms",
    "MAX_SESSIONS": "max_sessions",
    "LOG_LEVEL": "log_level",
    "EVENT_BUFFER_SIZE": "event_buffer_size",
    "CLAUDE_CODE_DEFAULT_CWD": "default_cwd",
    "CLAUDE_CODE_MAX_EXECUTION_TIME": "max_execution_time_ms",
    "CLAUDE_CODE_DEFAULT_PERMISSION_MODE": "default_permission_mode",
    "CLAUDE_CODE_ALLOWED_TOOLS": "allowed_tools",
    "CCTUI_HTTP_PORT": "http_port",
    "CCTUI_TOOLS": "tools_profile",
    "CCTUI_PROJECTS_CONFIG": "projects_config",
    "CCTUI_REVIEW_ROOTS": "review_roots",
    "CCTUI_ALLOWED_ROOTS": "allowed_roots",
    "CCTUI_ON_QUIT": "on_quit",
    # seed 004 (Appendix B)
    "MCP_PORT": "http_port",
    "MCP_LOG_LEVEL": "log_level",
    "MAX_CONCURRENT_SESSIONS": "max_sessions",
    "MAX_SESSION_DURATION": "max_session_duration_ms",
    "MAX_MESSAGE_SIZE": "max_message_chars",
    "STATE_DIR": "state_dir",
    "BACKUP_ENABLED": "backup_enabled",
    "DOPPLER_PROJECT": "doppler_project",
    "DOPPLER_CONFIG": "doppler_config",
    "CCTUI_MCP_MAY_PERSIST_RULES": "mcp_may_persist_rules",
}


def _from_env(env: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    values: dict[str, Any] = {}
    origin: dict[str, str] = {}
    for var, field in ENV_VARS.items():
        raw = env.get(var)
        if raw is None or raw == "":
            continue
        value: Any = raw
        if field == "allowed_tools":
            value = tuple(t.strip() for t in raw.split(",") if t.strip())
        elif field in ("review_roots", "allowed_roots"):
            value = tuple(Path(p) for p in raw.split(os.pathsep) if p.strip())
        elif field == "log_level":
            value = log_level(raw)
        elif field == "state_dir":
            value = Path(raw).expanduser()
        values[field] = value
        origin[field] = f"environment variable {var}"
    return values, origin


def _from_file(path: Path) -> dict[str, Any]:
    try:
        fh = path.open("rb")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from None
    import tomllib  # only with a file to read: compiling its parser's regexes costs ~10 ms

    with fh:
        try:
            return tomllib.load(fh)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML ({exc})") from None
        except OSError as exc:
            raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from None


def load_settings(
    *,
    env: Mapping[str, str] | None = None,
    config_path: Path | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Build Settings from the TOML file, then the environment, then ``overrides`` (flags).

    Raises:
        ConfigError: naming the key and where it came from, for any bad value.
    """
    env = os.environ if env is None else env
    path = config_path or paths.config_file(env)
    file_values = _from_file(path)
    env_values, origin = _from_env(env)
    origin = {k: f"{path} key {k!r}" for k in file_values} | origin
    flag_values = {k: v for k, v in (overrides or {}).items() if v is not None}
    origin |= {k: f"command-line flag for {k}" for k in flag_values}
    merged: dict[str, Any] = {
        "claude_config_dir": paths.claude_config_dir(env),
        "state_dir": paths.state_dir(env),
        "cache_dir": paths.cache_dir(env),
        "policy_file": paths.config_file(env).parent / "policy.toml",
        **file_values,
        **env_values,
        **flag_values,
    }
    try:
        return Settings(**merged)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = str(err["loc"][0]) if err["loc"] else "?"
            where = origin.get(field, f"setting {field!r}")
            if err["type"] == "extra_forbidden":
                problems.append(f"{where}: unknown setting {field!r}")
            else:
                problems.append(f"{where}: {err['msg']} (got {err.get('input')!r})")
        raise ConfigError("bad configuration: " + "; ".join(problems)) from None
