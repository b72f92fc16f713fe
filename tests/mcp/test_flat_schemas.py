"""Flattened output schemas accept exactly what pydantic's schemas accept, without $ref/anyOf."""

from __future__ import annotations

import json
from typing import Any, Literal

import jsonschema  # type: ignore[import-untyped]  # what the mcp client checks results with
from pydantic import BaseModel, Field

from cctui.mcp_server.schemas.flat import flatten
from cctui.mcp_server.server import CctuiMCPServer
from tests.mcp.conftest import client


class Rule(BaseModel):
    """A nested model: pydantic refers to it from elsewhere."""

    rules: list[str]
    file: str


class Item(BaseModel):
    id: str
    kind: Literal["permission", "plan"]
    rule: Rule | None = None
    note: str | None = Field(default=None, description="Why")
    level: Literal["low", "high"] | None = None
    fixed: Literal["x"] | None = None


class Out(BaseModel):
    items: list[Item]
    count: int | None = None
    first: Item | None = None
    extra: dict[str, Any] | None = None


class Node(BaseModel):
    """Recursive: cannot be written in place."""

    name: str
    children: list[Node] = []


GOOD: list[dict[str, Any]] = [
    {"items": []},
    {"items": [{"id": "a", "kind": "plan"}], "count": None, "first": None},
    {"items": [{"id": "a", "kind": "plan", "rule": {"rules": ["Bash"], "file": "f"}}], "count": 3},
    {"items": [{"id": "a", "kind": "permission", "level": None, "fixed": None, "note": "n"}]},
    {"items": [], "first": {"id": "b", "kind": "plan", "level": "high", "fixed": "x"}},
    {"items": [], "extra": {"k": 1}},
]
BAD: list[Any] = [
    {},
    None,
    {"items": [{"id": "a", "kind": "other"}]},
    {"items": [{"id": "a"}]},
    {"items": [], "count": "3"},
    {"items": [], "count": 1.5},
    {"items": [], "first": {"id": "b"}},
    {"items": [], "first": {"id": "b", "kind": "plan", "rule": {"rules": "Bash", "file": "f"}}},
    {"items": [], "first": {"id": "b", "kind": "plan", "rule": {"rules": []}}},
    {"items": [{"id": "a", "kind": "plan", "level": "mid"}]},
    {"items": [{"id": "a", "kind": "plan", "fixed": "y"}]},
    {"items": [{"id": "a", "kind": "plan", "note": 3}]},
    {"items": [], "extra": []},
]


def test_flat_schema_accepts_and_refuses_the_same_documents() -> None:
    original = Out.model_json_schema()
    flat = flatten(original)
    text = json.dumps(flat)
    assert "$ref" not in text and "$defs" not in text
    assert '"anyOf"' not in text  # every optional here is a plain typed schema
    assert flat["properties"]["first"]["type"] == ["object", "null"]
    level = flat["properties"]["items"]["items"]["properties"]["level"]
    assert level["enum"] == ["low", "high", None]
    assert flat["properties"]["items"]["items"]["properties"]["note"]["description"] == "Why"
    jsonschema.Draft202012Validator.check_schema(flat)
    before = jsonschema.Draft202012Validator(original)
    after = jsonschema.Draft202012Validator(flat)
    for doc in GOOD:
        assert before.is_valid(doc) and after.is_valid(doc), doc
    for doc in BAD:
        assert not before.is_valid(doc), doc
        assert not after.is_valid(doc), doc


def test_a_recursive_schema_is_left_as_pydantic_wrote_it() -> None:
    original = Node.model_json_schema()
    assert flatten(original) is original


async def test_every_tool_publishes_a_flat_valid_output_schema(server: CctuiMCPServer) -> None:
    async with client(server) as c:
        tools = (await c.list_tools()).tools
        with_output = [t for t in tools if t.output_schema is not None]
        assert len(with_output) >= 20
        for tool in with_output:
            schema = tool.output_schema
            assert schema is not None
            jsonschema.Draft202012Validator.check_schema(schema)
            assert "$ref" not in json.dumps(schema), tool.name
        send = next(t for t in tools if t.name == "claude_send_message").output_schema
        assert send is not None
        session = send["properties"]["session"]
        assert session["type"] == "object" and "sessionId" in session["required"]


def test_flattening_leaves_its_input_alone() -> None:
    original = Out.model_json_schema()
    copy = json.loads(json.dumps(original))
    flatten(original)
    assert original == copy
