"""MCP clients told apart by their own token (``cctui clients add NAME``).

Each registered client has a name, the SHA-256 of its token (the token itself is printed
once and never stored) and a grant (``ClientGrant``). They are kept in
``<state_dir>/clients.json`` (mode 0600, written atomically) and re-read when the file
changes, so ``cctui clients add`` works while cctui runs.

A client's self-declared name (MCP ``clientInfo.name``) is never trusted: only the token
says which registered client is calling. Clients holding the shared token of
``server.json`` keep the default authority (the sessions they created).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cctui.core.policy.model import ClientGrant
from cctui.errors import ValidationFailed
from cctui.fs.atomic import write_atomic

CLIENTS_FILE = "clients.json"
CLIENT_KEY = "cctui.client"
"""Where the HTTP bearer check leaves the registered client a request's token belongs to
(in the ASGI scope's ``state``; the MCP tools read it from the request)."""
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")


class ClientRecord(BaseModel):
    """One registered client."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str
    token_sha256: str
    """The token's SHA-256 (hex); the token is 32 random bytes, so a fast hash is enough."""
    created_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    grant: ClientGrant = Field(default_factory=ClientGrant)
    """What it may answer beyond its own sessions (merged with the policy's
    ``[clients.NAME]``)."""


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class ClientRegistry:
    """``clients.json``: add, remove, list, and which client a token belongs to."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / CLIENTS_FILE
        self._stamp: tuple[int, int] | None = None
        self._records: dict[str, ClientRecord] = {}
        self.problem: str | None = None
        """Why the file could not be read (then no token is recognised)."""

    def records(self) -> list[ClientRecord]:
        """Every registered client, by name."""
        self._refresh()
        return sorted(self._records.values(), key=lambda r: r.name)

    def names(self) -> frozenset[str]:
        """The registered names (a shared-token client may not pass for one of them)."""
        self._refresh()
        return frozenset(self._records)

    def get(self, name: str) -> ClientRecord | None:
        """The client registered as ``name``."""
        self._refresh()
        return self._records.get(name)

    def verify(self, token: str) -> str | None:
        """The name of the client holding ``token``, or None."""
        self._refresh()
        digest = _digest(token)
        found = None
        for record in self._records.values():  # every record compared: no early exit
            if hmac.compare_digest(record.token_sha256, digest):
                found = record.name
        return found

    def add(self, name: str, grant: ClientGrant | None = None, *, replace: bool = False) -> str:
        """Register ``name`` with a new token (returned once, never stored).

        Raises:
            ValidationFailed: a bad name, or one already registered (without ``replace``).
        """
        if not _NAME.match(name):
            raise ValidationFailed(
                f"{name!r} is not a client name.",
                suggestion="Letters, digits, '.', '_' and '-', at most 63, starting with a "
                "letter or digit.",
            )
        self._refresh()
        if name in self._records and not replace:
            raise ValidationFailed(
                f"A client named {name!r} is registered already.",
                suggestion="cctui clients remove it first, or pass --replace for a new token.",
            )
        token = "cct_" + secrets.token_urlsafe(32)
        self._records[name] = ClientRecord(
            name=name, token_sha256=_digest(token), grant=grant or ClientGrant()
        )
        self._write()
        return token

    def remove(self, name: str) -> bool:
        """Forget ``name`` (its token stops working); whether it was registered."""
        self._refresh()
        if self._records.pop(name, None) is None:
            return False
        self._write()
        return True

    def _write(self) -> None:
        data = {"clients": [r.model_dump(mode="json") for r in self._records.values()]}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, json.dumps(data, indent=2) + "\n", mode=0o600)
        self._stamp = None  # re-read (and re-stamp) on the next use

    def _refresh(self) -> None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            self._stamp, self._records, self.problem = None, {}, None
            return
        except OSError as exc:
            self._records, self.problem = {}, f"cannot read {self.path}: {exc}"
            return
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp == self._stamp:
            return
        self._stamp = stamp
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            records = [ClientRecord.model_validate(r) for r in raw.get("clients", [])]
        except (OSError, ValueError, AttributeError, ValidationError) as exc:
            # Unreadable: no token is recognised (those clients are refused at the door),
            # rather than guessing who is who.
            self._records, self.problem = {}, f"{self.path} is not usable: {exc}"
            return
        self._records = {r.name: r for r in records}
        self.problem = None
