"""Project prompts (seed 000), worded for cctui's tools.

A prompt given an unknown ``projectId`` fails (-32602, invalid params) with the structured
``project_not_found`` error as its message, naming the registered ids, as the resources
do: a prompt built around a project nobody registered would send the model off with tools
that all fail.
"""

from __future__ import annotations

from mcp.server import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from cctui.errors import CctuiError
from cctui.mcp_server.errors import from_cctui_error
from cctui.projects import ProjectService


def register(server: MCPServer, projects: ProjectService) -> None:
    """Add the four workflow prompts and seed 000's six slash commands to ``server``."""
    register_slash_commands(server, projects)

    def _which(project_id: str | None) -> str:
        if not project_id:
            return "Which project should we work on? (list_projects shows the registered ones.)"
        try:
            project = projects.registry.get(project_id)
        except CctuiError as exc:
            # An MCPError, as the SDK replaces any other exception's text with a generic one.
            raise MCPError(INVALID_PARAMS, from_cctui_error(exc).model_dump_json()) from None
        return f"We are working on project `{project.id}`."

    @server.prompt(
        name="plan-and-implement",
        title="Plan and implement a feature",
        description="Spec in this conversation, implementation by Claude Code, then review",
    )
    def plan_and_implement(projectId: str | None = None) -> str:  # noqa: N803
        return f"""I'll help you plan and implement a new feature across Claude interfaces.

**Step 1: Planning**
Let's start by creating a detailed spec. I'll ask you:
- What feature are you building?
- What are the key requirements?
- Any technical constraints?

**Step 2: Spec creation**
I'll write a comprehensive spec and save it to the project's docs/ or specs/ with
write_to_project (an existing file is only replaced if you confirm it).

**Step 3: Implementation (Claude Code)**
I'll run Claude Code on the spec with invoke_claude_code, passing the spec as a context
file; its progress streams back here, and its permission requests come to you.

**Step 4: Review**
I'll bring back the files it created and modified, and we review them together
(read_from_project).

**Step 5: Checkpoint**
I'll save a checkpoint with create_checkpoint so you can pick up in the CLI or VS Code.

{_which(projectId)}"""

    @server.prompt(
        name="save-to-project",
        title="Save work to a project",
        description="Save this conversation's artifacts into a registered project",
    )
    def save_to_project(projectId: str | None = None) -> str:  # noqa: N803
        return f"""I'll save our work to your project.

Current artifacts in this conversation:
- [List any specs, docs, or code created]

{_which(projectId)}

I'll save each with write_to_project to the appropriate directory (docs/, specs/, or a
path you choose), and tell you the full path and size of each file written.
"""

    @server.prompt(
        name="continue-in-cli",
        title="Continue in Claude Code",
        description="Hand the current work to Claude Code and bring back the results",
    )
    def continue_in_cli(projectId: str | None = None) -> str:  # noqa: N803
        return f"""I'll hand off our current work to Claude Code for implementation.

Summary of what we've done:
- [Summarize conversation]

What should Claude Code implement? I'll:
1. Create a checkpoint with our current state (create_checkpoint)
2. Run Claude Code on your task (invoke_claude_code)
3. Stream its progress updates back here
4. Return the files it changed, and its summary, for review

{_which(projectId)} Ready to proceed?"""

    @server.prompt(
        name="project-status",
        title="Project status",
        description="Checkpoints, Claude Code tasks, recent files and git status of a project",
    )
    def project_status(projectId: str | None = None) -> str:  # noqa: N803
        return f"""I'll give you a complete overview of your project's current state
(get_project_status with includeGitStatus=true):
- Recent checkpoints and their next actions
- Claude Code task history
- Recently written files
- Git branch and uncommitted changes (if it is a repository)

{_which(projectId)}"""


def _active(project_id: str | None) -> str:
    """Which project a slash command works on: the one named, else the conversation's."""
    if project_id:
        return f"the project `{project_id}`"
    return (
        "the active project (the one set with /project in this conversation; if none was "
        "set, ask me which one, with list_projects to show them)"
    )


