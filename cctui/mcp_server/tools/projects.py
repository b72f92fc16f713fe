"""Project tools (seed 000): thin wrappers over ``ProjectService``.

Blocking disk work runs in a worker thread. An existing file (``write_to_project``) or a
taken id (``register_project``) is settled by one resolver: the client is asked by
elicitation when it can, else the human at the TUI through a ``confirmation`` input, else
the call fails with a structured error that says how to proceed.

No ``from __future__ import annotations``: the SDK reads ``Resolve`` markers from the
evaluated annotations.
"""
# ruff: noqa: N803 -- parameter names are the wire names (camelCase, as in the seed)

from pathlib import Path
from typing import Annotated, Any

import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.mcpserver import (
    Context,
    ElicitationResult,
    Resolve,
)
from pydantic import Field

from cctui.core import SessionManager
from cctui.fs.errors import FileAlreadyExists
from cctui.mcp_server.asking.confirming import NoQuestion, ask_or_refuse, choice_of
from cctui.mcp_server.asking.decisions import client_label
from cctui.mcp_server.schemas.common import READ, WRITE
from cctui.mcp_server.schemas.projects import (
    CheckpointOut,
    ChoiceForm,
    GitStatusOut,
    OverwriteForm,
    ProjectItem,
    ProjectListOut,
    ProjectStatusOut,
    ReadOut,
    RegisterOut,
    TaskItem,
    WriteOut,
)
from cctui.projects import Checkpoint, ProjectService, ago
from cctui.projects.errors import DuplicateProject, WriteCancelled
from cctui.projects.registry import ID_PATTERN
from cctui.timestamps import iso_z_or_none

ProjectId = Annotated[
    str, Field(min_length=1, max_length=64, description="ID of a registered project")
]
FilePath = Annotated[
    str,
    Field(min_length=1, max_length=4096, description="Relative path within the project"),
]


