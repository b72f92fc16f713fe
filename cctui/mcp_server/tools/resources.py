"""Project resources (seed 000): ``claude-code://{projectId}/files``, ``/session``, ``/docs``.

The file tree comes from the project's cached tree (built in the background, refreshed
when files change); at most ``MAX_TREE_ENTRIES`` entries go out, with the total.
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

from cctui.errors import CctuiError
from cctui.mcp_server.errors import from_cctui_error
from cctui.projects import ProjectService, ago
from cctui.projects.errors import ProjectNotFound
from cctui.projects.service import ago_seconds
from cctui.projects.tree import Tree
from cctui.timestamps import iso_z

P = ParamSpec("P")

RENDER_TTL_S = 30.0
MAX_TREE_ENTRIES = 10_000
"""A client's context cannot take a 100,000-file listing; the rest is counted, not sent."""


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


def render_tree(head: dict[str, object], tree: Tree) -> str:
    """The ``/files`` JSON: ``head`` plus the first ``MAX_TREE_ENTRIES`` entries."""
    items = []
    now = time.time()
    for entry in tree.entries[:MAX_TREE_ENTRIES]:
        item: dict[str, object] = {"path": entry.path, "type": entry.type}
        if entry.type != "directory":
            item["size"] = entry.size
        if entry.mtime is not None:  # plain arithmetic: datetime per entry is the slow part
            item["modified"] = ago_seconds(now - entry.mtime)
            item["modifiedAt"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(entry.mtime))
        items.append(item)
    return json.dumps(
        {
            **head,
            "source": tree.source,
            "builtAt": _when(tree.built_at)[1],
            "files": tree.files,
            "totalEntries": len(tree.entries),
            "truncated": len(tree.entries) > MAX_TREE_ENTRIES,
            "tree": items,
        }
    )


def register(server: MCPServer, projects: ProjectService) -> None:
    """Add the project resources to ``server``."""
    # The last /files text per project: re-sent while the tree is the same object (and the
    # "2 hours ago" strings are not much older than RENDER_TTL_S).
    rendered: dict[str, tuple[Tree, bool, float, str]] = {}

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
        project = await anyio.to_thread.run_sync(projects.get, projectId)
        # The cached tree at once; a change made meanwhile shows as "refreshing" until the
        # background rebuild lands (a 100,000-file rebuild takes seconds, a read must not).
        tree = await projects.tree(projectId)
        refreshing = projects.trees.refreshing(project.id)
        hit = rendered.get(project.id)
        now = time.monotonic()
        if (
            hit is not None
            and hit[0] is tree
            and hit[1] == refreshing
            and now - hit[2] < RENDER_TTL_S
        ):
            return hit[3]
        head = {"project": project.id, "rootPath": project.root_path, "refreshing": refreshing}
        text = await anyio.to_thread.run_sync(render_tree, head, tree)
        rendered[project.id] = (tree, refreshing, now, text)
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
