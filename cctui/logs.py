"""Logging to cctui's log file, with secrets redacted; never to the TUI's terminal or stdout."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from cctui.redact import redact_text


class RedactingFormatter(logging.Formatter):
    """Formats as usual, then masks anything that looks like a key or token."""

    def __init__(self, fmt: str, extra_secrets: tuple[str, ...] = ()) -> None:
        super().__init__(fmt)
        self._secrets = extra_secrets

    def format(self, record: logging.LogRecord) -> str:
        return redact_text(super().format(record), self._secrets)


def configure_logging(log_file: Path, level: str) -> None:
    """Send every logger (ours, mcp's, uvicorn's, the SDK's, warnings) to ``log_file`` only.

    Called before the MCP server is built: ``MCPServer`` would otherwise install a stderr
    handler, and under ``serve --stdio`` or the TUI stray output corrupts the wire or screen.
    """
    log_file.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(log_file, encoding="utf-8")
    os.chmod(log_file, 0o600)
    secrets = tuple(v for k, v in os.environ.items() if k.endswith(("API_KEY", "TOKEN")) and v)
    handler.setFormatter(
        RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s", secrets)
    )
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    # watchfiles logs every batch of file changes at INFO: noise in a file meant for people.
    logging.getLogger("watchfiles").setLevel(max(logging.WARNING, root.level))
    logging.captureWarnings(True)
