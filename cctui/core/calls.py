"""``CoreApi`` calls over a wire: how a window attached to the owner reaches the owner's core.

An attached window (``cctui.remote.attached.AttachedCore``) has no core of its own: each
call below is sent by name to the owner (its internal MCP tool ``cctui.owner.CALL_TOOL``),
which runs the same method of its ``SessionManager`` and sends the result back. The
arguments and the result are typed by the ``CoreApi`` Protocol itself (its annotations,
through pydantic), so there is one definition of every call and no second copy of any
feature: a method added to the Protocol and to ``WINDOW_CALLS`` works attached.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Callable
from typing import Any

from pydantic import TypeAdapter, ValidationError

from cctui.core.api import CoreApi
from cctui.errors import ValidationFailed

WINDOW_CALLS = frozenset(
    {
        "create",
        "fork",
        "interactive_command",
        "cycle_permission_mode",
        "set_model",
        "model_options",
        "rewind_files",
        "diff",
        "finish_preview",
        "finish_worktree",
        "rules_for",
        "remove_rule",
        "read_metrics",
        "policy_view",
        "close_breaker",
        "dispatch_board",
        "queue_move",
        "queue_start_now",
        "queue_cancel",
        "schedule_add",
        "schedule_edit",
        "schedule_delete",
        "schedule_run_now",
    }
)
"""What an attached window asks of the owner's core by name (nothing else is run)."""

LOCAL_ONLY = frozenset({"listed"})
"""Parameters that are callbacks into the caller's process: never sent."""


@functools.cache
def _types(method: str) -> tuple[dict[str, TypeAdapter[Any]], TypeAdapter[Any]]:
    if method not in WINDOW_CALLS:
        raise ValidationFailed(f"{method!r} is not a call a window can make.")
    hints = typing.get_type_hints(getattr(CoreApi, method))
    returns = hints.pop("return")
    params = {name: TypeAdapter(hint) for name, hint in hints.items() if name not in LOCAL_ONLY}
    return params, TypeAdapter(returns)


def encode_call(method: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The JSON arguments of ``method`` (callbacks left out)."""
    params, _ = _types(method)
    return {k: params[k].dump_python(v, mode="json") for k, v in arguments.items() if k in params}


def decode_call(method: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The typed arguments of ``method``; anything not in its signature is refused."""
    params, _ = _types(method)
    unknown = sorted(set(arguments) - set(params))
    if unknown:
        raise ValidationFailed(f"{method} takes no {', '.join(unknown)}.")
    try:
        return {k: params[k].validate_python(v) for k, v in arguments.items()}
    except ValidationError as exc:
        raise ValidationFailed(f"{method}: {exc.errors()[0]['msg']}") from None


def encode_result(method: str, value: object) -> Any:
    """``method``'s result as JSON."""
    return _types(method)[1].dump_python(value, mode="json")


def decode_result(method: str, value: object) -> Any:
    """``method``'s result from JSON."""
    try:
        return _types(method)[1].validate_python(value)
    except ValidationError as exc:
        raise ValidationFailed(
            f"the owner's {method} said what this cctui cannot read: {exc.errors()[0]['msg']}"
        ) from None


async def run_call(core: CoreApi, method: str, arguments: dict[str, Any], by: str) -> Any:
    """Run ``method`` on ``core`` for a window (its ``by`` is the window's); JSON result."""
    kwargs = decode_call(method, arguments)
    if "by" in _types(method)[0]:
        kwargs["by"] = by
    call: Callable[..., Any] = getattr(core, method)
    result = call(**kwargs)
    if hasattr(result, "__await__"):
        result = await result
    return encode_result(method, result)
