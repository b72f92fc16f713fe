"""What goes wrong with projects, as ``CctuiError``s the front ends render as structured errors.

Errors about a path or a file (outside the root, missing, binary...) are ``cctui.fs.errors``:
every room that takes paths raises the same ones.
"""

from __future__ import annotations

from cctui.errors import CctuiError


class ProjectNotFound(CctuiError):
    """No registered project has this id."""

    code = "project_not_found"


class DuplicateProject(CctuiError):
    """A project with this id is already registered (and no overwrite was confirmed)."""

    code = "duplicate_project"


class CorruptFile(CctuiError):
    """A JSON file cctui manages (registry, session state) does not parse; it was backed up
    and is left alone until someone fixes or removes it."""

    code = "corrupt_file"


class WriteCancelled(CctuiError):
    """The user chose cancel when asked about an existing file or a duplicate id."""

    code = "cancelled"