def register_slash_commands(server: MCPServer, projects: ProjectService) -> None:
    """Seed 000's slash commands, as prompts with the seed's names and arguments: an MCP
    client offers a server's prompts as its slash commands (/projects, /project, /save,
    /implement, /checkpoint, /status)."""

    def _known(project_id: str) -> str:
        try:
            project = projects.registry.get(project_id)
        except CctuiError as exc:
            raise MCPError(INVALID_PARAMS, from_cctui_error(exc).model_dump_json()) from None
        return f"`{project.id}` ({project.name}, {project.root_path})"

    @server.prompt(name="projects", description="Quick list of registered projects")
    def projects_command() -> str:
        return """Call list_projects and show the registered projects as a table, one line each:
id, root path, Active/Inactive, last accessed (e.g. "2 hours ago"), and whether it has
Claude state. Start with "📁 Registered Projects:" and end with
"Use register_project to add new projects."."""

    @server.prompt(name="project", description="Set the active project for this conversation")
    def project_command(projectId: str) -> str:  # noqa: N803
        which = _known(projectId)
        return f"""From now on, the active project of this conversation is {which}.
1. Call get_project_status with projectId="{projectId}" and includeGitStatus=true.
2. Read the resource claude-code://{projectId}/session (the session state).
3. Show "✅ Active project: <name>", its root path, the recent activity (checkpoints and
   Claude Code tasks, newest first, with times like "2 hours ago"), then one line:
   "<n> checkpoints available | <n> files modified | Git: <branch> branch".
4. Ask: "What would you like to work on?\""""

    @server.prompt(name="save", description="Save the latest artifact to the active project")
    def save_command(filePath: str, projectId: str | None = None) -> str:  # noqa: N803
        if projectId:
            _known(projectId)
        return f"""Save the most recent artifact of this conversation (the last spec, document or
code block) to {_active(projectId)} at `{filePath}`: call write_to_project with that
projectId, filePath="{filePath}" and the artifact as content (createDirs=true). If the file
exists you will be asked whether to overwrite, append or cancel.
Confirm with "✅ Saved to <fullPath> (<size>)"."""

    @server.prompt(name="implement", description="Run Claude Code on a task in the project")
    def implement_command(task: str, projectId: str | None = None) -> str:  # noqa: N803
        if projectId:
            _known(projectId)
        return f"""Run Claude Code on this task in {_active(projectId)}:

{task}

Call invoke_claude_code with that projectId, task set to the text above, and the
conversation's spec files as contextFiles. Say "🚀 Starting Claude Code task...", show its
progress updates as they come ("⏳ <message> (<time>)"), then "✅ Task completed in <duration>"
with the files created and modified, and ask "Ready to review the changes?"."""

    @server.prompt(name="checkpoint", description="Save a checkpoint of this conversation")
    def checkpoint_command(summary: str, projectId: str | None = None) -> str:  # noqa: N803
        if projectId:
            _known(projectId)
        return f"""Create a checkpoint in {_active(projectId)}: call create_checkpoint with that
projectId, summary="{summary}", the files created or modified in this conversation as
artifacts, and the next steps we discussed as nextActions.
Confirm with "✅ Checkpoint saved to <stateFile>" and say how to pick it up:
• Claude Code CLI: cd <rootPath> && claude
• VS Code: the Claude Code extension reads the same .claude/ state."""

    @server.prompt(name="status", description="Status of the active project")
    def status_command(projectId: str | None = None) -> str:  # noqa: N803
        if projectId:
            _known(projectId)
        return f"""Show the status of {_active(projectId)}: call get_project_status with
includeGitStatus=true and show "📊 Project Status: <id>", then the checkpoints (count and
the last one's age), the Claude Code tasks (completed, running), the recent files, git
(branch and uncommitted changes), the last checkpoint's summary, and its next suggested
actions as bullets."""
