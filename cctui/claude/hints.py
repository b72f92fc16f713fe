"""What to do about a failed turn, where the CLI's own words name a step of its own UI.

The CLI answers a turn it could not authenticate with "Not logged in · Please run /login"
(or "Invalid API key · …"): ``/login`` is a command of Claude Code's terminal UI, which a
person at cctui's window, an MCP client or a host's window does not have in front of them.
"""

from __future__ import annotations

LOGIN_HINT = (
    "claude could not authenticate on this machine: log in by running `claude` in a "
    "terminal there and typing /login, or give cctui a valid ANTHROPIC_API_KEY; then send "
    "the message again"
)


def with_hint(message: str, api_error: str | None) -> str:
    """``message`` (the failed turn's text), with what to do when the CLI's own words
    cannot be followed from here; as it is otherwise."""
    if api_error == "authentication_failed":
        return f"{message} ({LOGIN_HINT})"
    return message
