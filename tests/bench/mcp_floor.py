"""The MCP floor for ``bench_turns``: the mcp SDK's own server, with nothing of cctui's in it.

    python -m tests.bench.mcp_floor (--stdio | --http PORT) CLI HOME PROJECT STATE

One tool, ``turn(prompt)``, drives one warm ``ClaudeSDKClient`` (the bench's baseline, with
the options cctui's driver builds) through a turn and returns its reply. ``bench_turns`` runs
it in a process of its own, as it runs ``cctui serve``, and calls it with the same client, so
what a turn through it costs over SDK-direct is what the mcp SDK's transports and pipelines
cost per call: the least any MCP server built on them can add. The environment (the fake
API's URL, the throwaway ``HOME``) comes from the bench's process.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from pydantic import BaseModel


class TurnOut(BaseModel):
    """A turn's outcome, shaped like the part of ``claude_send_message``'s the bench reads."""

    reason: str
    """``turn_ended``, or what went wrong."""
    reply: str | None
    """The turn's result text."""


async def serve(args: argparse.Namespace) -> None:
    from mcp.server.mcpserver import MCPServer

    from tests.bench.bench_turns import Offline, sdk_session, sdk_turn

    env = Offline(args.home, args.project, args.state, args.cli)
    server = MCPServer("floor")
    async with sdk_session(env) as (client, _):

        @server.tool()
        async def turn(prompt: str) -> TurnOut:
            """Send ``prompt`` to the warm session and wait for its result."""
            try:
                return TurnOut(reason="turn_ended", reply=await sdk_turn(client, prompt))
            except RuntimeError:
                return TurnOut(reason="error", reply=None)

        if args.http is not None:
            await server.run_streamable_http_async(host="127.0.0.1", port=args.http)
        else:
            await server.run_stdio_async()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    how = parser.add_mutually_exclusive_group(required=True)
    how.add_argument("--stdio", action="store_true")
    how.add_argument("--http", type=int, metavar="PORT")
    for name in ("cli", "home", "project", "state"):
        parser.add_argument(name, type=Path)
    asyncio.run(serve(parser.parse_args()))


if __name__ == "__main__":
    main()
