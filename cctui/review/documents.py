"""What the review tools read: caller paths checked against the allowed roots, then
documents and task contracts read with size limits.

Every path goes through cctui's one path policy (``cctui.fs.safepath``): it must lie inside
a registered project or a configured review root before anything is opened, and a call
whose paths do not all pass reads nothing. Files are then opened without following links.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from cctui.errors import CctuiError
from cctui.fs import safepath
from cctui.fs.errors import NotAFile, PathNotAccessible, PathNotFound, PathRefused
from cctui.fs.reading import read_head
from cctui.review.templates import Document

MAX_FILE_CHARS = 100_000
"""Per pasted file; Claude can Read the rest."""
MAX_TOTAL_CHARS = 400_000
"""All pasted files of one prompt together."""
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
            PathNotAllowed: the path policy refuses it (empty, NUL, ``..``, hidden
                characters, ``.git``...) or it lies outside every root.
        """
        text = str(raw)
        roots = self.roots()
        try:
            return safepath.locate(text, roots, base=base).path
        except PathRefused as exc:
            allowed = ", ".join(str(r) for r in roots) or "(none)"
            raise PathNotAllowed(
                f"{what} {safepath.shown(text)} refused ({exc.why}); the allowed roots are "
                f"the registered projects and review roots ({allowed}).",
                suggestion="Register the project (register_project) or add its directory to "
                "review_roots in cctui's config; nothing was read.",
            ) from None

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


def read_document(
    path: Path, label: str, *, required: bool = True, limit: int = MAX_FILE_CHARS
) -> Document:
    """One document (``path`` as ``PathGuard.check`` returned it); a missing one is an
    error when ``required``, else ``text=None``.

    Raises:
        DocumentNotFound: required and missing, a directory, or unreadable.
        PathNotAllowed: a link was swapped in since the check, or the file has hard links.
    """
    try:
        with safepath.open_resolved(path, label) as (fh, _):
            head = read_head(fh, limit)
    except (PathNotFound, NotAFile) as exc:
        if not required and isinstance(exc, PathNotFound):
            return Document(label, None)
        if not required and path.is_dir():
            return Document(label, "(a directory, not included: use Glob and Read)")
        raise DocumentNotFound(
            f"{label} is not a readable file.", suggestion="Check the path and try again."
        ) from None
    except PathRefused as exc:
        raise PathNotAllowed(exc.message, suggestion=exc.suggestion) from None
    except PathNotAccessible as exc:
        raise DocumentNotFound(exc.message) from None
    except OSError as exc:
        raise DocumentNotFound(f"{label} cannot be read ({exc.strerror}).") from None
    if head.binary:
        return Document(label, "(binary file, not included)", False)
    return Document(label, head.text, head.truncated)


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
