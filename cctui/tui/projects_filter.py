"""``project:NAME`` in the filter also means a registered project (seed 000): its id, name or
name slug becomes its root directory, so the list shows every session under that root."""

from __future__ import annotations

from pathlib import Path

from cctui.core.catalog import CatalogQuery
from cctui.errors import CctuiError
from cctui.projects import ProjectRegistry
from cctui.projects.registry import slug


def project_roots(registry: ProjectRegistry) -> dict[str, Path]:
    """Lowercased id, name and slug -> root of every registered project."""
    try:
        projects = registry.all()
    except CctuiError:
        return {}  # a broken registry shows in the projects view, not here
    roots: dict[str, Path] = {}
    for p in projects:
        for key in (p.id, p.name, slug(p.name)):
            roots.setdefault(key.casefold(), p.root)
    return roots


def with_registered_project(query: CatalogQuery, registry: ProjectRegistry) -> CatalogQuery:
    """``query`` with a registered project's name swapped for its root directory."""
    wanted = (query.project or "").strip()
    if not wanted or "/" in wanted:
        return query
    root = project_roots(registry).get(wanted.casefold())
    return query if root is None else query.model_copy(update={"project": str(root)})
