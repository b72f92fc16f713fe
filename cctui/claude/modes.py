"""The permission modes the ``claude`` CLI accepts: a leaf of the adapter, so the core's
models can name them without importing the frames (a one-shot command such as ``cctui
sessions`` reads session records, not frames)."""

from __future__ import annotations

from typing import Literal

PermissionModeName = Literal[
    "default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"
]
PERMISSION_MODES: tuple[PermissionModeName, ...] = (
    "default",
    "acceptEdits",
    "plan",
    "bypassPermissions",
    "dontAsk",
    "auto",
)
"""Every mode the CLI accepts (``set_permission_mode`` and ``--permission-mode``)."""
