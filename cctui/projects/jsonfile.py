"""A JSON file written atomically under an ``fcntl`` lock, never silently replaced when corrupt.

Used for the project registry and each project's ``session_state.json``. Every update is
read-modify-write under an exclusive lock on a side ``.lock`` file (so two cctui processes,
or a TUI and ``serve``, never lose each other's changes), written to a temporary file in
the same directory, fsynced and ``os.replace``d: a crash at any point leaves the old file or
the new one. A file that does not parse is copied to ``<name>.corrupt-<time>`` once,
reported as ``CorruptFile`` on every read and write, and left in place for a human.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cctui.fs.atomic import locked, temp_glob, write_atomic
from cctui.fs.errors import PathNotAccessible
from cctui.projects.errors import CorruptFile

Data = dict[str, Any]


class JsonFile:
    """One JSON object on disk."""

    def __init__(self, path: Path, *, what: str = "file") -> None:
        self.path = path
        self.what = what
        """How errors name it ("project registry", "session state")."""
        self.lock_path = path.with_name(path.name + ".lock")

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the exclusive lock (creating the directory if needed)."""
        with contextlib.ExitStack() as stack:
            try:
                stack.enter_context(locked(self.lock_path))
            except OSError as exc:
                raise PathNotAccessible(
                    f"Cannot lock the {self.what} {self.path}: {exc.strerror}."
                ) from None
            yield

    def read(self) -> Data | None:
        """The object, or None when the file does not exist. Raises ``CorruptFile``."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise PathNotAccessible(
                f"Cannot read the {self.what} {self.path}: {exc.strerror}."
            ) from None
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise self._corrupt(raw, f"not valid JSON ({exc})") from None
        if not isinstance(data, dict):
            raise self._corrupt(raw, "not a JSON object")
        return data

    def update(self, change: Callable[[Data | None], Data]) -> Data:
        """Read, apply ``change``, write atomically; all under the lock. Returns the new data."""
        with self.locked():
            new = change(self.read())
            self._sweep()
            self._write(new)
            return new

    def _sweep(self) -> None:
        """Remove temp files of writers killed mid-write. Safe under the lock: a live
        writer holds it for as long as its temp file exists."""
        for stale in self.path.parent.glob(temp_glob(self.path)):
            with contextlib.suppress(OSError):
                stale.unlink()

    def _write(self, data: Data) -> None:
        body = json.dumps(data, indent=2, ensure_ascii=False).encode() + b"\n"
        try:
            write_atomic(self.path, body, sync_dir=True)
        except OSError as exc:
            raise PathNotAccessible(
                f"Cannot write the {self.what} {self.path}: {exc.strerror}."
            ) from None

    def _corrupt(self, raw: bytes, why: str) -> CorruptFile:
        backup = self._backup(raw)
        kept = f" A copy is at {backup}." if backup else ""
        return CorruptFile(
            f"The {self.what} {self.path} is corrupt ({why}); cctui will not overwrite it.{kept}",
            suggestion=f"Fix or remove {self.path}, then try again.",
        )

    def _backup(self, raw: bytes) -> Path | None:
        """Copy the bad file once per distinct content (``.corrupt-<time>-<hash>``)."""
        digest = hashlib.sha256(raw).hexdigest()[:8]
        for existing in self.path.parent.glob(f"{self.path.name}.corrupt-*-{digest}"):
            return existing
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        backup = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{digest}")
        try:
            shutil.copy2(self.path, backup)
        except OSError:
            return None
        return backup
