"""The project registry: ``~/.claude/projects.json`` (``--projects-config``), in seed 000's format.

``{"projects": [{"id", "name", "rootPath", "defaultBranch", "specPaths", "claudeStatePath",
"active", "created", "lastAccessed"}]}``. Keys cctui does not know are kept as they are, so
another tool sharing the file loses nothing. Reads are cached by the file's mtime and size.
"""

from __future__ import annotations

import os
import re
import time
import unicodedata
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from cctui.errors import ValidationFailed
from cctui.fs.errors import PathNotAccessible, PathNotFound
from cctui.projects.errors import CorruptFile, DuplicateProject, ProjectNotFound
from cctui.projects.jsonfile import Data, JsonFile
from cctui.timestamps import iso_z

ID_PATTERN = r"^[a-z0-9-]+$"
DEFAULT_SPEC_PATHS = ("docs/", "specs/")
TOUCH_EVERY_S = 60.0
"""``lastAccessed`` is written at most this often per project (each write is an fsync)."""


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


class Project(BaseModel):
    """One registered project."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="allow", defer_build=True
    )

    id: str = Field(pattern=ID_PATTERN, max_length=64)
    """Stable id used by every tool (``projectId``)."""
    name: str
    """Human-readable name."""
    root_path: str
    """Absolute path of the project's root directory."""
    default_branch: str | None = None
    """The git branch new work starts from, when the root is a repository."""
    spec_paths: list[str] = Field(default_factory=lambda: list(DEFAULT_SPEC_PATHS))
    """Relative directories holding specs and docs (the ``/docs`` resource reads them)."""
    claude_state_path: str = ".claude/"
    """Where ``session_state.json`` lives, relative to the root."""
    active: bool = True
    """Inactive projects are listed only with ``includeInactive``."""
    created: datetime = Field(default_factory=_now)
    """When it was registered."""
    last_accessed: datetime | None = None
    """When a tool last used it (recorded at most once a minute)."""

    @property
    def root(self) -> Path:
        """``root_path`` as a Path."""
        return Path(self.root_path)


