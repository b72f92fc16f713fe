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
from typing import Any, NamedTuple

REDACTED = "[REDACTED]"

# A key that names a secret: it must end in one of these words ("max_tokens" does not).
_SECRET_WORD = (
    r"(?:api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|token|secret|"
    r"password|passwd|credentials?)"
)
# Lowercase words each spelling above contains (kept beside it: see ``_Rule.needs``).
_SECRET_WORDS = ("key", "token", "secret", "password", "passwd", "credential")
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


class _Rule(NamedTuple):
    pattern: re.Pattern[str]
    replace: Callable[[re.Match[str]], str]
    needs: tuple[str, ...]
    """Lowercase words every match contains: a text holding none of them is not searched.
    Most text holds no secret, and ten searches of every string of every audit line and
    log record cost more than the rest of writing them."""


_RULES: list[_Rule] = [
    # Headers first: their value may contain a scheme word and a space.
    _Rule(
        re.compile(
            r"(?i)\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?"
            r"(?:(?:bearer|basic|token|digest)\s+)?" + _VALUE
        ),
        _keep_quotes,
        ("authorization",),
    ),
    _Rule(re.compile(r"(?i)\bbearer\s+" + _VALUE), _keep_quotes, ("bearer",)),
    _Rule(re.compile(r"(?i)\bx-api-key[\"']?\s*[:=]\s*" + _VALUE), _keep_quotes, ("x-api-key",)),
    # scheme://user:password@host: only the password goes.
    _Rule(
        re.compile(r"(?i)\b[a-z][a-z0-9+.\-]*://[^\s/:@]*:(?P<value>[^\s/@]+)@"),
        _keep_quotes,
        ("://",),
    ),
    _Rule(
        re.compile(r"(?i)\b[A-Za-z0-9_.\-]*" + _SECRET_WORD + r"[\"']?\s*[=:]\s*" + _VALUE),
        _keep_quotes,
        _SECRET_WORDS,
    ),
    # curl -u user:password / --user user:password (wget's --password is a key above).
    _Rule(
        re.compile(r"(?:^|\s)(?:-u|--user)[\s=]+[\"']?[^\s:\"']*:" + _VALUE),
        _keep_quotes,
        ("-u",),
    ),
    _Rule(re.compile(r"sk-ant-[A-Za-z0-9_\-]{8,}"), _whole, ("sk-ant-",)),
    _Rule(re.compile(r"\bsk-[A-Za-z0-9_\-]{16,}"), _whole, ("sk-",)),
    _Rule(re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"), _whole, ("gh",)),
    _Rule(re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"), _whole, ("github_pat_",)),
]
_SECRET_KEY = re.compile(r"(?i)(?:" + _SECRET_WORD + r"|authorization)$")
# An argv flag naming a secret (``--token``, ``--api-key``): the next word is its value.
_SECRET_FLAG = re.compile(r"(?i)^--?[a-z0-9_\-]*" + _SECRET_WORD + r"$")


def redact_text(text: str, extra_secrets: tuple[str, ...] = ()) -> str:
    """Return ``text`` with known secret shapes and the given literal secrets masked."""
    for secret in extra_secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    lowered = text.lower()
    for rule in _RULES:
        if any(word in lowered for word in rule.needs):
            text = rule.pattern.sub(rule.replace, text)
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
