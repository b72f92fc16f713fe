"""The seeds' argument names, mapped onto cctui's parameters before a tool runs.

A client written against seed 004 (snake_case: ``session_id``, ``cwd``, ``team_filter``...)
or seed 003 (``cwd``) calls cctui's tools with its own names; ``translate`` rewrites them.
A seed argument with a meaning cctui supports becomes that parameter; one without a meaning
is dropped only where dropping it cannot surprise the caller (each tool's description says
which), and refused otherwise. Everything else a tool does not take is refused by the server.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from cctui.errors import ValidationFailed
from cctui.mcp_server.schemas.common import MAX_WAIT_MS

Rule = str | Callable[[Any, Mapping[str, Any]], dict[str, Any]]
"""cctui's parameter name, or a function (seed value, all arguments) -> cctui arguments."""


def ignored(value: Any, args: Mapping[str, Any]) -> dict[str, Any]:
    """Accepted and dropped: the seed's option has no effect worth refusing over."""
    return {}


def _refused(why: str, suggestion: str) -> Rule:
    def rule(value: Any, args: Mapping[str, Any]) -> dict[str, Any]:
        raise ValidationFailed(why, suggestion=suggestion)

    return rule


def _only_false(name: str, why: str, suggestion: str) -> Rule:
    """Accepted when off (cctui's behaviour); refused when on, since cctui cannot do it."""

    def rule(value: Any, args: Mapping[str, Any]) -> dict[str, Any]:
        if value in (False, None):
            return {}
        raise ValidationFailed(f"{name}={value!r} is not supported: {why}", suggestion=suggestion)

    return rule


def _wait_ms(value: Any, args: Mapping[str, Any]) -> dict[str, Any]:
    """Seed 004's ``timeout_ms`` on a ``claude_*`` waiting tool: at most that tool's longest
    wait. Not cut unsaid: a wait that runs out answers ``timed_out`` with a note on how to
    go on (``asking.waiting.wait_out``); seed 004's own tools wait the whole time."""
    if isinstance(value, int) and not isinstance(value, bool) and value > MAX_WAIT_MS:
        value = MAX_WAIT_MS
    return {"timeoutMs": value}


def _doppler(value: Any, args: Mapping[str, Any]) -> dict[str, Any]:
    """Seed 004's Doppler wrapping is a launch prefix (``doppler run ... --``)."""
    words = ["doppler", "run"]
    for key, flag in (("doppler_project", "--project"), ("doppler_config", "--config")):
        if args.get(key) is not None:
            words += [flag, args[key]]
    return {"launchPrefix": [*words, "--"]}


def _doppler_config(value: Any, args: Mapping[str, Any]) -> dict[str, Any]:
    return {} if args.get("doppler_project") is not None else _doppler(value, args)


_STATUS_FILTER = {
    "all": None,
    "active": "live",
    "inactive": "completed,interrupted",
    "error": "error",
}


def _status_filter(value: Any, args: Mapping[str, Any]) -> dict[str, Any]:
    """Seed 004's list filter in cctui's status words (``all``: no filter)."""
    if value not in _STATUS_FILTER:
        raise ValidationFailed(
            f"status_filter must be one of {sorted(_STATUS_FILTER)}, not {value!r}."
        )
    status = _STATUS_FILTER[value]
    return {} if status is None else {"status": status}


def _lines(value: Any, args: Mapping[str, Any]) -> dict[str, Any]:
    """Seed 004 stream_output's ``lines``: cctui returns at most 1000."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 1000:
        value = 1000
    return {"outputLines": value}


_NO_RESUME_OVERRIDE = (
    "A session resumes with its own launch prefix (a resumed session keeps its config).",
    "Call resume_session (seed 004's own tool name), which applies the override.",
)

ALIASES: dict[str, dict[str, Rule]] = {
    # seed 004 start_session
    "claude_create_session": {
        "session_id": "sessionId",
        "cwd": "workingDirectory",
        "team_name": "team",
        "teammate_name": "teammate",
        "max_turns": "maxTurns",
        "doppler_project": _doppler,
        "doppler_config": _doppler_config,
        "stream_output": ignored,
        "log_file": _refused(
            "log_file is not supported: cctui does not write session logs to a chosen path.",
            "Call start_session (seed 004's own tool name), which writes the session's output "
            "to log_file, or omit it.",
        ),
    },
    # seed 004 send_message and resume_session
    "claude_send_message": {
        "session_id": "sessionId",
        "cwd": "workingDirectory",
        "wait_for_response": "wait",
        "timeout_ms": _wait_ms,
        "include_context": _only_false(
            "include_context",
            "cctui does not add context to a message.",
            "Call send_message (seed 004's own tool name), which prepends the context, or "
            "claude_sync_context first.",
        ),
        "doppler_project": _refused(*_NO_RESUME_OVERRIDE),
        "doppler_config": _refused(*_NO_RESUME_OVERRIDE),
    },
    # seed 004 kill_session
    "claude_kill_session": {
        "session_id": "sessionId",
        "save_state": ignored,
    },
    # seed 004 wait_for_completion
    "claude_wait": {
        "session_id": "sessionId",
        "timeout_ms": _wait_ms,
        "poll_interval_ms": ignored,
        "check_idle": ignored,
    },
    # seed 004 stream_output
    "claude_get_status": {
        "session_id": "sessionId",
        "lines": _lines,
        "follow": ignored,
    },
    # seed 004 list_sessions
    "claude_list_sessions": {
        "status_filter": _status_filter,
        "team_filter": "team",
        "include_metadata": ignored,
    },
    # seed 004 sync_context
    "claude_sync_context": {"session_id": "sessionId"},
    # seed 003
    "claude_query": {"cwd": "workingDirectory"},
}
"""Per tool: seed argument name -> rule. Only tools a seed maps onto are listed."""

SEED_DEFAULTS: dict[str, dict[str, Any]] = {
    "claude_send_message": {"wait": True},
}
"""Defaults a seed documents that differ from cctui's, applied when a call spells the
seed's names (seed 004's send_message waits for the response unless told not to)."""


def translate(tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """``arguments`` with the seed names of ``tool`` replaced by cctui's parameters.

    Raises:
        ValidationFailed: a seed argument cctui cannot honour, or one given under both its
            seed name and cctui's name with different values.
    """
    rules = ALIASES.get(tool)
    if not rules or not any(name in rules for name in arguments):
        return dict(arguments)
    out = {k: v for k, v in arguments.items() if k not in rules}
    for name, value in arguments.items():
        rule = rules.get(name)
        if rule is None:
            continue
        mapped = {rule: value} if isinstance(rule, str) else rule(value, arguments)
        for key, new in mapped.items():
            if key in out and out[key] != new:
                raise ValidationFailed(
                    f"{name} and {key} are the same argument with different values.",
                    suggestion=f"Pass only one of them ({key} is cctui's name).",
                )
            out[key] = new
    for key, value in SEED_DEFAULTS.get(tool, {}).items():
        out.setdefault(key, value)
    return out
