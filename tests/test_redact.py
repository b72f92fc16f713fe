"""Secrets never reach logs, errors or the audit log."""

from __future__ import annotations

from cctui import redact as redaction
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


SHAPES = {
    '{"OPENAI_API_KEY": "sk-proj-abcdef123456"}': "sk-proj-abcdef123456",
    "'AWS_SECRET_ACCESS_KEY': 'wJalrXUtnFEMIK7MDENG'": "wJalrXUtnFEMIK7MDENG",
    "x-api-key: abcd1234efgh5678": "abcd1234efgh5678",
    "X-Api-Key: abcd1234efgh5678": "abcd1234efgh5678",
    "Authorization: Basic dXNlcjpwYXNzd29yZA==": "dXNlcjpwYXNzd29yZA==",
    "authorization: token gho_abcdefghij": "gho_abcdefghij",
    "git clone https://alice:s3cr3tpass@github.com/x/y.git": "s3cr3tpass",
    "postgres://app:hunter2pw@db:5432/prod": "hunter2pw",
    "curl -u alice:s3cr3tpass https://api.example.com": "s3cr3tpass",
    "curl --user=bob:pa55word-x https://api.example.com": "pa55word-x",
    "use ghp_" + "a" * 36 + " now": "ghp_" + "a" * 36,
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz": (
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
    ),
    "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.x'": "eyJhbGciOiJIUzI1NiJ9",
}
"""Secret-shaped texts, each with the secret that must not survive."""


def test_more_secret_shapes_are_masked() -> None:
    for text, secret in SHAPES.items():
        out = redact_text(text)
        assert secret not in out, (text, out)
        assert REDACTED in out, text
    assert "alice" in redact_text("https://alice:s3cr3tpass@github.com/")  # only the password


def test_harmless_token_words_are_kept() -> None:
    for text in ("max_tokens=4096", '{"max_tokens": 4096}', "input_tokens: 12", "tokenizer"):
        assert redact_text(text) == text
    value = {"max_tokens": 4096, "usage": {"output_tokens": 7, "cache_read_input_tokens": 3}}
    assert redact(value) == value
    assert redact({"github_token": "abc", "password": "pw"}) == {
        "github_token": REDACTED,
        "password": REDACTED,
    }


def test_argument_lists_hide_the_word_after_a_secret_flag() -> None:
    argv = ["doppler", "run", "--token", "dp.st.dev.abc", "--project", "api", "--"]
    assert redact(argv) == ["doppler", "run", "--token", REDACTED, "--project", "api", "--"]
    assert redact(["tool", "--api-key", "k1", "-password", "p", "--max-tokens", "5"]) == [
        "tool",
        "--api-key",
        REDACTED,
        "-password",
        REDACTED,
        "--max-tokens",
        "5",
    ]


def test_the_word_check_before_each_shape_never_changes_what_is_masked() -> None:
    """Each shape is only searched for in a text holding one of its words; searching every
    text for every shape (the slow way) must give the same result."""

    def every_shape(text: str) -> str:
        for rule in redaction._RULES:
            text = rule.pattern.sub(rule.replace, text)
        return text

    texts = [
        *SHAPES,
        "KEY sk-ANT-api03-abcdefghijklmnop AUTHORIZATION: BEARER abcdefghijkl123",
        "PASSWORD=hunter2 Credentials: 'x' PRIVATE-KEY=abc Passwd: p ACCESS_KEY=k",
        "GHP_" + "a" * 36 + " Github_Pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
        "HTTPS://Alice:S3cret@Example.com -U alice:pw --USER=bob:pw",
        "X-API-KEY: abcd1234efgh5678 Proxy-Authorization: Digest abc",
        "X-Auth: BEARER abcdefghijkl123 and sk-ant-abcdefgh",
        "max_tokens=4096 tokenizer 02161bba-b087-4381-a686-4b02506d0ec4 Turn 5: say OK.",
    ]
    for text in texts:
        assert redact_text(text) == every_shape(text), text
    for rule in redaction._RULES:  # the words are what the check compares: lowercase
        assert all(word == word.lower() for word in rule.needs), rule.pattern.pattern


def test_every_secret_key_spelling_holds_one_of_the_checked_words() -> None:
    """A spelling added to the secret-key pattern without its word would never be searched."""
    spellings = redaction._SECRET_WORD.removeprefix("(?:").removesuffix(")").split("|")
    for spelling in spellings:
        literal = spelling.replace("[_-]?", "").replace("s?", "")
        assert any(word in literal for word in redaction._SECRET_WORDS), spelling
