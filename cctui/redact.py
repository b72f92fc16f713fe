"""Redaction of secrets before anything reaches a log, an error or the audit log.

Shapes: Anthropic/OpenAI ``sk-`` keys, GitHub tokens (``ghp_``, ``gho_``, ``github_pat_``
...), ``Authorization`` headers of any scheme (Bearer, Basic, token), ``x-api-key``,
passwords in URLs (``scheme://user:password@host``) and in ``curl -u user:password``,
and assignments whose key *ends* in a secret word (``API_KEY=``, ``"OPENAI_API_KEY": "…"``,
``GITHUB_TOKEN:``), quoted or not.
Counters such as ``max_tokens`` or ``input_tokens`` are not secrets and are kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

REDACTED = "[REDACTED]"

# A key that names a secret: it must end in one of these words ("max_tokens" does not).
_SECRET_WORD = (
    r"(?:api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|token|secret|"
    r"password|passwd|credentials?)"
)
# A value, unless an earlier rule already masked it.
_VALUE = r"""(?!\[REDACTED\])(?P<value>"[^"\n]*"|'[^'\n]*'|[^\s"',;}\]]+)"""


def _keep_quotes(match: re.Match[str]) -> str:
    """Replace the ``value`` group, keeping the text around it and its quotes."""
    value = match.group("value")
    quote = value[0] if value[:1] in ("'", '"') and len(value) > 1 else ""
    start, end = match.span("value")
    whole = match.group(0)
    offset = match.start()
    return whole[: start - offset] + quote + REDACTED + quote + whole[end - offset :]


def _whole(_match: re.Match[str]) -> str:
    return REDACTED


_RULES: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    # Headers first: their value may contain a scheme word and a space.
    (
        re.compile(
            r"(?i)\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?"
            r"(?:(?:bearer|basic|token|digest)\s+)?" + _VALUE
        ),
        _keep_quotes,
    ),
    (re.compile(r"(?i)\bbearer\s+" + _VALUE), _keep_quotes),
    (re.compile(r"(?i)\bx-api-key[\"']?\s*[:=]\s*" + _VALUE), _keep_quotes),
    # scheme://user:password@host: only the password goes.
    (re.compile(r"(?i)\b[a-z][a-z0-9+.\-]*://[^\s/:@]*:(?P<value>[^\s/@]+)@"), _keep_quotes),
    (
        re.compile(
            r"(?i)\b[A-Za-z0-9_.\-]*" + _SECRET_WORD + r"[\"']?\s*[=:]\s*" + _VALUE,
        ),
        _keep_quotes,
    ),
    # curl -u user:password / --user user:password (wget's --password is a key above).
    (re.compile(r"(?:^|\s)(?:-u|--user)[\s=]+[\"']?[^\s:\"']*:" + _VALUE), _keep_quotes),
    (re.compile(r"sk-ant-[A-Za-z0-9_\-]{8,}"), _whole),
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{16,}"), _whole),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"), _whole),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"), _whole),
]
_SECRET_KEY = re.compile(r"(?i)(?:" + _SECRET_WORD + r"|authorization)$")
# An argv flag naming a secret (``--token``, ``--api-key``): the next word is its value.
_SECRET_FLAG = re.compile(r"(?i)^--?[a-z0-9_\-]*" + _SECRET_WORD + r"$")


def redact_text(text: str, extra_secrets: tuple[str, ...] = ()) -> str:
    """Return ``text`` with known secret shapes and the given literal secrets masked."""
    for secret in extra_secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    for pattern, replace in _RULES:
        text = pattern.sub(replace, text)
    return text


def is_secret_key(key: str) -> bool:
    """A mapping key whose value is a secret (``GITHUB_TOKEN``, ``x-api-key``, not
    ``max_tokens``)."""
    return bool(_SECRET_KEY.search(key.strip()))


def redact(value: Any, extra_secrets: tuple[str, ...] = ()) -> Any:
    """Redact recursively through dicts and lists; values under secret-looking keys go whole."""
    if isinstance(value, str):
        return redact_text(value, extra_secrets)
    if isinstance(value, dict):
        return {
            k: REDACTED
            if isinstance(k, str) and is_secret_key(k) and v
            else redact(v, extra_secrets)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        # Argument lists (a launch prefix such as ``doppler run --token X --``) carry a
        # secret as the word after its flag.
        out: list[Any] = []
        after_flag = False
        for item in value:
            out.append(REDACTED if after_flag and item else redact(item, extra_secrets))
            after_flag = isinstance(item, str) and _SECRET_FLAG.match(item) is not None
        return out
    return value
