"""Errors every room can raise and every front end can render.

Each error carries a stable ``code`` so the MCP server can turn it into
``{code, message, retryable, suggestion}`` and the TUI into a one-line notice.
"""

from __future__ import annotations


class CctuiError(Exception):
    """Base for errors meant to be shown to a user or a client, never as a traceback."""

    code = "internal_error"
    retryable = False

    def __init__(self, message: str, *, suggestion: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.suggestion = suggestion


class ConfigError(CctuiError):
    """A config file, environment variable or flag has a bad value; the message names the key."""

    code = "config_error"


class SessionNotFound(CctuiError):
    """No live, registered or on-disk session has this id."""

    code = "session_not_found"


class SessionNotReady(CctuiError):
    """The session exists but cannot take this request in its current state."""

    code = "session_not_ready"
    retryable = True


class SessionLimitReached(CctuiError):
    """``MAX_SESSIONS`` live processes already run."""

    code = "session_limit"
    retryable = True


class InputNotFound(CctuiError):
    """No pending input has this id (it may have been answered and forgotten)."""

    code = "input_not_found"


class InputAlreadyAnswered(CctuiError):
    """Another channel answered this pending input first."""

    code = "input_already_answered"


class CliNotFound(CctuiError):
    """The ``claude`` binary could not be found or does not run."""

    code = "cli_not_found"

    def __init__(
        self, message: str, *, suggestion: str | None = None, stderr: str | None = None
    ) -> None:
        super().__init__(message, suggestion=suggestion)
        self.stderr = stderr
        """The last lines the CLI wrote to stderr (redacted), if it wrote any."""


class ValidationFailed(CctuiError):
    """Arguments were well-typed but make no sense together."""

    code = "validation_error"


class OperationTimeout(CctuiError):
    """A bounded wait ran out."""

    code = "timeout"
    retryable = True


class LaunchPrefixNotFound(CctuiError):
    """A session's launch prefix names an executable that is not there."""

    code = "launch_prefix_not_found"


class TemplateNotFound(CctuiError):
    """No session template of this name is configured; the message lists the known ones."""

    code = "template_not_found"


class TeamNotFound(CctuiError):
    """No session cctui knows belongs to this team."""

    code = "team_not_found"


class TeammateNotFound(CctuiError):
    """No session of the team has this teammate name."""

    code = "teammate_not_found"


class SettingRefused(CctuiError):
    """The CLI refused a live change (a permission mode or a model); the message is its own."""

    code = "setting_refused"


class RuleNotFound(CctuiError):
    """No permission rule of this text is in the named settings file."""

    code = "rule_not_found"


class RewindUnavailable(CctuiError):
    """Files cannot be put back to before that prompt; the message says why (no file
    checkpoints for the session, none for that prompt, or the CLI's own refusal)."""

    code = "rewind_unavailable"


class BeyondAuthority(CctuiError):
    """An MCP client answered beyond the authority it was given (another client's session,
    a call outside its grant, a hard-denied command, an open breaker). The answer was not
    applied; the input went up the ladder to the human, and the message says why."""

    code = "beyond_authority"