def register(server: MCPServer, manager: SessionManager, projects: ProjectService) -> None:
    """Add the project tools (seed 000) to ``server``."""

    def project_root(project_id: str) -> Path:
        return projects.registry.get(project_id).root.resolve()

    async def run(fn: Any, *args: Any, **kwargs: Any) -> Any:
        return await anyio.to_thread.run_sync(lambda: fn(*args, **kwargs))

    # -- register_project ----------------------------------------------------------------

    async def ask_duplicate(name: str, id: str | None, ctx: Context) -> Any:
        if id is None:
            return NoQuestion()  # a generated id is always free
        existing = next((p for p in await run(projects.projects, True) if p.id == id), None)
        if existing is None:
            return NoQuestion()
        free = projects.registry.free_id(id)
        message = (
            f"Project id '{id}' is already registered ({existing.name} at "
            f"{existing.root_path}). Overwrite it with '{name}', or cancel?"
        )
        return await ask_or_refuse(
            ctx,
            manager,
            subject=f"project:{id}",
            title="Project id taken",
            message=message,
            form=OverwriteForm,
            choices=("overwrite", "cancel"),
            refuse=DuplicateProject(
                f"A project with id {id!r} is already registered ({existing.root_path}).",
                suggestion=f"Use id {free!r} instead, or run cctui's TUI / a client that "
                "supports elicitation to confirm an overwrite.",
            ),
        )

    @server.tool(annotations=WRITE)
    async def register_project(
        name: Annotated[str, Field(min_length=1, max_length=200, description="Project name")],
        rootPath: Annotated[
            str, Field(min_length=1, description="Absolute path to the project root")
        ],
        ctx: Context,
        answer: Annotated[ElicitationResult[OverwriteForm], Resolve(ask_duplicate)],
        id: Annotated[
            str | None,
            Field(
                pattern=ID_PATTERN,
                max_length=64,
                description="Unique ID (auto-generated from the name if not provided)",
            ),
        ] = None,
        specPaths: Annotated[
            list[str] | None,
            Field(description="Relative paths for specs/docs (default: ['docs/', 'specs/'])"),
        ] = None,
    ) -> RegisterOut:
        """Register a project directory so the other project tools can work in it."""
        choice, decided_by = choice_of(answer)
        if choice is not None and decided_by is None:
            decided_by = f"mcp:{client_label(ctx)}"
        if choice == "cancel":
            raise WriteCancelled(
                f"Not registered: project id {id!r} is taken and the overwrite was cancelled.",
                suggestion=f"Use another id, e.g. {projects.registry.free_id(id or '')!r}.",
            )
        project = await run(
            projects.register,
            name,
            rootPath,
            project_id=id,
            spec_paths=specPaths,
            overwrite=choice == "overwrite",
        )
        projects.trees.prefetch(project.id, project.root)
        return RegisterOut(
            success=True,
            project_id=project.id,
            message=f"Project '{project.name}' registered at {project.root_path}",
            root_path=project.root_path,
            overwritten=choice == "overwrite",
            decided_by=decided_by,
        )

    @server.tool(annotations=READ)
    async def list_projects(
        includeInactive: Annotated[bool, Field(description="Also list inactive projects")] = False,
    ) -> ProjectListOut:
        """List all registered projects with status."""

        def rows() -> list[ProjectItem]:
            return [
                ProjectItem(
                    id=p.id,
                    name=p.name,
                    root_path=p.root_path,
                    active=p.active,
                    last_accessed=ago(p.last_accessed),
                    last_accessed_at=iso_z_or_none(p.last_accessed),
                    has_claude_state=projects.has_claude_state(p),
                    spec_paths=p.spec_paths,
                )
                for p in projects.projects(includeInactive)
            ]

        return ProjectListOut(projects=await run(rows), registry_path=str(projects.registry.path))

    # -- write_to_project ----------------------------------------------------------------

    async def ask_existing(projectId: str, filePath: str, overwrite: bool, ctx: Context) -> Any:
        if overwrite or not await run(projects.file_exists, projectId, filePath):
            return NoQuestion()
        message = (
            f"File '{filePath}' already exists in project {projectId}. Overwrite it (replace "
            "its content), append to it, or cancel?"
        )
        return await ask_or_refuse(
            ctx,
            manager,
            subject=f"project:{projectId}",
            title="File exists",
            message=message,
            form=ChoiceForm,
            choices=("overwrite", "append", "cancel"),
            refuse=FileAlreadyExists(
                f"{filePath} already exists in {projectId}, and nobody could be asked whether "
                "to replace it.",
                suggestion="Call again with overwrite=true to replace it, or choose another "
                "filePath.",
            ),
        )

    @server.tool(annotations=WRITE)
    async def write_to_project(
        projectId: ProjectId,
        filePath: FilePath,
        content: Annotated[str, Field(description="File content to write")],
        ctx: Context,
        answer: Annotated[ElicitationResult[ChoiceForm], Resolve(ask_existing)],
        createDirs: Annotated[
            bool, Field(description="Create parent directories if they don't exist")
        ] = True,
        overwrite: Annotated[
            bool, Field(description="Overwrite if the file exists (asks you if false)")
        ] = False,
    ) -> WriteOut:
        """Write content to a file in a registered project (atomically).

        An existing file is replaced only with overwrite=true or when you confirm it.
        """
        choice, decided_by = choice_of(answer)
        if choice == "cancel":
            raise WriteCancelled(
                f"{filePath} was left unchanged (cancelled).",
                suggestion="Choose another filePath, or pass overwrite=true.",
            )
        mode = "overwrite" if overwrite else (choice or "create")
        result = await run(
            projects.write, projectId, filePath, content, mode=mode, create_dirs=createDirs
        )
        projects.trees.note_file(projectId, str(result.path.relative_to(project_root(projectId))))
        return WriteOut(
            success=True,
            full_path=str(result.path),
            action=result.action,
            bytes=result.bytes,
            decided_by=decided_by
            if decided_by
            else (f"mcp:{client_label(ctx)}" if choice else None),
            note=result.note,
        )

    @server.tool(annotations=READ)
    async def read_from_project(
        projectId: ProjectId,
        filePath: FilePath,
        startLine: Annotated[
            int | None, Field(ge=1, description="Read from line N (1-indexed)")
        ] = None,
        endLine: Annotated[
            int | None, Field(ge=1, description="Read to line N (1-indexed)")
        ] = None,
    ) -> ReadOut:
        """Read a text file (or a line range of it) from a registered project."""
        got = await run(projects.read, projectId, filePath, startLine, endLine)
        return ReadOut(
            project_id=projectId,
            file_path=filePath,
            full_path=str(got.path),
            content=got.content,
            start_line=got.start_line,
            end_line=got.end_line,
            total_lines=got.total_lines,
            size=got.size,
            truncated=got.truncated,
            has_more=got.has_more,
            note=got.note,
        )

    # -- checkpoints and status ----------------------------------------------------------

    @server.tool(annotations=WRITE)
    async def create_checkpoint(
        projectId: ProjectId,
        summary: Annotated[
            str, Field(min_length=1, description="Brief description of the current state")
        ],
        ctx: Context,
        nextActions: Annotated[
            list[str] | None, Field(description="Suggested next steps for CLI/VS Code")
        ] = None,
        artifacts: Annotated[
            list[str] | None, Field(description="Files created/modified in this session")
        ] = None,
        conversationId: Annotated[
            str | None, Field(description="Your conversation id, kept with the checkpoint")
        ] = None,
    ) -> CheckpointOut:
        """Save the current conversation state to the project for pickup in the CLI or VS Code."""
        checkpoint = Checkpoint(
            source=client_label(ctx),
            summary=summary,
            next_actions=list(nextActions or ()),
            artifacts=list(artifacts or ()),
            conversation_id=conversationId,
        )
        state, path = await run(projects.checkpoint, projectId, checkpoint)
        return CheckpointOut(
            success=True,
            state_file=str(path),
            timestamp=checkpoint.timestamp,
            checkpoints=len(state.checkpoints),
            message=f"Checkpoint saved to {path}",
        )

    @server.tool(annotations=READ)
    async def get_project_status(
        projectId: ProjectId,
        includeGitStatus: Annotated[
            bool, Field(description="Include git branch and uncommitted changes")
        ] = False,
    ) -> ProjectStatusOut:
        """Project overview: checkpoints, Claude Code task history, recent files, git status."""
        st = await run(projects.status, projectId, includeGitStatus)
        if includeGitStatus:
            projects.watch(projectId)  # later calls reuse git status until something changes
        last = st.state.checkpoints[-1] if st.state.checkpoints else None
        tasks = [
            TaskItem(
                task_id=t.task_id,
                status=t.status,
                summary=t.summary,
                command=t.command,
                completed_at=ago(t.end_time),
                session_id=t.session_id,
            )
            for t in reversed(st.state.claude_code_tasks[-20:])
        ]
        return ProjectStatusOut(
            project_id=st.project.id,
            name=st.project.name,
            root_path=st.project.root_path,
            checkpoints=len(st.state.checkpoints),
            last_checkpoint=f"{ago(last.timestamp)}: {last.summary}" if last else None,
            next_actions=last.next_actions if last else [],
            claude_code_tasks=tasks,
            recent_files=st.recent_files,
            git_status=(
                GitStatusOut(branch=st.git.branch, uncommitted=st.git.uncommitted)
                if st.git is not None
                else None
            ),
            state_file=str(st.state_path),
        )
