"""A seed-004 client: calls a tool by the seed's name with the seed's arguments and parses
the answer with the seed's own schema, as its TypeScript client does
(``JSON.parse(result.content[0].text)``, then ``<Tool>ResponseSchema.parse``)."""

from __future__ import annotations

import json
from typing import Any

from tests.contracts.seed004.schemas import ErrorResponse, validate


async def call(c: Any, tool: str, **args: Any) -> dict[str, Any]:
    """Call ``tool``; the text and the structured result both parse with its schema."""
    result = await c.call_tool(tool, args)
    text = result.content[0].text
    assert not result.is_error, text
    body: dict[str, Any] = json.loads(text)
    validate(tool, body)
    assert result.structured_content is not None
    validate(tool, result.structured_content)
    return body


async def fails(c: Any, tool: str, **args: Any) -> ErrorResponse:
    """Call ``tool`` expecting the seed's error envelope."""
    result = await c.call_tool(tool, args)
    assert result.is_error, result.content[0].text
    return ErrorResponse.model_validate(json.loads(result.content[0].text))
