"""What goes wrong with projects, as ``CctuiError``s the front ends render as structured errors."""

from __future__ import annotations

from cctui.errors import CctuiError


class ProjectNotFound(CctuiError):
    """No registered project has this id."""

    code = "project_not_found"


class DuplicateProject(CctuiError):
    """A project with this id is already registered (and no overwrite was confirmed)."""

    code = "duplicate_project"


class PathNotFound(CctuiError):
    """A project root, file or parent directory does not exist."""

    code = "path_not_found"


class PathNotAccessible(CctuiError):
    """The operating system refused access (permissions)."""

    code = "permission_denied"


class PathOutsideProject(CctuiError):
    """A path that is malformed, or would resolve outside the project root, was refused."""

    code = "path_outside_project"


class FileAlreadyExists(CctuiError):
    """``write_to_project`` on an existing file, and nobody confirmed what to do."""

    code = "file_exists"


class BinaryFile(CctuiError):
    """``read_from_project`` on a file that is not text."""

    code = "binary_file"


class NotAFile(CctuiError):
    """The path names a directory, device, socket or FIFO, not a regular file."""

    code = "not_a_file"


class CorruptFile(CctuiError):
    """A JSON file cctui manages (registry, session state) does not parse; it was backed up
    and is left alone until someone fixes or removes it."""

    code = "corrupt_file"


class WriteCancelled(CctuiError):
    """The user chose cancel when asked about an existing file or a duplicate id."""

    code = "cancelled"
