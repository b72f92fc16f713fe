"""Read-only view of Claude Code's own files: history.jsonl, transcripts, running-process files.

Incremental and lazy: remembers offsets, never parses whole transcripts to build a list.
Imports ``config`` and claude-agent-sdk's transcript readers; never core, textual or mcp.
"""
