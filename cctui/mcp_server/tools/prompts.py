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
    """Add the four workflow prompts to ``server``."""

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