def slug(name: str) -> str:
    """An id derived from a name: ``My Application`` -> ``my-application``."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    out = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")
    return out[:48] or "project"


def check_root(root_path: str) -> Path:
    """The absolute, resolved root; raises if it is missing, not a directory or unreadable."""
    path = Path(root_path).expanduser()
    if not path.is_absolute():
        raise PathNotFound(
            f"rootPath {root_path!r} is not absolute.",
            suggestion="Give the absolute path of the project directory.",
        )
    if not path.exists():
        raise PathNotFound(
            f"{path} does not exist.",
            suggestion=f"Create it first (mkdir -p {path}), then register it.",
        )
    if not path.is_dir():
        raise PathNotFound(f"{path} is not a directory.", suggestion="Register a directory.")
    if not os.access(path, os.R_OK | os.X_OK):
        raise PathNotAccessible(
            f"{path} is not readable by this user.",
            suggestion="Fix its permissions (chmod u+rx) or register another directory.",
        )
    resolved = path.resolve()
    if resolved == Path(resolved.anchor):
        raise PathNotAccessible(
            f"{path} is the filesystem root; a project there would expose the whole machine.",
            suggestion="Register the project's own directory.",
        )
    return resolved


class ProjectRegistry:
    """Load, register and touch projects in the registry file."""

    def __init__(self, path: Path) -> None:
        self.file = JsonFile(path, what="project registry")
        self._cache: tuple[tuple[int, int], list[Project]] | None = None
        self._touched: dict[str, float] = {}

    @property
    def path(self) -> Path:
        """The registry file."""
        return self.file.path

    def _parse(self, data: Data | None) -> list[Project]:
        if data is None:
            return []
        raw = data.get("projects", [])
        if not isinstance(raw, list):
            raise CorruptFile(f"The project registry {self.path}: 'projects' is not a list.")
        try:
            return [Project.model_validate(p) for p in raw]
        except ValidationError as exc:
            raise CorruptFile(
                f"The project registry {self.path} has an invalid entry: "
                f"{exc.errors()[0]['loc']} {exc.errors()[0]['msg']}.",
                suggestion=f"Fix or remove the entry in {self.path}.",
            ) from None

    def all(self) -> list[Project]:
        """Every project, in file order (cached until the file changes)."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            self._cache = None
            return []
        except OSError as exc:
            raise PathNotAccessible(f"Cannot read {self.path}: {exc.strerror}.") from None
        key = (st.st_mtime_ns, st.st_size)
        if self._cache is not None and self._cache[0] == key:
            return list(self._cache[1])
        projects = self._parse(self.file.read())
        self._cache = (key, projects)
        return list(projects)

    def get(self, project_id: str) -> Project:
        """The project with this id; ``ProjectNotFound`` lists the ones that exist."""
        for project in self.all():
            if project.id == project_id:
                return project
        known = [p.id for p in self.all()]
        listing = ", ".join(known[:20]) if known else "none yet"
        raise ProjectNotFound(
            f"Project {project_id!r} is not registered (registered: {listing}).",
            suggestion="Call list_projects, or register_project(name, rootPath) to add it.",
        )

    def free_id(self, wanted: str) -> str:
        """``wanted``, or ``wanted-2``, ``wanted-3``... whichever is not taken."""
        taken = {p.id for p in self.all()}
        if wanted not in taken:
            return wanted
        n = 2
        while f"{wanted}-{n}" in taken:
            n += 1
        return f"{wanted}-{n}"

    def register(
        self,
        name: str,
        root_path: str,
        *,
        project_id: str | None = None,
        spec_paths: list[str] | None = None,
        overwrite: bool = False,
        default_branch: str | None = None,
    ) -> Project:
        """Add (or, with ``overwrite``, replace) a project. Raises ``DuplicateProject``."""
        root = check_root(root_path)
        wanted = project_id or slug(name)
        if project_id is None:
            wanted = self.free_id(wanted)
        project = Project(
            id=wanted,
            name=name,
            root_path=str(root),
            default_branch=default_branch,
            spec_paths=list(spec_paths) if spec_paths is not None else list(DEFAULT_SPEC_PATHS),
            last_accessed=_now(),
        )

        def change(data: Data | None) -> Data:
            data = dict(data or {})
            entries = list(data.get("projects", []))
            existing = self._parse({"projects": entries})
            at = next((i for i, p in enumerate(existing) if p.id == wanted), None)
            if at is not None and not overwrite:
                raise DuplicateProject(
                    f"A project with id {wanted!r} is already registered "
                    f"({existing[at].name} at {existing[at].root_path}).",
                    suggestion=f"Use id {self.free_id(wanted)!r}, or confirm the overwrite.",
                )
            dumped = project.model_dump(mode="json", by_alias=True, exclude_none=True)
            # Seed 000's entry always has it; null says "not a repository" in the file too.
            dumped["defaultBranch"] = project.default_branch
            if at is None:
                entries.append(dumped)
            else:
                entries[at] = dumped
            data["projects"] = entries
            return data

        self.file.update(change)
        return project

    def touch(self, project_id: str) -> None:
        """Record an access (``lastAccessed``), at most once a minute per project."""
        now = time.monotonic()
        if now - self._touched.get(project_id, -TOUCH_EVERY_S) < TOUCH_EVERY_S:
            return
        self._touched[project_id] = now
        stamp = iso_z(_now(), "seconds")

        def change(data: Data | None) -> Data:
            data = dict(data or {})
            entries: list[Any] = list(data.get("projects", []))
            for entry in entries:
                if isinstance(entry, dict) and entry.get("id") == project_id:
                    entry["lastAccessed"] = stamp
            data["projects"] = entries
            return data

        self.file.update(change)

    def rename(self, project_id: str, name: str) -> Project:
        """Give a project a new name (its id, root and everything else stay).

        Raises:
            ProjectNotFound, ValidationFailed (an empty name).
        """
        name = name.strip()
        if not name:
            raise ValidationFailed("A project's name cannot be empty.")
        self.get(project_id)  # a clear error naming the projects that exist

        def change(data: Data | None) -> Data:
            data = dict(data or {})
            entries: list[Any] = list(data.get("projects", []))
            if not any(isinstance(e, dict) and e.get("id") == project_id for e in entries):
                raise self._gone(project_id)
            data["projects"] = [
                {**e, "name": name} if isinstance(e, dict) and e.get("id") == project_id else e
                for e in entries
            ]
            return data

        self.file.update(change)
        return self.get(project_id)

    def remove(self, project_id: str) -> Project:
        """Take a project out of the registry; its directory and files are not touched.

        Raises:
            ProjectNotFound.
        """
        project = self.get(project_id)

        def change(data: Data | None) -> Data:
            data = dict(data or {})
            entries: list[Any] = list(data.get("projects", []))
            kept = [e for e in entries if not (isinstance(e, dict) and e.get("id") == project_id)]
            if len(kept) == len(entries):
                raise self._gone(project_id)
            data["projects"] = kept
            return data

        self.file.update(change)
        self._touched.pop(project_id, None)
        return project

    def _gone(self, project_id: str) -> ProjectNotFound:
        return ProjectNotFound(
            f"Project {project_id!r} is no longer in {self.path} (another program changed it).",
            suggestion="Reopen the projects page to see the registry as it is now.",
        )
