"""Secrets never reach logs, errors or the audit log."""

from __future__ import annotations

from cctui.redact import REDACTED, redact, redact_text


def test_known_secret_shapes_are_masked() -> None:
    text = (
        "key sk-ant-api03-abcdefghijklmnop and Authorization: Bearer abcdefghijkl123 "
        "ANTHROPIC_API_KEY=sk-test-123456 GITHUB_TOKEN: ghp_abcdef"
    )
    out = redact_text(text)
    for secret in (
        "sk-ant-api03-abcdefghijklmnop",
        "abcdefghijkl123",
        "sk-test-123456",
        "ghp_abcdef",
    ):
        assert secret not in out
    assert out.count(REDACTED) == 4


def test_literal_secrets_and_secret_keys_are_masked_recursively() -> None:
    value = {
        "env": {"ANTHROPIC_API_KEY": "x" * 10},
        "args": ["run", "hunter2-token-value"],
        "command": "echo ok",
    }
    out = redact(value, extra_secrets=("hunter2-token-value",))
    assert out == {
        "env": {"ANTHROPIC_API_KEY": REDACTED},
        "args": ["run", REDACTED],
        "command": "echo ok",
    }
