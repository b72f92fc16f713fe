"""The SDK pieces the rewind adapter leans on (``SdkDriver._control``, ``_options``).

``ClaudeSDKClient.rewind_files`` drops the CLI's answer and has no dry run, so the driver
sends the control request through the SDK's private ``Query._send_control_request``. An
SDK upgrade that renames it must fail here, not in a user's rewind.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from claude_agent_sdk import ClaudeSDKClient
from claude_agent_sdk._internal.query import Query

from cctui.claude.frames import LaunchSpec, PermissionAnswer, PermissionAsk
from cctui.claude.sdk_driver import SdkDriver


async def _deny(_ask: PermissionAsk) -> PermissionAnswer:
    return PermissionAnswer(allow=False)


def test_the_private_control_sender_is_there() -> None:
    params = inspect.signature(Query._send_control_request).parameters
    assert list(params)[:3] == ["self", "request", "timeout"]
    assert inspect.iscoroutinefunction(Query._send_control_request)
    # What the SDK's own wrapper does: the same request, without dry_run, answer dropped.
    source = inspect.getsource(Query.rewind_files)
    assert '"subtype": "rewind_files"' in source and "_send_control_request" in source
    assert "_query" in inspect.getsource(ClaudeSDKClient.rewind_files)


def test_checkpointing_turns_on_the_sdk_option_and_the_replay(tmp_path: Path) -> None:
    on = SdkDriver(LaunchSpec(cwd=tmp_path, file_checkpointing=True), _deny)
    off = SdkDriver(LaunchSpec(cwd=tmp_path), _deny)
    try:
        with_cp, without = on._options(), off._options()
    finally:
        on._cleanup_wrapper()
        off._cleanup_wrapper()
    assert with_cp.enable_file_checkpointing is True
    assert with_cp.extra_args == {"replay-user-messages": None}
    assert without.enable_file_checkpointing is False and without.extra_args == {}


class _Query:
    def __init__(self, reply: Any) -> None:
        self.reply = reply
        self.sent: list[tuple[dict[str, Any], float]] = []

    async def _send_control_request(
        self,
        request: dict[str, Any],
        timeout: float = 60.0,  # noqa: ASYNC109 (the SDK's own signature)
    ) -> dict[str, Any]:
        self.sent.append((request, timeout))
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply  # type: ignore[no-any-return]


class _Client:
    def __init__(self, reply: Any) -> None:
        self._query = _Query(reply)


def _driver(tmp_path: Path, reply: Any) -> tuple[SdkDriver, _Query]:
    driver = SdkDriver(LaunchSpec(cwd=tmp_path, file_checkpointing=True), _deny)
    client = _Client(reply)
    driver._client = client  # type: ignore[assignment]
    return driver, client._query


async def test_a_dry_run_keeps_the_answer(tmp_path: Path) -> None:
    reply = {"canRewind": True, "filesChanged": ["/p/a.txt"], "insertions": 1, "deletions": 3}
    driver, query = _driver(tmp_path, reply)
    answer = await driver.rewind_files("u-1", dry_run=True)
    assert query.sent[0][0] == {
        "subtype": "rewind_files",
        "user_message_id": "u-1",
        "dry_run": True,
    }
    assert answer.can_rewind and answer.files_changed == ("/p/a.txt",)
    assert (answer.insertions, answer.deletions) == (1, 3)


async def test_a_control_error_becomes_a_refusal(tmp_path: Path) -> None:
    driver, _ = _driver(tmp_path, Exception("No file checkpoint found for this message."))
    answer = await driver.rewind_files("u-1", dry_run=False)
    assert not answer.can_rewind
    assert answer.error == "No file checkpoint found for this message."
