"""The bearer token (kept across restarts so client configs keep working) and private files."""

from __future__ import annotations

import hmac
import json
import os
import secrets
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from cctui.core.policy.clients import CLIENT_KEY, ClientRegistry
from cctui.fs.atomic import write_atomic
from cctui.owner import TOKEN_FILE


def write_private(path: Path, text: str) -> None:
    """Write ``text`` with mode 0600, atomically (temp file + ``os.replace``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text, mode=0o600)


def load_or_create_token(state_dir: Path) -> str:
    """The token in ``state_dir/token``; generated (32 random bytes) on first run."""
    path = state_dir / TOKEN_FILE
    try:
        token = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        token = ""
    if len(token) >= 32:
        if path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)
        return token
    token = secrets.token_urlsafe(32)
    write_private(path, token + "\n")
    return token


def read_server_file(path: Path) -> dict[str, Any] | None:
    """``{"url", "token", "pid"}`` of a running server, or None if absent or unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not {"url", "token", "pid"} <= data.keys():
        return None
    return data


class BearerAuth:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>``:
    the shared token (``server.json``), or a registered client's own (``cctui clients
    add``), whose name it records in the request's state for the tools."""

    def __init__(self, app: ASGIApp, token: str, clients: ClientRegistry | None = None) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()
        self.clients = clients

    def _client(self, given: bytes) -> str | None:
        """The registered client whose token ``given`` carries, or None."""
        if self.clients is None or not given.startswith(b"Bearer "):
            return None
        try:
            token = given[len(b"Bearer ") :].decode("ascii").strip()
        except UnicodeDecodeError:
            return None
        return self.clients.verify(token) if token else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope["headers"]).get(b"authorization", b"")
            state = scope.setdefault("state", {})
            state.pop(CLIENT_KEY, None)  # only this middleware may say who is calling
            shared = hmac.compare_digest(given, self.expected)
            client = None if shared else self._client(given)
            if client is not None:
                state[CLIENT_KEY] = client
            if not shared and client is None:
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer error="invalid_token"'),
                        ],
                    }
                )
                await send(
                    {
                        "type": "http.response.body",
                        "body": (
                            b'{"error":"unauthorized","message":"Missing or wrong bearer token; '
                            b'see cctui mcp-config."}'
                        ),
                    }
                )
                return
        await self.app(scope, receive, send)
