"""Work the libraries redo for every app and every MCP server a test builds, done once per
test process instead. Same results, computed once: nothing a test checks changes.

- **Textual's parsed stylesheets.** Each ``App`` parses every stylesheet it uses (the
  widgets' ``DEFAULT_CSS`` and cctui's ``styles/*.tcss``) into rule sets, and again when
  the theme's variables are set; hundreds of Pilot tests parse the same text. Textual
  keeps parsed rules per ``Stylesheet`` (``_parse_cache``, keyed by the text and where it
  came from) and reuses them on every re-parse of it: rule sets are never changed once
  parsed. Here they are kept per process, keyed also by the variables they were parsed
  with, so another theme parses afresh.
- **The MCP SDK's tool schemas.** ``build_server`` registers ~50 tools (and prompts and
  resource templates), and for each the SDK builds a pydantic model of its arguments and
  their JSON schema from the function's signature (``Tool.from_function``): about 0.4 s of
  CPU per server, which every MCP test paid for its own fresh server. The tools are
  closures made anew per server, but their code, defaults and annotations are the same, so
  the ``Tool`` built for one is copied for the next with only its function replaced; any
  difference in what the schema is made of (a default, an annotation, a name, a
  description) is part of the key and builds afresh. A ``Resolve`` dependency in an
  annotation is a per-server closure: it enters the key as its code, and the copy gets the
  new server's resolvers and their plans (``find_resolved_parameters``,
  ``build_resolver_plans``, cheap), so a tool never runs another server's resolver; what is
  shared is what the schemas are built from (about 30 ms a tool, seven tools a server).
- **The MCP client's output-schema validators.** A client compiles a JSON Schema validator
  for each tool's output schema the first time it checks a result of it
  (``ClientSession._output_schema_validator``, cached per session); every test has its own
  client. A compiled validator holds nothing but its schema, so one per schema (by its
  JSON text) serves every client of the process.

cctui itself runs one app and one MCP server per process, so it has nothing to share; the
tests call ``install()`` from ``tests/conftest.py``.
"""

from __future__ import annotations

import inspect
import json
from typing import Annotated, Any, get_args, get_origin

from mcp.client.session import ClientSession
from mcp.server.mcpserver.prompts.base import Prompt
from mcp.server.mcpserver.resolve import Resolve, build_resolver_plans, find_resolved_parameters
from mcp.server.mcpserver.resources.templates import ResourceTemplate
from mcp.server.mcpserver.tools.base import Tool
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet

_RULES: dict[tuple[Any, ...], list[RuleSet]] = {}
_BUILT: dict[tuple[Any, ...], Any] = {}
_VALIDATORS: dict[str, Any] = {}


def install() -> None:
    """Share parsed stylesheets and built tool schemas across this process (idempotent)."""
    if getattr(Stylesheet._parse_rules, "shared", False):
        return
    _share_stylesheets()
    for cls in (Tool, Prompt, ResourceTemplate):
        _share_built(cls)
    _share_validators()


def _share_stylesheets() -> None:
    parse = Stylesheet._parse_rules

    def _parse_rules(
        self: Stylesheet,
        css: str,
        read_from: Any,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        variables = tuple(sorted(self._variables.items()))
        key = (css, read_from, is_default_rules, tie_breaker, scope, variables)
        rules = _RULES.get(key)
        if rules is None:
            rules = _RULES[key] = parse(self, css, read_from, is_default_rules, tie_breaker, scope)
        return rules

    _parse_rules.shared = True  # type: ignore[attr-defined]
    Stylesheet._parse_rules = _parse_rules  # type: ignore[method-assign]


def _share_built(model: type[Any]) -> None:
    """``model.from_function`` (a pydantic model with an ``fn`` field) built once per
    function code, arguments, defaults, annotations and docstring; copied per call."""
    build = model.from_function.__func__

    def from_function(cls: type[Any], fn: Any, *args: Any, **kwargs: Any) -> Any:
        inner = inspect.unwrap(fn)
        code = getattr(inner, "__code__", None)
        if code is None:
            return build(cls, fn, *args, **kwargs)
        key = (
            cls,
            code,
            getattr(fn, "__code__", None),
            repr(args),
            repr(sorted(kwargs.items())),
            repr(inner.__defaults__),
            repr(inner.__kwdefaults__),
            _annotations_key(inner.__annotations__),
            inner.__doc__,
        )
        built = _BUILT.get(key)
        if built is None:
            built = _BUILT[key] = build(cls, fn, *args, **kwargs)
        update: dict[str, Any] = {"fn": fn}
        if getattr(built, "resolved_params", None):  # this server's resolvers, never the first's
            resolved = find_resolved_parameters(fn)
            fields = built.fn_metadata.arg_model.model_fields
            names = {field.alias or name for name, field in fields.items()}
            update |= {
                "resolved_params": dict(resolved),
                "resolver_plans": build_resolver_plans(resolved, names),
            }
        return built.model_copy(update=update)

    model.from_function = classmethod(from_function)


def _annotations_key(annotations: dict[str, Any]) -> str:
    """``annotations`` as text, each ``Resolve(fn)`` as its resolver's code (its repr is
    the per-server object's address)."""

    def shape(value: Any) -> Any:
        if isinstance(value, Resolve):
            return ("Resolve", inspect.unwrap(value.fn).__code__)
        if get_origin(value) is Annotated:
            return ("Annotated", *(shape(v) for v in get_args(value)))
        return value

    return repr({name: shape(value) for name, value in annotations.items()})


def _share_validators() -> None:
    compile_ = ClientSession._output_schema_validator

    def _output_schema_validator(
        self: ClientSession, name: str, output_schema: dict[str, Any]
    ) -> Any:
        key = json.dumps(output_schema, sort_keys=True)
        validator = _VALIDATORS.get(key)
        if validator is None:
            validator = _VALIDATORS[key] = compile_(self, name, output_schema)
        self._tool_output_validators[name] = validator
        return validator

    ClientSession._output_schema_validator = _output_schema_validator  # type: ignore[method-assign]
