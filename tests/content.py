"""The text of an MCP result's first block, narrowed so the tests type-check."""

from __future__ import annotations

from mcp.types import (
    CallToolResult,
    GetPromptResult,
    ReadResourceResult,
    TextContent,
    TextResourceContents,
)


def first_text(result: CallToolResult | ReadResourceResult | GetPromptResult) -> str:
    """The text of the first content block; fails the test if that block is not text."""
    if isinstance(result, ReadResourceResult):
        block = result.contents[0]
        assert isinstance(block, TextResourceContents), block
        return block.text
    content = (
        result.messages[0].content if isinstance(result, GetPromptResult) else result.content[0]
    )
    assert isinstance(content, TextContent), content
    return content.text
