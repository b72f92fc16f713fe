"""A package's names imported from their modules when first used (PEP 562).

``cctui.core`` and ``cctui.claude`` export their rooms' names this way: a one-shot command
that needs one of their modules does not pay for the others at start.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, where: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """The package's module ``__getattr__``: ``where`` maps each exported name to the module
    it lives in; a name is imported when first asked for, then kept in ``namespace`` (the
    package's ``globals()``), so it is looked up once."""

    def attribute(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return attribute
