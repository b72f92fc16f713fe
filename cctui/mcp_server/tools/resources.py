"""Project resources (seed 000): ``claude-code://{projectId}/files``, ``/session``, ``/docs``.

The file tree comes from the project's cached tree (built in the background, refreshed
when files change); it goes out in pages of at most ``MAX_TREE_ENTRIES`` entries and
``MAX_PAGE_BYTES`` of JSON (an MCP client's SSE reader refuses events over 1 MiB): the
seed's ``/files`` is the first page, and each page names the next
(``claude-code://{projectId}/files/{offset}``), so a 100,000-file project is listed whole.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import ParamSpec

import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

from cctui.errors import CctuiError, ValidationFailed
from cctui.mcp_server.errors import from_cctui_error
from cctui.projects import ProjectService, ago
from cctui.projects.errors import ProjectNotFound
from cctui.projects.service import ago_seconds
from cctui.projects.tree import Tree
from cctui.timestamps import iso_z

P = ParamSpec("P")

RENDER_TTL_S = 30.0
MAX_TREE_ENTRIES = 10_000
"""Entries per page at most: a client's context cannot take a 100,000-file listing at once."""
MAX_PAGE_BYTES = 512 * 1024
"""JSON per page at most (entries with long paths make fewer per page)."""


def _when(ts: float | None) -> tuple[str | None, str | None]:
    if ts is None:
        return None, None
    at = datetime.fromtimestamp(ts, UTC)
    return ago(at), iso_z(at, "seconds")


def structured(fn: Callable[P, Awaitable[str]]) -> Callable[P, Awaitable[str]]:
    """A resource read that fails says why: the ``{code, message, retryable, suggestion}``
    JSON as the protocol error's message (an unknown project is "not found", -32602)."""

    @functools.wraps(fn)
    async def read(*args: P.args, **kwargs: P.kwargs) -> str:
        try:
            return await fn(*args, **kwargs)
        except CctuiError as exc:
            text = from_cctui_error(exc).model_dump_json()
            if isinstance(exc, ProjectNotFound):
                raise ResourceNotFoundError(text) from None
            raise ResourceError(text) from None

    return read


def render_tree(head: dict[str, object], tree: Tree, offset: int = 0) -> str:
    """The ``/files`` JSON: ``head`` plus the entries from ``offset``, as many as fit a page;
    ``nextPage`` is the next page's URI while entries remain."""
    items: list[dict[str, object]] = []
    now = time.time()
    size = 0
    end = offset
    for entry in tree.entries[offset : offset + MAX_TREE_ENTRIES]:
        item: dict[str, object] = {"path": entry.path, "type": entry.type}
        if entry.type != "directory":
            item["size"] = entry.size
        if entry.mtime is not None:  # plain arithmetic: datetime per entry is the slow part
            item["modified"] = ago_seconds(now - entry.mtime)
            item["modifiedAt"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(entry.mtime))
        size += len(entry.path) + 100  # the fixed fields and their names, generously
        if items and size > MAX_PAGE_BYTES:
            break
        items.append(item)
        end += 1
    return json.dumps(
        {
            **head,
            "source": tree.source,
            "builtAt": _when(tree.built_at)[1],
            "files": tree.files,
            "totalEntries": len(tree.entries),
            "truncated": len(tree.entries) > end,
            "offset": offset,
            "nextPage": (
                f"claude-code://{head['project']}/files/{end}" if len(tree.entries) > end else None
            ),
            "tree": items,
        }
    )


def register(server: MCPServer, projects: ProjectService) -> None:
    """Add the project resources to ``server``."""
    # The last /files text per project: re-sent while the tree is the same object (and the
    # "2 hours ago" strings are not much older than RENDER_TTL_S).
    rendered: dict[tuple[str, int], tuple[Tree, bool, float, str]] = {}

    @server.resource(
        "claude-code://projects",
        name="projects",
        title="Registered projects",
        description="Every registered project (id, name, root, active)",
        mime_type="application/json",
    )
    async def project_list() -> str:
        rows = await anyio.to_thread.run_sync(projects.projects, True)
        return json.dumps(
            {
                "projects": [
                    {"id": p.id, "name": p.name, "rootPath": p.root_path, "active": p.active}
                    for p in rows
                ]
            }
        )

    @server.resource(
        "claude-code://{projectId}/files",
        name="project-files",
        title="Project file tree",
        description="The project's files and directories (size, modified); .git and "
        "git-ignored files are left out",
        mime_type="application/json",
    )
    @structured
    async def project_files(projectId: str) -> str:  # noqa: N803 -- the seed's name
        return await files_page(projectId, 0)

    @server.resource(
        "claude-code://{projectId}/files/{offset}",
        name="project-files-page",
        title="Project file tree, from an entry on",
        description="The file tree from entry N on, one page (at most "
        f"{MAX_TREE_ENTRIES} entries); /files is the first page and each page's nextPage "
        "names the next",
        mime_type="application/json",
    )
    @structured
    async def project_files_page(projectId: str, offset: str) -> str:  # noqa: N803
        if not offset.isdigit():
            raise ValidationFailed(
                f"{offset!r} is not an entry offset.",
                suggestion="Follow the previous page's nextPage.",
            )
        return await files_page(projectId, int(offset))

    async def files_page(projectId: str, page: int) -> str:  # noqa: N803 -- page: an offset
        project = await anyio.to_thread.run_sync(projects.get, projectId)
        # The cached tree at once; a change made meanwhile shows as "refreshing" until the
        # background rebuild lands (a 100,000-file rebuild takes seconds, a read must not).
        tree = await projects.tree(projectId)
        refreshing = projects.trees.refreshing(project.id)
        hit = rendered.get((project.id, page))
        now = time.monotonic()
        if (
            hit is not None
            and hit[0] is tree
            and hit[1] == refreshing
            and now - hit[2] < RENDER_TTL_S
        ):
            return hit[3]
        head = {"project": project.id, "rootPath": project.root_path, "refreshing": refreshing}
        text = await anyio.to_thread.run_sync(render_tree, head, tree, page)
        rendered[(project.id, page)] = (tree, refreshing, now, text)
        return text

    @server.resource(
        "claude-code://{projectId}/session",
        name="project-session",
        title="Project session state",
        description="Checkpoints, Claude Code tasks and artifacts (.claude/session_state.json)",
        mime_type="application/json",
    )
    @structured
    async def project_session(projectId: str) -> str:  # noqa: N803
        state, _path = await anyio.to_thread.run_sync(projects.state, projectId)
        data = state.model_dump(mode="json", by_alias=True, exclude_none=True)
        # Seed 000's format always has sessionId (null until a session is known); without one
        # of its own, the state's session is the one its newest Claude Code task ran in.
        return json.dumps({**data, "sessionId": state.current_session_id()})

    @server.resource(
        "claude-code://{projectId}/docs",
        name="project-docs",
        title="Project documentation",
        description="Every spec/doc file under the project's specPaths as one markdown document",
        mime_type="text/markdown",
    )
    @structured
    async def project_docs(projectId: str) -> str:  # noqa: N803
        tree = await projects.tree(projectId)
        return await anyio.to_thread.run_sync(projects.docs, projectId, tree)
