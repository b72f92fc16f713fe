"""What the review tools read: caller paths checked against the allowed roots, then
documents and task contracts read with size limits.

Every path is resolved (symlinks followed) and must lie inside a registered project or a
configured review root before anything is opened; a call whose paths do not all pass reads
nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from cctui.errors import CctuiError
from cctui.review.templates import Document

MAX_FILE_CHARS = 100_000
"""Per pasted file; Claude can Read the rest."""
MAX_TOTAL_CHARS = 400_000
"""All pasted files of one prompt together."""
_BINARY_PROBE = 8192

RootsProvider = Callable[[], Iterable[Path]]
"""Returns the directories review paths may lie in (asked on every call: projects change)."""


class PathNotAllowed(CctuiError):
    """A path lies outside every registered project and configured review root."""

    code = "path_not_allowed"


class DocumentNotFound(CctuiError):
    """A document the review needs does not exist or is not a readable file."""

    code = "document_not_found"


class InvalidContract(CctuiError):
    """The task contract is not a JSON object."""

    code = "invalid_contract"


class PathGuard:
    """Resolves caller paths and keeps them inside the allowed roots."""

    def __init__(self, roots: RootsProvider) -> None:
        self._roots = roots

    def roots(self) -> list[Path]:
        """The allowed roots, resolved; the first is the base for relative caller paths."""
        seen: dict[Path, None] = {}
        for root in self._roots():
            seen.setdefault(Path(os.path.realpath(root)), None)
        return list(seen)

    def check(self, raw: str | Path, *, base: Path | None = None, what: str = "path") -> Path:
        """``raw`` resolved (relative to ``base``, else the first root) if inside a root.

        Raises:
            PathNotAllowed: empty, NUL bytes, or outside every root.
        """
        text = str(raw)
        roots = self.roots()
        if not text.strip() or "\x00" in text:
            raise PathNotAllowed(f"{what} {text!r} is not a usable path.")
        path = Path(text)
        if not path.is_absolute():
            anchor = base or (roots[0] if roots else Path.cwd())
            path = anchor / path
        resolved = Path(os.path.realpath(path))
        if not any(resolved.is_relative_to(root) for root in roots):
            shown = ", ".join(str(r) for r in roots) or "(none)"
            raise PathNotAllowed(
                f"{what} {text} is outside every registered project and review root ({shown}).",
                suggestion="Register the project (register_project) or add its directory to "
                "review_roots in cctui's config; nothing was read.",
            )
        return resolved

    def project_root(self, document: Path) -> Path:
        """Where a document's relative paths point and Claude runs: the parent of a
        ``_handoff`` directory, else the innermost root containing the document."""
        roots = [r for r in self.roots() if document.is_relative_to(r)]
        if document.parent.name == "_handoff" and any(
            document.parent.parent.is_relative_to(r) for r in roots
        ):
            return document.parent.parent
        if roots:
            return max(roots, key=lambda r: len(r.parts))
        return document.parent


def _read_limited(path: Path, limit: int) -> tuple[str, bool]:
    with path.open("rb") as fh:
        head = fh.read(limit + 1)
    if b"\x00" in head[:_BINARY_PROBE]:
        return "(binary file, not included)", False
    text = head.decode("utf-8", errors="replace")
    return (text[:limit], True) if len(text) > limit else (text, False)


def read_document(
    path: Path, label: str, *, required: bool = True, limit: int = MAX_FILE_CHARS
) -> Document:
    """One document; a missing one is an error when ``required``, else ``text=None``.

    Raises:
        DocumentNotFound: required and missing, a directory, or unreadable.
    """
    if not path.is_file():
        if not required and not path.exists():
            return Document(label, None)
        if not required and path.is_dir():
            return Document(label, "(a directory, not included: use Glob and Read)")
        raise DocumentNotFound(
            f"{label} is not a readable file.", suggestion="Check the path and try again."
        )
    try:
        text, truncated = _read_limited(path, limit)
    except OSError as exc:
        raise DocumentNotFound(f"{label} cannot be read ({exc.strerror}).") from None
    return Document(label, text, truncated)


def read_documents(paths: Iterable[tuple[Path, str]]) -> list[Document]:
    """Several optional documents under one total budget (the rest are truncated)."""
    docs: list[Document] = []
    budget = MAX_TOTAL_CHARS
    for path, label in paths:
        doc = read_document(path, label, required=False, limit=max(0, min(MAX_FILE_CHARS, budget)))
        if doc.text is not None:
            budget -= len(doc.text)
        docs.append(doc)
    return docs


def load_contract(path: Path, label: str) -> dict[str, Any]:
    """The task contract as a JSON object.

    Raises:
        DocumentNotFound, InvalidContract.
    """
    doc = read_document(path, label, limit=MAX_FILE_CHARS)
    if doc.truncated:
        raise InvalidContract(f"{label} is larger than {MAX_FILE_CHARS} characters.")
    try:
        data = json.loads(doc.text or "")
    except ValueError as exc:
        raise InvalidContract(
            f"{label} is not valid JSON ({exc}).",
            suggestion="The contract must be a JSON object (TASK_CONTRACT.json).",
        ) from None
    if not isinstance(data, dict):
        raise InvalidContract(f"{label} is JSON but not an object.")
    return data


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        out: list[str] = []
        for item in value:
            if isinstance(item, str):
                out.append(item)
            elif isinstance(item, dict):
                name = item.get("path") or item.get("file") or item.get("file_path")
                if isinstance(name, str):
                    out.append(name)
        return out
    return []


def changed_files(contract: dict[str, Any]) -> list[str]:
    """The files a contract says the task changed, in the places Agent Hub contracts put them:
    ``changed_files`` / ``files_changed`` at the top, under ``handoff_data`` or under
    ``specification`` (strings or ``{"path": ...}`` objects), plus ``specification.target_file``.
    """
    found: list[str] = []
    places: list[dict[str, Any]] = [contract]
    for key in ("handoff_data", "specification"):
        sub = contract.get(key)
        if isinstance(sub, dict):
            places.append(sub)
    for place in places:
        for key in ("changed_files", "files_changed", "target_files", "target_file"):
            found.extend(_strings(place.get(key)))
    return list(dict.fromkeys(found))


def task_id(contract: dict[str, Any]) -> str | None:
    """The contract's ``task_id`` (or ``id``), if it has one."""
    value = contract.get("task_id", contract.get("id"))
    return str(value) if isinstance(value, str | int) else None
