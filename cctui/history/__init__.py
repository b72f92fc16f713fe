"""Read-only view of Claude Code's own files: history.jsonl, transcripts, running-process files.

Incremental and lazy: remembers offsets, never parses whole transcripts to build a list.
Imports ``config`` and claude-agent-sdk's transcript readers; never core, textual or mcp.

Public API: ``HistoryIndex`` (the session list, ``refresh``/``arefresh``/``watch``),
``read_transcript``/``aread_transcript`` (paged messages of one session), the models, and
``one_shot_command`` (a command's lighter load of the SDK's transcript helpers).
"""

from cctui.history._sdk import one_shot_command
from cctui.history.index import HistoryIndex
from cctui.history.models import (
    HistoryPrompt,
    IndexChange,
    Problems,
    RunningProcess,
    SessionSummary,
    ToolCall,
    ToolResult,
    TranscriptMessage,
    TranscriptPage,
)
from cctui.history.reader import TranscriptUnreadable, aread_transcript, read_transcript

__all__ = [
    "HistoryIndex",
    "HistoryPrompt",
    "IndexChange",
    "Problems",
    "RunningProcess",
    "SessionSummary",
    "ToolCall",
    "ToolResult",
    "TranscriptMessage",
    "TranscriptPage",
    "TranscriptUnreadable",
    "aread_transcript",
    "one_shot_command",
    "read_transcript",
]
