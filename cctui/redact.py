"""Redaction of secrets before anything reaches a log, an error or the audit log."""

from __future__ import annotations

import re
from typing import Any

# Anthropic keys, OAuth tokens, bearer headers and generic `*_KEY=`/`*_TOKEN=` assignments.
_PATTERNS = [
    re.compile(r"sk-ant-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/\-]{8,}=*"),
    re.compile(r"(?i)\b([A-Z0-9_]*(?:API_KEY|TOKEN|SECRET|PASSWORD)[A-Z0-9_]*\s*[=:]\s*)\S+"),
]
_SECRET_KEYS = re.compile(r"(?i)(api[_-]?key|token|secret|password|authorization)")
REDACTED = "[REDACTED]"


def redact_text(text: str, extra_secrets: tuple[str, ...] = ()) -> str:
    """Return ``text`` with known secret shapes and the given literal secrets masked."""
    for secret in extra_secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    for pattern in _PATTERNS:
        text = pattern.sub(lambda m: (m.group(1) if m.groups() else "") + REDACTED, text)
    return text


def redact(value: Any, extra_secrets: tuple[str, ...] = ()) -> Any:
    """Redact recursively through dicts and lists; values under secret-looking keys go whole."""
    if isinstance(value, str):
        return redact_text(value, extra_secrets)
    if isinstance(value, dict):
        return {
            k: REDACTED
            if isinstance(k, str) and _SECRET_KEYS.search(k) and v
            else redact(v, extra_secrets)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact(v, extra_secrets) for v in value]
    return value
